// The options of TF's pages (TF_BEHAVIOUR.md sections 1 and 6, "Options"): tf.distribute.InputOptions
// and InputReplicationMode (runtime/tpu/strategy/input_options.cpp), tf.distribute.RunOptions
// (run_options.cpp) and replicate's tf.tpu.XLAOptions (runtime/tpu/replicate/xla_options.cpp): defaults
// as on TF's pages, TF's texts where TF refuses a value, the runtime's where a board cannot honour one.
#include <catch2/catch.hpp>

#include "tensor_test_helpers.hpp"

#include <string>

#include "runtime/tpu/replicate/xla_options.hpp"
#include "runtime/tpu/strategy/input_options.hpp"
#include "runtime/tpu/strategy/run_options.hpp"

namespace {

using test_helpers::message;
using rt::tpu::InputOptions;
using rt::tpu::InputReplicationMode;

}  // namespace

TEST_CASE("InputOptions: TF's defaults, PER_REPLICA and place_dataset_on_device refused with TF's texts",
          "[strategy][options]") {
  const InputOptions defaults;
  CHECK(defaults.experimental_prefetch_to_device);
  CHECK(defaults.experimental_replication_mode == InputReplicationMode::kPerWorker);
  CHECK_FALSE(defaults.experimental_place_dataset_on_device);
  CHECK(rt::tpu::check_distribute_dataset_options(defaults).is_ok());
  CHECK(rt::tpu::check_datasets_from_function_options(defaults).is_ok());
  CHECK(rt::tpu::check_distribute_dataset_options({.experimental_prefetch_to_device = false}).is_ok());
  // experimental_distribute_dataset takes place_dataset_on_device (TF checks it for the function form only).
  CHECK(rt::tpu::check_distribute_dataset_options({.experimental_place_dataset_on_device = true}).is_ok());

  const InputOptions per_replica{.experimental_replication_mode = InputReplicationMode::kPerReplica};
  const rt::Status dataset = rt::tpu::check_distribute_dataset_options(per_replica);
  CHECK(dataset.code() == rt::StatusCode::kUnimplemented);
  CHECK(message(dataset) ==
        "InputReplicationMode.PER_REPLICA is only supported in `experimental_distribute_datasets_from_function`.");
  const rt::Status from_function = rt::tpu::check_datasets_from_function_options(per_replica);
  CHECK(from_function.code() == rt::StatusCode::kUnimplemented);
  CHECK(message(from_function) == "InputReplicationMode.PER_REPLICA is only supported in  "
                                  "`experimental_distribute_datasets_from_function` of tf.distribute.MirroredStrategy");
  const rt::Status on_device =
      rt::tpu::check_datasets_from_function_options({.experimental_place_dataset_on_device = true});
  CHECK(on_device.code() == rt::StatusCode::kInvalidArgument);
  CHECK(message(on_device) == "When `experimental_place_dataset_on_device` is set for dataset placement, you must "
                              "also specify `PER_REPLICA` for the replication mode");
}

TEST_CASE("make_input_fn_iterator's replication_mode: PER_WORKER only, TF's %r text", "[strategy][options]") {
  CHECK(rt::tpu::check_input_fn_replication_mode(InputReplicationMode::kPerWorker).is_ok());
  CHECK(message(rt::tpu::check_input_fn_replication_mode(InputReplicationMode::kPerReplica)) ==
        "Input replication mode not supported: <InputReplicationMode.PER_REPLICA: 'PER_REPLICA'>");
  CHECK(std::string(rt::tpu::input_replication_mode_repr(InputReplicationMode::kPerWorker)) ==
        "<InputReplicationMode.PER_WORKER: 'PER_WORKER'>");
}

TEST_CASE("RunOptions: dynamic batch sizes by default; off, one static shape per argument", "[strategy][options]") {
  float storage[8] = {};
  const rt::Tensor one = rt::Tensor::contiguous(rt::DType::kF32, test_helpers::shape_of({1}), storage);
  const rt::Tensor two = rt::Tensor::contiguous(rt::DType::kF32, test_helpers::shape_of({2}), storage);
  const rt::Tensor ragged_parts[] = {one, two, one};
  const rt::tpu::DistributedValue ragged = *rt::tpu::DistributedValue::per_replica(rt::Span<const rt::Tensor>(ragged_parts, 3));
  const rt::Tensor even_parts[] = {two, two, two};
  const rt::tpu::DistributedValue even = *rt::tpu::DistributedValue::per_replica(rt::Span<const rt::Tensor>(even_parts, 3));
  const rt::tpu::ValueRef args[] = {one, even, ragged};

  const rt::tpu::RunOptions defaults;
  CHECK(defaults.experimental_enable_dynamic_batch_size);
  CHECK_FALSE(defaults.experimental_bucketizing_dynamic_shape);
  CHECK(rt::tpu::check_run_options(defaults, args).is_ok());
  CHECK(rt::tpu::check_run_options({.experimental_bucketizing_dynamic_shape = true}, args).is_ok());
  const rt::tpu::RunOptions static_only{.experimental_enable_dynamic_batch_size = false};
  // A plain argument and a PerReplica of equal shapes pass; the ragged one (argument 2) does not.
  CHECK(rt::tpu::check_run_options(static_only, rt::Span<const rt::tpu::ValueRef>(args, 2)).is_ok());
  const rt::Status refused = rt::tpu::check_run_options(static_only, args);
  CHECK(refused.code() == rt::StatusCode::kInvalidArgument);
  CHECK(message(refused) == "run's argument 2: replica 1 has a float32 value of shape [2], replica 0 a float32 value "
                            "of shape [1]; RunOptions(experimental_enable_dynamic_batch_size=False) allows only static "
                            "shape inputs");
}

TEST_CASE("XLAOptions: SPMD and the dynamic padder by default; MPMD partitioning refused", "[replicate][options]") {
  const rt::tpu::XLAOptions defaults;
  CHECK(defaults.use_spmd_for_xla_partitioning);
  CHECK(defaults.enable_xla_dynamic_padder);
  CHECK(rt::tpu::check_xla_options(defaults, 4).is_ok());
  const rt::tpu::XLAOptions mpmd{.use_spmd_for_xla_partitioning = false};
  CHECK(rt::tpu::check_xla_options(mpmd, 1).is_ok());  // one core per replica: nothing is partitioned
  const rt::Status refused = rt::tpu::check_xla_options(mpmd, 2);
  CHECK(refused.code() == rt::StatusCode::kUnimplemented);
  CHECK(message(refused) == "replicate: xla_options.use_spmd_for_xla_partitioning=False asks for XLA's MPMD "
                            "partitioner, which the runtime does not have: each replica's 2 logical cores all run "
                            "the computation (SPMD partitioning, use_spmd_for_xla_partitioning=True)");
  CHECK(rt::tpu::check_xla_options({.enable_xla_dynamic_padder = false}, 2).is_ok());
}
