// Shapes, strided tensor views and arenas (runtime/tensor), checked against hand-computed offsets.
#include <catch2/catch.hpp>

#include "tensor_test_helpers.hpp"

#include <string>
#include <vector>

#include "runtime/tensor/arena.hpp"

namespace {

using test_helpers::message;


}  // namespace

TEST_CASE("shapes validate rank and sizes", "[tensor]") {
  const int64_t seven[] = {1, 1, 1, 1, 1, 1, 1};
  CHECK(message(rt::Shape::make(rt::Span<const int64_t>(seven, 7)).status()) == "rank 7 exceeds the maximum rank 6");
  const int64_t negative[] = {2, -1};
  CHECK(message(rt::Shape::make(rt::Span<const int64_t>(negative, 2)).status()) ==
        "dimension 1 of shape [2, -1] is negative");
  const int64_t dims[] = {2, 3, 4};
  rt::Shape shape = *rt::Shape::make(rt::Span<const int64_t>(dims, 3));
  CHECK(shape.num_elements() == 24);
  REQUIRE(shape.set_real_size(1, 2).is_ok());
  CHECK(shape.real[1] == 2);
  CHECK(message(shape.set_real_size(1, 4)) == "real size 4 of dimension 1 is outside [0, 3]");
  CHECK(rt::Shape{}.num_elements() == 1);  // a scalar
}

TEST_CASE("views: row-major strides, slices and transposes address the right elements", "[tensor]") {
  std::vector<float> data(24);
  for (int i = 0; i < 24; ++i) data[i] = static_cast<float>(i);
  const int64_t dims[] = {2, 3, 4};
  const rt::Tensor t = rt::Tensor::contiguous(rt::DType::kF32, *rt::Shape::make(rt::Span<const int64_t>(dims, 3)), data.data());
  CHECK(t.strides[0] == 12);
  CHECK(t.strides[1] == 4);
  CHECK(t.strides[2] == 1);
  CHECK(t.is_contiguous());
  const int64_t index[] = {1, 2, 3};
  CHECK(*reinterpret_cast<float*>(t.at(rt::Span<const int64_t>(index, 3))) == 23.0f);  // 1*12 + 2*4 + 3

  rt::Result<rt::Tensor> middle = t.slice(1, 1, 3);  // rows 1..2 of dimension 1
  REQUIRE(middle.is_ok());
  CHECK(middle->shape.dims[1] == 2);
  CHECK_FALSE(middle->is_contiguous());
  const int64_t first[] = {1, 0, 2};
  CHECK(*reinterpret_cast<float*>(middle->at(rt::Span<const int64_t>(first, 3))) == 18.0f);  // element [1, 1, 2]
  CHECK(message(t.slice(2, 3, 5).status()) == "slice [3, 5) is outside dimension 2 of size 4");

  const unsigned permutation[] = {2, 0, 1};
  rt::Result<rt::Tensor> moved = t.transpose(rt::Span<const unsigned>(permutation, 3));
  REQUIRE(moved.is_ok());
  CHECK(moved->shape.dims[0] == 4);
  const int64_t moved_index[] = {3, 1, 2};  // = original [1, 2, 3]
  CHECK(*reinterpret_cast<float*>(moved->at(rt::Span<const int64_t>(moved_index, 3))) == 23.0f);
  const unsigned repeated[] = {0, 0, 1};
  CHECK(message(t.transpose(rt::Span<const unsigned>(repeated, 3)).status()) ==
        "transpose permutation [0, 0, 1] is not a permutation of 0..2");
}

TEST_CASE("arenas align, account and report exhaustion by core", "[tensor]") {
  alignas(64) static uint8_t memory[1024];
  rt::Arena arena(3, memory, sizeof(memory));
  rt::Result<uint8_t*> a = arena.allocate(10, 1, "a");
  REQUIRE(a.is_ok());
  rt::Result<uint8_t*> b = arena.allocate(16, 64, "b");
  REQUIRE(b.is_ok());
  CHECK(reinterpret_cast<uintptr_t>(*b) % 64 == 0);
  CHECK(*b - *a == 64);
  CHECK(arena.used() == 80);
  rt::Result<uint8_t*> too_big = arena.allocate(2000, 64, "activations");
  REQUIRE_FALSE(too_big.is_ok());
  CHECK(too_big.status().code() == rt::StatusCode::kResourceExhausted);
  CHECK(message(too_big.status()) == "core 3 out of memory: activations needs 2000 bytes, the core's 1024 byte arena has 896 "
                                     "left (memory a loop allocates again each time is given back by an ArenaScope per "
                                     "step, or a PodMemoryScope per launch)");
  arena.reset();
  const int64_t dims[] = {16, 16};
  rt::Result<rt::Tensor> tensor = arena.allocate_tensor(rt::DType::kF32, *rt::Shape::make(rt::Span<const int64_t>(dims, 2)), "w");
  REQUIRE(tensor.is_ok());
  CHECK(arena.used() == 1024);
}
