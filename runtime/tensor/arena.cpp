// Arena allocation with alignment and out-of-memory errors.
#include "arena.hpp"

namespace rt {

Result<uint8_t*> Arena::allocate(size_t bytes, size_t alignment, StringView what) {
  const uintptr_t start = (reinterpret_cast<uintptr_t>(base_) + used_ + alignment - 1) & ~(uintptr_t{alignment} - 1);
  const size_t offset = start - reinterpret_cast<uintptr_t>(base_);
  if (offset > capacity_ || bytes > capacity_ - offset)
    return Status::error(StatusCode::kResourceExhausted,
                         "core {} out of memory: {} needs {} bytes, the core's {} byte arena has {} left (memory a "
                         "loop allocates again each time is given back by an ArenaScope per step, or a "
                         "PodMemoryScope per launch)",
                         core_, what, bytes, capacity_, capacity_ - (offset < capacity_ ? offset : capacity_));
  used_ = offset + bytes;
  return reinterpret_cast<uint8_t*>(start);
}

Result<Tensor> Arena::allocate_tensor(DType dtype, const Shape& shape, StringView what) {
  Result<uint8_t*> memory = allocate(static_cast<size_t>(shape.num_elements()) * dtype_size(dtype), 64, what);
  if (!memory) return memory.status();
  return Tensor::contiguous(dtype, shape, *memory);
}

}  // namespace rt
