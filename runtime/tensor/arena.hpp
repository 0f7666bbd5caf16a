// Arena: bump allocation in one core's memory region (its "HBM"). Allocation never touches a heap
// and cannot fail silently: running out is an error naming the core, the request and what is left.
// Memory comes back only all at once (reset), between steps.
#pragma once
#include "runtime/support/result.hpp"
#include "tensor.hpp"

namespace rt {

class Arena {
 public:
  Arena() = default;
  Arena(unsigned core, uint8_t* base, size_t capacity) : core_(core), base_(base), capacity_(capacity) {}

  Result<uint8_t*> allocate(size_t bytes, size_t alignment, StringView what);
  // A contiguous tensor of `shape`, 64-byte aligned.
  Result<Tensor> allocate_tensor(DType dtype, const Shape& shape, StringView what);
  void reset() { used_ = 0; }
  size_t used() const { return used_; }
  size_t capacity() const { return capacity_; }

 private:
  unsigned core_ = 0;
  uint8_t* base_ = nullptr;
  size_t capacity_ = 0;
  size_t used_ = 0;
};

}  // namespace rt
