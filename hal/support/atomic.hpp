// Atomic<T> over GCC's __atomic builtins, with explicit memory orders (freestanding <atomic>).
// Every operation names its ordering at the call site; defaults are sequentially consistent.
#pragma once
#include "type_traits.hpp"

namespace rt {

enum class MemoryOrder : int {
  kRelaxed = __ATOMIC_RELAXED,
  kAcquire = __ATOMIC_ACQUIRE,
  kRelease = __ATOMIC_RELEASE,
  kAcqRel = __ATOMIC_ACQ_REL,
  kSeqCst = __ATOMIC_SEQ_CST,
};

template <class T>
class Atomic {
  static_assert(is_trivially_copyable_v<T>, "Atomic<T> needs a trivially copyable T");

 public:
  constexpr Atomic() : value_() {}
  constexpr Atomic(T initial) : value_(initial) {}
  Atomic(const Atomic&) = delete;
  Atomic& operator=(const Atomic&) = delete;

  T load(MemoryOrder order = MemoryOrder::kSeqCst) const { return __atomic_load_n(&value_, int(order)); }
  void store(T value, MemoryOrder order = MemoryOrder::kSeqCst) { __atomic_store_n(&value_, value, int(order)); }
  T exchange(T value, MemoryOrder order = MemoryOrder::kSeqCst) {
    return __atomic_exchange_n(&value_, value, int(order));
  }
  // On failure `expected` receives the current value.
  bool compare_exchange(T& expected, T desired, MemoryOrder order = MemoryOrder::kSeqCst) {
    int failure = order == MemoryOrder::kAcqRel ? __ATOMIC_ACQUIRE
                  : order == MemoryOrder::kRelease ? __ATOMIC_RELAXED
                                                   : int(order);
    return __atomic_compare_exchange_n(&value_, &expected, desired, false, int(order), failure);
  }
  T fetch_add(T delta, MemoryOrder order = MemoryOrder::kSeqCst) requires is_integral_v<T> {
    return __atomic_fetch_add(&value_, delta, int(order));
  }
  T fetch_sub(T delta, MemoryOrder order = MemoryOrder::kSeqCst) requires is_integral_v<T> {
    return __atomic_fetch_sub(&value_, delta, int(order));
  }
  T fetch_or(T bits, MemoryOrder order = MemoryOrder::kSeqCst) requires is_integral_v<T> {
    return __atomic_fetch_or(&value_, bits, int(order));
  }
  T fetch_and(T bits, MemoryOrder order = MemoryOrder::kSeqCst) requires is_integral_v<T> {
    return __atomic_fetch_and(&value_, bits, int(order));
  }

 private:
  alignas(sizeof(T)) T value_;
};

inline void atomic_fence(MemoryOrder order = MemoryOrder::kSeqCst) { __atomic_thread_fence(int(order)); }

// Size of the coherence unit; shared data touched by different cores is padded to it.
inline constexpr size_t kCacheLineSize = 64;

}  // namespace rt
