// SpscRing: a single-producer / single-consumer ring of 64-byte cells in shared memory, the wire
// from one core to another. It carries a byte stream: each write fills fresh cells with up to 56
// bytes each; the reader sees the bytes of one cell at a time (readable_run) and may consume them
// in pieces.
//
// Every cell holds its own sequence number next to its payload: the producer writes payload and
// length, then publishes the cell by storing sequence = (cell index + 1) with release order; the
// consumer polls the next cell's sequence with acquire order and finds the payload in the same
// cache line. A message therefore costs one cache-line transfer, the same as the signal alone
// (a separate index line would add a second, dependent transfer).
//
// Space: the consumer publishes how many cells it has released (read_index_, release); the
// producer keeps a cached copy and reloads it (acquire) only when the ring looks full, so in steady
// state the producer never touches the consumer's line. Reusing a cell only after observing its
// release means the consumer's reads of it happen-before the producer's overwrite.
// Sequence numbers are free-running modulo 2^32: a stale cell from the previous lap carries a
// sequence 256 lower than expected and is never mistaken for a new one.
#pragma once
#include "hal/support/atomic.hpp"
#include "hal/support/span.hpp"

namespace rt {

class SpscRing {
 public:
  static constexpr size_t kCellBytes = 64;
  static constexpr size_t kCellPayload = 56;  // a multiple of 8: elements never straddle cells
  static constexpr uint32_t kCells = 256;     // 16 KiB of cells per ring
  static constexpr size_t kCapacity = kCells * kCellPayload;

  // Producer: copies up to `bytes` bytes into fresh cells; returns how many fit.
  size_t write_some(const void* data, size_t bytes);
  // Producer: bytes that fit in free cells (reloading the consumer's index only if fewer than
  // `wanted` seem to).
  size_t writable(size_t wanted = 1);

  // Consumer: the unread bytes of the current cell (empty if the next cell is not published yet).
  Span<const uint8_t> readable_run();
  // Consumer: marks `bytes` bytes (at most the run last returned) as read.
  void consume(size_t bytes);
  // Consumer: copies up to `bytes` bytes out; returns how many were available.
  size_t read_some(void* out, size_t bytes);
  // Consumer: whether any unread byte is published.
  bool has_data() { return !readable_run().empty(); }
  // Consumer: drops every published byte not read yet (what a failed collective left behind, once
  // its producer is idle); returns how many.
  size_t discard_unread();

 private:
  struct alignas(kCellBytes) Cell {
    Atomic<uint32_t> sequence{0};
    uint32_t length = 0;
    uint8_t payload[kCellPayload];
  };
  static_assert(sizeof(Cell) == kCellBytes, "a cell is one cache line");

  // Producer-owned line (128-byte separation also defeats adjacent-line prefetch false sharing).
  alignas(128) uint32_t write_index_ = 0;
  uint32_t cached_read_index_ = 0;
  // Consumer-owned line: read_index_ is the only field the producer ever reads.
  alignas(128) Atomic<uint32_t> read_index_{0};
  uint32_t read_offset_ = 0;  // bytes of the current cell already consumed
  alignas(128) Cell cells_[kCells];
};

}  // namespace rt
