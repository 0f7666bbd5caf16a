// Chunk reassembly (see chunk_assembler.hpp).
#include "chunk_assembler.hpp"

namespace tpu {

std::string ChunkAssembler::start_tensor(const rt::link::TensorChunk& chunk) {
  rt::Result<uint64_t> size = rt::link::tensor_byte_size(chunk.dtype, chunk.shape);
  if (!size) return std::string(size.status().message().data(), size.status().message().size());
  if (*size > kMaxHostTensorBytes)
    return "a tensor of " + std::to_string(*size) + " bytes is larger than the " + std::to_string(kMaxHostTensorBytes) +
           " bytes the host accepts";
  HostTensor tensor;
  tensor.dtype = chunk.dtype;
  tensor.dims.assign(chunk.shape.dims, chunk.shape.dims + chunk.shape.rank);
  expected_size_ = *size;
  tensors_.push_back(std::move(tensor));
  pending_ = true;
  next_offset_ = 0;
  return "";
}

std::string ChunkAssembler::add(size_t index, const rt::link::TensorChunk& chunk) {
  if (index >= tensor_count_)
    return "tensor " + std::to_string(index) + " of " + std::to_string(tensor_count_) + " does not exist";
  if (index != next_index() || chunk.offset != next_offset_)
    return "chunk of tensor " + std::to_string(index) + " at byte " + std::to_string(chunk.offset) +
           " arrived, expected tensor " + std::to_string(next_index()) + " at byte " + std::to_string(next_offset_) +
           " (a frame was lost)";
  if (!pending_) {
    std::string problem = start_tensor(chunk);
    if (!problem.empty()) return problem;
  }
  HostTensor& tensor = tensors_.back();
  const std::vector<int64_t> dims(chunk.shape.dims, chunk.shape.dims + chunk.shape.rank);
  if (chunk.dtype != tensor.dtype || dims != tensor.dims)
    return "chunk of tensor " + std::to_string(index) + " changes its dtype or shape";
  // In order (checked above) and inside the tensor (validate_tensor_chunk, run by the parser).
  tensor.bytes.insert(tensor.bytes.end(), chunk.data.begin(), chunk.data.end());
  next_offset_ += chunk.data.size();
  if (next_offset_ == expected_size_) {
    pending_ = false;
    next_offset_ = 0;
  }
  return "";
}

std::string ChunkAssembler::add_described(size_t index, const rt::link::TensorChunk& chunk) {
  if (index >= tensor_count_)
    return "tensor " + std::to_string(index) + " of " + std::to_string(tensor_count_) + " does not exist";
  if (index != next_index() || pending_)
    return "tensor " + std::to_string(index) + " arrived, expected tensor " + std::to_string(next_index()) + " at byte " +
           std::to_string(next_offset_) + " (a frame was lost)";
  std::string problem = start_tensor(chunk);  // pushes the tensor only if it fits
  pending_ = false;
  next_offset_ = 0;
  return problem;
}

}  // namespace tpu
