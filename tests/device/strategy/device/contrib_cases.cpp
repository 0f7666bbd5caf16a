// The contrib TPUStrategy elements of issue 23 (TF_BEHAVIOUR.md section 6, "Contrib elements"), each
// against the value TF's definition gives for N replicas, written out by hand:
//   - num_cores k (here N - 1, or 1 on one core): k replicas on cores 0..k-1, all_reduce(r + 1) =
//     k(k + 1)/2; 0 means every core; too many cores, or num_cores with a device assignment, refused;
//   - update returning fn's results: v = [1, 2], fn v += 3; return 2v -> Mirrored [8, 10] (plain with
//     one replica), copies [4, 5]; group_false: one result per copy; a PerReplica argument refused;
//   - update_non_slot: a host counter c += 1 twice -> 1 then 2, group_false -> [3];
//   - initial_loop_values: 3 steps, "loss" = step + 1 -> 3; dtype lists compared in name order;
//   - non-tensor outputs: each replica's id -> [0, .., N-1]; a merge_call, so all replicas must call;
//   - colocate_vars_with: TF's scope and variable checks; update(v1, fn, v2, v3), v1 += v2 * v3 -> 7;
//   - map: [1, 2, 3] times 10 -> [10, 20, 30]; group; configure; reduce_to one TPU core.
#include "runtime/ops/elementwise.hpp"
#include "runtime/tensor/constant.hpp"
#include "runtime/tensor/hbm.hpp"
#include "runtime/tpu/strategy/strategy_steps.hpp"
#include "suite.hpp"

namespace strategy_test {
namespace {

using rt::StatusCode;
using rt::tpu::Destinations;
using rt::tpu::MirroredVariable;
using rt::tpu::NamedTensor;
using rt::tpu::NonTensor;
using rt::tpu::StepContext;

constexpr rt::StringView kCrossReplica =
    "Method requires being in cross-replica context, use get_replica_context().merge_call()";

Result<Tensor> f32_pair(float a, float b) {
  const int64_t two[] = {2};
  return f32_tensor(rt::hbm(), two, {a, b});
}

// Replica r's value r + 1, as a PerReplica of float32 scalars (the plain value with one replica).
Result<DistributedValue> replica_numbers(unsigned n) {
  Tensor values[rt::tpu::kMaxReplicas];
  for (unsigned r = 0; r < n; ++r) values[r] = RT_TRY(f32_scalar(rt::hbm(), static_cast<float>(r + 1)));
  return DistributedValue::per_replica(rt::Span<const Tensor>(values, n));
}

// ---- num_cores ----

// Each replica returns [replica id, all_reduce(SUM, r + 1)].
Status expect_num_cores_run(TPUStrategy& strategy, unsigned k) {
  auto fn = [](StrategyReplicaContext& context) -> Result<Tensor> {
    const float r = static_cast<float>(context.replica_id_in_sync_group());
    const Tensor one_based = RT_TRY(f32_scalar(context.arena(), r + 1));
    const Tensor total = RT_TRY(context.all_reduce(rt::ReduceOp::kSum, one_based));
    const int64_t two[] = {2};
    return f32_tensor(context.arena(), two, {r, f32_at(total, 0)});
  };
  const rt::tpu::RunResult result = RT_TRY(strategy.run(fn));
  RT_RETURN_IF_ERROR(expect_regrouped(result[0], k, "run with num_cores"));
  const float total = static_cast<float>(k * (k + 1) / 2);
  for (unsigned r = 0; r < k; ++r)
    RT_RETURN_IF_ERROR(expect_f32(result[0].component(r), {static_cast<float>(r), total}, "num_cores replica"));
  return Status::ok();
}

Status num_cores_cases(unsigned cores) {
  const unsigned k = cores == 1 ? 1 : cores - 1;
  TPUStrategy strategy = RT_TRY(TPUStrategy::for_board({.num_cores = k}));
  if (strategy.num_replicas_in_sync() != k || strategy.num_towers_per_host() != cores ||
      strategy.worker_devices().count != k)
    return rt::internal_error("num_cores {}: {} replicas, {} towers per host, {} worker devices; expected {} {} {}", k,
                              strategy.num_replicas_in_sync(), strategy.num_towers_per_host(),
                              strategy.worker_devices().count, k, cores, k);
  for (unsigned r = 0; r < k; ++r) {
    rt::tpu::DeviceName expected;
    rt::format_to(expected, "/job:localhost/replica:0/task:0/device:TPU:{}", r);
    if (!(strategy.worker_devices().names[r].view() == expected.view()))
      return rt::internal_error("num_cores worker device {}: '{}'", r, strategy.worker_devices().names[r].view());
  }
  RT_RETURN_IF_ERROR(expect_num_cores_run(strategy, k));
  // A mirrored variable of the k replicas, updated on each.
  MirroredVariable variable;
  RT_RETURN_IF_ERROR(strategy.create_mirrored_variable(RT_TRY(f32_pair(1, 2)), variable));
  auto add_one = [](StrategyReplicaContext& context, const Tensor& v) -> Status {
    return rt::binary(rt::BinaryOp::kAdd, v, RT_TRY(f32_scalar(context.arena(), 1)), v);
  };
  RT_RETURN_IF_ERROR(strategy.update(variable, add_one));
  if (variable.copies.num_components() != k) return rt::internal_error("num_cores variable: {} copies", k);
  for (unsigned r = 0; r < k; ++r) RT_RETURN_IF_ERROR(expect_f32(variable.copy(r), {2, 3}, "num_cores update"));

  const TPUStrategy all = RT_TRY(TPUStrategy::for_board({.num_cores = 0}));
  if (all.num_replicas_in_sync() != cores)
    return rt::internal_error("num_cores 0: {} replicas", all.num_replicas_in_sync());
  rt::FixedString<128> text;
  rt::format_to(text, "num_cores is {}, but the cluster has {} TPU cores", cores + 1, cores);
  RT_RETURN_IF_ERROR(expect_error(TPUStrategy::for_board({.num_cores = cores + 1}).status(),
                                  StatusCode::kInvalidArgument, text.view(), "num_cores above the core count"));
  const rt::tpu::Topology topology = RT_TRY(rt::tpu::Topology::for_cores(static_cast<int>(cores)));
  const rt::tpu::DeviceAssignment assignment = RT_TRY(rt::tpu::DeviceAssignment::build(topology));
  return expect_error(TPUStrategy::for_board({.device_assignment = &assignment, .num_cores = 1}).status(),
                      StatusCode::kInvalidArgument,
                      "num_cores (1) and a device_assignment cannot both be given: the device assignment says "
                      "which cores the replicas run on",
                      "num_cores with a device assignment");
}

// ---- update's results, update_non_slot ----

Status update_result_cases(TPUStrategy& strategy, unsigned n) {
  MirroredVariable v;
  RT_RETURN_IF_ERROR(strategy.create_mirrored_variable(RT_TRY(f32_pair(1, 2)), v));
  const Tensor three = RT_TRY(f32_scalar(rt::hbm(), 3));
  auto add_then_double = [](StrategyReplicaContext& context, const Tensor& var, const Tensor& x) -> Result<Tensor> {
    RT_RETURN_IF_ERROR(rt::binary(rt::BinaryOp::kAdd, var, x, var));
    return rt::mul(context.arena(), var, 2.0f);
  };
  const DistributedValue merged = RT_TRY(strategy.update(v, add_then_double, three));
  if ((n == 1) != (merged.kind() == rt::tpu::ValueKind::kPlain) || merged.num_components() != n)
    return rt::internal_error("update's merged result: a {} with {} components on {} replicas",
                              rt::tpu::value_kind_name(merged.kind()), merged.num_components(), n);
  if (n > 1 && merged.kind() != rt::tpu::ValueKind::kMirrored)
    return rt::internal_error("update's merged result is a {}, expected Mirrored", rt::tpu::value_kind_name(merged.kind()));
  for (unsigned r = 0; r < n; ++r) {
    RT_RETURN_IF_ERROR(expect_f32(merged.component(r), {8, 10}, "update's result 2 (v + 3)"));
    RT_RETURN_IF_ERROR(expect_f32(v.copy(r), {4, 5}, "the copies after update(v += 3)"));
  }
  // group=False: each copy's result in replica order; fn returns the copy itself.
  auto add_and_return = [](StrategyReplicaContext&, const Tensor& var, const Tensor& x) -> Result<Tensor> {
    RT_RETURN_IF_ERROR(rt::binary(rt::BinaryOp::kAdd, var, x, var));
    return var;
  };
  const rt::tpu::UpdateResults each = RT_TRY(strategy.update(v, add_and_return, three, rt::tpu::group_false));
  if (each.size() != n) return rt::internal_error("ungrouped update: {} results for {} copies", each.size(), n);
  for (unsigned r = 0; r < n; ++r) {
    RT_RETURN_IF_ERROR(expect_f32(each[r], {7, 8}, "ungrouped update's result r"));
    if (each[r].data != v.copy(r).data) return rt::internal_error("ungrouped result {} is not copy {}", r, r);
  }
  const DistributedValue per_replica = RT_TRY(replica_numbers(n));
  rt::FixedString<160> text;
  rt::format_to(text, "Expected value to be mirrored across replicas: PerReplica with {} components in update's "
                "argument 0.", n);
  if (per_replica.kind() == rt::tpu::ValueKind::kPerReplica)
    RT_RETURN_IF_ERROR(expect_error(strategy.update(v, add_and_return, per_replica).status(),
                                    StatusCode::kInvalidArgument, text.view(), "update with a PerReplica argument"));
  return expect_f32(v.copy(0), {7, 8}, "the copies after a refused update");
}

Status update_non_slot_cases(TPUStrategy& strategy) {
  const Tensor counter = RT_TRY(f32_scalar(rt::hbm(), 0));
  const Tensor one = RT_TRY(f32_scalar(rt::hbm(), 1));
  auto increment = [](const Tensor& c, const Tensor& step) -> Result<Tensor> {
    RT_RETURN_IF_ERROR(rt::binary(rt::BinaryOp::kAdd, c, step, c));
    return c;
  };
  const rt::tpu::DeviceName host = strategy.non_slot_devices();
  RT_RETURN_IF_ERROR(expect_f32(RT_TRY(strategy.update_non_slot(host, increment, counter, one)), {1}, "first"));
  RT_RETURN_IF_ERROR(expect_f32(RT_TRY(strategy.update_non_slot(host, increment, counter, one)), {2}, "second"));
  const rt::tpu::UpdateResults wrapped =
      RT_TRY(strategy.update_non_slot(host, increment, counter, one, rt::tpu::group_false));
  if (wrapped.size() != 1) return rt::internal_error("ungrouped update_non_slot: {} values", wrapped.size());
  RT_RETURN_IF_ERROR(expect_f32(wrapped[0], {3}, "ungrouped update_non_slot"));
  // In replica context (inside run) it is TF's cross-replica error.
  const TPUStrategy* self = &strategy;
  const rt::tpu::DeviceName* where = &host;
  const Tensor *c = &counter, *step = &one;
  auto inside = [self, where, c, step, increment](StrategyReplicaContext&) -> Status {
    return self->update_non_slot(*where, increment, *c, *step).status();
  };
  return expect_error(strategy.run(inside).status(), StatusCode::kFailedPrecondition, kCrossReplica,
                      "update_non_slot in replica context");
}

// ---- run_steps_on_dataset: initial_loop_values and non-tensor outputs ----

// 3N rows [i] batched by N: step s gives replica r row sN + r.
Result<rt::tpu::DistributedDataset> three_steps(TPUStrategy& strategy, unsigned n) {
  const int64_t shape[] = {3 * n, 1};
  const Tensor rows = RT_TRY(rt::hbm().allocate_tensor(rt::DType::kF32, *rt::Shape::make(shape), "contrib rows"));
  for (unsigned i = 0; i < 3 * n; ++i) reinterpret_cast<float*>(rows.data)[i] = static_cast<float>(i);
  const rt::tpu::Dataset batched = RT_TRY(RT_TRY(rt::tpu::Dataset::from_tensor_slices(rows)).batch(n));
  return strategy.experimental_distribute_dataset(batched);
}

// "loss" = step + 1 (float32, MEAN of equal values: plain), "count" = int32 rows seen by the replica.
Status loss_and_count(StepContext& step, const Tensor& rows) {
  const Tensor loss = RT_TRY(f32_scalar(step.replica().arena(), static_cast<float>(step.step() + 1)));
  const Tensor count = RT_TRY(rt::scalar(step.replica().arena(), static_cast<int32_t>(rows.shape.dims[0])));
  RT_RETURN_IF_ERROR(step.set_last_step_output("loss", loss, "mean"));
  return step.set_last_step_output("count", count);
}

Status initial_loop_value_cases(TPUStrategy& strategy, unsigned n) {
  static rt::tpu::MultiStepContext context;
  const rt::tpu::DistributedDataset dataset = RT_TRY(three_steps(strategy, n));
  const Tensor f32_zero = RT_TRY(f32_scalar(rt::hbm(), 0));
  const Tensor i32_zero = RT_TRY(rt::scalar(rt::hbm(), int32_t{0}));
  // Names in another order than the outputs': compared in name order (count: int32, loss: float32).
  const NamedTensor matching[] = {{"loss", f32_zero}, {"count", i32_zero}};
  rt::tpu::DistributedIterator iterator(dataset);
  RT_RETURN_IF_ERROR(strategy.run_steps_on_dataset(loss_and_count, iterator, context, 3, matching));
  RT_RETURN_IF_ERROR(expect_f32(RT_TRY(context.last_step_output("loss")).component(0), {3}, "loss after 3 steps"));
  // TF compares the flattened lists, not the names: {a: int32, b: float32} matches too.
  rt::tpu::DistributedIterator second(dataset);
  const NamedTensor renamed[] = {{"b", f32_zero}, {"a", i32_zero}};
  RT_RETURN_IF_ERROR(strategy.run_steps_on_dataset(loss_and_count, second, context, 1, renamed));
  RT_RETURN_IF_ERROR(expect_f32(RT_TRY(context.last_step_output("loss")).component(0), {1}, "loss after 1 step"));
  const NamedTensor wrong[] = {{"loss", i32_zero}, {"count", i32_zero}};
  RT_RETURN_IF_ERROR(expect_error(
      strategy.run_steps_on_dataset(loss_and_count, second, context, 1, wrong), StatusCode::kInvalidArgument,
      "Mismatch between input types and output types for training loop body: [tf.int32, tf.int32] vs "
      "[tf.int32, tf.float32]",
      "initial_loop_values of the wrong dtype"));
  const NamedTensor missing[] = {{"loss", f32_zero}};
  RT_RETURN_IF_ERROR(expect_error(
      strategy.run_steps_on_dataset(loss_and_count, second, context, 1, missing), StatusCode::kInvalidArgument,
      "Mismatch between input types and output types for training loop body: [tf.float32] vs "
      "[tf.int32, tf.float32]",
      "initial_loop_values missing an output"));
  if (second.position() != 1) return rt::internal_error("refused loops moved the iterator to {}", second.position());
  return expect_f32(RT_TRY(context.last_step_output("loss")).component(0), {1}, "loss kept after refused loops");
}

// Every replica: "rid" = its id, "half" = id / 2, "label" = "tpu"; replica 0 alone: "zero" (N > 1: a
// merge_call only one replica makes).
Status set_non_tensors(StepContext& step, const Tensor&) {
  const unsigned r = step.replica().replica_id_in_sync_group();
  RT_RETURN_IF_ERROR(step.set_non_tensor_output("rid", NonTensor(r)));
  RT_RETURN_IF_ERROR(step.set_non_tensor_output("half", NonTensor(r / 2.0)));
  return step.set_non_tensor_output("label", "tpu");
}

Status non_tensor_output_cases(TPUStrategy& strategy, unsigned n) {
  static rt::tpu::MultiStepContext context;
  const rt::tpu::DistributedDataset dataset = RT_TRY(three_steps(strategy, n));
  rt::tpu::DistributedIterator iterator(dataset);
  RT_RETURN_IF_ERROR(strategy.run_steps_on_dataset(set_non_tensors, iterator, context, 2));
  const rt::Span<const NonTensor> rid = RT_TRY(context.non_tensor_output("rid"));
  const rt::Span<const NonTensor> half = RT_TRY(context.non_tensor_output("half"));
  const rt::Span<const NonTensor> label = RT_TRY(context.non_tensor_output("label"));
  if (rid.size() != n || half.size() != n || label.size() != n)
    return rt::internal_error("non_tensor_outputs: {} {} {} values for {} replicas", rid.size(), half.size(),
                              label.size(), n);
  for (unsigned r = 0; r < n; ++r)
    if (!(rid[r] == NonTensor(r)) || !(half[r] == NonTensor(r / 2.0)) || !(label[r].as_text() == "tpu"))
      return rt::internal_error("non_tensor_outputs of replica {}: rid {} label '{}'", r, rid[r].as_int(),
                                label[r].as_text());
  // Cross-replica context: stored as given.
  RT_RETURN_IF_ERROR(context.set_non_tensor_output("epoch", 7));
  const rt::Span<const NonTensor> epoch = RT_TRY(context.non_tensor_output("epoch"));
  if (epoch.size() != 1 || epoch[0].as_int() != 7) return rt::internal_error("non_tensor_outputs['epoch']");
  if (n == 1) return Status::ok();
  // A merge_call: a step where only replica 0 sets one is TF's merge_call count error.
  auto only_first = [](StepContext& step, const Tensor&) -> Status {
    if (step.replica().replica_id_in_sync_group() != 0) return Status::ok();
    return step.set_non_tensor_output("zero", 0);
  };
  return expect_error(strategy.run_steps_on_dataset(only_first, iterator, context, 1), StatusCode::kFailedPrecondition,
                      "Some replicas made a different number of replica_context().merge_call() calls.",
                      "set_non_tensor_output by one replica");
}

// ---- colocate_vars_with ----

Status expect_text(const Status& status, StatusCode code, const char* what, rt::StringView format, const void* a,
                   const void* b = nullptr) {
  rt::FixedString<320> text;
  if (b == nullptr) rt::format_to(text, format, a);
  else rt::format_to(text, format, a, b);
  return expect_error(status, code, text.view(), what);
}

Status colocation_cases(TPUStrategy& strategy, unsigned n) {
  static Result<TPUStrategy> another = TPUStrategy::for_board();
  if (!another) return another.status();
  TPUStrategy& other = *another;
  MirroredVariable v1, foreign;
  RT_RETURN_IF_ERROR(strategy.create_mirrored_variable(RT_TRY(f32_scalar(rt::hbm(), 1)), v1));
  RT_RETURN_IF_ERROR(other.create_mirrored_variable(RT_TRY(f32_scalar(rt::hbm(), 1)), foreign));
  RT_RETURN_IF_ERROR(expect_text(strategy.colocate_vars_with(v1).status(), StatusCode::kFailedPrecondition,
                                 "colocate_vars_with outside any scope",
                                 "Need to be inside \"with strategy.scope()\" for TPUStrategy at {}", &strategy));
  {
    const rt::tpu::StrategyScope other_scope = RT_TRY(other.scope());
    RT_RETURN_IF_ERROR(expect_text(strategy.colocate_vars_with(v1).status(), StatusCode::kFailedPrecondition,
                                   "colocate_vars_with in another strategy's scope",
                                   "Mixing different tf.distribute.Strategy objects: TPUStrategy at {} is not "
                                   "TPUStrategy at {}", &other, &strategy));
  }
  const rt::tpu::StrategyScope scope = RT_TRY(strategy.scope());
  RT_RETURN_IF_ERROR(expect_text(strategy.colocate_vars_with(foreign).status(), StatusCode::kInvalidArgument,
                                 "colocate_vars_with another strategy's variable",
                                 "`colocate_vars_with` must only be passed a variable created in this "
                                 "tf.distribute.Strategy.scope(), not MirroredVariable at {} created in scope: "
                                 "TPUStrategy at {}", &foreign, &other));
  const MirroredVariable loose{v1.copies};
  RT_RETURN_IF_ERROR(expect_text(strategy.colocate_vars_with(loose).status(), StatusCode::kInvalidArgument,
                                 "colocate_vars_with a variable no strategy made",
                                 "`colocate_vars_with` must only be passed a variable created in this "
                                 "tf.distribute.Strategy.scope(), not: MirroredVariable at {}", &loose));
  MirroredVariable v2, v3;
  {
    const rt::tpu::ColocationScope colocated = RT_TRY(strategy.colocate_vars_with(v1));
    if (rt::tpu::colocation_variable() != &v1) return rt::internal_error("colocation_variable is not v1");
    RT_RETURN_IF_ERROR(strategy.create_mirrored_variable(RT_TRY(f32_scalar(rt::hbm(), 2)), v2));
    RT_RETURN_IF_ERROR(strategy.create_mirrored_variable(RT_TRY(f32_scalar(rt::hbm(), 3)), v3));
  }
  if (rt::tpu::colocation_variable() != nullptr) return rt::internal_error("the colocation scope outlived its end");
  // update(v1, fn, v2, v3): each copy of v1 with v2's and v3's copies on the same replica.
  auto fma = [](StrategyReplicaContext& context, const Tensor& a, const Tensor& b, const Tensor& c) -> Status {
    return rt::binary(rt::BinaryOp::kAdd, a, RT_TRY(rt::mul(context.arena(), b, c)), a);
  };
  RT_RETURN_IF_ERROR(strategy.update(v1, fma, v2, v3));
  for (unsigned r = 0; r < n; ++r) {
    if (v2.copies.num_components() != n || v3.copies.num_components() != n)
      return rt::internal_error("colocated variables have {} and {} copies", v2.copies.num_components(),
                                v3.copies.num_components());
    RT_RETURN_IF_ERROR(expect_f32(v1.copy(r), {7}, "v1 += v2 * v3"));
    RT_RETURN_IF_ERROR(expect_f32(v2.copy(r), {2}, "v2 unchanged"));
    RT_RETURN_IF_ERROR(expect_f32(v3.copy(r), {3}, "v3 unchanged"));
  }
  return Status::ok();
}

// ---- map, group, configure, reduce_to one core ----

Status map_group_configure_cases(TPUStrategy& strategy, unsigned n) {
  const Tensor over[] = {RT_TRY(f32_scalar(rt::hbm(), 1)), RT_TRY(f32_scalar(rt::hbm(), 2)),
                         RT_TRY(f32_scalar(rt::hbm(), 3))};
  const Tensor ten = RT_TRY(f32_scalar(rt::hbm(), 10));
  auto times = [](const Tensor& m, const Tensor& k) { return rt::mul(rt::hbm(), m, k); };
  const rt::tpu::MapOutput mapped = RT_TRY(strategy.map(over, times, ten));
  if (mapped.get().size() != 3) return rt::internal_error("map gave {} results", mapped.get().size());
  for (unsigned i = 0; i < 3; ++i)
    RT_RETURN_IF_ERROR(expect_f32(mapped.get()[i], {10.0f * static_cast<float>(i + 1)}, "map(m * 10)"));

  auto id = [](StrategyReplicaContext& context) { return f32_scalar(context.arena(), 1); };
  RT_RETURN_IF_ERROR(strategy.group(RT_TRY(strategy.run(id)), "train_op"));
  RT_RETURN_IF_ERROR(strategy.group(DistributedValue::plain(ten)));
  const unsigned other_count = n == rt::tpu::kMaxReplicas ? n - 1 : n + 1;
  const DistributedValue foreign = RT_TRY(replica_numbers(other_count));
  rt::FixedString<128> text;
  rt::format_to(text, "group: a PerReplica value with {} components, but the strategy has {} replicas", other_count, n);
  RT_RETURN_IF_ERROR(expect_error(strategy.group(foreign), StatusCode::kInvalidArgument, text.view(),
                                  "group of another strategy's value"));

  static rt::tpu::SessionConfig config, original;
  RT_RETURN_IF_ERROR(strategy.configure());
  RT_RETURN_IF_ERROR(strategy.configure(&config, nullptr, "worker", 3));
  if (!config.isolate_session_state || config.cluster_def.num_workers != 0)
    return rt::internal_error("configure: isolate_session_state {}, {} workers", config.isolate_session_state,
                              config.cluster_def.num_workers);
  static rt::tpu::SessionConfig updated;
  updated = RT_TRY(strategy.update_config_proto(original));
  if (!updated.isolate_session_state || original.isolate_session_state)
    return rt::internal_error("update_config_proto changed the original or not the copy");
  return Status::ok();
}

Status single_core_destination_cases(TPUStrategy& strategy, unsigned n) {
  const DistributedValue numbers = RT_TRY(replica_numbers(n));
  const float total = static_cast<float>(n * (n + 1) / 2);
  rt::tpu::DeviceName last;
  rt::format_to(last, "/job:localhost/replica:0/task:0/device:TPU:{}", n - 1);
  const size_t used = rt::hbm_of(n - 1).used();
  const DistributedValue on_core =
      RT_TRY(strategy.reduce_to(rt::ReduceOp::kSum, numbers, Destinations::device(last.view())));
  if (on_core.is_distributed() || rt::hbm_of(n - 1).used() <= used)
    return rt::internal_error("reduce_to TPU:{}: a {} value, core {} arena {} -> {} bytes", n - 1,
                              rt::tpu::value_kind_name(on_core.kind()), n - 1, used, rt::hbm_of(n - 1).used());
  RT_RETURN_IF_ERROR(expect_f32(on_core.component(0), {total}, "reduce_to one TPU core"));
  const DistributedValue on_host =
      RT_TRY(strategy.reduce_to(rt::ReduceOp::kMean, numbers, Destinations::device("/device:CPU:0")));
  RT_RETURN_IF_ERROR(expect_f32(on_host.component(0), {total / static_cast<float>(n)}, "reduce_to the host CPU"));
  rt::tpu::DeviceName missing;
  rt::format_to(missing, "/device:TPU:{}", n);
  rt::FixedString<256> text;
  rt::format_to(text, "reduce_to: no device '{}' on this board; its devices are "
                "/job:localhost/replica:0/task:0/device:TPU:0..{} and its host's CPU:0", missing.view(), n - 1);
  return expect_error(strategy.reduce_to(rt::ReduceOp::kSum, numbers, Destinations::device(missing.view())).status(),
                      StatusCode::kNotFound, text.view(), "reduce_to a core the board lacks");
}

}  // namespace

Status run_contrib_cases(unsigned cores) {
  RT_RETURN_IF_ERROR(num_cores_cases(cores));
  TPUStrategy strategy = RT_TRY(TPUStrategy::for_board());
  RT_RETURN_IF_ERROR(update_result_cases(strategy, cores));
  RT_RETURN_IF_ERROR(update_non_slot_cases(strategy));
  RT_RETURN_IF_ERROR(initial_loop_value_cases(strategy, cores));
  RT_RETURN_IF_ERROR(non_tensor_output_cases(strategy, cores));
  RT_RETURN_IF_ERROR(colocation_cases(strategy, cores));
  RT_RETURN_IF_ERROR(map_group_configure_cases(strategy, cores));
  return single_core_destination_cases(strategy, cores);
}

}  // namespace strategy_test
