// Every line a pod's rank writes starts with its task ("[task 1] "), so the boards' consoles and
// tpu's own lines stay apart where mpirun merges the ranks' output. Installed on std::cout and
// std::cerr for the rest of the process (children forked later, the host-function worker, inherit it).
#pragma once
#include <string>

namespace tpu {

void prefix_output_lines(const std::string& prefix);

}  // namespace tpu
