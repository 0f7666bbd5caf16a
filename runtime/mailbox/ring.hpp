// SpscRing: a single-producer / single-consumer byte ring in shared memory, the wire between one
// ordered pair of cores.
//
// Indices are free-running 32-bit byte counts (used = head - tail, modulo 2^32; the capacity is a
// power of two so positions are index & mask). The producer owns head_ and a cached copy of
// tail_; the consumer owns tail_ and a cached copy of head_; each pair sits on its own cache line,
// so the only cross-core traffic is the one index each side must publish. Side refreshes its cached
// copy of the other index only when the cached value says "full" / "empty".
//
// Memory ordering:
//   producer: write payload bytes (plain stores) -> head_.store(release)
//   consumer: head_.load(acquire) -> read payload bytes
//     The release/acquire pair makes every payload byte written before the head update visible to
//     the consumer that observes the new head.
//   consumer: read payload bytes -> tail_.store(release)
//   producer: tail_.load(acquire) -> overwrite those bytes
//     The producer only reuses space after it observed the tail move past it, and the consumer's
//     reads of that space happen-before its tail store, so no byte is overwritten while being read.
#pragma once
#include "runtime/support/atomic.hpp"
#include "runtime/support/span.hpp"

namespace rt {

class SpscRing {
 public:
  static constexpr uint32_t kCapacity = 16 * 1024;
  static_assert((kCapacity & (kCapacity - 1)) == 0, "capacity must be a power of two");

  // Producer: copies up to `bytes` bytes in; returns how many fit.
  size_t write_some(const void* data, size_t bytes);
  // Producer: free space, refreshing the cached tail only when needed to satisfy `wanted`.
  size_t writable(size_t wanted = 1);

  // Consumer: the contiguous readable bytes at the read position (stops at the wrap point).
  Span<const uint8_t> readable_run();
  // Consumer: releases `bytes` bytes (at most the run last returned) back to the producer.
  void consume(size_t bytes);
  // Consumer: copies up to `bytes` bytes out; returns how many were available.
  size_t read_some(void* out, size_t bytes);

  // Either side, for diagnostics: bytes in flight.
  size_t used() const { return head_.load(MemoryOrder::kAcquire) - tail_.load(MemoryOrder::kAcquire); }

 private:
  static constexpr uint32_t kMask = kCapacity - 1;

  alignas(kCacheLineSize) Atomic<uint32_t> head_{0};  // producer writes
  uint32_t cached_tail_ = 0;                           // producer-local
  alignas(kCacheLineSize) Atomic<uint32_t> tail_{0};  // consumer writes
  uint32_t cached_head_ = 0;                           // consumer-local
  alignas(kCacheLineSize) uint8_t data_[kCapacity];
};

}  // namespace rt
