// A number read from the start of a text tpu is given (a board's fault report, QEMU's register dump,
// a JSON escape): std::from_chars over at most a given number of digits, the text advanced past it.
#pragma once
#include <algorithm>
#include <charconv>
#include <cstddef>
#include <optional>
#include <string_view>

namespace tpu {

// The number in `base` of at most `max_digits` digits `text` starts with, `text` advanced past it;
// nothing (and `text` unchanged) if it starts with no digit or the number does not fit a Number.
template <class Number>
std::optional<Number> number_at_start(std::string_view& text, int base, size_t max_digits = std::string_view::npos) {
  Number value = 0;
  const char* last = text.data() + std::min(text.size(), max_digits);
  const auto [end, error] = std::from_chars(text.data(), last, value, base);
  if (error != std::errc()) return std::nullopt;
  text.remove_prefix(static_cast<size_t>(end - text.data()));
  return value;
}

}  // namespace tpu
