// Gathering the replicas' values (TF 2.x): experimental_distribute_values_from_function (always a
// PerReplica, even with one replica), experimental_local_results / unwrap, strategy.gather (the
// components concatenated along an axis in replica order, cross-replica only) and ReplicaContext.
// all_gather (every replica gets the same concatenation). Replica r's value is [[r], [r + 10]]
// (shape [2, 1]) or [r, r + 10]; the expected concatenations are written out from that formula.
#include "runtime/tensor/hbm.hpp"
#include "suite.hpp"

namespace strategy_test {
namespace {

using rt::tpu::ValueContext;

const TPUStrategy* running_strategy = nullptr;  // for the replica function that calls gather

// [[r], [r + 10]] for replica r, in the program's memory.
Result<DistributedValue> column_values(const TPUStrategy& strategy) {
  return strategy.experimental_distribute_values_from_function([](const ValueContext& context) {
    const float r = static_cast<float>(context.replica_id_in_sync_group);
    const int64_t dims[] = {2, 1};
    return f32_tensor(rt::hbm(), dims, {r, r + 10.0f});
  });
}

// [r, r + 10, r, r + 10, ...] interleaved by replica: the gather along the rows (axis 0) of the
// [2, 1] values is [0, 10, 1, 11, ...]; along axis 1 it is [[0, 1, ..], [10, 11, ..]].
Status values_and_local_results(const TPUStrategy& strategy, unsigned n) {
  const DistributedValue scalars = RT_TRY(strategy.experimental_distribute_values_from_function(
      [n](const ValueContext& context) -> Result<Tensor> {
        if (context.num_replicas_in_sync != n) return rt::internal_error("ValueContext says {} replicas", n);
        return f32_scalar(rt::hbm(), static_cast<float>(2 * context.replica_id_in_sync_group + n));
      }));
  if (scalars.kind() != rt::tpu::ValueKind::kPerReplica)
    return rt::internal_error("values_from_function with {} replicas is not a PerReplica value", n);
  const rt::Span<const Tensor> local = strategy.experimental_local_results(scalars);
  if (local.size() != n || strategy.unwrap(scalars).size() != n)
    return rt::internal_error("{} local results, expected {}", local.size(), n);
  for (unsigned r = 0; r < n; ++r)
    RT_RETURN_IF_ERROR(expect_f32(local[r], {static_cast<float>(2 * r + n)}, "value of replica r: 2r + N"));
  return Status::ok();
}

Status gather_on_the_host(const TPUStrategy& strategy, unsigned n) {
  const DistributedValue columns = RT_TRY(column_values(strategy));
  float rows[2 * rt::tpu::kMaxReplicas], across[2 * rt::tpu::kMaxReplicas];
  for (unsigned r = 0; r < n; ++r) {
    rows[2 * r] = static_cast<float>(r), rows[2 * r + 1] = static_cast<float>(r) + 10.0f;
    across[r] = static_cast<float>(r), across[n + r] = static_cast<float>(r) + 10.0f;
  }
  const Tensor along_rows = RT_TRY(strategy.gather(columns, 0));
  if (along_rows.shape.rank != 2 || along_rows.shape.dims[0] != 2 * n || along_rows.shape.dims[1] != 1)
    return rt::internal_error("gather axis 0: shape {}, expected [{}, 1]", along_rows.shape.sizes(), 2 * n);
  RT_RETURN_IF_ERROR(expect_f32(along_rows, rt::Span<const float>(rows, 2 * n), "gather axis 0"));
  for (int64_t axis : {1, -1}) {
    const Tensor along_columns = RT_TRY(strategy.gather(columns, axis));
    if (along_columns.shape.dims[0] != 2 || along_columns.shape.dims[1] != n)
      return rt::internal_error("gather axis {}: shape {}, expected [2, {}]", axis, along_columns.shape.sizes(), n);
    RT_RETURN_IF_ERROR(expect_f32(along_columns, rt::Span<const float>(across, 2 * n), "gather axis 1"));
  }
  RT_RETURN_IF_ERROR(expect_error(strategy.gather(columns, 2).status(), rt::StatusCode::kInvalidArgument,
                                  "ConcatOp : Expected concatenating dimensions in the range [-2, 2), but got 2",
                                  "gather axis 2"));
  const Tensor seven = RT_TRY(f32_scalar(rt::hbm(), 7.0f));
  const Tensor plain = RT_TRY(strategy.gather(DistributedValue::plain(seven), 0));
  RT_RETURN_IF_ERROR(expect_f32(plain, {7.0f}, "gather of a plain value"));
  if (n > 1) {
    const DistributedValue scalars = RT_TRY(strategy.experimental_distribute_values_from_function(
        [](const ValueContext& context) { return f32_scalar(rt::hbm(), static_cast<float>(context.replica_id_in_sync_group)); }));
    RT_RETURN_IF_ERROR(expect_error(strategy.gather(scalars, 0).status(), rt::StatusCode::kInvalidArgument,
                                    "Can't concatenate scalars (use tf.stack instead)", "gather of scalars"));
  }
  return Status::ok();
}

// In a replica: all_gather of [r, r + 10] along 0, of [[r, r + 10]] along 1 and -1; and gather,
// which needs cross-replica context.
Status gather_in_replica(StrategyReplicaContext& context, ReplicaArgs, ReplicaOutputs& out) {
  const float r = static_cast<float>(context.replica_id_in_sync_group());
  const int64_t flat[] = {2}, row[] = {1, 2};
  const Tensor pair = RT_TRY(f32_tensor(context.arena(), flat, {r, r + 10.0f}));
  const Tensor row_pair = RT_TRY(f32_tensor(context.arena(), row, {r, r + 10.0f}));
  RT_RETURN_IF_ERROR(out.add(RT_TRY(context.all_gather(pair, 0))));
  RT_RETURN_IF_ERROR(out.add(RT_TRY(context.all_gather(row_pair, 1))));
  RT_RETURN_IF_ERROR(out.add(RT_TRY(context.all_gather(row_pair, -1))));
  const Status inside = running_strategy->gather(DistributedValue::plain(pair), 0).status();
  return expect_error(inside, rt::StatusCode::kInvalidArgument,
                      "tf.distribute.Strategy.gather method requires cross-replica context, use "
                      "get_replica_context().all_gather() instead", "gather in a replica");
}

Status all_gather_in_replicas(TPUStrategy& strategy, unsigned n) {
  running_strategy = &strategy;
  RT_RETURN_IF_ERROR(strategy.run({"gather_in_replica", gather_in_replica}, {}, outputs()));
  float interleaved[2 * rt::tpu::kMaxReplicas];
  for (unsigned r = 0; r < n; ++r) interleaved[2 * r] = static_cast<float>(r), interleaved[2 * r + 1] = r + 10.0f;
  const rt::Span<const float> expected(interleaved, 2 * n);
  for (unsigned r = 0; r < n; ++r) {
    RT_RETURN_IF_ERROR(expect_f32(outputs()[0].component(r), expected, "all_gather axis 0"));
    for (unsigned k : {1u, 2u}) {
      const Tensor& got = outputs()[k].component(r);
      if (got.shape.rank != 2 || got.shape.dims[0] != 1 || got.shape.dims[1] != 2 * n)
        return rt::internal_error("all_gather of [1, 2] along the last axis: shape {}, expected [1, {}]",
                                  got.shape.sizes(), 2 * n);
      RT_RETURN_IF_ERROR(expect_f32(got, expected, "all_gather axis 1"));
    }
  }
  return Status::ok();
}

}  // namespace

Status run_gather_cases(unsigned cores) {
  TPUStrategy strategy = RT_TRY(TPUStrategy::for_board());
  RT_RETURN_IF_ERROR(values_and_local_results(strategy, cores));
  RT_RETURN_IF_ERROR(gather_on_the_host(strategy, cores));
  return all_gather_in_replicas(strategy, cores);
}

}  // namespace strategy_test
