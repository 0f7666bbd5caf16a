// Long template argument lists of a demangled name shortened (readable_function.hpp).
#include "readable_function.hpp"

namespace tpu {
namespace {

bool identifier_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Where the operator name starting at `at` ends ("operator<", "operator>>=", "operator<=>",
// "operator->", ...: the keyword and the symbols after it), or `at` if no such name starts there (an
// identifier merely ending in "operator", like binary_operator, is none).
size_t operator_end(const std::string& name, size_t at) {
  constexpr std::string_view kKeyword = "operator";
  if (name.compare(at, kKeyword.size(), kKeyword) != 0 || (at > 0 && identifier_character(name[at - 1]))) return at;
  size_t end = at + kKeyword.size();
  while (end < name.size() && (name[end] == '<' || name[end] == '>' || name[end] == '=' || name[end] == '-')) ++end;
  return end;
}

// The index just past the '>' closing the list opened at `open`, or npos if it never closes.
size_t list_end(const std::string& name, size_t open) {
  int depth = 0;
  for (size_t i = open; i < name.size();) {
    if (const size_t skip = operator_end(name, i); skip != i) {
      i = skip;
      continue;
    }
    if (name[i] == '<') ++depth;
    else if (name[i] == '>' && name[i - 1] != '-' && --depth == 0) return i + 1;  // not a -> (i > open)
    ++i;
  }
  return std::string::npos;
}

}  // namespace

std::string readable_function(const std::string& demangled) {
  std::string readable;
  for (size_t i = 0; i < demangled.size();) {
    if (const size_t skip = operator_end(demangled, i); skip != i) {
      readable += demangled.substr(i, skip - i);
      i = skip;
      continue;
    }
    if (demangled[i] != '<') {
      readable += demangled[i++];
      continue;
    }
    const size_t end = list_end(demangled, i);
    if (end == std::string::npos) return readable + demangled.substr(i);  // unbalanced: the rest as it is
    const std::string arguments = demangled.substr(i + 1, end - i - 2);
    readable += arguments.size() > kLongestTemplateArguments ? "<...>" : "<" + readable_function(arguments) + ">";
    i = end;
  }
  return readable;
}

}  // namespace tpu
