// type_name<T>(): the name of a type as the compiler spells it ("Params", "ns::Batch"), for messages
// that name a structure (tf.nest prints the structure's type). Read from __PRETTY_FUNCTION__.
#pragma once
#include "hal/support/string_view.hpp"

namespace rt::tpu::nest {

template <class T>
StringView type_name() {
  // GCC: "... type_name() [with T = Params; ...]"; clang: "... type_name() [T = Params]".
  const StringView signature = __PRETTY_FUNCTION__;
  size_t begin = 0;
  for (size_t i = 0; i + 4 <= signature.size(); ++i)
    if (signature[i] == 'T' && signature[i + 1] == ' ' && signature[i + 2] == '=' && signature[i + 3] == ' ') {
      begin = i + 4;
      break;
    }
  size_t end = begin;
  while (end < signature.size() && signature[end] != ';' && signature[end] != ']') ++end;
  return StringView(signature.data() + begin, end - begin);
}

}  // namespace rt::tpu::nest
