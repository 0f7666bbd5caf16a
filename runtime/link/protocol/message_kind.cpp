// Names of the host-link message kinds, for logs and error messages.
#include "message_kind.hpp"

namespace rt::link {

const char* message_kind_name(MessageKind kind) {
  switch (kind) {
    case MessageKind::kHello: return "hello";
    case MessageKind::kLog: return "log";
    case MessageKind::kInfeedData: return "infeed-data";
    case MessageKind::kInfeedCredits: return "infeed-credits";
    case MessageKind::kOutfeedData: return "outfeed-data";
    case MessageKind::kHostCallRequest: return "host-call-request";
    case MessageKind::kHostCallReply: return "host-call-reply";
    case MessageKind::kHostCallReplyInPlace: return "host-call-reply-in-place";
    case MessageKind::kInfeedInPlace: return "infeed-in-place";
    case MessageKind::kHostCallArgumentInPlace: return "host-call-argument-in-place";
    case MessageKind::kRun: return "run";
    case MessageKind::kResult: return "result";
    case MessageKind::kError: return "error";
    case MessageKind::kTrace: return "trace";
  }
  return "unknown";
}

}  // namespace rt::link
