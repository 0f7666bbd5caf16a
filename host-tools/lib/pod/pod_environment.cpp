// Open MPI's launch variables, read (pod_environment.hpp).
#include "pod_environment.hpp"

#include <unistd.h>

#include <charconv>
#include <cstdlib>

namespace tpu {
namespace {

const char* read_environment(const char* name) { return std::getenv(name); }

// A decimal unsigned variable; nullopt (with `error`) if set but not a number.
std::optional<unsigned> number_variable(EnvironmentLookup lookup, const char* name, std::string& error) {
  const char* text = lookup(name);
  if (text == nullptr) return std::nullopt;
  const std::string value(text);
  unsigned number = 0;
  const auto [end, failure] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (failure != std::errc() || end != value.data() + value.size() || value.empty()) {
    error = std::string(name) + "=\"" + value + "\" is not a rank number";
    return std::nullopt;
  }
  return number;
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown host";
  return name;
}

}  // namespace

std::optional<PodRank> detect_pod_rank(std::string& error, EnvironmentLookup lookup) {
  if (lookup == nullptr) lookup = read_environment;
  error.clear();
  const std::optional<unsigned> size = number_variable(lookup, "OMPI_COMM_WORLD_SIZE", error);
  if (!error.empty()) return std::nullopt;
  if (!size) {
    if (lookup("PMI_RANK") != nullptr || lookup("PMI_SIZE") != nullptr)
      error = "this tpu was started by an MPI launcher other than Open MPI's (PMI_RANK is set); a pod of boards "
              "needs Open MPI's mpirun (tpu run --boards K starts it)";
    return std::nullopt;
  }
  const std::optional<unsigned> rank = number_variable(lookup, "OMPI_COMM_WORLD_RANK", error);
  if (!error.empty()) return std::nullopt;
  const std::optional<unsigned> local_rank = number_variable(lookup, "OMPI_COMM_WORLD_LOCAL_RANK", error);
  if (!error.empty()) return std::nullopt;
  const std::optional<unsigned> local_size = number_variable(lookup, "OMPI_COMM_WORLD_LOCAL_SIZE", error);
  if (!error.empty()) return std::nullopt;
  if (!rank || *size == 0 || *rank >= *size) {
    error = "Open MPI's launch variables disagree: OMPI_COMM_WORLD_RANK " +
            (rank ? std::to_string(*rank) : std::string("is unset")) + ", OMPI_COMM_WORLD_SIZE " + std::to_string(*size);
    return std::nullopt;
  }
  if (*size == 1) return std::nullopt;  // mpirun -n 1: a single board
  return PodRank{*rank, *size, local_rank.value_or(0), host_name(), local_size.value_or(1)};
}

}  // namespace tpu
