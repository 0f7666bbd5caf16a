// What a frame transport needs to place bulk data straight into board memory, or read it from
// there (shared memory: shm_ring.hpp, "Results in place" and "Infeed in place"), without knowing
// the protocol's types: plain memory ranges, a small interface the protocol implements over its
// host-call results (the protocol layer's host_result.hpp) and a description of an infeed queue's
// slot memory (its infeed_buffer.hpp).
#pragma once
#include "hal/support/span.hpp"
#include "hal/support/types.hpp"

namespace rt::link {

// Bytes in the board's memory; a null `data` means "none".
struct MemoryRange {
  const uint8_t* data = nullptr;
  uint64_t bytes = 0;
  bool empty() const { return data == nullptr; }
};

// A host call's result destinations, in result order.
class ReplyTargets {
 public:
  virtual size_t count() const = 0;
  // Where result `index` may be written in place: exactly its bytes, contiguous; an empty range if
  // it cannot be (it then travels in frames).
  virtual MemoryRange target(size_t index) const = 0;

 protected:
  ~ReplyTargets() = default;
};

// An open infeed queue's slot memory: slot s starts at storage + s * slot_bytes, each tuple element
// at its offset within the slot.
struct InfeedSlotMemory {
  uint16_t queue = 0;
  uint32_t slots = 0;
  const uint8_t* storage = nullptr;
  uint64_t slot_bytes = 0;
  Span<const size_t> element_offsets;
  Span<const uint64_t> element_bytes;  // as many as element_offsets
};

}  // namespace rt::link
