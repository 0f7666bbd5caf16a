// The kinds of host-link messages: the `kind` byte of every frame header. The numbers are part of
// the wire format (never renumber; add new kinds at the end). message.hpp defines each payload.
#pragma once
#include "hal/support/types.hpp"

namespace rt::link {

enum class MessageKind : uint8_t {
  kHello = 1,            // both ways: protocol version and capabilities
  kLog = 2,              // board -> host: one log line of a core
  kInfeedData = 3,       // host -> board: a chunk of one tensor of an infeed tuple
  kInfeedCredits = 4,    // board -> host: how much infeed data the board can take
  kOutfeedData = 5,      // board -> host: a chunk of one tensor of an outfeed tuple
  kHostCallRequest = 6,  // board -> host: outside compilation call (function name, arguments)
  kHostCallReply = 7,    // host -> board: its status and results
  kRun = 8,              // host -> board: run a computation (name, inputs)
  kResult = 9,           // board -> host: its status and outputs
  kError = 10,           // both ways: a request or message could not be served
  kTrace = 11,           // board -> host: a batch of trace events
  kHostCallReplyInPlace = 12,  // host -> board: a host-call result already written at its target
                               // (shared memory; payload as a reply chunk without data)
  kInfeedInPlace = 13,         // host -> board: an infeed tuple already written into its slot (shared memory)
  kHostCallArgumentInPlace = 14,  // board -> host: a host-call argument the host reads from board memory
};

inline constexpr uint8_t kLastMessageKind = 14;

constexpr bool is_known_message_kind(uint8_t kind) { return kind >= 1 && kind <= kLastMessageKind; }

// "hello", "log", "infeed-data", ...; "unknown" for other values.
const char* message_kind_name(MessageKind kind);

}  // namespace rt::link
