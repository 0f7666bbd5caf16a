// The training loop's check of initial_loop_values against the last step outputs (initial_loop_values.hpp).
#include "initial_loop_values.hpp"

#include "hal/support/format.hpp"

namespace rt::tpu {
namespace {

// Python's str ordering: code points, i.e. bytes of UTF-8, a prefix first.
bool name_less(StringView a, StringView b) {
  const size_t common = a.size() < b.size() ? a.size() : b.size();
  for (size_t i = 0; i < common; ++i)
    if (a[i] != b[i]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
  return a.size() < b.size();
}

// The dtypes of `count` named values in name order (TF's nest.flatten of a dict).
template <class NameAt, class DTypeAt>
void dtypes_in_name_order(unsigned count, NameAt name_at, DTypeAt dtype_at, DType* dtypes) {
  unsigned order[kMaxLastStepOutputs];
  for (unsigned i = 0; i < count; ++i) {
    unsigned j = i;
    for (; j > 0 && name_less(name_at(i), name_at(order[j - 1])); --j) order[j] = order[j - 1];
    order[j] = i;
  }
  for (unsigned i = 0; i < count; ++i) dtypes[i] = dtype_at(order[i]);
}

// Python's repr of a list of dtypes: "[tf.float32, tf.int32]".
void append_dtype_list(FormatBuffer& out, const DType* dtypes, unsigned count) {
  out.append('[');
  for (unsigned i = 0; i < count; ++i) format_to(out, "{}tf.{}", i == 0 ? "" : ", ", dtype_name(dtypes[i]));
  out.append(']');
}

}  // namespace

Status check_initial_loop_values(Span<const NamedTensor> initial_loop_values, const StepOutputTable& last_step) {
  if (initial_loop_values.empty()) return Status::ok();
  if (initial_loop_values.size() > kMaxLastStepOutputs)
    return invalid_argument("initial_loop_values: at most {} values, got {}", kMaxLastStepOutputs,
                            initial_loop_values.size());
  const unsigned inputs = static_cast<unsigned>(initial_loop_values.size()), outputs = last_step.size();
  DType input_types[kMaxLastStepOutputs], output_types[kMaxLastStepOutputs];
  dtypes_in_name_order(
      inputs, [&](unsigned i) { return initial_loop_values[i].name; },
      [&](unsigned i) { return initial_loop_values[i].value.dtype; }, input_types);
  dtypes_in_name_order(
      outputs, [&](unsigned i) { return last_step.spec(i).name; }, [&](unsigned i) { return last_step.value(i).dtype; },
      output_types);
  bool equal = inputs == outputs;
  for (unsigned i = 0; equal && i < inputs; ++i) equal = input_types[i] == output_types[i];
  if (equal) return Status::ok();
  FixedString<Status::kMessageCapacity> inputs_text, outputs_text;
  append_dtype_list(inputs_text, input_types, inputs);
  append_dtype_list(outputs_text, output_types, outputs);
  return invalid_argument("Mismatch between input types and output types for training loop body: {} vs {}",
                          inputs_text.view(), outputs_text.view());
}

}  // namespace rt::tpu
