// A `tpu run --boards K` pod's scratch folder: where Open MPI keeps its files on this machine (its
// session directory, the shared-memory BTL's segments), made before mpirun starts and removed once
// mpirun has ended, however it ended. Open MPI removes them itself when mpirun ends normally; a
// mpirun killed with SIGKILL (or a machine's OOM killer) left /dev/shm/vader_segment.* and
// /tmp/ompi.<host>.<uid>/pid.<pid> behind. So a guard process, forked before tpu becomes mpirun,
// waits for mpirun's end (its parent's death signal) and removes the folder.
#pragma once
#include <optional>
#include <string>

namespace tpu {

// Makes a private folder under /dev/shm (tmpfs: the BTL's segments are memory); nullopt and
// `error` if it cannot.
std::optional<std::string> make_pod_scratch(std::string& error);

// Forks the guard of `folder`: it outlives this process (tpu about to exec mpirun) and removes the
// folder once this process has ended. Returns false (and removes the folder) if it cannot fork.
bool guard_pod_scratch(const std::string& folder);

// Removes `folder` and everything in it (the guard's work; also for a launch that never started).
void remove_pod_scratch(const std::string& folder);

}  // namespace tpu
