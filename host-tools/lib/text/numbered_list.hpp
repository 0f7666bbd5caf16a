// Numbered things named in tpu's messages: "task 1", "tasks 1, 3", "core 3", "cores 0, 1" (the
// ranks whose parts never came, the cores that never reported, the cores stopped with a program).
#pragma once
#include <string>

namespace tpu {

// `numbers` (a non-empty range, in the order to name them) after `noun`, singular for one number:
// numbered_list("task", {1}) is "task 1", numbered_list("core", {0, 1}) is "cores 0, 1".
template <class Numbers>
std::string numbered_list(const std::string& noun, const Numbers& numbers) {
  std::string list;
  for (const unsigned number : numbers) list += (list.empty() ? "" : ", ") + std::to_string(number);
  return noun + (numbers.size() == 1 ? " " : "s ") + list;
}

}  // namespace tpu
