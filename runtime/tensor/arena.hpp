// Arena: bump allocation in one core's memory region (its "HBM"). Allocation never touches a heap
// and cannot fail silently: running out is an error naming the core, the request and what is left.
// Memory comes back all at once (reset, between steps), or for temporaries through an ArenaScope,
// which returns everything allocated while it lived.
#pragma once
#include "hal/support/result.hpp"
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
  // Frees everything allocated after `used()` returned `mark` (ArenaScope's way back).
  void release_to(size_t mark) { used_ = mark < used_ ? mark : used_; }
  size_t used() const { return used_; }
  size_t capacity() const { return capacity_; }

 private:
  unsigned core_ = 0;
  uint8_t* base_ = nullptr;
  size_t capacity_ = 0;
  size_t used_ = 0;
};

// Scratch space for one operation: allocations made while the scope lives are released when it ends.
class ArenaScope {
 public:
  explicit ArenaScope(Arena& arena) : arena_(arena), mark_(arena.used()) {}
  ~ArenaScope() { arena_.release_to(mark_); }
  ArenaScope(const ArenaScope&) = delete;
  ArenaScope& operator=(const ArenaScope&) = delete;

 private:
  Arena& arena_;
  size_t mark_;
};

}  // namespace rt
