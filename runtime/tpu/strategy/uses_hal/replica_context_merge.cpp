// merge_call's protocol: sync points over all_gather, merge_fn on replica 0, a barrier, each part taken.
#include "runtime/tpu/strategy/replica_context_merge.hpp"

#include <string.h>

#include "hal/support/new.hpp"

#include "runtime/tpu/spmd/logical_devices_context.hpp"
#include "runtime/ops/copy.hpp"
#include "runtime/tpu/strategy/strategy_replica_context.hpp"

namespace rt::tpu {

Status MergeResult::add(const DistributedValue& value) {
  if (count_ == kMaxMergeValues)
    return invalid_argument("merge_fn returned more than {} values", kMaxMergeValues);
  values_[count_++] = value;
  return Status::ok();
}

Result<SyncPoint> MergeParticipant::agree_in_replica(const SyncPoint& mine) {
  LogicalDevices* devices = current_logical_devices();
  if (devices == nullptr || devices->num_logical_cores() != replica_.num_logical_cores())
    return internal_error("merge_call: replica {} spans {} logical cores but core {} has no logical devices context",
                          replica_.replica_id(), replica_.num_logical_cores(), replica_.core());
  const int64_t words[] = {kSyncPointWords};
  const Tensor in = Tensor::contiguous(DType::kU32, *Shape::make(words), const_cast<SyncPoint*>(&mine));
  Result<Tensor> gathered = devices->all_gather(in);
  if (!gathered) return gathered.status();
  SyncPoint points[hal::kMaxCores];
  const unsigned cores = devices->num_logical_cores();
  memcpy(points, gathered->data, cores * sizeof(SyncPoint));
  return combine_logical_cores(Span<const SyncPoint>(points, cores));
}

Result<SyncOutcome> MergeParticipant::sync(SyncKind kind) {
  ArenaScope scratch(replica_.arena());
  SyncPoint mine;
  mine.kind = static_cast<uint32_t>(kind);
  mine.step = step_;
  mine.merge = merges_;
  mine.core = replica_.core();
  if (replica_.num_logical_cores() > 1) {
    Result<SyncPoint> agreed = agree_in_replica(mine);
    if (!agreed) return agreed.status();
    mine = *agreed;
  }
  const int64_t words[] = {kSyncPointWords};
  const Tensor in = Tensor::contiguous(DType::kU32, *Shape::make(words), &mine);
  Result<Tensor> gathered = replica_.all_gather(in);
  if (!gathered) return gathered.status();
  SyncPoint points[kMaxReplicas];
  const unsigned replicas = replica_.num_replicas();
  memcpy(points, gathered->data, replicas * sizeof(SyncPoint));
  return judge_sync(Span<const SyncPoint>(points, replicas));
}

Status MergeParticipant::await_merge_fn() {
  RT_RETURN_IF_ERROR(replica_.barrier());  // logical core 0 of each replica: replica 0's has run merge_fn
  if (replica_.num_logical_cores() == 1) return Status::ok();
  LogicalDevices* devices = current_logical_devices();
  if (devices == nullptr) return internal_error("merge_call: core {} has no logical devices context", replica_.core());
  return devices->barrier();  // the replica's other logical cores: its logical core 0 is past the first
}

Status MergeParticipant::judge(const Result<SyncOutcome>& outcome) {
  if (!outcome) return ended_ = outcome.status();
  switch (outcome->verdict) {
    case SyncVerdict::kMerge: return Status::ok();
    case SyncVerdict::kPeerFailed:  // its error is on its own board (in a pod, that board reports it)
      if (!replica_.is_on_this_board(outcome->failed_replica))
        return ended_ = Status::error(StatusCode::kAborted, "merge_call: replica {} failed on another board of the pod",
                                      outcome->failed_replica);
      return ended_ = rendezvous_.failure[outcome->failed_core];
    case SyncVerdict::kDone:
    case SyncVerdict::kMismatch: break;
  }
  return ended_ = merge_call_count_mismatch();
}

bool MergeParticipant::runs_merge_fn() const {
  if (replica_.logical_core() != 0) return false;
  unsigned lowest = 0;
  while (lowest < replica_.num_replicas() && !replica_.is_on_this_board(lowest)) ++lowest;
  return replica_.replica_id() == lowest;
}

// In a pod every replica all-gathers each argument (so every board's runner has every replica's
// values, as slices of its gathered tensor); the arguments' shapes must then agree across replicas.
Status MergeParticipant::gather_across_boards(Span<const Tensor> args) {
  const unsigned replicas = replica_.num_replicas();
  const size_t slots = size_t{replicas} * args.size();
  Tensor* views = nullptr;  // [replica][argument], in the runner's arena until the computation ends
  if (runs_merge_fn() && slots != 0) {
    uint8_t* memory = RT_TRY(replica_.arena().allocate(slots * sizeof(Tensor), alignof(Tensor), "merge_call's arguments"));
    views = new (memory) Tensor[slots];
  }
  for (unsigned k = 0; k < args.size(); ++k) {
    const Tensor gathered = RT_TRY(replica_.all_gather(args[k]));
    if (views == nullptr) continue;
    const size_t bytes = static_cast<size_t>(args[k].num_elements()) * dtype_size(args[k].dtype);
    for (unsigned r = 0; r < replicas; ++r)
      views[r * args.size() + k] =
          Tensor::contiguous(args[k].dtype, args[k].shape, static_cast<uint8_t*>(gathered.data) + r * bytes);
  }
  if (views != nullptr)
    for (unsigned r = 0; r < replicas; ++r) rendezvous_.args[r] = Span<const Tensor>(views + r * args.size(), args.size());
  return Status::ok();
}

Status MergeParticipant::merge_call(const MergeFn& fn, Span<const Tensor> args, MergeOutputs& outputs) {
  outputs.clear();
  if (!ended_.is_ok()) return ended_;
  if (args.size() > kMaxMergeValues)
    return invalid_argument("merge_call takes at most {} arguments, got {}", kMaxMergeValues, args.size());
  // Published before the sync point that reveals it; a replica's arguments are its logical core 0's.
  if (replica_.logical_core() == 0) rendezvous_.args[replica_.replica_id()] = args;
  const Result<SyncOutcome> outcome = sync(SyncKind::kMerge);
  ++merges_;
  RT_RETURN_IF_ERROR(judge(outcome));
  if (replica_.spans_boards()) {
    const Status gathered = gather_across_boards(args);
    if (!gathered.is_ok()) return ended_ = gathered;
  }
  if (runs_merge_fn()) run_merge_fn(fn, static_cast<unsigned>(args.size()));
  const Status merged = await_merge_fn();  // replica 0's logical core 0 has written the result
  if (!merged.is_ok()) return ended_ = merged;
  if (!rendezvous_.merge_status.is_ok()) return rendezvous_.merge_status;
  return take_part(outputs);
}

Status MergeParticipant::gather_arguments(unsigned num_args) {
  const unsigned replicas = replica_.num_replicas();
  for (unsigned r = 0; r < replicas; ++r)
    if (rendezvous_.args[r].size() != num_args)
      return invalid_argument("merge_call: replica {} passed {} arguments, replica 0 passed {}", r,
                              rendezvous_.args[r].size(), num_args);
  Tensor components[kMaxReplicas];
  for (unsigned k = 0; k < num_args; ++k) {
    for (unsigned r = 0; r < replicas; ++r) components[r] = rendezvous_.args[r][k];
    rendezvous_.gathered[k] = DistributedValue::regroup(Span<const Tensor>(components, replicas));
  }
  return Status::ok();
}

Status MergeParticipant::check_result() const {
  const unsigned replicas = replica_.num_replicas();
  for (unsigned k = 0; k < rendezvous_.result.size(); ++k) {
    const DistributedValue& value = rendezvous_.result[k];
    if (value.is_distributed() && value.num_components() != replicas)
      return invalid_argument("merge_fn returned a {} value with {} components as result {}, but there are {} replicas",
                              value_kind_name(value.kind()), value.num_components(), k, replicas);
  }
  return Status::ok();
}

void MergeParticipant::run_merge_fn(const MergeFn& fn, unsigned num_args) {
  rendezvous_.result.clear();
  rendezvous_.merge_status = gather_arguments(num_args);
  if (!rendezvous_.merge_status.is_ok()) return;
  StrategyContextScope cross_replica(nullptr);
  rendezvous_.merge_status = fn(*rendezvous_.strategy, Span<const DistributedValue>(rendezvous_.gathered, num_args),
                                rendezvous_.result);
  if (rendezvous_.merge_status.is_ok()) rendezvous_.merge_status = check_result();
}

Status MergeParticipant::take_part(MergeOutputs& outputs) {
  for (unsigned k = 0; k < rendezvous_.result.size(); ++k) {
    const Tensor& part = rendezvous_.result[k].component(replica_.replica_id());
    Result<Tensor> mine = replica_.arena().allocate_tensor(part.dtype, part.shape, "a merge_call result");
    if (!mine) return mine.status();
    RT_RETURN_IF_ERROR(copy(part, *mine));
    RT_RETURN_IF_ERROR(outputs.add(*mine));
  }
  return Status::ok();
}

Status MergeRendezvous::record_failure(unsigned core, const Status& error) {
  failure[core] = error;  // published by the exchange below (release), read after it (acquire)
  int32_t first = kNoCore;
  if (first_failed_core.compare_exchange(first, static_cast<int32_t>(core), MemoryOrder::kAcqRel)) return error;
  return failure[first];
}

Status MergeParticipant::finish(const Status& fn_status) {
  if (!ended_.is_ok()) return fn_status.is_ok() ? ended_ : fn_status;
  const Status cause = fn_status.is_ok() ? fn_status : rendezvous_.record_failure(replica_.core(), fn_status);
  const Result<SyncOutcome> outcome = sync(fn_status.is_ok() ? SyncKind::kDone : SyncKind::kFailed);
  if (!fn_status.is_ok()) return cause;
  if (!outcome) return outcome.status();
  if (outcome->verdict == SyncVerdict::kMismatch) return merge_call_count_mismatch();
  return Status::ok();  // done, or a peer failed (replicate reports the peer's error)
}

}  // namespace rt::tpu
