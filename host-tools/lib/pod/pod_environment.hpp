// Whether this tpu is one rank of a pod that Open MPI's mpirun launched, and which: Open MPI sets
// OMPI_COMM_WORLD_SIZE, _RANK and _LOCAL_RANK in every process it starts. A pod is two or more
// ranks; a single rank (mpirun -n 1) or no mpirun at all is a single board, and MPI is never
// started for it. One rank = one board = one TF task (its task id is the rank).
#pragma once
#include <optional>
#include <string>

namespace tpu {

struct PodRank {
  unsigned rank = 0;
  unsigned size = 1;
  unsigned local_rank = 0;  // among the ranks on this machine
  std::string host;         // this machine's name
  unsigned local_size = 1;  // how many of the pod's ranks run on this machine
};

// `lookup` reads one environment variable (nullptr: unset); the default reads the process's.
using EnvironmentLookup = const char* (*)(const char* name);

// This process's rank when Open MPI launched it as one of 2 or more ranks; nullopt otherwise. Sets
// `error` (and returns nullopt) when the variables are malformed, or when another MPI's launcher
// (MPICH's PMI_RANK) started it: pods need Open MPI's mpirun.
std::optional<PodRank> detect_pod_rank(std::string& error, EnvironmentLookup lookup = nullptr);

}  // namespace tpu
