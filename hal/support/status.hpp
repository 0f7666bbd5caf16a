// Status: an error code plus a human-readable message, the runtime's way to report failure
// (no exceptions). Codes follow TensorFlow's error classes so messages map 1:1 onto TF's errors.
//
// A Status is small (8 bytes: the code and a ticket), so a Result<T> costs little more than its T:
// an error's text is formatted once into a slot of a pool shared by every core (kMessageSlots
// slots of kMessageCapacity bytes, handed out in turn), and the Status keeps the slot's ticket.
// Copies share the text. A message stays readable until kMessageSlots newer errors have been made
// anywhere; after that message() says the text was overwritten (the code is never lost). Keep
// what must outlive that long (a run's final verdict, say) by copying message() out.
#pragma once
#include "format.hpp"

namespace rt {

enum class StatusCode : uint8_t {
  kOk = 0,
  kInvalidArgument,    // TF ValueError / InvalidArgumentError
  kOutOfRange,
  kResourceExhausted,  // out of memory, ring full
  kDeadlineExceeded,   // a wait timed out
  kFailedPrecondition,
  kNotFound,
  kUnimplemented,
  kUnavailable,        // peer gone, link down
  kAborted,
  kInternal,
  kCancelled,          // the work was given up because another part of it failed
};
// The highest code (a code read from outside, e.g. a record, is valid up to it).
inline constexpr StatusCode kLastStatusCode = StatusCode::kCancelled;

const char* status_code_name(StatusCode code);

class [[nodiscard]] Status {
 public:
  static constexpr size_t kMessageCapacity = 320;
  static constexpr uint32_t kMessageSlots = 1024;

  Status() = default;  // OK
  static Status ok() { return Status(); }

  template <class... Args>
  static Status error(StatusCode code, StringView format, const Args&... args) {
    MessageSlot slot = claim_message_slot();
    format_to(slot.text, format, args...);
    publish_message_slot(slot);
    Status status;
    status.code_ = code;
    status.ticket_ = slot.ticket;
    return status;
  }

  bool is_ok() const { return code_ == StatusCode::kOk; }
  explicit operator bool() const { return is_ok(); }
  StatusCode code() const { return code_; }
  StringView message() const;  // "" for OK
  const char* c_str() const;   // the same, NUL-terminated

 private:
  struct MessageSlot {
    uint32_t ticket;
    FormatBuffer text;
  };
  static MessageSlot claim_message_slot();
  static void publish_message_slot(const MessageSlot& slot);

  StatusCode code_ = StatusCode::kOk;
  uint32_t ticket_ = 0;  // 0: no message
};

template <class... Args>
Status invalid_argument(StringView format, const Args&... args) {
  return Status::error(StatusCode::kInvalidArgument, format, args...);
}
template <class... Args>
Status deadline_exceeded(StringView format, const Args&... args) {
  return Status::error(StatusCode::kDeadlineExceeded, format, args...);
}
template <class... Args>
Status internal_error(StringView format, const Args&... args) {
  return Status::error(StatusCode::kInternal, format, args...);
}

// Propagates a non-OK Status from an expression to the caller.
#define RT_RETURN_IF_ERROR(expr)          \
  do {                                    \
    ::rt::Status rt_status_ = (expr);     \
    if (!rt_status_.is_ok()) return rt_status_; \
  } while (0)

}  // namespace rt
