// One `tpu exec` request on the host side: the op and its parameters, the input tensors spread over
// the replicas, the op spec the board fetches, the host functions that serve the exec app's calls
// (host-tools/images/exec/device/exec_protocol.hpp: exec.op, exec.input, exec.output), and the outputs that
// come back, written as .npy (one replica: as is; several: stacked along a new leading axis, or
// one file per replica).
#pragma once
#include <array>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "host-tools/lib/functions/host_functions.hpp"
#include "host-tools/lib/tensors/host_tensor.hpp"

namespace tpu {

struct ExecParams {
  std::string op;
  unsigned replicas = 1;
  std::string padding = "VALID";                   // conv2d
  std::array<int64_t, 2> strides{1, 1};            // conv2d
  std::array<int64_t, 2> dilations{1, 1};          // conv2d
  std::string reduce = "sum";                      // all_reduce
  int64_t split_dimension = 0;                     // all_to_all
  int64_t concat_dimension = 0;                    // all_to_all
  int64_t split_count = 0;                         // all_to_all (0: replicas)
  std::vector<int64_t> pairs;                      // collective_permute, flattened [source, target]
  std::optional<std::vector<int64_t>> max_shape;   // replicate_padded
  bool pad_power_of_two = false;                   // replicate_padded
};

// The ops the exec app runs and the inputs each takes per replica.
const std::vector<std::string>& exec_op_names();
std::optional<unsigned> exec_op_inputs(const std::string& op);

class ExecJob {
 public:
  // Checks the op and spreads `files` over the replicas: replicas x inputs files in replica-major
  // order, or (several replicas) one file per input whose leading axis has one entry per replica.
  static std::optional<ExecJob> make(const ExecParams& params, std::vector<HostTensor> files, std::string& error);

  std::string spec() const;
  // Adds exec.op, exec.input and exec.output; the job must outlive `functions` and stay in place.
  void serve_with(HostFunctions& functions);
  unsigned replicas() const { return params_.replicas; }
  // Every replica sent its output.
  bool complete() const;
  const std::vector<std::vector<HostTensor>>& outputs() const { return outputs_; }

 private:
  HostCallOutcome fetch_input(const HostCallRequest& request) const;
  HostCallOutcome store_output(const HostCallRequest& request);

  ExecParams params_;
  unsigned inputs_per_replica_ = 0;
  std::vector<HostTensor> tensors_;  // replica-major
  std::vector<std::vector<HostTensor>> outputs_;
};

// Writes output 0 of every replica: one replica -> `path`; several -> stacked into `path` (they must
// agree in dtype and shape), or per_replica -> <stem>.r<k><ext>. Returns "" or the problem.
std::string write_exec_outputs(const ExecJob& job, const std::filesystem::path& path, bool per_replica,
                               std::vector<std::filesystem::path>& written);

}  // namespace tpu
