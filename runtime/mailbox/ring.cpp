// SpscRing implementation; see ring.hpp for the cell protocol and its memory-ordering argument.
#include "ring.hpp"

#include "hal/support/utility.hpp"

namespace rt {

size_t SpscRing::writable(size_t wanted) {
  uint32_t free_cells = kCells - (write_index_ - cached_read_index_);
  if (free_cells * kCellPayload < wanted) {
    cached_read_index_ = read_index_.load(MemoryOrder::kAcquire);
    free_cells = kCells - (write_index_ - cached_read_index_);
  }
  return free_cells * kCellPayload;
}

size_t SpscRing::write_some(const void* data, size_t bytes) {
  const auto* source = static_cast<const uint8_t*>(data);
  size_t written = 0;
  while (written < bytes) {
    if (write_index_ - cached_read_index_ == kCells) {
      cached_read_index_ = read_index_.load(MemoryOrder::kAcquire);
      if (write_index_ - cached_read_index_ == kCells) break;  // full
    }
    Cell& cell = cells_[write_index_ % kCells];
    const size_t count = min(kCellPayload, bytes - written);
    __builtin_memcpy(cell.payload, source + written, count);
    cell.length = static_cast<uint32_t>(count);
    cell.sequence.store(write_index_ + 1, MemoryOrder::kRelease);  // publishes payload and length
    ++write_index_;
    written += count;
  }
  return written;
}

Span<const uint8_t> SpscRing::readable_run() {
  const uint32_t index = read_index_.load(MemoryOrder::kRelaxed);  // own index
  Cell& cell = cells_[index % kCells];
  if (cell.sequence.load(MemoryOrder::kAcquire) != index + 1) return {};
  return Span<const uint8_t>(cell.payload + read_offset_, cell.length - read_offset_);
}

void SpscRing::consume(size_t bytes) {
  if (bytes == 0) return;  // an empty run may belong to a cell that is not published yet
  const uint32_t index = read_index_.load(MemoryOrder::kRelaxed);
  read_offset_ += static_cast<uint32_t>(bytes);
  if (read_offset_ == cells_[index % kCells].length) {
    read_offset_ = 0;
    read_index_.store(index + 1, MemoryOrder::kRelease);  // the cell may be reused now
  }
}

size_t SpscRing::read_some(void* out, size_t bytes) {
  size_t copied = 0;
  while (copied < bytes) {
    const Span<const uint8_t> run = readable_run();
    if (run.empty()) break;
    const size_t count = min(run.size(), bytes - copied);
    __builtin_memcpy(static_cast<uint8_t*>(out) + copied, run.data(), count);
    consume(count);
    copied += count;
  }
  return copied;
}

size_t SpscRing::discard_unread() {
  size_t dropped = 0;
  for (Span<const uint8_t> run = readable_run(); !run.empty(); run = readable_run()) {
    consume(run.size());
    dropped += run.size();
  }
  return dropped;
}

}  // namespace rt
