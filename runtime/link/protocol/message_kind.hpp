// The kinds of host-link messages: the `kind` byte of every frame header, described once as a table
// (RT_LINK_MESSAGE_KINDS) from which the enum, the names, the set receivers accept and the payload
// type of each kind (message.hpp) are made. The numbers are part of the wire format (never
// renumber; add new kinds at the end). tests/fuzz/make_seeds.py reads this table too.
#pragma once
#include "runtime/link/transport/frame.hpp"

namespace rt::link {

// K(number, enumerator, name, payload struct (message.hpp), comment)
#define RT_LINK_MESSAGE_KINDS(K)                                                                                  \
  K(1, kHello, "hello", Hello, "both ways: protocol version and capabilities")                                    \
  K(2, kLog, "log", LogMessage, "board -> host: one log line of a core")                                          \
  K(3, kInfeedData, "infeed-data", QueueData, "host -> board: a chunk of one tensor of an infeed tuple")          \
  K(4, kInfeedCredits, "infeed-credits", InfeedCredits, "board -> host: how much infeed data the board can take") \
  K(5, kOutfeedData, "outfeed-data", QueueData, "board -> host: a chunk of one tensor of an outfeed tuple")       \
  K(6, kHostCallRequest, "host-call-request", CallMessage, "board -> host: outside compilation call")             \
  K(7, kHostCallReply, "host-call-reply", CallMessage, "host -> board: its status and results")                   \
  K(8, kRun, "run", CallMessage, "host -> board: run a computation (name, inputs)")                               \
  K(9, kResult, "result", CallMessage, "board -> host: its status and outputs")                                   \
  K(10, kError, "error", ErrorMessage, "both ways: a request or message could not be served")                     \
  K(11, kTrace, "trace", TraceBatch, "board -> host: a batch of trace events")                                    \
  K(12, kHostCallReplyInPlace, "host-call-reply-in-place", InPlaceResult,                                         \
    "host -> board: a host-call result already written at its target (shared memory)")                            \
  K(13, kInfeedInPlace, "infeed-in-place", InfeedInPlace,                                                         \
    "host -> board: an infeed tuple already written into its slot (shared memory)")                               \
  K(14, kHostCallArgumentInPlace, "host-call-argument-in-place", InPlaceArgument,                                 \
    "board -> host: a host-call argument the host reads from board memory (shared memory)")                      \
  K(15, kPod, "pod", PodInfo, "both ways: the board's task in its pod; the place the board took (its answer)")    \
  K(16, kInfeedSpec, "infeed-spec", InfeedSpec,                                                                    \
    "host -> board: the dtype and shape of one element of the tuples it will place in memory (shared memory)")

#define RT_LINK_KIND_ENUMERATOR(number, enumerator, name, payload, comment) enumerator = number,
enum class MessageKind : uint8_t { RT_LINK_MESSAGE_KINDS(RT_LINK_KIND_ENUMERATOR) };
#undef RT_LINK_KIND_ENUMERATOR

#define RT_LINK_KIND_COUNT(number, enumerator, name, payload, comment) +1
inline constexpr uint8_t kLastMessageKind = 0 RT_LINK_MESSAGE_KINDS(RT_LINK_KIND_COUNT);
#undef RT_LINK_KIND_COUNT

// The kinds numbered 1..kLastMessageKind, for the transport's receivers (Decoder, check_frame).
inline constexpr FrameKinds kMessageKinds{1, kLastMessageKind};

constexpr bool is_known_message_kind(uint8_t kind) { return kMessageKinds.contains(kind); }

// "hello", "log", "infeed-data", ...; "unknown" for other values.
const char* message_kind_name(MessageKind kind);

// A frame header for a message, and a received frame's message kind (the transport carries the
// kind as an opaque byte; frames reach the protocol only if their kind is in kMessageKinds).
constexpr FrameHeader message_header(MessageKind kind, uint16_t channel, uint32_t sequence) {
  return FrameHeader{static_cast<uint8_t>(kind), channel, sequence};
}
constexpr MessageKind message_kind(const FrameHeader& header) { return static_cast<MessageKind>(header.kind); }

}  // namespace rt::link
