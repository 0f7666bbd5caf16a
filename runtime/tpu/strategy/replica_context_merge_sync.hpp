// The rendezvous rule behind ReplicaContext.merge_call, pure (no HAL). Every replica of a strategy
// function meets its peers at "sync points": each merge_call is one, and so is the end of the
// function (done, or failed with an error). At a sync point every replica shares what it is doing
// (an all_gather of SyncPoint) and all of them judge the same gathered table the same way:
//   - some replica failed: its error ends the merge (the others return that same Status);
//   - every replica is in a merge_call of the same step with the same index: merge_fn runs;
//   - every replica is done: the function ends normally;
//   - anything else (some replicas done while others wait in merge_call, or merge_calls of
//     different steps or index): TF's RuntimeError
//     "Some replicas made a different number of replica_context().merge_call() calls."
// Because every merge_call and every function end is a sync point, replicas that made the same
// merge_calls meet at the same points, so a mismatch is always seen by every replica at once.
#pragma once
#include "hal/support/span.hpp"
#include "hal/support/status.hpp"

namespace rt::tpu {

// kMismatch: a replica whose logical cores are not all at the same sync point (model parallelism).
enum class SyncKind : uint32_t { kMerge = 1, kDone = 2, kFailed = 3, kMismatch = 4 };

// One replica's entry of the gathered table (four uint32 words on the wire).
struct SyncPoint {
  uint32_t kind = 0;   // SyncKind
  uint32_t step = 0;   // step of run_steps_on_dataset (0 for run)
  uint32_t merge = 0;  // merge_calls this replica made earlier in the step
  uint32_t core = 0;   // kFailed: the core whose function failed (its error is in the rendezvous)
};
inline constexpr unsigned kSyncPointWords = 4;

enum class SyncVerdict : uint8_t { kMerge, kDone, kPeerFailed, kMismatch };

struct SyncOutcome {
  SyncVerdict verdict = SyncVerdict::kMismatch;
  unsigned failed_replica = 0;  // lowest failed replica, for kPeerFailed
  unsigned failed_core = 0;     // its SyncPoint's core, for kPeerFailed
};

SyncOutcome judge_sync(Span<const SyncPoint> points);

// A replica spanning several logical cores (model parallelism) meets its peers with one SyncPoint
// made of its logical cores' (gathered in logical core order, every one of them computing the same):
// the lowest failed logical core's point if any failed; their common point if they all agree (as
// judge_sync agrees); else kMismatch, which judge_sync then judges a mismatch on every replica.
SyncPoint combine_logical_cores(Span<const SyncPoint> points);

// TF's RuntimeError (FAILED_PRECONDITION here).
Status merge_call_count_mismatch();
// ReplicaContext methods called outside a replica context (TF's require_replica_context).
Status not_in_replica_context();

}  // namespace rt::tpu
