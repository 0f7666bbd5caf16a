// The README's three API examples, exactly as the README quotes them (between the "example:" and
// "end" markers), run and checked against hand-computed values:
//   replicate (2 replicas: 2 cores), merge_call under TPUStrategy (any core count), and
//   experimental_split_to_logical_devices [1, 2, 4, 1] over computation_shape [1, 2, 2, 2] (8 cores),
// whose gathered output must equal the same model run unsplit on core 0, bit for bit.
// The core count decides which examples apply; the log names the ones run. On a pod of boards the
// same examples run over every board's cores (tests/suite/pod_cases.py).
#include "firmware/tpu_pod.hpp"

namespace {

using namespace rt;
using namespace rt::tpu;

Status expect_scalar(const Tensor& t, float expected, const char* what) {
  if (t.scalar<float>() != expected) return internal_error("{}: got {}, expected {}", what, t.scalar<float>(), expected);
  return Status::ok();
}

Status replicate_example() {
  // example: replicate
  auto computation = [](ReplicaContext& replica, const Tensor& x) -> Result<Tensor> {
    const Tensor x1 = RT_TRY(rt::add(replica.arena(), x, 1.0f));
    return rt::reduce_mean(replica.arena(), x1);
  };
  const Tensor x = RT_TRY(rt::constant<float>(rt::hbm(), {3}, {1, 2, 3}));
  const Tensor y = RT_TRY(rt::constant<float>(rt::hbm(), {3}, {4, 5, 6}));
  const Replicated output = RT_TRY(rt::tpu::replicate(computation, {{x}, {y}}));  // output[1][0].scalar<float>() == 6
  // end
  RT_RETURN_IF_ERROR(expect_scalar(output[0][0], 3.0f, "replicate example, replica 0"));  // mean(2, 3, 4)
  return expect_scalar(output[1][0], 6.0f, "replicate example, replica 1");              // mean(5, 6, 7)
}

Status merge_call_example(unsigned n) {
  // example: merge_call
  auto merge_fn = [](TPUStrategy& strategy, const DistributedValue& value) { return strategy.reduce(ReduceOp::kSum, value); };
  auto fn = [merge_fn](StrategyReplicaContext& context, const Tensor& three) -> Result<Tensor> {
    const Tensor id = RT_TRY(rt::scalar(context.arena(), float(context.replica_id_in_sync_group())));
    const Tensor value = RT_TRY(rt::add(context.arena(), three, id));
    const Tensor s = RT_TRY(context.merge_call(merge_fn, value));
    return rt::add(context.arena(), s, value);
  };
  TPUStrategy strategy = RT_TRY(TPUStrategy::for_board());
  const RunResult output = RT_TRY(strategy.run(fn, RT_TRY(rt::scalar(rt::hbm(), 3.0f))));
  // end
  const float s = 3.0f * static_cast<float>(n) + static_cast<float>(n * (n - 1) / 2);  // sum of 3 + r
  for (unsigned r = 0; r < n; ++r)
    RT_RETURN_IF_ERROR(expect_scalar(output[0].component(r), s + 3.0f + static_cast<float>(r), "merge_call example"));
  return Status::ok();
}

// The same model unsplit, on core 0's MXU: the reference for the split example.
Result<Tensor> unsplit_model(const Tensor& image, const Tensor& filter1, const Tensor& filter2) {
  const Conv2dOptions same{.padding = ConvPadding::kSame};
  const Shape hidden_shape = RT_TRY(conv2d_output_shape(image.shape, filter1.shape, same));
  const Tensor hidden = RT_TRY(hbm().allocate_tensor(DType::kF32, hidden_shape, "hidden"));
  RT_RETURN_IF_ERROR(conv2d(core_mxu(), hbm(), image, filter1, same, hidden));
  RT_RETURN_IF_ERROR(unary(UnaryOp::kRelu, hidden, hidden));
  const Tensor out = RT_TRY(hbm().allocate_tensor(DType::kF32, RT_TRY(conv2d_output_shape(hidden_shape, filter2.shape, same)), "out"));
  RT_RETURN_IF_ERROR(conv2d(core_mxu(), hbm(), hidden, filter2, same, out));
  return out;
}

// Small integers in float32: every sum in the model is exact, whatever the order.
Result<Tensor> counting(const int64_t (&dims)[4], int step) {
  const Shape shape = RT_TRY(Shape::make(dims));
  const Tensor t = RT_TRY(hbm().allocate_tensor(DType::kF32, shape, "counting"));
  for (size_t i = 0; i < t.num_elements(); ++i) t.values<float>()[i] = static_cast<float>(static_cast<int>(i * step % 7) - 3);
  return t;
}

Status split_example() {
  const Tensor image = RT_TRY(counting({2, 8, 16, 3}, 5));
  const Tensor filter1 = RT_TRY(counting({3, 3, 3, 8}, 3));
  const Tensor filter2 = RT_TRY(counting({3, 3, 8, 4}, 2));
  // example: split
  auto step = [](const Tensor& image, const Tensor& filter1, const Tensor& filter2) -> Result<Tensor> {
    const int64_t partition[] = {1, 2, 4, 1};
    const Conv2dOptions same{.padding = ConvPadding::kSame};
    const ShardedTensor tiles = RT_TRY(split_to_logical_devices(image, partition));
    const ShardedTensor hidden = RT_TRY(spmd::conv2d(tiles, replicate_to_logical_devices(filter1), same));
    const ShardedTensor relu = RT_TRY(spmd::unary(UnaryOp::kRelu, hidden));
    const ShardedTensor out = RT_TRY(spmd::conv2d(relu, replicate_to_logical_devices(filter2), same));
    return gather_from_logical_devices(out);
  };
  const int32_t computation_shape[] = {1, 2, 2, 2};
  const DeviceAssignment assignment = RT_TRY(DeviceAssignment::build(RT_TRY(Topology::for_cores(8)), computation_shape, {}, 1));
  TPUStrategy strategy = RT_TRY(TPUStrategy::for_board({.device_assignment = &assignment}));
  const RunResult output = RT_TRY(strategy.run(step, image, filter1, filter2));
  // end
  const Tensor expected = RT_TRY(unsplit_model(image, filter1, filter2));
  const Tensor& got = output[0].component(0);
  if (!(got.shape == expected.shape)) return internal_error("split example: the output's shape differs from the unsplit model's");
  for (size_t i = 0; i < got.num_elements(); ++i)
    if (got.values<float>()[i] != expected.values<float>()[i])
      return internal_error("split example: element {} is {}, the unsplit model gives {}", i, got.values<float>()[i],
                            expected.values<float>()[i]);
  return Status::ok();
}

// `cores` is the board's; in a pod of boards (tpu run --boards K) the replicas span every board's
// cores, and the split example's one replica runs on the first board.
Status examples(unsigned cores) {
  PodMemoryScope memory(cores);
  const unsigned boards = pod_membership().num_tasks, replicas = cores * boards;
  if (replicas == 2) RT_RETURN_IF_ERROR(replicate_example());
  RT_RETURN_IF_ERROR(merge_call_example(replicas));
  if (cores == 8) RT_RETURN_IF_ERROR(split_example());
  FixedString<48> pod;
  if (boards > 1) format_to(pod, " ({} boards of {})", boards, cores);
  log_info("readme examples on {} cores{}: {}merge_call{} checked", replicas, pod.view(),
           replicas == 2 ? "replicate, " : "", cores == 8 ? ", split_to_logical_devices" : "");
  return Status::ok();
}

Status run(const firmware::CoreContext& context) {
  return run_program(context, [&] { return examples(context.cores); });
}

}  // namespace

const firmware::App firmware::kApp = {"readme-examples", "the README's API examples, run and checked", run};
