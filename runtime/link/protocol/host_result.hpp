// One output slot of a host call (outside compilation), provided by the calling core before the
// call: either a tensor the caller allocated (the host must return exactly this dtype and shape;
// the bytes land in its memory) or a text buffer (the host returns text as an int8 vector of
// UTF-8 bytes, which is appended to the buffer after clearing it).
#pragma once
#include "hal/support/format.hpp"
#include "runtime/link/transport/placement.hpp"
#include "runtime/tensor/tensor.hpp"
#include "tensor_chunk.hpp"

namespace rt::link {

class HostResult {
 public:
  HostResult() = default;
  // `destination` must be contiguous (host_call checks it).
  static HostResult tensor(const Tensor& destination) {
    HostResult result;
    result.tensor_ = destination;
    return result;
  }
  static HostResult text(FormatBuffer& destination) {
    HostResult result;
    result.text_ = &destination;
    return result;
  }

  bool is_text() const { return text_ != nullptr; }
  const Tensor& tensor_destination() const { return tensor_; }
  FormatBuffer& text_destination() const { return *text_; }

 private:
  Tensor tensor_;
  FormatBuffer* text_ = nullptr;
};

// A tensor's bytes, if the tensor is contiguous (and of a size the link allows); else none.
inline MemoryRange tensor_memory(const Tensor& tensor) {
  if (!tensor.is_contiguous()) return {};
  const Result<uint64_t> bytes = tensor_byte_size(tensor.dtype, tensor.shape);
  if (!bytes) return {};
  return MemoryRange{tensor.data, *bytes};
}

// A call's results as the destinations a frame transport may write in place: each contiguous
// tensor result's own bytes; none for text results (they are appended, not placed).
class HostResultTargets final : public ReplyTargets {
 public:
  explicit HostResultTargets(Span<const HostResult> results) : results_(results) {}
  size_t count() const override { return results_.size(); }
  MemoryRange target(size_t index) const override {
    const HostResult& result = results_[index];
    return result.is_text() ? MemoryRange{} : tensor_memory(result.tensor_destination());
  }

 private:
  Span<const HostResult> results_;
};

}  // namespace rt::link
