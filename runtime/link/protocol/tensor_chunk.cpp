// Tensor chunk encoding and validation (layout in tensor_chunk.hpp).
#include "tensor_chunk.hpp"

namespace rt::link {
namespace {

struct WireDType {
  DType dtype;
  uint8_t code;  // tensorflow/core/framework/types.proto DataType
};
constexpr WireDType kWireDTypes[] = {
    {DType::kF32, 1}, {DType::kF64, 2},   {DType::kI32, 3},   {DType::kI8, 6},   {DType::kC64, 8},
    {DType::kI64, 9}, {DType::kBool, 10}, {DType::kBF16, 14}, {DType::kF16, 19}, {DType::kU32, 22},
};

}  // namespace

uint8_t dtype_wire_code(DType dtype) {
  for (const WireDType& entry : kWireDTypes)
    if (entry.dtype == dtype) return entry.code;
  return 0;
}

Result<DType> dtype_from_wire_code(uint8_t code) {
  for (const WireDType& entry : kWireDTypes)
    if (entry.code == code) return entry.dtype;
  return invalid_argument("tensor dtype code {} is not one the link knows", code);
}

Result<uint64_t> tensor_byte_size(DType dtype, const Shape& shape) {
  if (shape.rank > kMaxRank)
    return invalid_argument("tensor rank {} exceeds the maximum rank {}", shape.rank, kMaxRank);
  for (unsigned d = 0; d < shape.rank; ++d)
    if (shape.dims[d] < 0) return invalid_argument("dimension {} of a tensor is negative ({})", d, shape.dims[d]);
  // The dimensions that are not zero must fit the limit even when another one is zero (an empty
  // tensor): its element count is still computed elsewhere and must not overflow.
  uint64_t bytes = dtype_size(dtype);
  bool empty = false;
  for (unsigned d = 0; d < shape.rank; ++d) {
    const uint64_t size = static_cast<uint64_t>(shape.dims[d]);
    if (size == 0) {
      empty = true;
      continue;
    }
    if (size >= kMaxTensorBytes || bytes > (kMaxTensorBytes - 1) / size)
      return invalid_argument("a {} tensor of shape {} has 2^40 bytes or more, too large for the link",
                              dtype_name(dtype), shape.sizes());
    bytes *= size;
  }
  return empty ? uint64_t{0} : bytes;
}

Status validate_tensor_chunk(const TensorChunk& chunk) {
  if (dtype_wire_code(chunk.dtype) == 0) return invalid_argument("tensor dtype {} has no link code", chunk.dtype);
  Result<uint64_t> total = tensor_byte_size(chunk.dtype, chunk.shape);
  if (!total) return total.status();
  if (chunk.offset > *total || chunk.data.size() > *total - chunk.offset)
    return invalid_argument("tensor chunk [{}, +{}) lies outside the tensor's {} bytes", chunk.offset,
                            chunk.data.size(), *total);
  if (chunk.data.empty() && *total != 0)
    return invalid_argument("empty chunk of a tensor with {} bytes (only empty tensors have empty chunks)", *total);
  return Status::ok();
}

Status write_tensor_chunk(const TensorChunk& chunk, WireWriter& writer) {
  RT_RETURN_IF_ERROR(validate_tensor_chunk(chunk));
  writer.u8(dtype_wire_code(chunk.dtype));
  writer.u8(chunk.shape.rank);
  for (unsigned d = 0; d < chunk.shape.rank; ++d) writer.u64(static_cast<uint64_t>(chunk.shape.dims[d]));
  writer.u64(chunk.offset);
  writer.bytes(chunk.data);
  return Status::ok();
}

Result<TensorChunk> read_tensor_chunk(WireReader& reader) {
  const uint8_t code = reader.u8();
  const uint8_t rank = reader.u8();
  if (reader.failed()) return invalid_argument("tensor chunk is truncated before its rank");
  Result<DType> dtype = dtype_from_wire_code(code);
  if (!dtype) return dtype.status();
  if (rank > kMaxRank) return invalid_argument("tensor chunk has rank {}, the maximum is {}", rank, kMaxRank);
  int64_t dims[kMaxRank];
  for (unsigned d = 0; d < rank; ++d) dims[d] = static_cast<int64_t>(reader.u64());
  TensorChunk chunk;
  chunk.dtype = *dtype;
  chunk.offset = reader.u64();
  if (reader.failed()) return invalid_argument("tensor chunk of rank {} is truncated before its data", rank);
  chunk.data = reader.rest();
  Result<Shape> shape = Shape::make(Span<const int64_t>(dims, rank));
  if (!shape) return shape.status();
  chunk.shape = *shape;
  RT_RETURN_IF_ERROR(validate_tensor_chunk(chunk));
  return chunk;
}

}  // namespace rt::link
