// contrib's TPUStrategy.configure and TF 2.x's update_config_proto (session_config.hpp): TF's
// TPUStrategy._configure drops cluster_spec, task_type and task_id, and when given a session config
// sets isolate_session_state and copies the resolver's cluster spec into cluster_def if it has jobs.
#include "runtime/tpu/strategy/strategy.hpp"

namespace rt::tpu {

Status TPUStrategy::configure(SessionConfig* session_config, const ClusterSpec* cluster_spec, StringView task_type,
                              int task_id) const {
  (void)cluster_spec, (void)task_type, (void)task_id;  // TF: del cluster_spec, task_type, task_id
  if (session_config == nullptr) return Status::ok();
  const ClusterSpec spec = RT_TRY(resolver_.cluster_spec());
  session_config->isolate_session_state = true;
  if (spec.num_workers != 0) session_config->cluster_def = spec;
  return Status::ok();
}

Result<SessionConfig> TPUStrategy::update_config_proto(const SessionConfig& config) const {
  SessionConfig updated = config;
  RT_RETURN_IF_ERROR(configure(&updated));
  return updated;
}

}  // namespace rt::tpu
