// Long template argument lists of a demangled name shortened (readable_function.hpp).
#include "readable_function.hpp"

namespace tpu {
namespace {

// Whether the '<' at `at` is part of an operator's name ("operator<", "operator<<", "operator<=").
bool is_operator(const std::string& name, size_t at) {
  size_t start = at;
  while (start > 0 && name[start - 1] == '<') --start;  // the first '<' of "operator<<"
  return start >= 8 && name.compare(start - 8, 8, "operator") == 0;
}

// The index just past the '>' closing the list opened at `open`, or npos if it never closes.
size_t list_end(const std::string& name, size_t open) {
  int depth = 0;
  for (size_t i = open; i < name.size(); ++i) {
    if (name[i] == '<' && !is_operator(name, i)) ++depth;
    else if (name[i] == '>' && (i == 0 || name[i - 1] != '-') && --depth == 0) return i + 1;
  }
  return std::string::npos;
}

}  // namespace

std::string readable_function(const std::string& demangled) {
  std::string readable;
  for (size_t i = 0; i < demangled.size();) {
    if (demangled[i] != '<' || is_operator(demangled, i)) {
      readable += demangled[i++];
      continue;
    }
    const size_t end = list_end(demangled, i);
    if (end == std::string::npos) return readable + demangled.substr(i);  // unbalanced: the rest as it is
    const std::string list = demangled.substr(i, end - i);
    readable += list.size() - 2 > kLongestTemplateArguments ? "<...>" : readable_function(list.substr(1, list.size() - 2)).insert(0, "<") + ">";
    i = end;
  }
  return readable;
}

}  // namespace tpu
