// replicate's input checks (runtime/tpu/replicate_inputs, computation): replica counts, input counts
// and dtypes, and the computation's arity, with TF's texts (runtime/tpu/TF_BEHAVIOUR.md section 1).
#include <catch2/catch.hpp>

#include "tensor_test_helpers.hpp"

#include <string>
#include <vector>

#include "runtime/tpu/replicate/replicate_inputs.hpp"

namespace {

using test_helpers::message;

using rt::tpu::ReplicaArgs;


rt::Status noop(rt::tpu::ReplicaContext&, ReplicaArgs, rt::tpu::ReplicaOutputs&) { return rt::Status::ok(); }

rt::tpu::Computation computation(unsigned num_args, unsigned num_defaults = 0, bool varargs = false) {
  rt::tpu::Computation c;
  c.name = "computation";
  c.fn = noop;
  c.signature.num_args = num_args;
  c.signature.num_defaults = num_defaults;
  c.signature.varargs = varargs;
  return c;
}

rt::Tensor tensor(rt::DType dtype) {
  static float storage[4];
  return rt::Tensor::contiguous(dtype, rt::Shape{}, storage);
}

std::string arity(unsigned num_args, unsigned num_defaults, bool varargs, unsigned supplied) {
  rt::tpu::ArityText needs;
  if (!rt::tpu::argument_count_error(computation(num_args, num_defaults, varargs).signature, supplied, needs)) return "";
  return needs.c_str();
}

}  // namespace

TEST_CASE("TF's check_function_argument_count", "[replicate][inputs]") {
  CHECK(arity(1, 0, false, 1) == "");
  CHECK(arity(1, 0, false, 0) == "exactly 1 argument");
  CHECK(arity(2, 0, false, 1) == "exactly 2 arguments");
  CHECK(arity(2, 0, false, 3) == "exactly 2 arguments");
  CHECK(arity(0, 0, false, 1) == "exactly 0 arguments");
  CHECK(arity(3, 1, false, 1) == "at least 2 arguments");
  CHECK(arity(3, 1, false, 2) == "");
  CHECK(arity(3, 1, false, 4) == "at most 3 arguments");
  CHECK(arity(2, 0, true, 1) == "at least 2 arguments");
  CHECK(arity(2, 0, true, 7) == "");
  CHECK(arity(2, 1, false, 0) == "at least 1 argument");
}

TEST_CASE("replica and input checks with TF's texts", "[replicate][inputs]") {
  const rt::Tensor f32 = tensor(rt::DType::kF32), i32 = tensor(rt::DType::kI32);
  const rt::Tensor one_f32[] = {f32}, one_i32[] = {i32}, two[] = {f32, f32};
  const auto validate = [](const rt::tpu::Computation& c, std::vector<ReplicaArgs> inputs, bool infeed = false,
                           unsigned infeed_elements = 0, std::vector<rt::StringView> names = {}) {
    return rt::tpu::validate_replicate_inputs(c, rt::Span<const ReplicaArgs>(inputs.data(), inputs.size()), infeed,
                                              infeed_elements,
                                              rt::Span<const rt::StringView>(names.data(), names.size()));
  };

  CHECK(validate(computation(1), {ReplicaArgs(one_f32), ReplicaArgs(one_f32)}).is_ok());
  CHECK(message(validate(computation(1), {})) ==
        "replicate needs at least one replica: inputs has 0 replicas (to run one replica with no inputs, pass no "
        "inputs at all)");
  CHECK(message(validate(computation(1), {ReplicaArgs(one_f32), ReplicaArgs(two)})) ==
        "Replicas must have the same number of inputs. Replica 0 had 1 inputs, replica 1 had 2 inputs.");
  CHECK(message(validate(computation(1), {ReplicaArgs(one_f32), ReplicaArgs(one_f32), ReplicaArgs(one_i32)})) ==
        "Replicas must have matching input types. Replica 0 had input types [tf.float32], replica 2 had input types "
        "[tf.int32]");
  // Counts are checked before types, replica by replica.
  CHECK(message(validate(computation(1), {ReplicaArgs(one_f32), ReplicaArgs(one_i32), ReplicaArgs(two)})) ==
        "Replicas must have matching input types. Replica 0 had input types [tf.float32], replica 1 had input types "
        "[tf.int32]");
  CHECK(message(validate(computation(2), {ReplicaArgs(one_f32)})) ==
        "Supplied computation cannot be called with the specified inputs. You specified 1 inputs: ['Placeholder:0'], "
        "but the computation needs exactly 2 arguments");
  CHECK(message(validate(computation(1), {ReplicaArgs(two)}, false, 0, {"x:0"})) ==
        "Supplied computation cannot be called with the specified inputs. You specified 2 inputs: ['x:0', "
        "'Placeholder_1:0'], but the computation needs exactly 1 argument");
  CHECK(message(validate(computation(1), {ReplicaArgs()})) ==
        "Supplied computation cannot be called with the specified inputs. You specified 0 inputs: [], but the "
        "computation needs exactly 1 argument");
  CHECK(message(validate(computation(2), {ReplicaArgs(one_f32)}, true, 2)) ==
        "Supplied computation cannot be called with the specified inputs. You specified 1 inputs: ['Placeholder:0'] "
        "and 2 additional inputs from infeed, but the computation needs exactly 2 arguments");
  CHECK(validate(computation(3), {ReplicaArgs(one_f32)}, true, 2).is_ok());
  std::vector<ReplicaArgs> sixty_five(65, ReplicaArgs(one_f32));
  CHECK(message(validate(computation(1), sixty_five)) ==
        "replicate supports at most 64 replicas (kMaxPodDevices); inputs has 65");
}

TEST_CASE("replica outputs hold up to kMaxReplicaOutputs values", "[replicate][inputs]") {
  rt::tpu::ReplicaOutputs outputs;
  CHECK(outputs.empty());
  for (unsigned i = 0; i < rt::tpu::kMaxReplicaOutputs; ++i) CHECK(outputs.add(tensor(rt::DType::kF32)).is_ok());
  CHECK(message(outputs.add(tensor(rt::DType::kF32))) == "a computation can return at most 64 values per replica");
  CHECK(outputs.size() == 64);
}
