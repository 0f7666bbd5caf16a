// Padding decisions (which dimensions, which sizes) and padded copies for replicate's maximum_shapes.
#include "dynamic_padding.hpp"

#include <string.h>

#include "runtime/ops/copy.hpp"

namespace rt::tpu {
namespace {

constexpr int64_t kMinimumDynamicSize = 2;  // XLA does not support dynamic dimensions of size 1

int64_t static_size(const Tensor& tensor, unsigned dim) {
  return tensor.shape.real[dim] == tensor.shape.dims[dim] ? tensor.shape.dims[dim] : kUnknownSize;
}

// " ('x')" when the input has a name, else nothing.
FixedString<64> name_suffix(Span<const StringView> names, unsigned input) {
  FixedString<64> text;
  if (input < names.size() && !names[input].empty()) format_to(text, " ('{}')", names[input]);
  return text;
}

Status check_structure(Span<const ReplicaArgs> inputs, Span<const MaximumShape> maximum_shapes) {
  const unsigned num_inputs = static_cast<unsigned>(inputs[0].size());
  if (maximum_shapes.size() != num_inputs)
    return invalid_argument("maximum_shapes must have the structure of inputs[0]: inputs[0] has {} inputs but "
                            "maximum_shapes has {} entries",
                            num_inputs, maximum_shapes.size());
  for (unsigned k = 0; k < num_inputs; ++k) {
    const MaximumShape& maximum = maximum_shapes[k];
    if (!maximum.given) continue;
    if (maximum.rank > kMaxRank)
      return invalid_argument("maximum_shapes[{}] has rank {}; the runtime supports rank {} at most", k, maximum.rank,
                              kMaxRank);
    if (maximum.rank != inputs[0][k].shape.rank)
      return invalid_argument("maximum_shapes must have the structure of inputs[0]: maximum_shapes[{}] {} has rank "
                              "{} but input {} has rank {}",
                              k, tensor_shape_text(maximum), maximum.rank, k, inputs[0][k].shape.rank);
    for (unsigned d = 0; d < maximum.rank; ++d)
      if (maximum.dims[d] < kUnknownSize)
        return invalid_argument("maximum_shapes[{}] has size {} in dimension {}; sizes must be >= 0 or -1 (unknown)", k,
                                maximum.dims[d], d);
  }
  return Status::ok();
}

// Rule 1 for dimension `dim` of input `k`.
bool needs_padding(Span<const ReplicaArgs> inputs, unsigned k, unsigned dim) {
  if (inputs.size() < 2) return false;
  const int64_t first = static_size(inputs[0][k], dim);
  for (const ReplicaArgs& replica : inputs) {
    const int64_t size = static_size(replica[k], dim);
    if (size == kUnknownSize || size != first) return true;
  }
  return false;
}

int64_t runtime_maximum(Span<const ReplicaArgs> inputs, unsigned k, unsigned dim) {
  int64_t maximum = 0;
  for (const ReplicaArgs& replica : inputs)
    if (replica[k].shape.real[dim] > maximum) maximum = replica[k].shape.real[dim];
  return maximum;
}

Status check_ranks(Span<const ReplicaArgs> inputs, unsigned k) {
  for (unsigned r = 1; r < inputs.size(); ++r)
    if (inputs[r][k].shape.rank != inputs[0][k].shape.rank)
      return invalid_argument("Replicas must have matching input ranks to pad input {}: replica 0 had rank {}, "
                              "replica {} had rank {}",
                              k, inputs[0][k].shape.rank, r, inputs[r][k].shape.rank);
  return Status::ok();
}

// Rule 5: every replica's runtime size fits the target of a padded dimension.
Status check_fits(Span<const ReplicaArgs> inputs, unsigned k, unsigned dim, int64_t target, const MaximumShape& maximum,
                  Span<const StringView> names) {
  for (unsigned r = 0; r < inputs.size(); ++r) {
    const int64_t size = inputs[r][k].shape.real[dim];
    if (size > target)
      return invalid_argument("Input {}{} of replica {} has size {} in dimension {}, larger than its maximum shape {} "
                              "allows ({}): an input cannot be padded to a smaller size",
                              k, name_suffix(names, k), r, size, dim, tensor_shape_text(maximum), target);
  }
  return Status::ok();
}

// Rules 1, 2 and 5 for input k, whose maximum shape is given; appends its padding maps (rule 4).
Status plan_input(Span<const ReplicaArgs> inputs, unsigned k, const MaximumShape& maximum, PaddingSpec spec,
                  Span<const StringView> names, PaddingPlan& plan) {
  RT_RETURN_IF_ERROR(check_ranks(inputs, k));
  InputPadding& input = plan.inputs[k];
  input.rank = inputs[0][k].shape.rank;
  for (unsigned d = 0; d < input.rank; ++d) {
    input.dynamic[d] = needs_padding(inputs, k, d);
    input.padded = input.padded || input.dynamic[d];
  }
  if (!input.padded) return Status::ok();
  for (unsigned d = 0; d < input.rank; ++d) {
    if (!input.dynamic[d]) {
      input.target[d] = inputs[0][k].shape.dims[d];
      continue;
    }
    input.target[d] = padded_dimension_size(maximum.dims[d], runtime_maximum(inputs, k, d), spec);
    RT_RETURN_IF_ERROR(check_fits(inputs, k, d, input.target[d], maximum, names));
    plan.maps[plan.num_maps] = PaddingMap{k, d, plan.num_inputs + plan.num_maps};
    ++plan.num_maps;
  }
  return Status::ok();
}

}  // namespace

MaximumShape MaximumShape::of(Span<const int64_t> sizes) {
  MaximumShape shape;
  shape.given = true;
  shape.rank = static_cast<uint8_t>(sizes.size() < 255 ? sizes.size() : 255);
  for (unsigned d = 0; d < sizes.size() && d < kMaxRank; ++d) shape.dims[d] = sizes[d];
  return shape;
}

int64_t next_power_of_two(int64_t value) {
  int64_t power = 1;
  while (power < value) power *= 2;
  return power;
}

int64_t padded_dimension_size(int64_t maximum, int64_t runtime_maximum, PaddingSpec spec) {
  if (maximum != kUnknownSize) return maximum > kMinimumDynamicSize ? maximum : kMinimumDynamicSize;
  const int64_t size = runtime_maximum > kMinimumDynamicSize ? runtime_maximum : kMinimumDynamicSize;
  return spec == PaddingSpec::kPowerOfTwo ? next_power_of_two(size) : size;
}

Result<PaddingPlan> plan_padding(Span<const ReplicaArgs> inputs, Span<const MaximumShape> maximum_shapes,
                                 PaddingSpec spec, Span<const StringView> names) {
  PaddingPlan plan;
  if (inputs.empty()) return plan;
  if (inputs[0].size() > kMaxReplicaInputs)
    return invalid_argument("replicate supports at most {} inputs per replica; got {}", kMaxReplicaInputs,
                            inputs[0].size());
  plan.num_inputs = static_cast<unsigned>(inputs[0].size());
  for (unsigned k = 0; k < plan.num_inputs; ++k) plan.inputs[k].rank = inputs[0][k].shape.rank;
  if (maximum_shapes.empty()) return plan;
  RT_RETURN_IF_ERROR(check_structure(inputs, maximum_shapes));
  for (unsigned k = 0; k < plan.num_inputs; ++k)
    if (maximum_shapes[k].given) RT_RETURN_IF_ERROR(plan_input(inputs, k, maximum_shapes[k], spec, names, plan));
  return plan;
}

Result<Tensor> pad_input(const Tensor& input, const InputPadding& padding, Arena& arena) {
  if (!padding.padded) return input;
  if (input.shape.rank != padding.rank)
    return invalid_argument("pad_input: input of rank {} for a padding of rank {}", input.shape.rank, padding.rank);
  Result<Shape> shape = Shape::make(Span<const int64_t>(padding.target, padding.rank));
  if (!shape) return shape.status();
  Result<Tensor> padded = arena.allocate_tensor(input.dtype, *shape, "a padded replicate input");
  if (!padded) return padded.status();
  memset(padded->data, 0, padded->num_elements() * padded->element_size());
  Tensor source = input;
  Tensor destination = *padded;
  for (unsigned d = 0; d < padding.rank; ++d) {
    const int64_t real = input.shape.real[d];
    if (real > padding.target[d])
      return invalid_argument("pad_input: dimension {} has real size {}, above its padded size {}", d, real,
                              padding.target[d]);
    Result<Tensor> narrowed_source = source.slice(d, 0, real);
    Result<Tensor> narrowed_destination = destination.slice(d, 0, real);
    if (!narrowed_source) return narrowed_source.status();
    if (!narrowed_destination) return narrowed_destination.status();
    source = *narrowed_source;
    destination = *narrowed_destination;
  }
  RT_RETURN_IF_ERROR(copy(source, destination));
  if (!padding.record_real_sizes) return padded;
  for (unsigned d = 0; d < padding.rank; ++d) RT_RETURN_IF_ERROR(padded->shape.set_real_size(d, input.shape.real[d]));
  return padded;
}

ShapeText tensor_shape_text(const MaximumShape& shape) {
  ShapeText text;
  text.append('(');
  for (unsigned d = 0; d < shape.rank && d < kMaxRank; ++d) {
    if (d != 0) text.append(", ");
    if (shape.dims[d] == kUnknownSize) text.append("None");
    else format_to(text, "{}", shape.dims[d]);
  }
  if (shape.rank == 1) text.append(',');
  text.append(')');
  return text;
}

}  // namespace rt::tpu
