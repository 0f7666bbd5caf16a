// What the cores of a hung board were doing, in words: one line per core from its status record
// (core_status_reader.hpp) and the one-line diagnosis that follows the wait chain, who waits for
// whom, to the core at its end and what that core does:
//
//   core 3 waits in all_reduce #812 for core 5, which is in host call 'log_steps' (call 17)
//   cores 0, 1, 2 gave up waiting in all_reduce #1 for core 3, which is running (not waiting for anything)
//   deadlock: core 1 waits to receive from core 2, which waits to receive from core 1
//
// Values from device memory are printed as they are: a state this tool does not know as its
// number, a peer beyond the board's cores as "core 37 (no such core)".
#pragma once
#include <string>
#include <vector>

#include "core_status_reader.hpp"

namespace tpu {

// "waits in all_reduce #1 for core 3", "is in host call 'log_steps' (call 17)", "is running", ...
std::string activity_phrase(const ActivityView& activity, unsigned result_code, unsigned cores);
// "core 0: has finished (DEADLINE_EXCEEDED); it gave up waiting in all_reduce #1 for core 3; last
// events: all_reduce 1.00 s, app 1.00 s"
std::string describe_core(const CoreSnapshot& core, unsigned cores);
// The one-line diagnosis over all cores (see above).
std::string diagnose(const std::vector<CoreSnapshot>& cores);
// "12 us", "3.40 ms", "1.25 s".
std::string duration_text(uint64_t nanoseconds);

}  // namespace tpu
