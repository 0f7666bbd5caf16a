// Status: an error code plus a human-readable message, the runtime's way to report failure
// (no exceptions). Codes follow TensorFlow's error classes so messages map 1:1 onto TF's errors.
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
};

const char* status_code_name(StatusCode code);

class [[nodiscard]] Status {
 public:
  static constexpr size_t kMessageCapacity = 320;

  Status() = default;  // OK
  static Status ok() { return Status(); }

  template <class... Args>
  static Status error(StatusCode code, StringView format, const Args&... args) {
    Status status;
    status.code_ = code;
    format_to(status.message_, format, args...);
    return status;
  }

  bool is_ok() const { return code_ == StatusCode::kOk; }
  explicit operator bool() const { return is_ok(); }
  StatusCode code() const { return code_; }
  StringView message() const { return message_.view(); }
  const char* c_str() const { return message_.c_str(); }

 private:
  StatusCode code_ = StatusCode::kOk;
  FixedString<kMessageCapacity> message_;
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
