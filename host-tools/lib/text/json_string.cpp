// A JSON string's escapes decoded (json_string.hpp).
#include "json_string.hpp"

#include "number_at_start.hpp"

namespace tpu {
namespace {

void append_utf8(std::string& out, unsigned code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code >= 0xD800 && code < 0xE000) {
    out += '?';  // half of a surrogate pair
  } else {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

// The character escape letter `c` stands for, or nothing ('u' is handled by the caller).
std::optional<char> escaped(char c) {
  switch (c) {
    case '"': return '"';
    case '\\': return '\\';
    case '/': return '/';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<std::string> read_json_string(std::string_view text, size_t& at) {
  std::string out;
  while (at < text.size()) {
    const char c = text[at++];
    if (c == '"') return out;
    if (c != '\\') {
      out += c;
      continue;
    }
    if (at >= text.size()) return std::nullopt;
    const char letter = text[at++];
    if (letter == 'u') {
      std::string_view digits = text.substr(at, 4);
      const std::optional<unsigned> code = number_at_start<unsigned>(digits, 16, 4);
      if (!code || !digits.empty()) return std::nullopt;  // exactly four hex digits
      append_utf8(out, *code);
      at += 4;
      continue;
    }
    const std::optional<char> plain = escaped(letter);
    if (!plain) return std::nullopt;
    out += *plain;
  }
  return std::nullopt;  // no closing quote
}

}  // namespace tpu
