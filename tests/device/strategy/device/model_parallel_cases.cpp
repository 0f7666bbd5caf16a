// TPUStrategy with model parallelism: a device assignment with computation_shape [1, 1, 1, 2] gives
// each of the N = cores / 2 replicas 2 logical devices (cores 4+ and even; other boards skip with a
// log line). The function runs on every logical core of every replica (SPMD):
//   x = [[0, 1, 2, 3], [4, 5, 6, 7]] (x_ij = 4i + j), split [1, 2] over the 2 logical devices
//   (device d holds columns 2d, 2d + 1); each adds its replica id r to its shard; the shards are
//   gathered: v = x + r on both logical cores; a = all_reduce(SUM, shard + r) between the same logical
//   core of each replica: N x_ij + N(N - 1)/2 on its columns (gathered into the whole tensor);
//   s = merge_call(sum over replicas of v) = N x_ij + N(N - 1)/2, merge_fn running once on replica
//   0's logical core 0 with N values; outputs [s + v, [logical_core, logical cores, r, N]] are logical
//   core 0's: s + v = (N + 1) x_ij + N(N - 1)/2 + r. reduce(SUM) of the first output over replicas:
//   (N + 1)(N x_ij + N(N - 1)/2). Every logical core checks its own numbers; both run.
// Then: update of a mirrored variable applies fn once per replica (not once per logical core);
// logical core 1 of the last replica making one merge_call more than everyone else is TF's mismatch
// error (on every core, no hang); logical core 1 of the last replica failing while the others wait
// in merge_call hands its error to the run. After every error the strategy runs again.
#include "hal/core.hpp"
#include "runtime/log/log.hpp"
#include "runtime/ops/elementwise.hpp"
#include "runtime/tensor/hbm.hpp"
#include "runtime/tpu/spmd/spmd_tensor.hpp"
#include "suite.hpp"

namespace strategy_test {
namespace {

using rt::tpu::MergeOutputs;
using rt::tpu::MergeResult;

constexpr unsigned kLogical = 2;
constexpr int64_t kRows = 2, kCols = 4;

unsigned merge_fn_runs = 0;  // written by merge_fn, read after run returns
unsigned merge_fn_core = ~0u;
unsigned merge_fn_values = 0;
unsigned ran_on[hal::kMaxCores];  // by core: 1 + the logical core that ran the function there

Status sum_values(TPUStrategy& strategy, rt::Span<const DistributedValue> args, MergeResult& result) {
  ++merge_fn_runs;
  merge_fn_core = hal::core_id();
  merge_fn_values = args.size() == 1 ? args[0].num_components() : 0;
  Result<Tensor> sum = strategy.reduce(rt::ReduceOp::kSum, args[0]);
  if (!sum) return sum.status();
  return result.add(DistributedValue::plain(*sum));
}

float x_at(int64_t index) { return static_cast<float>(index); }

// expected(i, j) for every element of a whole [kRows, kCols] tensor.
template <typename Expected>
Status expect_whole(const Tensor& t, Expected expected, const char* what, unsigned replica, unsigned logical) {
  if (t.shape.rank != 2 || t.shape.dims[0] != kRows || t.shape.dims[1] != kCols)
    return rt::internal_error("{} on replica {} logical core {}: wrong shape", what, replica, logical);
  for (int64_t k = 0; k < kRows * kCols; ++k)
    if (f32_at(t, static_cast<size_t>(k)) != expected(k))
      return rt::internal_error("{} on replica {} logical core {}: element {} is {}, expected {}", what, replica,
                                logical, k, f32_at(t, static_cast<size_t>(k)), expected(k));
  return Status::ok();
}

Status split_add_gather_merge(StrategyReplicaContext& context, ReplicaArgs args, ReplicaOutputs& out) {
  const unsigned r = context.replica_id_in_sync_group(), l = context.replica().logical_core();
  const float n = static_cast<float>(context.num_replicas_in_sync()), rf = static_cast<float>(r);
  const float triangle = n * (n - 1) / 2;
  ran_on[hal::core_id()] = l + 1;
  if (context.replica().num_logical_cores() != kLogical || rt::tpu::logical_devices().num_logical_cores() != kLogical)
    return rt::internal_error("replica {} logical core {}: {} logical cores, expected {}", r, l,
                              context.replica().num_logical_cores(), kLogical);
  const int64_t partition[] = {1, 2};
  Result<rt::tpu::ShardedTensor> shard = rt::tpu::split_to_logical_devices(args[0], partition);
  if (!shard) return shard.status();
  if (shard->local.shape.dims[1] != kCols / 2 || f32_at(shard->local, 0) != x_at(2 * l))
    return rt::internal_error("replica {} logical core {}: shard starts with {}, expected {}", r, l,
                              f32_at(shard->local, 0), x_at(2 * l));
  Result<Tensor> id = f32_scalar(context.arena(), rf);
  if (!id) return id.status();
  Result<Tensor> plus_id = add(context.arena(), shard->local, *id);
  if (!plus_id) return plus_id.status();
  Result<Tensor> v =
      rt::tpu::gather_from_logical_devices(rt::tpu::make_sharded(shard->dtype, shard->shape, shard->sharding, *plus_id));
  if (!v) return v.status();
  RT_RETURN_IF_ERROR(expect_whole(*v, [&](int64_t k) { return x_at(k) + rf; }, "v = x + r", r, l));

  Result<Tensor> reduced = context.all_reduce(rt::ReduceOp::kSum, *plus_id);
  if (!reduced) return reduced.status();
  Result<Tensor> a =
      rt::tpu::gather_from_logical_devices(rt::tpu::make_sharded(shard->dtype, shard->shape, shard->sharding, *reduced));
  if (!a) return a.status();
  RT_RETURN_IF_ERROR(
      expect_whole(*a, [&](int64_t k) { return n * x_at(k) + triangle; }, "all_reduce(SUM, shard + r)", r, l));

  const Tensor merge_args[] = {*v};
  MergeOutputs merged;
  RT_RETURN_IF_ERROR(context.merge_call(sum_values, merge_args, merged));
  RT_RETURN_IF_ERROR(
      expect_whole(merged[0], [&](int64_t k) { return n * x_at(k) + triangle; }, "merge_call sum", r, l));
  Result<Tensor> result = add(context.arena(), merged[0], *v);
  if (!result) return result.status();
  RT_RETURN_IF_ERROR(out.add(*result));
  const int64_t four[] = {4};
  Result<Tensor> where = f32_tensor(context.arena(), four,
                                    {static_cast<float>(l), static_cast<float>(context.replica().num_logical_cores()),
                                     rf, n});
  if (!where) return where.status();
  return out.add(*where);
}

Status check_run(TPUStrategy& strategy, const rt::tpu::DeviceAssignment& assignment, const Tensor& x) {
  const unsigned n = strategy.num_replicas_in_sync();
  const float nf = static_cast<float>(n), triangle = nf * (nf - 1) / 2;
  for (unsigned& entry : ran_on) entry = 0;
  merge_fn_runs = 0;
  const DistributedValue args[] = {DistributedValue::plain(x)};
  RT_RETURN_IF_ERROR(strategy.run({"split_add_gather_merge", split_add_gather_merge}, args, outputs()));
  const unsigned replica0_core = static_cast<unsigned>(assignment.core_of(0, 0));
  if (merge_fn_runs != 1 || merge_fn_core != replica0_core || merge_fn_values != n)
    return rt::internal_error("merge_fn ran {} times, last on core {} with {} values; expected once on core {} with {}",
                              merge_fn_runs, merge_fn_core, merge_fn_values, replica0_core, n);
  for (unsigned r = 0; r < n; ++r)
    for (unsigned l = 0; l < kLogical; ++l) {
      const unsigned core = static_cast<unsigned>(assignment.core_of(static_cast<int>(r), static_cast<int>(l)));
      if (ran_on[core] != l + 1)
        return rt::internal_error("replica {} logical core {} (core {}) did not run the function", r, l, core);
    }
  if (outputs().size() != 2) return rt::internal_error("run returned {} values, expected 2", outputs().size());
  RT_RETURN_IF_ERROR(expect_regrouped(outputs()[0], n, "s + v"));
  for (unsigned r = 0; r < n; ++r) {
    const float rf = static_cast<float>(r);
    RT_RETURN_IF_ERROR(expect_whole(
        outputs()[0].component(r), [&](int64_t k) { return (nf + 1) * x_at(k) + triangle + rf; }, "output s + v", r,
        0));
    RT_RETURN_IF_ERROR(expect_f32(outputs()[1].component(r), {0.0f, static_cast<float>(kLogical), rf, nf},
                                  "output [logical_core, logical cores, replica, replicas]"));
  }
  Result<Tensor> total = strategy.reduce(rt::ReduceOp::kSum, outputs()[0]);
  if (!total) return total.status();
  return expect_whole(*total, [&](int64_t k) { return (nf + 1) * (nf * x_at(k) + triangle); },
                      "reduce(SUM) of s + v", 0, 0);
}

Status add_one(StrategyReplicaContext& context, const Tensor& variable) {
  Result<Tensor> one = f32_scalar(context.arena(), 1.0f);
  if (!one) return one.status();
  Result<Tensor> summed = context.all_reduce(rt::ReduceOp::kSum, *one);  // a collective inside fn: N
  if (!summed) return summed.status();
  return rt::binary(rt::BinaryOp::kAdd, variable, *summed, variable);
}

Status update_once_per_replica(TPUStrategy& strategy, unsigned n) {
  const int64_t two[] = {2};
  Result<Tensor> initial = f32_tensor(rt::hbm(), two, {1, 2});
  if (!initial) return initial.status();
  rt::tpu::MirroredVariable variable;
  RT_RETURN_IF_ERROR(strategy.create_mirrored_variable(*initial, variable));
  RT_RETURN_IF_ERROR(strategy.update(variable, add_one));
  const float nf = static_cast<float>(n);
  for (unsigned r = 0; r < n; ++r)
    RT_RETURN_IF_ERROR(expect_f32(variable.copy(r), {1 + nf, 2 + nf}, "update(add all_reduce(1)) on every copy"));
  return Status::ok();
}

// variant 0: logical core 1 of the last replica merges twice, everyone else once; 1: it fails
// before its merge_call while the others wait there.
Status uneven_logical_cores(int variant, StrategyReplicaContext& context, ReplicaArgs args) {
  const bool odd_one = context.replica_id_in_sync_group() + 1 == context.num_replicas_in_sync() &&
                       context.replica().logical_core() == 1;
  if (variant == 1 && odd_one) return rt::invalid_argument("logical core 1 gave up");
  const Tensor merge_args[] = {args[0]};
  MergeOutputs merged;
  for (unsigned i = 0; i < (variant == 0 && odd_one ? 2u : 1u); ++i)
    RT_RETURN_IF_ERROR(context.merge_call(sum_values, merge_args, merged));
  return Status::ok();
}

Status errors(TPUStrategy& strategy) {
  Result<Tensor> one = f32_scalar(rt::hbm(), 1.0f);
  if (!one) return one.status();
  const DistributedValue args[] = {DistributedValue::plain(*one)};
  int variant = 0;
  const rt::tpu::StrategyFunction uneven{"uneven_logical_cores",
                                         [&variant](StrategyReplicaContext& context, ReplicaArgs args, ReplicaOutputs&) {
                                           return uneven_logical_cores(variant, context, args);
                                         }};
  RT_RETURN_IF_ERROR(expect_error(strategy.run(uneven, args, outputs()),
                                  rt::StatusCode::kFailedPrecondition,
                                  "Some replicas made a different number of replica_context().merge_call() calls.",
                                  "logical core 1 of the last replica merging twice"));
  variant = 1;
  return expect_error(strategy.run(uneven, args, outputs()),
                      rt::StatusCode::kInvalidArgument, "logical core 1 gave up",
                      "logical core 1 of the last replica failing before merge_call");
}

}  // namespace

Status run_model_parallel_cases(unsigned cores) {
  if (cores < 2 * kLogical || cores % kLogical != 0) {
    rt::log_info("strategy model parallelism: skipped on {} cores (needs an even count of at least {}: two "
                 "replicas of {} logical cores)",
                 cores, 2 * kLogical, kLogical);
    return Status::ok();
  }
  Result<TPUStrategy> board = TPUStrategy::for_board();
  if (!board) return board.status();
  Result<rt::tpu::Topology> topology = board->cluster_resolver().initialize_tpu_system();
  if (!topology) return topology.status();
  const int32_t computation_shape[] = {1, 1, 1, static_cast<int32_t>(kLogical)};
  const unsigned n = cores / kLogical;
  Result<rt::tpu::DeviceAssignment> assignment =
      rt::tpu::DeviceAssignment::build(*topology, computation_shape, {}, static_cast<int>(n));
  if (!assignment) return assignment.status();
  rt::tpu::StrategyOptions options;
  options.device_assignment = &*assignment;
  Result<TPUStrategy> strategy = TPUStrategy::create(board->cluster_resolver(), options);
  if (!strategy) return strategy.status();
  if (strategy->num_replicas_in_sync() != n)
    return rt::internal_error("num_replicas_in_sync {}, expected {} replicas of {} logical cores",
                              strategy->num_replicas_in_sync(), n, kLogical);
  const int64_t dims[] = {kRows, kCols};
  Result<Tensor> x = f32_tensor(rt::hbm(), dims, {0, 1, 2, 3, 4, 5, 6, 7});
  if (!x) return x.status();
  RT_RETURN_IF_ERROR(check_run(*strategy, *assignment, *x));
  RT_RETURN_IF_ERROR(update_once_per_replica(*strategy, n));
  RT_RETURN_IF_ERROR(errors(*strategy));
  RT_RETURN_IF_ERROR(check_run(*strategy, *assignment, *x));  // the pod still works after the errors
  rt::log_info("strategy model parallelism: {} replicas of {} logical cores", n, kLogical);
  return Status::ok();
}

}  // namespace strategy_test
