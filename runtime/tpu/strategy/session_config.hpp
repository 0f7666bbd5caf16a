// The part of TF's tf.ConfigProto (session_config) that contrib TPUStrategy.configure writes:
// isolate_session_state, and cluster_def (the resolver's cluster spec as a ClusterDef). A board runs
// no TF session, so nothing reads it: configure fills it as TF does (TF_BEHAVIOUR.md section 6)
// for a program that passes it on, and that is all.
#pragma once
#include "strategy_cluster.hpp"

namespace rt::tpu {

struct SessionConfig {
  bool isolate_session_state = false;
  ClusterSpec cluster_def;  // no jobs unless configure copied a pod's spec
};

}  // namespace rt::tpu
