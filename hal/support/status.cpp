// Names of status codes, as printed in logs and error reports, and the pool of status messages
// (status.hpp).
#include "status.hpp"

#include "atomic.hpp"

namespace rt {
namespace {

struct Slot {
  Atomic<uint32_t> ticket{0};  // the ticket whose text the slot holds (published after the text)
  char text[Status::kMessageCapacity];
};

Slot slots[Status::kMessageSlots];
Atomic<uint32_t> next_ticket{1};

constexpr const char* kOverwritten = "(this status's message was overwritten: more than 1024 newer errors were made)";

Slot& slot_of(uint32_t ticket) { return slots[ticket % Status::kMessageSlots]; }

}  // namespace

Status::MessageSlot Status::claim_message_slot() {
  uint32_t ticket = next_ticket.fetch_add(1, MemoryOrder::kRelaxed);
  if (ticket == 0) ticket = next_ticket.fetch_add(1, MemoryOrder::kRelaxed);  // 0 means "no message"
  Slot& slot = slot_of(ticket);
  slot.ticket.store(0, MemoryOrder::kRelaxed);  // being written
  return MessageSlot{ticket, FormatBuffer(slot.text, kMessageCapacity)};
}

void Status::publish_message_slot(const MessageSlot& slot) {
  slot_of(slot.ticket).ticket.store(slot.ticket, MemoryOrder::kRelease);
}

const char* Status::c_str() const {
  if (ticket_ == 0) return "";
  const Slot& slot = slot_of(ticket_);
  return slot.ticket.load(MemoryOrder::kAcquire) == ticket_ ? slot.text : kOverwritten;
}

StringView Status::message() const { return StringView(c_str()); }

const char* status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalidArgument: return "INVALID_ARGUMENT";
    case StatusCode::kOutOfRange: return "OUT_OF_RANGE";
    case StatusCode::kResourceExhausted: return "RESOURCE_EXHAUSTED";
    case StatusCode::kDeadlineExceeded: return "DEADLINE_EXCEEDED";
    case StatusCode::kFailedPrecondition: return "FAILED_PRECONDITION";
    case StatusCode::kNotFound: return "NOT_FOUND";
    case StatusCode::kUnimplemented: return "UNIMPLEMENTED";
    case StatusCode::kUnavailable: return "UNAVAILABLE";
    case StatusCode::kAborted: return "ABORTED";
    case StatusCode::kInternal: return "INTERNAL";
    case StatusCode::kCancelled: return "CANCELLED";
  }
  return "UNKNOWN";
}

}  // namespace rt
