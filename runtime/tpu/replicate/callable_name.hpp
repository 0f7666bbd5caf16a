// The name a lambda or a function object given to replicate, strategy.run or run_steps_on_dataset
// goes by in the runtime's messages and in the hang triage (a replica that timed out, a core still
// busy with a launch), taken at compile time from its type as GCC spells it:
//   a lambda written in train_steps(...)      "lambda in train_steps"
//   a lambda in a lambda in train_steps(...)  "lambda in train_steps"
//   struct TrainStep { ... operator() ... }   "TrainStep"
//   a plain function pointer                  the caller's default (TF's parameter name: "fn")
// At most kMaxCallableName characters (the trace keeps the first 31 of a name: trace/core_status.hpp).
// A compiler whose __PRETTY_FUNCTION__ is not GCC's gets the default.
#pragma once
#include "hal/support/string_view.hpp"

namespace rt::tpu {

inline constexpr size_t kMaxCallableName = 63;

namespace detail {

struct CallableName {
  char text[kMaxCallableName + 1] = {};
  size_t size = 0;

  constexpr void append(StringView part) {
    for (size_t i = 0; i < part.size() && size < kMaxCallableName; ++i) text[size++] = part[i];
  }
};

// GCC: "... pretty_type_text() [with F = <the type>]".
template <class F>
constexpr StringView pretty_type_text() {
  const StringView pretty(__PRETTY_FUNCTION__);
  const StringView marker("[with F = ");
  for (size_t i = 0; i + marker.size() < pretty.size(); ++i)
    if (pretty.substr(i).starts_with(marker) && pretty[pretty.size() - 1] == ']')
      return pretty.substr(i + marker.size(), pretty.size() - 1 - i - marker.size());
  return {};
}

// Nesting depth change of one character of a type's text: ( and < open, ) and > close.
constexpr int depth_step(char c) { return c == '(' || c == '<' ? 1 : (c == ')' || c == '>' ? -1 : 0); }

// Where the first "<lambda" outside brackets starts, or the text's size.
constexpr size_t first_lambda(StringView type) {
  const StringView marker("<lambda");
  int depth = 0;
  for (size_t i = 0; i < type.size(); ++i) {
    if (depth == 0 && type.substr(i).starts_with(marker)) return i;
    depth += depth_step(type[i]);
  }
  return type.size();
}

// What follows the last "::" outside brackets: "ns::f<a::b>" -> "f<a::b>".
constexpr StringView unqualified(StringView name) {
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i + 1 < name.size(); ++i) {
    if (depth == 0 && name[i] == ':' && name[i + 1] == ':') start = i + 2;
    depth += depth_step(name[i]);
  }
  return name.substr(start);
}

// A function's name without its parameters and qualifiers: "ns::S::f(int, x::y) const" -> "ns::S::f".
constexpr StringView without_parameters(StringView function) {
  size_t end = function.size();
  while (end > 0 && function[end - 1] != ')') --end;  // " const", " &&", ...
  int depth = 0;
  for (size_t i = end; i > 0; --i) {
    depth += depth_step(function[i - 1]);
    if (depth == 0) return function.substr(0, i - 1);
  }
  return function;
}

constexpr CallableName name_of_type(StringView type) {
  CallableName name;
  if (type.empty()) return name;
  const size_t lambda = first_lambda(type);
  if (lambda < type.size()) {  // "outer(args)::<lambda(...)>", "ns::<lambda(...)>" or "<lambda(...)>"
    StringView outer = type.substr(0, lambda >= 2 ? lambda - 2 : 0);
    const bool in_function = !outer.empty() && outer[outer.size() - 1] != '}' &&
                             without_parameters(outer).size() < outer.size();
    name.append(in_function ? "lambda in " : "lambda");
    if (in_function) name.append(unqualified(without_parameters(outer)));
    return name;
  }
  for (size_t i = 0; i + 2 < type.size(); ++i)
    if (type[i] == '(' && (type[i + 1] == '*' || type[i + 1] == '&') && type[i + 2] == ')') return name;  // R (*)(A...)
  name.append(unqualified(type));
  return name;
}

template <class F>
inline constexpr CallableName kCallableName = name_of_type(pretty_type_text<F>());

}  // namespace detail

// The name of callables of type F (see above), or `fallback` where the type gives none.
template <class F>
constexpr StringView callable_name(StringView fallback) {
  const detail::CallableName& name = detail::kCallableName<F>;
  return name.size > 0 ? StringView(name.text, name.size) : fallback;
}

}  // namespace rt::tpu
