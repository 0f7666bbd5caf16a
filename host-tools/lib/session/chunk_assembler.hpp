// Reassembles a sequence of tensors that arrives as link chunks (tensor_chunk.hpp): the arguments
// of one host call, or the elements of one outfeed tuple. Chunks must come in order (tensor by
// tensor, offsets ascending without gaps), as the board sends them; anything else is an error that
// names what arrived and what was expected (a lost frame). Memory grows only with the bytes that
// actually arrived (a tensor's buffer is extended chunk by chunk, never allocated up front from a
// size the board claims), and a tensor larger than kMaxHostTensorBytes is refused at its first chunk.
#pragma once
#include <string>
#include <vector>

#include "host-tools/lib/tensors/host_tensor.hpp"
#include "runtime/link/protocol/tensor_chunk.hpp"

namespace tpu {

inline constexpr uint64_t kMaxHostTensorBytes = uint64_t{256} << 20;

class ChunkAssembler {
 public:
  explicit ChunkAssembler(size_t tensor_count) : tensor_count_(tensor_count) {}

  // Adds the chunk of tensor `index`; returns "" or the reason it does not fit.
  std::string add(size_t index, const rt::link::TensorChunk& chunk);
  // Tensor `index` as a dtype and shape only, its bytes left where the board keeps them (an argument
  // read in board memory): complete at once, with empty bytes; "" or the reason it does not fit.
  std::string add_described(size_t index, const rt::link::TensorChunk& chunk);
  size_t tensor_count() const { return tensor_count_; }
  bool complete() const { return tensors_.size() == tensor_count_ && !pending_; }
  std::vector<HostTensor> take() { return std::move(tensors_); }
  // Where the next chunk must go (for messages).
  size_t next_index() const { return pending_ ? tensors_.size() - 1 : tensors_.size(); }
  uint64_t next_offset() const { return next_offset_; }

 private:
  std::string start_tensor(const rt::link::TensorChunk& chunk);

  size_t tensor_count_;
  std::vector<HostTensor> tensors_;
  bool pending_ = false;  // the last tensor in tensors_ is still being filled
  uint64_t next_offset_ = 0;
  uint64_t expected_size_ = 0;  // of the pending tensor
};

}  // namespace tpu
