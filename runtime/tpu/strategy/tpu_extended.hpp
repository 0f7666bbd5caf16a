// TPUExtended: TF's strategy.extended, a view of a TPUStrategy (strategy.hpp includes it).
#pragma once
#include "strategy.hpp"

namespace rt::tpu {

// TF's strategy.extended (StrategyExtended, TPUExtended): the strategy's facts under the names TF 2.x
// keeps there, v1's steps_per_run included (read-only here: it is fixed when the strategy is made).
// A view of the strategy, valid while it lives.
class TPUExtended {
 public:
  explicit TPUExtended(const TPUStrategy& strategy) : strategy_(strategy) {}
  unsigned steps_per_run() const { return strategy_.steps_per_run(); }
  bool experimental_between_graph() const { return strategy_.between_graph(); }
  bool experimental_should_init() const { return strategy_.should_init(); }
  bool should_checkpoint() const { return strategy_.should_checkpoint(); }
  bool should_save_summary() const { return strategy_.should_save_summary(); }
  unsigned num_hosts() const { return strategy_.num_hosts(); }
  unsigned num_replicas_per_host() const { return strategy_.num_replicas_per_host(); }
  WorkerDevices worker_devices() const { return strategy_.worker_devices(); }
  WorkerDevices parameter_devices() const { return strategy_.parameter_devices(); }
  DeviceName non_slot_devices() const { return strategy_.non_slot_devices(); }

 private:
  const TPUStrategy& strategy_;
};

inline TPUExtended TPUStrategy::extended() const { return TPUExtended(*this); }

}  // namespace rt::tpu
