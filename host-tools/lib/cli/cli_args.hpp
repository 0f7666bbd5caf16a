// Small command-line helpers shared by the tpu commands beside CLI11 (command_line.cpp): time limits
// and comma-separated integer lists, checked strictly.
#pragma once
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpu {

// now + `seconds` (a --timeout value), saturating at about 30 years: a huge or infinite timeout
// means "practically forever", never an overflow into an instant timeout.
std::chrono::steady_clock::time_point deadline_after_seconds(double seconds);

// "1,2,-3" -> {1, 2, -3}; also accepts ':' as a separator ("0:1,1:0"); nothing if malformed.
std::optional<std::vector<int64_t>> parse_integer_list(std::string_view text);

}  // namespace tpu
