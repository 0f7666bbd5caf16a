// Command-line helpers (cli_args.hpp).
#include "cli_args.hpp"

namespace tpu {

bool take_option(const std::vector<std::string>& args, size_t& i, const std::string& name, std::string& value,
                 bool& missing) {
  const std::string& arg = args[i];
  if (arg == name) {
    if (i + 1 >= args.size()) {
      missing = true;
      return true;
    }
    value = args[++i];
    return true;
  }
  if (arg.rfind(name + "=", 0) == 0) {
    value = arg.substr(name.size() + 1);
    return true;
  }
  return false;
}

std::optional<std::vector<int64_t>> parse_integer_list(std::string_view text) {
  std::vector<int64_t> values;
  if (text.empty()) return values;
  size_t start = 0;
  for (;;) {
    const size_t end = text.find_first_of(",:", start);
    const std::optional<int64_t> value = parse_number<int64_t>(text.substr(start, end - start));
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
