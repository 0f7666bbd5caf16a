// Structures through TPUStrategy (nest.hpp, per_replica.hpp): run() with a struct argument (plain)
// and a PerReplica struct argument, a function returning a struct (a PerReplica<struct> back, its
// fields and replicas), reduce of a whole structure, ReplicaContext.all_reduce of a structure, and a
// model-sized structure (40 tensors: more than one all_reduce group, more than the old caps), and
// datasets of (x, y) elements through the iterator and run_steps_on_dataset, and merge_call with a
// structure argument (merge_fn's PerReplica<Batch>) returning a structure.
// Replica r's batch is x = [r + 1, 2(r + 1)], y = 10r; the plain scale k = 3. Expected values are
// the hand formulas below (sums over r = 0..N-1: sum(r) = N(N-1)/2).
#include "runtime/tensor/hbm.hpp"
#include "runtime/tpu/strategy/strategy_steps.hpp"
#include "suite.hpp"

namespace strategy_test {
namespace {

using rt::Array;
using rt::ReduceOp;
using rt::tpu::PerReplica;
using rt::tpu::ValueContext;

struct Batch {
  Tensor x, y;
};
struct Scale {
  Tensor k;
};
struct Grads {
  Tensor w;
  Array<Tensor, 2> b;
};
struct Step {
  Tensor loss;
  Grads grads;
};

constexpr size_t kWide = 40;  // a model-sized structure
using Wide = Array<Tensor, kWide>;

float sum_of_r(unsigned n) { return static_cast<float>(n * (n - 1)) / 2.0f; }

Result<PerReplica<Batch>> replica_batches(const TPUStrategy& strategy) {
  return strategy.experimental_distribute_values_from_function([](const ValueContext& context) -> Result<Batch> {
    const float r = static_cast<float>(context.replica_id_in_sync_group);
    const int64_t pair[] = {2};
    return Batch{RT_TRY(f32_tensor(rt::hbm(), pair, {r + 1.0f, 2.0f * (r + 1.0f)})), RT_TRY(f32_scalar(rt::hbm(), 10.0f * r))};
  });
}

// loss = sum(x) * k = 9(r + 1); grads.w = x + y = [11r + 1, 12r + 2]; grads.b = (y, k).
Result<Step> step_fn(StrategyReplicaContext& context, const Batch& batch, const Scale& scale) {
  rt::Arena& arena = context.arena();
  const Tensor loss = RT_TRY(rt::mul(arena, RT_TRY(rt::reduce_sum(arena, batch.x)), scale.k));
  return Step{loss, Grads{RT_TRY(add(arena, batch.x, batch.y)), {{batch.y, scale.k}}}};
}

Status check_step(const Step& step, float r, const char* what) {
  RT_RETURN_IF_ERROR(expect_f32(step.loss, {9.0f * (r + 1.0f)}, what));
  RT_RETURN_IF_ERROR(expect_f32(step.grads.w, {11.0f * r + 1.0f, 12.0f * r + 2.0f}, what));
  RT_RETURN_IF_ERROR(expect_f32(step.grads.b[0], {10.0f * r}, what));
  return expect_f32(step.grads.b[1], {3.0f}, what);
}

Status run_with_structures(TPUStrategy& strategy, unsigned n) {
  const PerReplica<Batch> batches = RT_TRY(replica_batches(strategy));
  const Scale scale{RT_TRY(f32_scalar(rt::hbm(), 3.0f))};
  const PerReplica<Step> out = RT_TRY(strategy.run(step_fn, batches, scale));
  for (unsigned r = 0; r < n; ++r) RT_RETURN_IF_ERROR(check_step(out.local(r), static_cast<float>(r), "replica r's Step"));
  const DistributedValue& losses = out.field(&Step::loss).value();
  RT_RETURN_IF_ERROR(expect_regrouped(losses, n, "the loss field"));
  for (unsigned r = 0; r < n; ++r)
    RT_RETURN_IF_ERROR(expect_f32(losses.component(r), {9.0f * static_cast<float>(r + 1)}, "loss of replica r"));
  const PerReplica<Grads> grads = out.field(&Step::grads);
  RT_RETURN_IF_ERROR(expect_f32(grads.local(n - 1).b[0], {10.0f * static_cast<float>(n - 1)}, "grads.b[0] of the last replica"));

  // TF's reduce of a structure: leaf by leaf.
  const float rs = sum_of_r(n), fn = static_cast<float>(n);
  const Step sum = RT_TRY(strategy.reduce(ReduceOp::kSum, out));
  RT_RETURN_IF_ERROR(expect_f32(sum.loss, {9.0f * (rs + fn)}, "SUM of loss: 9 * sum(r + 1)"));
  RT_RETURN_IF_ERROR(expect_f32(sum.grads.w, {11.0f * rs + fn, 12.0f * rs + 2.0f * fn}, "SUM of grads.w"));
  RT_RETURN_IF_ERROR(expect_f32(sum.grads.b[0], {10.0f * rs}, "SUM of grads.b[0]"));
  RT_RETURN_IF_ERROR(expect_f32(sum.grads.b[1], {3.0f * fn}, "SUM of grads.b[1]"));
  const Step mean = RT_TRY(strategy.reduce(ReduceOp::kMean, out));
  RT_RETURN_IF_ERROR(expect_f32(mean.grads.b[1], {3.0f}, "MEAN of grads.b[1]"));
  return Status::ok();
}

// Every replica's batch summed in the replicas: x -> [sum(r + 1), sum(2(r + 1))], y -> 10 sum(r).
Status all_reduce_of_a_structure(TPUStrategy& strategy, unsigned n) {
  const PerReplica<Batch> batches = RT_TRY(replica_batches(strategy));
  const PerReplica<Batch> sums = RT_TRY(strategy.run(
      [](StrategyReplicaContext& context, const Batch& batch) { return context.all_reduce(ReduceOp::kSum, batch); },
      batches));
  const float rs = sum_of_r(n), fn = static_cast<float>(n);
  for (unsigned r = 0; r < n; ++r) {
    const Batch sum = sums.local(r);
    RT_RETURN_IF_ERROR(expect_f32(sum.x, {rs + fn, 2.0f * (rs + fn)}, "all_reduce SUM of x"));
    RT_RETURN_IF_ERROR(expect_f32(sum.y, {10.0f * rs}, "all_reduce SUM of y"));
  }
  return Status::ok();
}

// A structure of 40 scalars, leaf i of replica r = r + i: all_reduce SUM gives sum(r) + N i in
// two groups (32 + 8); the 40 leaves also travel as run()'s argument and result.
Status a_model_sized_structure(TPUStrategy& strategy, unsigned n) {
  const PerReplica<Wide> values = RT_TRY(strategy.experimental_distribute_values_from_function(
      [](const ValueContext& context) -> Result<Wide> {
        Wide wide;
        for (size_t i = 0; i < kWide; ++i)
          wide[i] = RT_TRY(f32_scalar(rt::hbm(), static_cast<float>(context.replica_id_in_sync_group + i)));
        return wide;
      }));
  const rt::tpu::RunResult sums = RT_TRY(strategy.run(
      [](StrategyReplicaContext& context, const Wide& wide) { return context.all_reduce(ReduceOp::kSum, wide); },
      values));
  if (sums.size() != kWide) return rt::internal_error("run returned {} values, expected {}", sums.size(), kWide);
  for (size_t i = 0; i < kWide; ++i)
    for (unsigned r = 0; r < n; ++r)
      RT_RETURN_IF_ERROR(expect_f32(sums[static_cast<unsigned>(i)].component(r),
                                    {sum_of_r(n) + static_cast<float>(n * i)}, "leaf i: sum(r) + N i"));
  return Status::ok();
}

// A structure argument where the function takes a tensor: the arguments' tensors (3) are not the
// function's (1): replicate's arity text (TF's, counting the flattened inputs as TF's placeholders).
Status structure_that_does_not_fit(TPUStrategy& strategy) {
  const Batch batch{RT_TRY(f32_scalar(rt::hbm(), 1.0f)), RT_TRY(f32_scalar(rt::hbm(), 2.0f))};
  const Scale scale{RT_TRY(f32_scalar(rt::hbm(), 3.0f))};
  auto one_tensor = [](const Tensor& x) { return x; };
  return expect_error(strategy.run(one_tensor, batch, scale).status(), rt::StatusCode::kInvalidArgument,
                      "Supplied computation cannot be called with the specified inputs. You specified 3 inputs: "
                      "['Placeholder:0', 'Placeholder_1:0', 'Placeholder_2:0'], but the computation needs exactly 1 "
                      "argument",
                      "a Batch and a Scale for one tensor");
}

// A dataset of (x, y) elements (TF's from_tensor_slices((x, y)).batch(2N)): x row i = [i], y row
// i = 100 + i. Through the iterator, get_next<Batch>() hands replica r rows [2s N + 2r, +2) of both;
// through run_steps_on_dataset the step function unpacks the element as a Batch.
struct Rows {
  Tensor x, y;
};

Result<Rows> counting_rows(unsigned rows) {
  const int64_t column[] = {static_cast<int64_t>(rows), 1}, flat[] = {static_cast<int64_t>(rows)};
  Rows out{RT_TRY(rt::hbm().allocate_tensor(rt::DType::kF32, RT_TRY(rt::Shape::make(column)), "x")),
           RT_TRY(rt::hbm().allocate_tensor(rt::DType::kF32, RT_TRY(rt::Shape::make(flat)), "y"))};
  for (unsigned i = 0; i < rows; ++i) {
    out.x.values<float>()[i] = static_cast<float>(i);
    out.y.values<float>()[i] = 100.0f + static_cast<float>(i);
  }
  return out;
}

Status datasets_of_structures(TPUStrategy& strategy, unsigned n) {
  const Rows rows = RT_TRY(counting_rows(8 * n));
  const rt::tpu::Dataset dataset = RT_TRY(RT_TRY(rt::tpu::Dataset::from_tensor_slices(rows)).batch(2 * n));
  const rt::tpu::DistributedDataset distributed = RT_TRY(strategy.experimental_distribute_dataset(dataset));
  rt::tpu::DistributedIterator iterator(distributed);
  const PerReplica<Rows> first = RT_TRY(iterator.get_next<Rows>());
  for (unsigned r = 0; r < n; ++r) {
    const Rows mine = first.local(r);
    const float row = static_cast<float>(2 * r);
    RT_RETURN_IF_ERROR(expect_f32(mine.x, {row, row + 1.0f}, "step 0, x of replica r: rows 2r, 2r + 1"));
    RT_RETURN_IF_ERROR(expect_f32(mine.y, {100.0f + row, 101.0f + row}, "step 0, y of replica r"));
  }
  // The element as a run() argument: each replica sums its x and y rows: 2(4r + 1) + 201 + ... below.
  const PerReplica<Rows> second = RT_TRY(iterator.get_next<Rows>());
  const rt::tpu::RunResult sums = RT_TRY(strategy.run(
      [](StrategyReplicaContext& context, const Rows& batch) -> Result<Tensor> {
        return add(context.arena(), RT_TRY(rt::reduce_sum(context.arena(), batch.x)),
                   RT_TRY(rt::reduce_sum(context.arena(), batch.y)));
      },
      second));
  for (unsigned r = 0; r < n; ++r) {
    const float row = static_cast<float>(2 * n + 2 * r);  // step 1: rows 2N + 2r and 2N + 2r + 1
    RT_RETURN_IF_ERROR(expect_f32(sums[0].component(r), {(2.0f * row + 1.0f) + (200.0f + 2.0f * row + 1.0f)},
                                  "sum of x and y rows of step 1"));
  }
  RT_RETURN_IF_ERROR(expect_error(iterator.get_next().status(), rt::StatusCode::kInvalidArgument,
                                  "the dataset's elements hold 2 tensors, but Tensor has 1", "get_next() of (x, y)"));

  // run_steps_on_dataset with an (x, y) element: 2 steps, the last step's y sum (SUM across replicas).
  static rt::tpu::MultiStepContext context;
  RT_RETURN_IF_ERROR(strategy.run_steps_on_dataset(
      [](rt::tpu::StepContext& step, const Rows& batch) -> Status {
        return step.set_last_step_output("y", RT_TRY(rt::reduce_sum(step.replica().arena(), batch.y)), ReduceOp::kSum);
      },
      iterator, context, 2));
  // Step 3 of the dataset (the iterator was at 2): rows 6N .. 8N - 1, y sums to 100 * 2N + sum(6N .. 8N - 1).
  const float first_row = static_cast<float>(6 * n), count = static_cast<float>(2 * n);
  const float y_total = 100.0f * count + count * first_row + count * (count - 1.0f) / 2.0f;
  RT_RETURN_IF_ERROR(expect_f32(RT_TRY(context.last_step_output("y")).component(0), {y_total}, "last step's y, summed"));
  auto one_tensor_step = [](rt::tpu::StepContext&, const Tensor&) { return Status::ok(); };
  rt::tpu::DistributedIterator again(distributed);
  return expect_error(strategy.run_steps_on_dataset(one_tensor_step, again, context, 1), rt::StatusCode::kInvalidArgument,
                      "run_steps_on_dataset: the dataset's elements hold 2 tensors, the step function "
                      "'lambda in datasets_of_structures' takes 1",
                      "a one-tensor step function on (x, y) elements");
}

// merge_call with a structure: merge_fn gets a PerReplica<Batch> (each leaf over the replicas); it
// returns their SUM as a plain Batch (every replica gets the sums: x -> [sum(r + 1), 2 sum(r + 1)],
// y -> 10 sum(r)), or hands the PerReplica back (replica r gets its own batch).
Status merge_call_with_structures(TPUStrategy& strategy, unsigned n) {
  const PerReplica<Batch> batches = RT_TRY(replica_batches(strategy));
  const PerReplica<Step> out = RT_TRY(strategy.run(
      [](StrategyReplicaContext& context, const Batch& batch) -> Result<Step> {
        const Batch sums = RT_TRY(context.merge_call(
            [](TPUStrategy& s, const PerReplica<Batch>& all) { return s.reduce(ReduceOp::kSum, all); }, batch));
        const Batch mine = RT_TRY(context.merge_call(
            [](TPUStrategy&, const PerReplica<Batch>& all) { return all; }, batch));
        return Step{sums.y, Grads{sums.x, {{mine.x, mine.y}}}};
      },
      batches));
  const float rs = sum_of_r(n), fn = static_cast<float>(n);
  for (unsigned r = 0; r < n; ++r) {
    const Step step = out.local(r);
    const float fr = static_cast<float>(r);
    RT_RETURN_IF_ERROR(expect_f32(step.loss, {10.0f * rs}, "merge_fn's SUM of y"));
    RT_RETURN_IF_ERROR(expect_f32(step.grads.w, {rs + fn, 2.0f * (rs + fn)}, "merge_fn's SUM of x"));
    RT_RETURN_IF_ERROR(expect_f32(step.grads.b[0], {fr + 1.0f, 2.0f * (fr + 1.0f)}, "replica r's own x back"));
    RT_RETURN_IF_ERROR(expect_f32(step.grads.b[1], {10.0f * fr}, "replica r's own y back"));
  }
  return Status::ok();
}

}  // namespace

Status run_structure_cases(unsigned cores) {
  TPUStrategy strategy = RT_TRY(TPUStrategy::for_board());
  RT_RETURN_IF_ERROR(run_with_structures(strategy, cores));
  RT_RETURN_IF_ERROR(all_reduce_of_a_structure(strategy, cores));
  RT_RETURN_IF_ERROR(a_model_sized_structure(strategy, cores));
  RT_RETURN_IF_ERROR(datasets_of_structures(strategy, cores));
  RT_RETURN_IF_ERROR(merge_call_with_structures(strategy, cores));
  return structure_that_does_not_fit(strategy);
}

}  // namespace strategy_test
