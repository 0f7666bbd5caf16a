// One JSON string read with its escapes decoded (RFC 8259: \" \\ \/ \b \f \n \r \t and \uXXXX), for
// the JSON tpu reads: TF_CONFIG (host-tools/lib/pod/tf_config) and QEMU's QMP replies
// (host-tools/lib/board/qemu_monitor). A \u escape becomes the character's UTF-8 bytes; half of a
// surrogate pair, which neither source writes, becomes '?'.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace tpu {

// The string whose opening quote is text[at - 1]: its decoded text, with `at` moved just past the
// closing quote; nothing if it is unterminated or an escape is malformed (`at` then undefined).
std::optional<std::string> read_json_string(std::string_view text, size_t& at);

}  // namespace tpu
