// How a host call's function name and text argument share the one text field of a host-call
// request (message.hpp): "name" when the text argument is empty, otherwise "name", one 0x00, then
// the argument's bytes. A function name never contains 0x00, so the first 0x00 splits the two and
// the argument may hold any bytes. Shared by the board (endpoint.cpp) and the host tools.
#pragma once
#include "hal/support/string_view.hpp"

namespace rt::link {

inline constexpr char kCallTextSeparator = '\0';

struct CallText {
  StringView function;
  StringView argument;  // empty if the request carried none
};

constexpr CallText split_call_text(StringView text) {
  const size_t separator = text.find(kCallTextSeparator);
  if (separator == StringView::npos) return {text, StringView()};
  return {text.substr(0, separator), text.substr(separator + 1)};
}

}  // namespace rt::link
