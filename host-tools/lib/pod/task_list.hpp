// The tasks of a pod named in tpu's messages: "task 1", "tasks 1, 3" (the ranks whose parts never
// came, for one call or for every exchange still open).
#pragma once
#include <string>

namespace tpu {

// `tasks` (a non-empty range of task numbers, in the order to name them) as "task 1" or "tasks 1, 3".
template <class Tasks>
std::string tasks_text(const Tasks& tasks) {
  std::string list;
  for (const unsigned task : tasks) list += (list.empty() ? "" : ", ") + std::to_string(task);
  return (tasks.size() == 1 ? "task " : "tasks ") + list;
}

}  // namespace tpu
