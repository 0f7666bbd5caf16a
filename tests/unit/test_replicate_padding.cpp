// replicate's dynamic shapes and padding (runtime/tpu/dynamic_padding): every rule of
// runtime/tpu/TF_BEHAVIOUR.md section 1, "Dynamic shapes and padding", against hand-computed plans,
// sizes and padded tensor contents.
#include <catch2/catch.hpp>

#include "tensor_test_helpers.hpp"

#include <cstring>
#include <string>
#include <vector>

#include "runtime/tpu/replicate/dynamic_padding.hpp"

namespace {

using test_helpers::message;

using rt::tpu::MaximumShape;
using rt::tpu::PaddingPlan;
using rt::tpu::PaddingSpec;
using rt::tpu::ReplicaArgs;
constexpr int64_t kNone = rt::tpu::kUnknownSize;


// A float32 tensor of `dims` over zero-initialised storage owned by the test (shape only matters
// for planning); `real` optionally gives real sizes below dims (a dynamic, already padded tensor).
struct Input {
  std::vector<float> storage;
  rt::Tensor tensor;
  Input(std::vector<int64_t> dims, std::vector<int64_t> real = {}, rt::DType dtype = rt::DType::kF32) {
    int64_t count = 1;
    for (int64_t d : dims) count *= d;
    storage.assign(static_cast<size_t>(count) + 1, 0.0f);
    tensor = rt::Tensor::contiguous(dtype, *rt::Shape::make(rt::Span<const int64_t>(dims.data(), dims.size())),
                                    storage.data());
    for (size_t d = 0; d < real.size(); ++d) REQUIRE(tensor.shape.set_real_size(static_cast<unsigned>(d), real[d]).is_ok());
  }
};

// inputs[replica][input] built from Input objects.
struct Inputs {
  std::vector<std::vector<rt::Tensor>> tensors;
  std::vector<ReplicaArgs> spans;
  explicit Inputs(const std::vector<std::vector<const Input*>>& replicas) {
    for (const auto& replica : replicas) {
      tensors.emplace_back();
      for (const Input* input : replica) tensors.back().push_back(input->tensor);
    }
    for (const auto& replica : tensors) spans.emplace_back(replica.data(), replica.size());
  }
  rt::Span<const ReplicaArgs> span() const { return rt::Span<const ReplicaArgs>(spans.data(), spans.size()); }
};

MaximumShape shape_of(std::initializer_list<int64_t> dims) {
  return MaximumShape::of(rt::Span<const int64_t>(dims.begin(), dims.size()));
}

rt::Result<PaddingPlan> plan(const Inputs& inputs, std::vector<MaximumShape> maximum_shapes,
                             PaddingSpec spec = PaddingSpec::kAuto) {
  return rt::tpu::plan_padding(inputs.span(), rt::Span<const MaximumShape>(maximum_shapes.data(), maximum_shapes.size()),
                               spec);
}

std::vector<int64_t> targets(const rt::tpu::InputPadding& input) {
  return std::vector<int64_t>(input.target, input.target + input.rank);
}
std::vector<bool> dynamic(const rt::tpu::InputPadding& input) {
  return std::vector<bool>(input.dynamic, input.dynamic + input.rank);
}

}  // namespace

TEST_CASE("rule 2: target sizes, minimum 2, POWER_OF_TWO only for unknown maxima", "[replicate][padding]") {
  using rt::tpu::padded_dimension_size;
  // Static maximum S: max(S, 2), never rounded.
  CHECK(padded_dimension_size(4, 3, PaddingSpec::kAuto) == 4);
  CHECK(padded_dimension_size(6, 3, PaddingSpec::kPowerOfTwo) == 6);
  CHECK(padded_dimension_size(5, 9, PaddingSpec::kPowerOfTwo) == 5);  // rule 5 rejects the 9 elsewhere
  CHECK(padded_dimension_size(1, 1, PaddingSpec::kAuto) == 2);
  CHECK(padded_dimension_size(0, 0, PaddingSpec::kPowerOfTwo) == 2);
  // Unknown maximum: max(runtime maximum, 2), rounded up to a power of two under POWER_OF_TWO.
  CHECK(padded_dimension_size(kNone, 3, PaddingSpec::kAuto) == 3);
  CHECK(padded_dimension_size(kNone, 5, PaddingSpec::kAuto) == 5);
  CHECK(padded_dimension_size(kNone, 1, PaddingSpec::kAuto) == 2);
  CHECK(padded_dimension_size(kNone, 0, PaddingSpec::kAuto) == 2);
  CHECK(padded_dimension_size(kNone, 3, PaddingSpec::kPowerOfTwo) == 4);
  CHECK(padded_dimension_size(kNone, 5, PaddingSpec::kPowerOfTwo) == 8);
  CHECK(padded_dimension_size(kNone, 9, PaddingSpec::kPowerOfTwo) == 16);
  CHECK(padded_dimension_size(kNone, 8, PaddingSpec::kPowerOfTwo) == 8);
  CHECK(padded_dimension_size(kNone, 1, PaddingSpec::kPowerOfTwo) == 2);
  CHECK(padded_dimension_size(kNone, 17, PaddingSpec::kPowerOfTwo) == 32);
  CHECK(rt::tpu::next_power_of_two(1) == 1);
  CHECK(rt::tpu::next_power_of_two(2) == 2);
  CHECK(rt::tpu::next_power_of_two(3) == 4);
  CHECK(rt::tpu::next_power_of_two(1000) == 1024);
}

TEST_CASE("rule 1: one replica is never padded", "[replicate][padding]") {
  const Input x({5, 2});
  const Inputs inputs({{&x}});
  // Even a maximum smaller than the input is ignored: nothing pads, so nothing is checked (rule 5).
  rt::Result<PaddingPlan> result = plan(inputs, {shape_of({4, kNone})}, PaddingSpec::kPowerOfTwo);
  REQUIRE(result.is_ok());
  CHECK_FALSE(result->any());
  CHECK(result->num_inputs == 1);
  CHECK_FALSE(result->inputs[0].padded);
}

TEST_CASE("rule 1: equal static sizes are not padded, even under a larger maximum", "[replicate][padding]") {
  const Input x({3, 2}), y({3, 2});
  const Inputs inputs({{&x}, {&y}});
  rt::Result<PaddingPlan> result = plan(inputs, {shape_of({8, 8})});
  REQUIRE(result.is_ok());
  CHECK_FALSE(result->any());
  CHECK_FALSE(result->inputs[0].padded);
}

TEST_CASE("rule 1: a dimension whose size differs across replicas pads; the others keep their size",
          "[replicate][padding]") {
  // TF's documented case: x and y of shape [None, 2] with maximum_shapes [TensorShape([None, None])].
  const Input x({3, 2}), y({5, 2});
  const Inputs inputs({{&x}, {&y}});
  SECTION("AUTO: the runtime maximum") {
    rt::Result<PaddingPlan> result = plan(inputs, {shape_of({kNone, kNone})});
    REQUIRE(result.is_ok());
    CHECK(result->inputs[0].padded);
    CHECK(dynamic(result->inputs[0]) == std::vector<bool>{true, false});
    CHECK(targets(result->inputs[0]) == std::vector<int64_t>{5, 2});
  }
  SECTION("POWER_OF_TWO: 5 -> 8") {
    rt::Result<PaddingPlan> result = plan(inputs, {shape_of({kNone, kNone})}, PaddingSpec::kPowerOfTwo);
    REQUIRE(result.is_ok());
    CHECK(targets(result->inputs[0]) == std::vector<int64_t>{8, 2});
  }
  SECTION("a static maximum wins and is not rounded") {
    rt::Result<PaddingPlan> result = plan(inputs, {shape_of({6, kNone})}, PaddingSpec::kPowerOfTwo);
    REQUIRE(result.is_ok());
    CHECK(targets(result->inputs[0]) == std::vector<int64_t>{6, 2});
  }
  SECTION("the minimum padded size is 2") {
    const Input a({1, 2}), b({0, 2});
    const Inputs small({{&a}, {&b}});
    rt::Result<PaddingPlan> result = plan(small, {shape_of({kNone, 2})});
    REQUIRE(result.is_ok());
    CHECK(targets(result->inputs[0]) == std::vector<int64_t>{2, 2});
    rt::Result<PaddingPlan> static_one = plan(small, {shape_of({1, 2})});
    REQUIRE(static_one.is_ok());
    CHECK(targets(static_one->inputs[0]) == std::vector<int64_t>{2, 2});
  }
  SECTION("an input whose maximum_shapes entry is None is not padded") {
    rt::Result<PaddingPlan> result = plan(inputs, {MaximumShape::none()});
    REQUIRE(result.is_ok());
    CHECK_FALSE(result->any());
    CHECK_FALSE(result->inputs[0].padded);
  }
}

TEST_CASE("rule 1: a size unknown on some replica pads even when the sizes agree", "[replicate][padding]") {
  // Replica 0's tensor carries real size 3 of 4 (static size unknown), replica 1's is a static 4.
  const Input x({4, 2}, {3, 2}), y({4, 2});
  const Inputs inputs({{&x}, {&y}});
  rt::Result<PaddingPlan> result = plan(inputs, {shape_of({kNone, kNone})});
  REQUIRE(result.is_ok());
  CHECK(dynamic(result->inputs[0]) == std::vector<bool>{true, false});
  CHECK(targets(result->inputs[0]) == std::vector<int64_t>{4, 2});  // runtime maximum max(3, 4)
  // Both unknown with the same real size 3: still padded, to max(3, 2) = 3 (POWER_OF_TWO: 4).
  const Input a({4}, {3}), b({4}, {3});
  const Inputs both({{&a}, {&b}});
  rt::Result<PaddingPlan> auto_plan = plan(both, {shape_of({kNone})});
  REQUIRE(auto_plan.is_ok());
  CHECK(targets(auto_plan->inputs[0]) == std::vector<int64_t>{3});
  rt::Result<PaddingPlan> power_plan = plan(both, {shape_of({kNone})}, PaddingSpec::kPowerOfTwo);
  REQUIRE(power_plan.is_ok());
  CHECK(targets(power_plan->inputs[0]) == std::vector<int64_t>{4});
}

TEST_CASE("rule 4: padding maps in ascending input, then dimension order", "[replicate][padding]") {
  const Input a0({2, 3}), b0({4}), c0({1, 7}), d0({5});
  const Input a1({2, 5}), b1({4}), c1({3, 6}), d1({6});
  const Input a2({2, 4}), b2({4}), c2({2, 7}), d2({5});
  const Inputs inputs({{&a0, &b0, &c0, &d0}, {&a1, &b1, &c1, &d1}, {&a2, &b2, &c2, &d2}});
  // Input 3 differs too but has no maximum shape (None): not padded, no map.
  rt::Result<PaddingPlan> result = plan(inputs, {shape_of({kNone, kNone}), shape_of({kNone}), shape_of({kNone, 8}),
                                                 MaximumShape::none()},
                                        PaddingSpec::kPowerOfTwo);
  REQUIRE(result.is_ok());
  REQUIRE(result->num_maps == 3);
  CHECK(result->maps[0].arg_index == 0);
  CHECK(result->maps[0].shape_index == 1);
  CHECK(result->maps[0].padding_arg_index == 4);  // TF appends the real sizes after the 4 inputs
  CHECK(result->maps[1].arg_index == 2);
  CHECK(result->maps[1].shape_index == 0);
  CHECK(result->maps[1].padding_arg_index == 5);
  CHECK(result->maps[2].arg_index == 2);
  CHECK(result->maps[2].shape_index == 1);
  CHECK(result->maps[2].padding_arg_index == 6);
  CHECK(targets(result->inputs[0]) == std::vector<int64_t>{2, 8});  // max(3, 5, 4) = 5 -> 8
  CHECK_FALSE(result->inputs[1].padded);
  CHECK(targets(result->inputs[2]) == std::vector<int64_t>{4, 8});  // max(1, 3, 2) = 3 -> 4; static 8 stays 8
  CHECK_FALSE(result->inputs[3].padded);
}

TEST_CASE("rule 5: an input larger than its static maximum is an error", "[replicate][padding]") {
  const Input x({3, 2}), y({5, 2});
  const Inputs inputs({{&x}, {&y}});
  rt::Result<PaddingPlan> result = plan(inputs, {shape_of({4, 2})});
  REQUIRE_FALSE(result.is_ok());
  CHECK(result.status().code() == rt::StatusCode::kInvalidArgument);
  CHECK(message(result.status()) ==
        "Input 0 of replica 1 has size 5 in dimension 0, larger than its maximum shape (4, 2) allows (4): an input "
        "cannot be padded to a smaller size");
  // With argument names the input is named.
  const rt::StringView names[] = {"features"};
  std::vector<MaximumShape> maximum = {shape_of({4, 2})};
  rt::Result<PaddingPlan> named = rt::tpu::plan_padding(inputs.span(), rt::Span<const MaximumShape>(maximum.data(), 1),
                                                        PaddingSpec::kAuto, rt::Span<const rt::StringView>(names, 1));
  CHECK(message(named.status()) ==
        "Input 0 ('features') of replica 1 has size 5 in dimension 0, larger than its maximum shape (4, 2) allows "
        "(4): an input cannot be padded to a smaller size");
  // A maximum of 1 still allows 2 (the minimum padded size).
  const Input a({1}), b({2});
  const Inputs fits({{&a}, {&b}});
  CHECK(plan(fits, {shape_of({1})}).is_ok());
}

TEST_CASE("maximum_shapes must have the structure of inputs[0]", "[replicate][padding]") {
  const Input x({3, 2}), y({5, 2});
  const Inputs inputs({{&x}, {&y}});
  CHECK(message(plan(inputs, {shape_of({kNone, kNone}), shape_of({kNone})}).status()) ==
        "maximum_shapes must have the structure of inputs[0]: inputs[0] has 1 inputs but maximum_shapes has 2 entries");
  CHECK(message(plan(inputs, {shape_of({kNone})}).status()) ==
        "maximum_shapes must have the structure of inputs[0]: maximum_shapes[0] (None,) has rank 1 but input 0 has "
        "rank 2");
  CHECK(message(plan(inputs, {shape_of({-2, 2})}).status()) ==
        "maximum_shapes[0] has size -2 in dimension 0; sizes must be >= 0 or -1 (unknown)");
  const Input rank1({5});
  const Inputs ranks({{&x}, {&rank1}});
  CHECK(message(plan(ranks, {shape_of({kNone, kNone})}).status()) ==
        "Replicas must have matching input ranks to pad input 0: replica 0 had rank 2, replica 1 had rank 1");
  // No maximum_shapes at all (TF's None or []): no structure requirement, nothing pads.
  rt::Result<PaddingPlan> none = plan(inputs, {});
  REQUIRE(none.is_ok());
  CHECK_FALSE(none->any());
}

TEST_CASE("rule 3: padded copies hold the input, zeros at the end, and the real sizes", "[replicate][padding]") {
  alignas(64) static uint8_t memory[4096];
  rt::Arena arena(0, memory, sizeof(memory));
  std::memset(memory, 0xAB, sizeof(memory));  // padding must be written, not found

  SECTION("float32 [2, 3] padded to [4, 3] along dimension 0") {
    Input x({2, 3}), y({4, 3});
    for (int i = 0; i < 6; ++i) x.storage[i] = static_cast<float>(i + 1);
    const Inputs inputs({{&x}, {&y}});
    rt::Result<PaddingPlan> result = plan(inputs, {shape_of({kNone, 3})});
    REQUIRE(result.is_ok());
    rt::Result<rt::Tensor> padded = rt::tpu::pad_input(x.tensor, result->inputs[0], arena);
    REQUIRE(padded.is_ok());
    CHECK(padded->shape.dims[0] == 4);
    CHECK(padded->shape.dims[1] == 3);
    CHECK(padded->shape.real[0] == 2);
    CHECK(padded->shape.real[1] == 3);
    const float* values = reinterpret_cast<const float*>(padded->data);
    CHECK(std::vector<float>(values, values + 12) == std::vector<float>{1, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0});
    // The replica that already has the target size gets a copy too, its real size the full size.
    rt::Result<rt::Tensor> full = rt::tpu::pad_input(y.tensor, result->inputs[0], arena);
    REQUIRE(full.is_ok());
    CHECK(full->shape.real[0] == 4);
  }
  SECTION("xla_options.enable_xla_dynamic_padder=False: the same copy, without real sizes") {
    Input x({2, 3}), y({4, 3});
    for (int i = 0; i < 6; ++i) x.storage[i] = static_cast<float>(i + 1);
    const Inputs inputs({{&x}, {&y}});
    rt::Result<PaddingPlan> result = plan(inputs, {shape_of({kNone, 3})});
    REQUIRE(result.is_ok());
    result->inputs[0].record_real_sizes = false;
    rt::Result<rt::Tensor> padded = rt::tpu::pad_input(x.tensor, result->inputs[0], arena);
    REQUIRE(padded.is_ok());
    CHECK(padded->shape.dims[0] == 4);
    CHECK(padded->shape.real[0] == 4);  // the zeros are data
    const float* values = reinterpret_cast<const float*>(padded->data);
    CHECK(std::vector<float>(values, values + 12) == std::vector<float>{1, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0});
  }
  SECTION("int32 [2, 2] padded to [2, 4] along dimension 1 (POWER_OF_TWO of 3)") {
    Input x({2, 2}, {}, rt::DType::kI32), y({2, 3}, {}, rt::DType::kI32);
    const int32_t values_in[] = {1, 2, 3, 4};
    std::memcpy(x.storage.data(), values_in, sizeof(values_in));
    const Inputs inputs({{&x}, {&y}});
    rt::Result<PaddingPlan> result = plan(inputs, {shape_of({2, kNone})}, PaddingSpec::kPowerOfTwo);
    REQUIRE(result.is_ok());
    rt::Result<rt::Tensor> padded = rt::tpu::pad_input(x.tensor, result->inputs[0], arena);
    REQUIRE(padded.is_ok());
    CHECK(padded->dtype == rt::DType::kI32);
    CHECK(padded->shape.dims[1] == 4);
    CHECK(padded->shape.real[1] == 2);
    const int32_t* values = reinterpret_cast<const int32_t*>(padded->data);
    CHECK(std::vector<int32_t>(values, values + 8) == std::vector<int32_t>{1, 2, 0, 0, 3, 4, 0, 0});
  }
  SECTION("only the real part of an already padded input is copied") {
    Input x({4}, {2}), y({3});
    x.storage[0] = 7, x.storage[1] = 8, x.storage[2] = 99, x.storage[3] = 99;
    const Inputs inputs({{&x}, {&y}});
    rt::Result<PaddingPlan> result = plan(inputs, {shape_of({kNone})});
    REQUIRE(result.is_ok());
    REQUIRE(targets(result->inputs[0]) == std::vector<int64_t>{3});  // max(2, 3)
    rt::Result<rt::Tensor> padded = rt::tpu::pad_input(x.tensor, result->inputs[0], arena);
    REQUIRE(padded.is_ok());
    const float* values = reinterpret_cast<const float*>(padded->data);
    CHECK(std::vector<float>(values, values + 3) == std::vector<float>{7, 8, 0});
    CHECK(padded->shape.real[0] == 2);
  }
  SECTION("a strided (transposed) input is padded in its logical order") {
    Input x({3, 2}), y({2, 3});
    for (int i = 0; i < 6; ++i) x.storage[i] = static_cast<float>(i + 1);  // [[1,2],[3,4],[5,6]]
    const unsigned permutation[] = {1, 0};
    const rt::Tensor transposed = *x.tensor.transpose(rt::Span<const unsigned>(permutation, 2));  // [[1,3,5],[2,4,6]]
    const rt::Tensor replica1[] = {y.tensor};
    const rt::Tensor replica0[] = {transposed};
    const Input z({4, 3});
    const rt::Tensor replica2[] = {z.tensor};
    const ReplicaArgs spans[] = {ReplicaArgs(replica0), ReplicaArgs(replica1), ReplicaArgs(replica2)};
    const MaximumShape maximum[] = {shape_of({kNone, 3})};
    rt::Result<PaddingPlan> result = rt::tpu::plan_padding(rt::Span<const ReplicaArgs>(spans, 3),
                                                           rt::Span<const MaximumShape>(maximum, 1), PaddingSpec::kAuto);
    REQUIRE(result.is_ok());
    rt::Result<rt::Tensor> padded = rt::tpu::pad_input(transposed, result->inputs[0], arena);
    REQUIRE(padded.is_ok());
    const float* values = reinterpret_cast<const float*>(padded->data);
    CHECK(std::vector<float>(values, values + 12) == std::vector<float>{1, 3, 5, 2, 4, 6, 0, 0, 0, 0, 0, 0});
  }
  SECTION("inputs that are not padded are passed through as they are") {
    const Input x({3}), y({3});
    const Inputs inputs({{&x}, {&y}});
    rt::Result<PaddingPlan> result = plan(inputs, {shape_of({kNone})});
    REQUIRE(result.is_ok());
    rt::Result<rt::Tensor> same = rt::tpu::pad_input(x.tensor, result->inputs[0], arena);
    REQUIRE(same.is_ok());
    CHECK(same->data == x.tensor.data);
    CHECK(arena.used() == 0);
  }
  SECTION("running out of arena memory is an error naming the core") {
    rt::Arena tiny(5, memory, 64);
    const Input x({3}), y({40});
    const Inputs inputs({{&x}, {&y}});
    rt::Result<PaddingPlan> result = plan(inputs, {shape_of({kNone})});
    REQUIRE(result.is_ok());
    rt::Result<rt::Tensor> padded = rt::tpu::pad_input(x.tensor, result->inputs[0], tiny);
    REQUIRE_FALSE(padded.is_ok());
    CHECK(message(padded.status()).rfind("core 5 out of memory: a padded replicate input needs 160 bytes", 0) == 0);
  }
}

TEST_CASE("TensorShape text as TF prints it", "[replicate][padding]") {
  CHECK(std::string(rt::tpu::tensor_shape_text(shape_of({kNone, 4})).c_str()) == "(None, 4)");
  CHECK(std::string(rt::tpu::tensor_shape_text(shape_of({3})).c_str()) == "(3,)");
  CHECK(std::string(rt::tpu::tensor_shape_text(shape_of({})).c_str()) == "()");
}
