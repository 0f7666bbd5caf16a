// The pure parts of the contrib TPUStrategy elements (issue 23): initial_loop_values' dtype check
// (TF's training loop: lists in name order, TF's TypeError text), the non_tensor_outputs dict,
// group's check, a single device as reduce_to's destination, and num_cores' device assignment (the
// first num_cores cores). Expectations are written out by hand from TF's definitions.
#include <catch2/catch.hpp>

#include <string>

#include "runtime/tpu/strategy/device_destination.hpp"
#include "runtime/tpu/strategy/initial_loop_values.hpp"
#include "runtime/tpu/strategy/strategy_group.hpp"
#include "runtime/tpu/strategy/strategy_num_cores.hpp"

namespace {

using rt::DType;
using rt::Tensor;
using rt::tpu::NamedTensor;
using rt::tpu::NonTensor;
using rt::tpu::StepOutputTable;

std::string text(const rt::Status& status) {
  return status.is_ok() ? "(ok)" : std::string(status.message().data(), status.message().size());
}
template <class T>
std::string text(const rt::Result<T>& result) {
  return result.is_ok() ? "(ok)" : text(result.status());
}

Tensor view(DType dtype) {
  static unsigned char bytes[8];
  return Tensor::contiguous(dtype, rt::Shape{}, bytes);
}

// Outputs recorded in this order: loss (float32), count (int32).
StepOutputTable loss_and_count() {
  StepOutputTable table;
  REQUIRE(table.record({"loss", false, rt::ReduceOp::kSum}, view(DType::kF32)).is_ok());
  REQUIRE(table.record({"count", false, rt::ReduceOp::kSum}, view(DType::kI32)).is_ok());
  return table;
}

}  // namespace

TEST_CASE("initial_loop_values: dtypes compared in name order, names themselves not", "[strategy]") {
  const StepOutputTable outputs = loss_and_count();
  const NamedTensor same[] = {{"loss", view(DType::kF32)}, {"count", view(DType::kI32)}};
  CHECK(rt::tpu::check_initial_loop_values(same, outputs).is_ok());
  // a < b: [int32, float32], as count < loss: [int32, float32].
  const NamedTensor renamed[] = {{"b", view(DType::kF32)}, {"a", view(DType::kI32)}};
  CHECK(rt::tpu::check_initial_loop_values(renamed, outputs).is_ok());
  CHECK(rt::tpu::check_initial_loop_values({}, outputs).is_ok());  // none given: not checked (Deviation)
}

TEST_CASE("initial_loop_values: TF's TypeError text with Python's dtype lists", "[strategy]") {
  const StepOutputTable outputs = loss_and_count();
  const NamedTensor swapped[] = {{"a", view(DType::kF32)}, {"b", view(DType::kI32)}};
  const rt::Status mismatch = rt::tpu::check_initial_loop_values(swapped, outputs);
  CHECK(mismatch.code() == rt::StatusCode::kInvalidArgument);
  CHECK(text(mismatch) ==
        "Mismatch between input types and output types for training loop body: [tf.float32, tf.int32] vs "
        "[tf.int32, tf.float32]");
  const NamedTensor one[] = {{"loss", view(DType::kBF16)}};
  CHECK(text(rt::tpu::check_initial_loop_values(one, StepOutputTable())) ==
        "Mismatch between input types and output types for training loop body: [tf.bfloat16] vs []");
  // Python orders str by code point: "Z" (0x5a) before "a" (0x61), a prefix first.
  const NamedTensor cased[] = {{"a", view(DType::kI32)}, {"Z", view(DType::kF32)}, {"ab", view(DType::kBool)}};
  StepOutputTable three;
  REQUIRE(three.record({"x", false, rt::ReduceOp::kSum}, view(DType::kF32)).is_ok());
  CHECK(text(rt::tpu::check_initial_loop_values(cased, three)) ==
        "Mismatch between input types and output types for training loop body: [tf.float32, tf.int32, tf.bool] vs "
        "[tf.float32]");
}

TEST_CASE("non_tensor_outputs: a dict of value lists; setting a name again replaces its list", "[strategy]") {
  rt::tpu::NonTensorOutputs outputs;
  const NonTensor ids[] = {0, 1, 2};
  REQUIRE(outputs.set("rid", ids).is_ok());
  const NonTensor label[] = {"tpu"};
  REQUIRE(outputs.set("label", label).is_ok());
  const auto rid = outputs.get("rid");
  REQUIRE(rid.is_ok());
  REQUIRE(rid->size() == 3);
  CHECK((*rid)[2] == NonTensor(2));
  CHECK(!((*rid)[2] == NonTensor(2.0)));  // an int is not a float
  const NonTensor half[] = {0.5};
  REQUIRE(outputs.set("rid", half).is_ok());
  CHECK(outputs.get("rid")->size() == 1);
  CHECK((*outputs.get("rid"))[0].as_float() == 0.5);
  CHECK(outputs.size() == 2);
  CHECK(outputs.get("label")->data()[0].as_text() == "tpu");
  CHECK(text(outputs.get("loss")) == "no non-tensor output named 'loss'");
  CHECK(outputs.get("loss").status().code() == rt::StatusCode::kNotFound);
}

TEST_CASE("group accepts this strategy's values only", "[strategy]") {
  Tensor components[3] = {view(DType::kF32), view(DType::kF32), view(DType::kF32)};
  const auto three = rt::tpu::DistributedValue::per_replica(rt::Span<const Tensor>(components, 3));
  REQUIRE(three.is_ok());
  CHECK(rt::tpu::check_groupable(*three, 3, "train_op").is_ok());
  CHECK(rt::tpu::check_groupable(rt::tpu::DistributedValue::plain(components[0]), 3).is_ok());
  CHECK(text(rt::tpu::check_groupable(*three, 4)) == "group: a PerReplica value with 3 components, but the strategy "
                                                     "has 4 replicas");
}

TEST_CASE("a single device as reduce_to's destination: TF's device strings on a board", "[strategy]") {
  const rt::tpu::TPUClusterResolver board = *rt::tpu::TPUClusterResolver::for_cores(4);
  const auto full = rt::tpu::parse_device_destination("/job:localhost/replica:0/task:0/device:TPU:3", board);
  REQUIRE(full.is_ok());
  CHECK(!full->host);
  CHECK(full->core == 3);
  CHECK(rt::tpu::parse_device_destination("/device:TPU:1", board)->core == 1);
  CHECK(rt::tpu::parse_device_destination("/replica:0/task:0/device:CPU:0", board)->host);
  CHECK(rt::tpu::parse_device_destination("/cpu:0", board)->host);
  const char* const refused[] = {"/device:TPU:4", "/device:CPU:1", "/job:worker/device:TPU:0", "/task:1/device:TPU:0",
                                 "/device:GPU:0", "TPU", "", "/device:TPU:1/device:TPU:2"};
  for (const char* name : refused) {
    const auto result = rt::tpu::parse_device_destination(name, board);
    CHECK(result.status().code() == rt::StatusCode::kNotFound);
    CHECK(text(result) == "reduce_to: no device '" + std::string(name) +
                              "' on this board; its devices are /job:localhost/replica:0/task:0/device:TPU:0..3 and "
                              "its host's CPU:0");
  }
  // In a pod each board is a task of job "worker".
  const rt::tpu::TPUClusterResolver pod = *rt::tpu::TPUClusterResolver::for_pod(2, 1, 2);
  CHECK(rt::tpu::parse_device_destination("/job:worker/replica:0/task:1/device:TPU:1", pod)->core == 1);
  CHECK(!rt::tpu::parse_device_destination("/job:worker/replica:0/task:0/device:TPU:1", pod).is_ok());
}

TEST_CASE("num_cores: the first num_cores cores, one per replica; 0 means the given assignment", "[strategy]") {
  const rt::tpu::TPUClusterResolver board = *rt::tpu::TPUClusterResolver::for_cores(8);
  const auto none = rt::tpu::num_cores_assignment(board, 0, nullptr);
  REQUIRE(none.is_ok());
  CHECK(*none == nullptr);
  const auto three = rt::tpu::num_cores_assignment(board, 3, nullptr);
  REQUIRE(three.is_ok());
  const rt::tpu::DeviceAssignment& assignment = **three;
  CHECK(assignment.num_replicas() == 3);
  CHECK(assignment.num_cores_per_replica() == 1);
  for (int r = 0; r < 3; ++r) CHECK(assignment.core_of(r, 0) == r);
  CHECK(rt::tpu::strategy_num_replicas(board, *three) == 3);
  CHECK(*rt::tpu::num_cores_assignment(board, 3, nullptr) == *three);  // one per core count: stable
  CHECK(text(rt::tpu::num_cores_assignment(board, 9, nullptr)) == "num_cores is 9, but the cluster has 8 TPU cores");
  CHECK(text(rt::tpu::num_cores_assignment(board, 2, *three)) ==
        "num_cores (2) and a device_assignment cannot both be given: the device assignment says which cores the "
        "replicas run on");
  // Another board shape: rebuilt for it.
  const rt::tpu::TPUClusterResolver small = *rt::tpu::TPUClusterResolver::for_cores(4);
  const auto four = rt::tpu::num_cores_assignment(small, 3, nullptr);
  REQUIRE(four.is_ok());
  CHECK((*four)->topology().num_devices() == 4);
}
