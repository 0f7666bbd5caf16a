// The firmware shell: a line-oriented command interpreter on the console, run by core 0 (the
// `shell` app). It reads the console without blocking (hal::link_read_byte, the same byte stream
// the link uses; nothing else reads it while the shell runs), echoes what it reads, and answers:
//   help, cores, mem, stats (per-core busy/collective/wait time from the trace counters), bench
//   (a matmul benchmark on core 0's MXU), trace on|off, reboot, exit
// Output is plain text lines (no "[c0 I]" prefix), written under the console lock. The shell ends
// on `exit` or `reboot`, or after idle_timeout_ns without input (every wait has a bound).
#pragma once
#include "hal/support/status.hpp"

namespace firmware {

struct ShellOptions {
  uint64_t idle_timeout_ns = 600000ull * 1000000ull;  // 10 minutes
};

enum class ShellEnd { kExit, kReboot, kIdle };

ShellEnd run_shell(const ShellOptions& options);

}  // namespace firmware
