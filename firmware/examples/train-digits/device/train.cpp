// train-digits, device half: a classifier of the handwritten digits (the MLP or the CNN of
// model.hpp, as the run's folder says: host function run_config) trained with plain SGD, data
// parallel with TPUStrategy over every core, all on the device:
//   - the host streams global batches of B images through infeed queue 0 (`tpu run --infeed
//     0=infeed_x.npy,infeed_y.npy`, made by prepare_digits.py, which also says B: run_config);
//     replica r dequeues its shard, rows [r * B / N, (r + 1) * B / N) (TF's
//     experimental_distribute_dataset split);
//   - the weights are a structure of mirrored variables (Params, create_mirrored_variables: one copy
//     per replica); strategy.run(steps, weights) runs steps_per_run steps per launch, TF's custom
//     training loop: forward and backward on the replica's MXU, the gradients (a Params) and the
//     step's loss and accuracy counts summed over the replicas in one all_reduce SUM of a structure
//     (divided by the global batch), each replica applying the same update to its own copy;
//   - the CNN can also run model parallel (prepare_digits.py --logical-cores 2|4): each replica
//     spans 2 or 4 cores (a device assignment with that computation_shape), logical core 0 dequeues
//     the replica's shard and broadcasts it to the others, the convolution runs split over them, and
//     the other logical cores update private copies of the weights (every logical core computes the
//     same update; logical core 0's are the replica's);
//   - every step's mean loss and accuracy (summed over the replicas) are kept on the device and sent
//     to the app's host half once per launch (log_steps, outside compilation without outputs, which
//     the device does not wait for: no host round trip on the step path; its error, if any, comes
//     back from the next call): <outfeed dir>/train.csv and a progress bar; at the end
//     training_done draws the curves into <outfeed dir>/train.png;
//   - bad input fails loudly: a NaN in a batch names the step, image and pixel; a global batch the
//     replicas cannot split is TF's error; a batch of the wrong shape or dtype is the infeed's error;
//   - the initial weights come from the app's host half (host function initial_weight), the final
//     ones go out as one outfeed tuple (c0_q0_t0_e{0..3}.npy: w1, b1, w2, b2).
// Summation orders are the runtime's documented ones (MXU: k ascending; reduce_sum: rows ascending;
// cross_replica_sum: the collectives' order), so the same run gives the same bits on every board.
#include "model.hpp"

namespace {

using namespace rt;
using namespace rt::tpu;
using namespace train_digits;

constexpr int64_t kStepsPerRun = 8;  // TPUStrategy's steps_per_run
constexpr uint64_t kHostTimeoutNs = 60000ull * 1000000ull;

InfeedDequeue infeed;  // the queue's data path (static: replicas dequeue through it)

// The run's model, cores per replica and global batch (run_config, the app's host half: what
// prepare_digits.py --model, --logical-cores and --batch wrote).
struct RunConfig {
  ModelKind kind;
  unsigned logical_cores;
  int64_t global_batch;
};

// One launch's steps.
struct Run {
  RunConfig config;
  int64_t first_step;
  int64_t steps;
  int64_t total_steps;
};

// Every step's global mean loss and accuracy, kept until the launch ends (replica 0 reports them).
struct StepMetrics {
  float loss[kStepsPerRun];
  float accuracy[kStepsPerRun];
};
StepMetrics metrics;  // written by replica 0's core only

// `total`: [loss sum, correct count] summed over the replicas.
void record(ReplicaContext& replica, int64_t step_in_run, int64_t global_batch, const Tensor& total) {
  if (replica.replica_id() == 0 && replica.logical_core() == 0) {
    metrics.loss[step_in_run] = total.at<float>(0) / static_cast<float>(global_batch);
    metrics.accuracy[step_in_run] = total.at<float>(1) / static_cast<float>(global_batch);
  }
}

// Replica 0 sends the launch's steps to the host, not waiting for it: log_steps("total steps,
// global batch", first step, losses, accuracies).
Status report(ReplicaContext& replica, const Run& run) {
  if (replica.replica_id() != 0 || replica.logical_core() != 0) return Status::ok();
  Arena& arena = replica.arena();
  const int64_t dims[] = {run.steps};
  const Span<const float> losses(metrics.loss, run.steps), accuracies(metrics.accuracy, run.steps);
  const Tensor values[] = {RT_TRY(scalar(arena, static_cast<float>(run.first_step))),
                           RT_TRY(constant<float>(arena, Span<const int64_t>(dims), losses, "losses")),
                           RT_TRY(constant<float>(arena, Span<const int64_t>(dims), accuracies, "accuracies"))};
  FixedString<48> text;
  format_to(text, "{} {}", run.total_steps, run.config.global_batch);
  return host_function_no_wait("log_steps", text.view(), values, kHostTimeoutNs);  // the steps go on at once
}

// A NaN in the input would silently poison every weight: refuse it, naming where it is.
Status check_finite(const Tensor& x, int64_t step, unsigned replica) {
  const int64_t rows = x.shape.dims[0];
  const Span<const float> pixels = x.values<float>();  // a contiguous [rows, 64] shard
  int32_t nans = 0;
  for (const float pixel : pixels) nans += pixel != pixel ? 1 : 0;  // one pass, no early exit: a vector count
  if (nans == 0) return Status::ok();
  for (int64_t i = 0; i < rows * kPixels; ++i)
    if (pixels[static_cast<size_t>(i)] != pixels[static_cast<size_t>(i)])
      return invalid_argument("train-digits: step {}: the batch holds NaN at image {}, pixel {}", step,
                              replica * rows + i / kPixels, i % kPixels);
  return Status::ok();
}

// What the replicas sum every step: the gradients and the step's [loss sum, correct count].
struct StepSums {
  Params grads;
  Tensor metrics;
};

// weights -= learning_rate * grads, leaf by leaf, in place on the replica's copies (TF's
// GradientDescentOptimizer: ApplyGradientDescent on every variable).
Status sgd_update(const Params& weights, const Params& grads, float learning_rate) {
  auto descend = [learning_rate](const Tensor& w, const Tensor& g) -> Result<Tensor> {
    RT_RETURN_IF_ERROR(apply_gradient_descent(w, learning_rate, g));
    return w;
  };
  return nest::map_structure(descend, weights, grads).status();
}

// The gradients and metrics summed over the replicas in one all_reduce of the structure (one
// synchronisation per step), then the SGD update. Returns the summed metrics.
Result<Tensor> apply(StrategyReplicaContext& context, const Params& weights, const Gradients& g, float learning_rate) {
  Arena& arena = context.arena();
  const StepSums local{g.params, RT_TRY(constant<float>(arena, {2}, {g.loss_sum, g.correct}))};
  const StepSums total = RT_TRY(context.all_reduce(ReduceOp::kSum, local));
  RT_RETURN_IF_ERROR(sgd_update(weights, total.grads, learning_rate));
  return total.metrics;
}

// The replica's shard of the next batch: dequeued by its logical core 0 (a replica dequeues every
// tuple once) and broadcast to its other logical cores.
Result<Batch> dequeue_shard(ReplicaContext& replica, int64_t global_batch) {
  Arena& arena = replica.arena();
  if (replica.num_logical_cores() == 1) return infeed.dequeue<Batch>(replica.replica_id(), arena);
  Batch batch;
  if (replica.logical_core() == 0) {
    batch = RT_TRY(infeed.dequeue<Batch>(replica.replica_id(), arena));
  } else {
    const int64_t rows = global_batch / replica.num_replicas();
    const int64_t x_dims[] = {rows, kPixels}, y_dims[] = {rows};
    batch.images = RT_TRY(arena.allocate_tensor(DType::kF32, RT_TRY(Shape::make(x_dims)), "the shard's images"));
    batch.labels = RT_TRY(arena.allocate_tensor(DType::kI32, RT_TRY(Shape::make(y_dims)), "the shard's labels"));
  }
  return nest::map_structure([](const Tensor& element) { return logical_devices().broadcast(element, 0); }, batch);
}

// One SGD step of one replica on its shard of the step's global batch.
Status train_step(StrategyReplicaContext& context, const RunConfig& config, const Params& weights, int64_t step,
                  int64_t step_in_run) {
  ReplicaContext& replica = context.replica();
  Arena& arena = replica.arena();
  ArenaScope temporaries(arena);
  const int64_t global_batch = config.global_batch;
  const Batch batch = RT_TRY(dequeue_shard(replica, global_batch));  // images [B / N, 64], labels [B / N]
  RT_RETURN_IF_ERROR(check_finite(batch.images, step, replica.replica_id()));
  const ModelSpec& spec = *RT_TRY(model_spec(static_cast<int32_t>(config.kind)));
  const Gradients g = config.kind == ModelKind::kCnn
                          ? RT_TRY(cnn_gradients(arena, weights, batch, global_batch, replica.num_logical_cores()))
                          : RT_TRY(mlp_gradients(arena, weights, batch, global_batch));
  record(replica, step_in_run, global_batch, RT_TRY(apply(context, weights, g, spec.learning_rate)));
  return Status::ok();
}

Result<InfeedQueue> batch_queue(unsigned replicas, int64_t global_batch) {
  const DType types[] = {DType::kF32, DType::kI32};
  const int64_t x_dims[] = {global_batch, kPixels}, y_dims[] = {global_batch};
  const Shape shapes[] = {RT_TRY(Shape::make(x_dims)), RT_TRY(Shape::make(y_dims))};
  InfeedQueue queue = RT_TRY(InfeedQueue::create({.tuple_types = types, .tuple_shapes = shapes}));
  RT_RETURN_IF_ERROR(queue.set_number_of_shards(static_cast<int>(replicas)));
  return queue;
}

// One weight's initial value from the host (initial_weight, the app's host half).
Result<Tensor> initial_weight(const ModelSpec& spec, unsigned k, const char* name) {
  const Shape shape = RT_TRY(Shape::make(Span<const int64_t>(spec.dims[k], spec.ranks[k])));
  return host_function(hbm(), "initial_weight", {}, DType::kF32, shape, name);
}

// The model's weights as mirrored variables (one copy per replica), initialised by the host.
Result<PerReplica<Params>> create_weights(TPUStrategy& strategy, const ModelSpec& spec) {
  const Params initial{RT_TRY(initial_weight(spec, 0, "w1")), RT_TRY(initial_weight(spec, 1, "b1")),
                       RT_TRY(initial_weight(spec, 2, "w2")), RT_TRY(initial_weight(spec, 3, "b2"))};
  return create_mirrored_variables(strategy, initial);
}

// The run's configuration, from the app's host half (run_config).
Result<RunConfig> configured_run(unsigned cores) {
  const int64_t three[] = {3};
  const Tensor config = RT_TRY(host_function(hbm(), "run_config", {}, DType::kI32, RT_TRY(Shape::make(three))));
  RT_TRY(model_spec(config.at<int32_t>(0)));
  const RunConfig run{static_cast<ModelKind>(config.at<int32_t>(0)), static_cast<unsigned>(config.at<int32_t>(1)),
                      config.at<int32_t>(2)};
  if (run.logical_cores != 1 && (run.kind != ModelKind::kCnn || (run.logical_cores != 2 && run.logical_cores != 4)))
    return invalid_argument("train-digits: {} logical cores per replica: only the CNN splits, over 2 or 4", run.logical_cores);
  if (cores % run.logical_cores != 0)
    return invalid_argument("train-digits: {} cores do not make replicas of {} logical cores", cores, run.logical_cores);
  return run;
}

// The weights a core updates: a replica's logical cores other than 0 work on private copies (they
// compute the same updates; logical core 0 updates the replica's), taken before logical core 0
// changes them.
Result<Params> weights_of_core(ReplicaContext& replica, const Params& weights) {
  if (replica.num_logical_cores() == 1) return weights;
  const Params own = replica.logical_core() == 0
                         ? weights
                         : RT_TRY(nest::map_structure([&](const Tensor& w) { return copy(replica.arena(), w); }, weights));
  RT_RETURN_IF_ERROR(logical_devices().barrier());
  return own;
}

// Replicas of `logical_cores` (1, 2 or 4) cores each over the board's mesh.
Result<DeviceAssignment> model_parallel_assignment(unsigned cores, unsigned logical_cores) {
  const Topology topology = RT_TRY(Topology::for_cores(static_cast<int>(cores)));
  const int32_t one[] = {1, 1, 1, 1}, halves[] = {1, 1, 1, 2}, quarters[] = {1, 1, 2, 2};
  const int32_t* shape = logical_cores == 4 ? quarters : logical_cores == 2 ? halves : one;
  return DeviceAssignment::build(topology, Span<const int32_t>(shape, 4), {}, static_cast<int>(cores / logical_cores));
}

Status train(unsigned cores) {
  const RunConfig config = RT_TRY(configured_run(cores));
  const Result<DeviceAssignment> assignment = model_parallel_assignment(cores, config.logical_cores);
  StrategyOptions options;  // one core per replica: the board's cluster as it is
  options.steps_per_run = kStepsPerRun;
  if (config.logical_cores > 1) {
    if (!assignment) return assignment.status();
    options.device_assignment = &*assignment;
  }
  TPUStrategy strategy = RT_TRY(TPUStrategy::for_board(options));
  const unsigned replicas = strategy.num_replicas_in_sync();  // every board's, in a pod
  if (config.global_batch % replicas != 0)  // TF's text (InputContext.get_per_replica_batch_size)
    return invalid_argument("The `global_batch_size` {} is not divisible by `num_replicas_in_sync` {} ",
                            config.global_batch, replicas);
  const int64_t steps = RT_TRY(infeed_steps(0, kHostTimeoutNs));
  InfeedQueue queue = RT_TRY(batch_queue(replicas, config.global_batch));
  RT_RETURN_IF_ERROR(infeed.open(queue, hbm(), {.link_queue = 0, .in_place = true}));  // a batch lives one step
  const ModelSpec& spec = *RT_TRY(model_spec(static_cast<int32_t>(config.kind)));
  const PerReplica<Params> weights = RT_TRY(create_weights(strategy, spec));
  const int64_t per_run = strategy.steps_per_run();
  for (int64_t first = 0; first < steps; first += per_run) {
    PodMemoryScope memory(cores);  // what a launch allocates beyond the variables
    const Run run{config, first, steps - first < per_run ? steps - first : per_run, steps};
    auto steps_of_run = [run](StrategyReplicaContext& context, const Params& replica_weights) -> Status {
      const Params weights = RT_TRY(weights_of_core(context.replica(), replica_weights));
      for (int64_t s = 0; s < run.steps; ++s)
        RT_RETURN_IF_ERROR(train_step(context, run.config, weights, run.first_step + s, s));
      return report(context.replica(), run);
    };
    RT_TRY(strategy.run(steps_of_run, weights));
  }
  infeed.close();
  const Params trained = read_values(weights);  // this host's copies
  RT_RETURN_IF_ERROR(outfeed_enqueue_tuple(0, nest::flatten(trained).span(), kHostTimeoutNs));
  RT_RETURN_IF_ERROR(host_function("training_done", "", {}, {}, kHostTimeoutNs));
  log_info("train-digits: {} {} steps of {} images on {} replicas of {} cores done; final weights outfed", spec.name,
           steps, config.global_batch, replicas, config.logical_cores);
  return Status::ok();
}

Status run(const firmware::CoreContext& context) {
  return run_program(context, [&] { return train(context.cores); });
}

}  // namespace

const firmware::App firmware::kApp = {"train-digits", "a digits classifier (MLP or CNN) trained with TPUStrategy", run};
