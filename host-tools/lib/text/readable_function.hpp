// A demangled C++ function name as a person reads it in a fault or triage line: every template
// argument list longer than kLongestTemplateArguments characters becomes "<...>", so
//   rt::tpu::detail::invoke<(anonymous namespace)::train(unsigned int)::{lambda(...)#1}, true, ...>
// reads "rt::tpu::detail::invoke<...>", while short ones (Tensor::at<float>) stay as they are.
// Parameter lists and lambda names are kept; the symbols of an operator's name ("operator<",
// "operator>>=", "operator<=>", "operator->") open or close no list.
#pragma once
#include <string>
#include <string_view>

namespace tpu {

inline constexpr size_t kLongestTemplateArguments = 40;

std::string readable_function(const std::string& demangled);

}  // namespace tpu
