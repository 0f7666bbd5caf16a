// TF_CONFIG, as TensorFlow's multi-worker programs set it: a JSON object naming the cluster's
// workers and this process's task, e.g.
//   {"cluster": {"worker": ["host-a:8470", "host-b:8470"]}, "task": {"type": "worker", "index": 1}}
// A pod's rank reads it where it is set (each machine's own, as on a real cluster): the task must be
// a worker whose index is the rank, and the cluster must list one worker per rank. The workers are
// the pod's cluster spec (TPUClusterResolver::cluster_spec() on the boards).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace tpu {

struct TfConfig {
  std::vector<std::string> workers;
  std::string task_type;
  unsigned task_index = 0;
};

// nullopt with `error` naming what is wrong (the JSON, a missing or mistyped field).
std::optional<TfConfig> parse_tf_config(const std::string& json, std::string& error);

// "" if `config` fits rank `rank` of `size` ranks, else why not.
std::string check_tf_config(const TfConfig& config, unsigned rank, unsigned size);

}  // namespace tpu
