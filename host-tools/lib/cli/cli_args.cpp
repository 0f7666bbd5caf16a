// Command-line helpers (cli_args.hpp).
#include "cli_args.hpp"

#include <charconv>

namespace tpu {

namespace {

std::optional<int64_t> parse_integer(std::string_view text) {
  int64_t value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec != std::errc() || result.ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::vector<int64_t>> parse_integer_list(std::string_view text) {
  std::vector<int64_t> values;
  if (text.empty()) return values;
  size_t start = 0;
  for (;;) {
    const size_t end = text.find_first_of(",:", start);
    const std::optional<int64_t> value = parse_integer(text.substr(start, end - start));
    if (!value) return std::nullopt;
    values.push_back(*value);
    if (end == std::string_view::npos) return values;
    start = end + 1;
  }
}

std::chrono::steady_clock::time_point deadline_after_seconds(double seconds) {
  constexpr double kLongest = 1e9;  // ~30 years; the clock's nanoseconds would overflow past ~292 years
  const double bounded = seconds < kLongest ? seconds : kLongest;  // also catches inf (NaN is refused earlier)
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(bounded));
}

}  // namespace tpu
