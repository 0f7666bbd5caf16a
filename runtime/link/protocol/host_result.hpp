// One output slot of a host call (outside compilation), provided by the calling core before the
// call: either a tensor the caller allocated (the host must return exactly this dtype and shape;
// the bytes land in its memory) or a text buffer (the host returns text as an int8 vector of
// UTF-8 bytes, which is appended to the buffer after clearing it).
#pragma once
#include "hal/support/format.hpp"
#include "runtime/tensor/tensor.hpp"

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

}  // namespace rt::link
