// Distributed datasets: experimental_distribute_dataset splits each global batch of B = 2N + 1 rows
// (then a last batch of 2) over the N replicas, the first B mod N replicas getting one row more; run
// sums each replica's rows; strategy.reduce(MEAN, batch, axis=0) is the mean over the global batch.
// Source row i is [i, 10 i], so rows [a, a + k) sum to [k(2a + k - 1)/2, 10 x that]. Also the
// unbatched-dataset error, and distribute_datasets_from_function (InputContext, per-replica batch
// size 4N / N = 4, element s N + r on replica r at step s, and its divisibility error).
#include "runtime/tensor/hbm.hpp"
#include "suite.hpp"

namespace strategy_test {
namespace {

using rt::tpu::Dataset;
using rt::tpu::DistributedDataset;
using rt::tpu::DistributedIterator;
using rt::tpu::InputContext;

// [rows, 2] with row i = [i, 10 i] (cols = 2) or [rows, 1] with row i = [i].
Result<Tensor> counting_rows(int64_t rows, int64_t cols) {
  const int64_t shape[] = {rows, cols};
  Result<rt::Shape> made = rt::Shape::make(shape);
  if (!made) return made.status();
  Result<Tensor> t = rt::hbm().allocate_tensor(rt::DType::kF32, *made, "a dataset source");
  if (!t) return t;
  float* values = reinterpret_cast<float*>(t->data);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t c = 0; c < cols; ++c) values[i * cols + c] = static_cast<float>(c == 0 ? i : 10 * i);
  return t;
}

// Outputs reduce_sum(x, 0) and the row count.
Status sum_and_count(StrategyReplicaContext& context, ReplicaArgs args, ReplicaOutputs& out) {
  Result<Tensor> sum = sum_rows(context.arena(), args[0]);
  if (!sum) return sum.status();
  Result<Tensor> count = f32_scalar(context.arena(), static_cast<float>(args[0].shape.dims[0]));
  if (!count) return count.status();
  RT_RETURN_IF_ERROR(out.add(*sum));
  return out.add(*count);
}

float sum_of_range(int64_t first, int64_t count) { return static_cast<float>(count * (2 * first + count - 1) / 2); }

Status check_split_step(TPUStrategy& strategy, const DistributedValue& step, int64_t base, int64_t batch, unsigned n) {
  const rt::Span<const DistributedValue> args(&step, 1);
  RT_RETURN_IF_ERROR(strategy.run({"sum_and_count", sum_and_count}, args, outputs()));
  int64_t offset = base;
  for (unsigned r = 0; r < n; ++r) {
    const int64_t size = batch / n + (static_cast<int64_t>(r) < batch % n ? 1 : 0);
    const float sum = sum_of_range(offset, size);
    RT_RETURN_IF_ERROR(expect_f32(outputs()[0].component(r), {sum, 10 * sum}, "a replica's share of a global batch"));
    RT_RETURN_IF_ERROR(expect_f32(outputs()[1].component(r), {static_cast<float>(size)}, "a replica's row count"));
    offset += size;
  }
  Result<Tensor> mean = strategy.reduce(rt::ReduceOp::kMean, step, rt::tpu::ReduceAxis::at(0));
  if (!mean) return mean.status();
  const float expected = static_cast<float>(base) + static_cast<float>(batch - 1) / 2;  // mean of base .. base+B-1
  return expect_f32(*mean, {expected, 10 * expected}, "reduce(MEAN, global batch, axis=0)");
}

Status split_batches(TPUStrategy& strategy, unsigned n) {
  const int64_t batch = 2 * n + 1;
  Result<Tensor> source = counting_rows(2 * batch + 2, 2);
  if (!source) return source.status();
  Result<Dataset> rows = Dataset::from_tensor_slices(*source);
  if (!rows) return rows.status();
  Result<Dataset> batched = rows->batch(batch);
  if (!batched) return batched.status();
  Result<DistributedDataset> distributed = strategy.experimental_distribute_dataset(*batched);
  if (!distributed) return distributed.status();
  DistributedIterator iterator(*distributed);
  const int64_t sizes[] = {batch, batch, 2};
  int64_t base = 0;
  for (int64_t size : sizes) {
    Result<DistributedValue> step = iterator.get_next();
    if (!step) return step.status();
    RT_RETURN_IF_ERROR(expect_regrouped(*step, n, "a distributed step"));
    RT_RETURN_IF_ERROR(check_split_step(strategy, *step, base, size, n));
    base += size;
  }
  return expect_error(iterator.get_next().status(), rt::StatusCode::kOutOfRange, "End of sequence", "past the end");
}

Status unbatched(TPUStrategy& strategy, unsigned n) {
  Result<Tensor> source = counting_rows(6, 1);
  if (!source) return source.status();
  const int64_t six[] = {6};
  const Tensor vector = Tensor::contiguous(rt::DType::kF32, *rt::Shape::make(six), source->data);
  Result<Dataset> scalars = Dataset::from_tensor_slices(vector);
  if (!scalars) return scalars.status();
  rt::FixedString<256> text;
  rt::format_to(text,
                "Call the `batch` method on the input Dataset in order to be able to split your input across {} "
                "replicas.\n Please see the tf.distribute.Strategy guide. Reached a source dataset: TensorSliceDataset "
                "without encountering a batch transformation.",
                n);
  return expect_error(strategy.experimental_distribute_dataset(*scalars).status(), rt::StatusCode::kInvalidArgument,
                      text.view(), "an unbatched dataset");
}

struct PipelineSource {
  Tensor rows;
  unsigned calls = 0;
  Status context_error;
};

Result<Dataset> per_replica_dataset(const InputContext& context, PipelineSource& source) {
  ++source.calls;
  if (context.num_input_pipelines != 1 || context.input_pipeline_id != 0)
    return rt::internal_error("InputContext({}, {}, {}): expected one pipeline, id 0", context.num_input_pipelines,
                              context.input_pipeline_id, context.num_replicas_in_sync);
  Result<int64_t> per_replica = context.get_per_replica_batch_size(4 * context.num_replicas_in_sync);
  if (!per_replica) return per_replica.status();
  if (*per_replica != 4) return rt::internal_error("per-replica batch size {}, expected 4", *per_replica);
  if (context.num_replicas_in_sync > 1) {
    rt::FixedString<128> text;
    const int64_t global = 4 * context.num_replicas_in_sync + 1;
    rt::format_to(text, "The `global_batch_size` {} is not divisible by `num_replicas_in_sync` {} ", global,
                  context.num_replicas_in_sync);
    source.context_error = expect_error(context.get_per_replica_batch_size(global).status(),
                                        rt::StatusCode::kInvalidArgument, text.view(), "get_per_replica_batch_size");
  }
  Result<Dataset> rows = Dataset::from_tensor_slices(source.rows);
  if (!rows) return rows;
  return rows->batch(*per_replica);
}

Status from_function(TPUStrategy& strategy, unsigned n) {
  static PipelineSource source;
  Result<Tensor> rows = counting_rows(8 * n, 1);
  if (!rows) return rows.status();
  source = PipelineSource{*rows, 0, Status::ok()};
  Result<DistributedDataset> distributed = strategy.distribute_datasets_from_function(
      [](const InputContext& context) { return per_replica_dataset(context, source); });
  if (!distributed) return distributed.status();
  RT_RETURN_IF_ERROR(source.context_error);
  if (source.calls != 1 || distributed->num_steps() != 2)
    return rt::internal_error("dataset_fn called {} times, {} steps; expected once and 2", source.calls,
                              distributed->num_steps());
  DistributedIterator iterator(*distributed);
  for (int64_t s = 0; s < 2; ++s) {
    Result<DistributedValue> step = iterator.get_next();
    if (!step) return step.status();
    const rt::Span<const DistributedValue> args(&*step, 1);
    RT_RETURN_IF_ERROR(strategy.run({"sum_and_count", sum_and_count}, args, outputs()));
    for (unsigned r = 0; r < n; ++r) {
      const int64_t element = s * n + r;  // rows [4 element, 4 element + 4)
      const float sum = sum_of_range(4 * element, 4);
      RT_RETURN_IF_ERROR(expect_f32(outputs()[0].component(r), {sum}, "a per-replica element"));
    }
  }
  return Status::ok();
}

}  // namespace

Status run_dataset_cases(unsigned cores) {
  Result<TPUStrategy> strategy = TPUStrategy::for_board();
  if (!strategy) return strategy.status();
  RT_RETURN_IF_ERROR(split_batches(*strategy, cores));
  RT_RETURN_IF_ERROR(unbatched(*strategy, cores));
  return from_function(*strategy, cores);
}

}  // namespace strategy_test
