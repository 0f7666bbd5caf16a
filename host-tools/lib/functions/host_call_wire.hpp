// How tpu and its host-function worker (host_function_worker.hpp) pass one call and its outcome
// through their socket: a length-prefixed record each way, built and read here.
//
//   record  = u64 body length | body
//   request = "HFRQ" | u32 core | u32 id | i64 replica (-1: none) | str function | str text | tensors
//   outcome = "HFRP" | u32 status code | str message | tensors
//   str     = u64 length | bytes;   tensors = u32 count | (u8 dtype | u32 rank | i64 dims[rank] |
//             u64 byte count | bytes) per tensor
//
// Both ends are the same program (the worker is a fork of tpu), so integers are native-endian.
// Tensor bytes are not copied to encode: a record is a list of pieces for writev.
// The reader still checks every length against what arrived, so a record cut short or garbled by a
// dying worker is an error, never a crash or a huge allocation.
#pragma once
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "host_functions.hpp"

namespace tpu::host_call_wire {

// One encoded record, ready for writev: the small fields in buffers of its own, tensor bytes
// borrowed from the request or outcome it was made from (which must outlive it).
class Record {
 public:
  Record() = default;
  Record(Record&&) = default;
  Record& operator=(Record&&) = default;
  const std::vector<std::span<const uint8_t>>& pieces() const { return pieces_; }
  uint64_t size() const;
  std::vector<uint8_t> flatten() const;  // all pieces in one buffer (tests)

 private:
  friend class RecordWriter;
  std::deque<std::vector<uint8_t>> owned_;  // a deque: growing it never moves a buffer's bytes
  std::vector<std::span<const uint8_t>> pieces_;
};

Record encode_request(const HostCallRequest& request);
Record encode_outcome(const HostCallOutcome& outcome);

// The body's length if `bytes` starts with a whole record's length prefix (8 bytes), else nothing.
std::optional<uint64_t> body_length(const std::vector<uint8_t>& bytes);
inline constexpr size_t kPrefixBytes = sizeof(uint64_t);

// Parse one record body; nothing (and `error` set) if it is not a well-formed record of that kind.
std::optional<HostCallRequest> decode_request(const uint8_t* body, size_t size, std::string& error);
std::optional<HostCallOutcome> decode_outcome(const uint8_t* body, size_t size, std::string& error);

}  // namespace tpu::host_call_wire
