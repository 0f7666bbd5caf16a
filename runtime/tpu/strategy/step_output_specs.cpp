// A replica's last step output specs as bytes and back (step_output_specs.hpp).
#include "step_output_specs.hpp"

namespace rt::tpu {
namespace {

constexpr size_t kMaxNameBytes = 255;
constexpr unsigned kLastReduceOp = static_cast<unsigned>(ReduceOp::kMin);

Status not_an_encoding(unsigned replica, StringView why) {
  return invalid_argument("run_steps_on_dataset: replica {}'s last step output names cannot be read: {}", replica, why);
}

}  // namespace

Result<Tensor> encode_step_output_specs(const StepOutputTable& table, Arena& arena) {
  int64_t bytes = 1;
  for (unsigned k = 0; k < table.size(); ++k) {
    if (table.spec(k).name.size() > kMaxNameBytes)
      return invalid_argument("set_last_step_output: in a pod of boards a name has at most {} characters, '{}' has {}",
                              kMaxNameBytes, table.spec(k).name, table.spec(k).name.size());
    bytes += 3 + static_cast<int64_t>(table.spec(k).name.size());
  }
  const Tensor encoded = RT_TRY(arena.allocate_tensor(DType::kI8, RT_TRY(Shape::make(Span<const int64_t>(&bytes, 1))),
                                                      "the last step output names"));
  uint8_t* out = static_cast<uint8_t*>(encoded.data);
  *out++ = static_cast<uint8_t>(table.size());
  for (unsigned k = 0; k < table.size(); ++k) {
    const LastStepOutputSpec& spec = table.spec(k);
    *out++ = spec.reduced ? 1 : 0;
    *out++ = static_cast<uint8_t>(spec.reduce_op);
    *out++ = static_cast<uint8_t>(spec.name.size());
    for (char c : spec.name) *out++ = static_cast<uint8_t>(c);
  }
  return encoded;
}

Status decode_step_output_specs(const Tensor& encoded, unsigned count, unsigned replica, LastStepOutputSpec* specs) {
  if (encoded.dtype != DType::kI8 || encoded.shape.rank != 1 || !encoded.is_contiguous())
    return not_an_encoding(replica, "not an int8 vector");
  const uint8_t* in = static_cast<const uint8_t*>(encoded.data);
  const size_t size = static_cast<size_t>(encoded.shape.dims[0]);
  if (size < 1 || in[0] != count) return not_an_encoding(replica, "it names another number of values than it gave");
  size_t at = 1;
  for (unsigned k = 0; k < count; ++k) {
    if (size - at < 3 || in[at] > 1 || in[at + 1] > kLastReduceOp || size - at - 3 < in[at + 2])
      return not_an_encoding(replica, "its bytes end early or hold an unknown reduce op");
    specs[k].reduced = in[at] == 1;
    specs[k].reduce_op = static_cast<ReduceOp>(in[at + 1]);
    specs[k].name = StringView(reinterpret_cast<const char*>(in + at + 3), in[at + 2]);
    at += 3 + in[at + 2];
  }
  if (at != size) return not_an_encoding(replica, "bytes follow the last name");
  return Status::ok();
}

}  // namespace rt::tpu
