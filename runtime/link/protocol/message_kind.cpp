// Names of the host-link message kinds, for logs and error messages (from RT_LINK_MESSAGE_KINDS).
#include "message_kind.hpp"

namespace rt::link {

const char* message_kind_name(MessageKind kind) {
  switch (kind) {
#define RT_LINK_KIND_NAME(number, enumerator, name, payload, comment) \
  case MessageKind::enumerator: return name;
    RT_LINK_MESSAGE_KINDS(RT_LINK_KIND_NAME)
#undef RT_LINK_KIND_NAME
  }
  return "unknown";
}

}  // namespace rt::link
