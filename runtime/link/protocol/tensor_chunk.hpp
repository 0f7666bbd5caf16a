// Tensors on the host link. A tensor of any size travels as one or more chunks; each chunk is
// self-describing (it repeats the tensor's dtype and shape) and says where its bytes go, so a
// receiver can write every chunk straight into the destination tensor without reassembly buffers,
// and a lost or reordered chunk shows up as a gap in the offsets.
//
// Chunk layout (little-endian), always the last field of a message payload:
//   offset   size      field
//   0        1         dtype: TensorFlow's DataType number (f32 1, f64 2, i32 3, i8 6, c64 8,
//                      i64 9, bool 10, bf16 14, f16 19, u32 22)
//   1        1         rank r, at most 6
//   2        8 r       dims, int64 each, >= 0
//   2+8r     8         byte offset of this chunk's data in the tensor's bytes, uint64
//   10+8r    rest      data: the next bytes of the tensor (offset + size <= the tensor's size)
// The tensor's bytes are its elements in row-major (C) order, each little-endian: exactly the
// data section of a .npy file of that dtype and shape (bfloat16: the two raw bytes, NumPy's |V2),
// so the host tools turn chunks into .npy files by prepending npy_write_header()'s header. A compact
// binary descriptor rather than a whole .npy blob per message: 10-58 bytes instead of 64-128, and
// nothing but fixed-width fields to validate on the board.
// A chunk carries at least one byte unless the tensor has none (then: one chunk, offset 0, no data).
#pragma once
#include "runtime/dtype/dtype.hpp"
#include "runtime/tensor/shape.hpp"
#include "runtime/link/transport/wire.hpp"

namespace rt::link {

// Tensors on the link are smaller than 1 TiB (keeps size arithmetic far from overflow).
inline constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 40;

struct TensorChunk {
  DType dtype = DType::kF32;
  Shape shape;
  uint64_t offset = 0;       // where `data` starts in the tensor's bytes
  Span<const uint8_t> data;  // points into the parsed payload (or the sender's tensor)
};

// The wire code of a dtype, and back (unknown codes are an error).
uint8_t dtype_wire_code(DType dtype);
Result<DType> dtype_from_wire_code(uint8_t code);

// The number of bytes of a tensor, or an error if it is kMaxTensorBytes or more.
Result<uint64_t> tensor_byte_size(DType dtype, const Shape& shape);

// Bytes a chunk of a rank-`rank` tensor takes before its data.
constexpr size_t tensor_chunk_header_size(unsigned rank) { return 2 + 8 * size_t{rank} + 8; }

// Checks what parse enforces: shape, size limit, data inside the tensor, non-empty unless the
// tensor is.
Status validate_tensor_chunk(const TensorChunk& chunk);

// Appends the chunk (validated first). Errors: invalid chunk; overflow shows in writer.failed().
Status write_tensor_chunk(const TensorChunk& chunk, WireWriter& writer);

// Reads a chunk that extends to the end of the reader's input.
Result<TensorChunk> read_tensor_chunk(WireReader& reader);

// How a tensor's bytes are sent: `chunk` (its dtype and shape set by the caller) gets each piece of
// `bytes` of at most `step` bytes (step > 0), at ascending offsets, and send() is called for it; a
// tensor of no bytes is one empty chunk. The first error send() returns ends it.
template <class Send>
Status for_each_chunk(Span<const uint8_t> bytes, size_t step, TensorChunk& chunk, Send send) {
  uint64_t offset = 0;
  do {
    const uint64_t size = bytes.size() - offset < step ? bytes.size() - offset : step;
    chunk.offset = offset;
    chunk.data = bytes.subspan(offset, size);
    RT_RETURN_IF_ERROR(send());
    offset += size;
  } while (offset < bytes.size());
  return Status::ok();
}

}  // namespace rt::link
