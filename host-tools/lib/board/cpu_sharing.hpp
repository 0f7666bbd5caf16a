// How tpu and the board it serves share this machine's CPUs.
//   --bind-to core: the host board's cores (threads) each bound to a CPU of their own, as mpirun's
//   --bind-to core binds ranks; a pod's boards on one machine take consecutive CPUs by local rank
//   (board r's core c on CPU r * C + c). Without it (--bind-to none, the default) the OS places the
//   threads: on a loaded or small machine two cores may then share one CPU and every message between
//   them waits for a scheduler switch (the benchmarks bind; tests do not, since several runs share
//   the machine). QEMU boards' cores are QEMU's threads: not bound.
//   Spinning: tpu polls the board without sleeping for a moment after activity only if a CPU is left
//   over for it (the boards of this machine take fewer CPUs than there are); otherwise its spinning
//   would take a core's CPU.
#pragma once
#include <string>

namespace tpu {

// The cores a board boots: `cores` (--cores), or the Makefile's default when it is 0.
unsigned cores_or_default(unsigned cores);

// Asks the board about to be launched for the binding (the environment variable the host board
// reads, hal/affinity.hpp) or withdraws the request; returns a note for the user ("" if none).
// `cores` 0: the board's default count.
std::string request_core_binding(const std::string& bind_to, const std::string& board, unsigned cores,
                                 unsigned local_rank);

// Whether a CPU is left for tpu's polling while `boards_here` boards of `cores` cores each (0: the
// default count) run on this machine.
bool cpu_left_for_tpu(unsigned cores, unsigned boards_here);

}  // namespace tpu
