// ReplicaContext.merge_call for TPUStrategy functions (TF_BEHAVIOUR.md section 6): every replica
// pauses, merge_fn runs ONCE, on replica 0's core, in cross-replica context with each argument
// gathered over the replicas (a PerReplica of the replicas' values; the value itself with one
// replica, TF's regroup), and each replica resumes with its part of merge_fn's result: a plain value
// returned by merge_fn goes to every replica, a PerReplica/Mirrored one gives replica r its
// component r. Each replica's part is copied into its own arena.
//
// The protocol (sync points, replica_context_merge_sync.hpp): a replica publishes its arguments in
// the launch's MergeRendezvous, all_gathers a SyncPoint with its peers, and when all of them are in
// the same merge_call replica 0 runs merge_fn while the others wait in a barrier, then each takes
// its part. Every wait is a collective bounded by the launch's collective timeout, which names the
// waiting core. merge_fn's error is returned by merge_call on every replica. A replica making fewer
// merge_calls than its peers meets them at its end-of-function sync point instead, and every replica
// gets TF's "Some replicas made a different number of replica_context().merge_call() calls."; a
// replica whose function failed hands its error to peers waiting in merge_call. After such an error
// the replica makes no more sync points (merge_call returns the same error again).
// The first function of a launch to fail is the cause: its last sync point may meet a peer inside a
// collective of the function (an all_reduce, say), which then fails with a collective mismatch; a
// replica whose function failed after another's returns that first error (on this board), so the
// launch reports the cause, not what followed from it.
// All replicas must pass the same number of arguments (at most kMaxMergeValues).
//
// Model parallelism (a device assignment giving each replica several logical cores): the function
// runs on every logical core of every replica (SPMD), and so does each sync point: a replica's
// logical cores first all_gather their SyncPoints among themselves (LogicalDevices) and agree on
// the replica's one (combine_logical_cores: logical cores at different sync points are a mismatch,
// one that failed fails the replica), then each logical core all_gathers that with the same logical
// core of the other replicas, so every core of every replica judges the same table. Only logical
// core 0 publishes its arguments (a replica's values are its logical core 0's, as replicate's
// outputs are), merge_fn runs once, on replica 0's logical core 0, and every logical core of replica
// r waits for it (a barrier across the replicas, then one across the replica's logical cores) and
// takes replica r's part into its own arena.
#pragma once
#include "distributed_value.hpp"
#include "hal/core.hpp"
#include "hal/support/atomic.hpp"
#include "hal/support/inplace_function.hpp"
#include "runtime/tpu/replicate/replica_context.hpp"
#include "replica_context_merge_sync.hpp"

namespace rt::tpu {

class TPUStrategy;

// The most tensors merge_call passes (its arguments' leaves) and merge_fn returns (its result's).
inline constexpr unsigned kMaxMergeValues = 16;

// What merge_fn returns: up to kMaxMergeValues values, each plain or one component per replica.
class MergeResult {
 public:
  Status add(const DistributedValue& value);
  unsigned size() const { return count_; }
  const DistributedValue& operator[](unsigned index) const { return values_[index]; }
  void clear() { count_ = 0; }

 private:
  DistributedValue values_[kMaxMergeValues];
  unsigned count_ = 0;
};

// A replica's part of merge_fn's result, in order.
using MergeOutputs = ReplicaOutputs;

// merge_fn(strategy, *args): runs on replica 0's core in cross-replica context (no replica context
// is current there, so strategy.reduce works and merge_call is refused). Its values go to `result`.
// merge_callable.hpp makes one from a lambda taking (TPUStrategy&, const DistributedValue&...).
using MergeFn = InplaceFunction<Status(TPUStrategy& strategy, Span<const DistributedValue> args, MergeResult& result)>;

// Shared by the replicas of one strategy launch (static storage: the strategy keeps one).
struct MergeRendezvous {
  TPUStrategy* strategy = nullptr;
  Span<const Tensor> args[kMaxReplicas];          // each replica's merge_call arguments (logical core 0's)
  Status failure[hal::kMaxCores];                 // by core: a failed function's error, before its last sync
  Atomic<int32_t> first_failed_core{kNoCore};     // the core whose function failed first in this launch
  DistributedValue gathered[kMaxMergeValues];     // merge_fn's arguments (replica 0 fills them)
  MergeResult result;                             // merge_fn's result (replica 0)
  Status merge_status;                            // merge_fn's status (replica 0)

  static constexpr int32_t kNoCore = -1;
  void reset(TPUStrategy* owner) {
    strategy = owner;
    first_failed_core.store(kNoCore, MemoryOrder::kRelaxed);
    for (Status& error : failure) error = Status::ok();  // no earlier launch's error is taken for this one's
  }
  // Records that `core`'s function failed with `error`; returns the launch's first failure (this
  // one, or an earlier core's).
  Status record_failure(unsigned core, const Status& error);
};

// One replica's side of the protocol.
class MergeParticipant {
 public:
  MergeParticipant(ReplicaContext& replica, MergeRendezvous& rendezvous) : replica_(replica), rendezvous_(rendezvous) {}

  Status merge_call(const MergeFn& fn, Span<const Tensor> args, MergeOutputs& outputs);
  // A new step of run_steps_on_dataset: merge_calls are counted per step.
  void begin_step(uint32_t step) {
    step_ = step;
    merges_ = 0;
  }
  uint32_t merges_in_step() const { return merges_; }
  // The replica's function returned `fn_status`: its last sync point. Returns the replica's status.
  Status finish(const Status& fn_status);

 private:
  Result<SyncOutcome> sync(SyncKind kind);
  // The replica's SyncPoint agreed by its logical cores (model parallelism).
  Result<SyncPoint> agree_in_replica(const SyncPoint& mine);
  // Waits until merge_fn (replica 0's logical core 0) is done.
  Status await_merge_fn();
  // merge_fn runs on the lowest replica of each board (on a single board: replica 0), logical core 0.
  bool runs_merge_fn() const;
  // A pod: every replica's arguments, gathered across the boards (each board's runner reads them).
  Status gather_across_boards(Span<const Tensor> args);
  // The error ending the merge protocol for this replica, or OK to run merge_fn.
  Status judge(const Result<SyncOutcome>& outcome);
  void run_merge_fn(const MergeFn& fn, unsigned num_args);
  Status gather_arguments(unsigned num_args);
  Status check_result() const;
  Status take_part(MergeOutputs& outputs);

  ReplicaContext& replica_;
  MergeRendezvous& rendezvous_;
  uint32_t step_ = 0;
  uint32_t merges_ = 0;
  Status ended_;  // set once the protocol ended with an error: no more sync points
};

}  // namespace rt::tpu
