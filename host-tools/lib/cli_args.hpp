// Small command-line helpers shared by the tpu subcommands (exec, console, trace): "--name value"
// or "--name=value" options, numbers and comma-separated integer lists, checked strictly.
#pragma once
#include <charconv>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpu {

// If args[i] is `name` (value in the next argument) or "name=value": sets `value`, advances `i`
// past what it consumed, returns true. A bare `name` at the end leaves `missing` set.
bool take_option(const std::vector<std::string>& args, size_t& i, const std::string& name, std::string& value,
                 bool& missing);

template <class T>
std::optional<T> parse_number(std::string_view text) {
  T value{};
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec != std::errc() || result.ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

// now + `seconds` (a --timeout value), saturating at about 30 years: a huge or infinite timeout
// means "practically forever", never an overflow into an instant timeout.
std::chrono::steady_clock::time_point deadline_after_seconds(double seconds);

// "1,2,-3" -> {1, 2, -3}; also accepts ':' as a separator ("0:1,1:0"); nothing if malformed.
std::optional<std::vector<int64_t>> parse_integer_list(std::string_view text);

}  // namespace tpu
