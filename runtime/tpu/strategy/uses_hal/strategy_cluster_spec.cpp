// TPUClusterResolver::cluster_spec(): in a pod, the workers' addresses from the board's tpu (the
// reserved host function ".cluster", answered "worker=host:port,host:port,..."); a single board's is
// empty, as TF's local TPU resolver's.
#include "runtime/tpu/strategy/strategy_cluster.hpp"

#include "runtime/link/protocol/host_call.hpp"

namespace rt::tpu {

Result<ClusterSpec> TPUClusterResolver::cluster_spec() const {
  ClusterSpec spec;
  if (num_tasks_ == 1) return spec;
  FixedString<1024> text;
  const link::HostResult into[] = {link::HostResult::text(text)};
  RT_RETURN_IF_ERROR(link::host_call(".cluster", "", {}, into));
  StringView rest = text.view();
  if (!rest.starts_with("worker="))
    return internal_error("the host's cluster spec '{}' does not start with 'worker='", text.view());
  rest = rest.substr(7);
  while (!rest.empty() && spec.num_workers < num_tasks_) {
    size_t comma = 0;
    while (comma < rest.size() && rest[comma] != ',') ++comma;
    spec.workers[spec.num_workers++].append(rest.substr(0, comma));
    rest = rest.substr(comma < rest.size() ? comma + 1 : comma);
  }
  if (spec.num_workers != num_tasks_)
    return internal_error("the host's cluster spec '{}' names {} workers, the pod has {} tasks", text.view(),
                          spec.num_workers, num_tasks_);
  return spec;
}

}  // namespace rt::tpu
