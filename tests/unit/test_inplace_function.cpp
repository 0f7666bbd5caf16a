// Tests for the runtime's stored callable, rt::InplaceFunction (hal/support/inplace_function.hpp),
// and its synchronous sibling rt::FunctionRef (function_ref.hpp): what the runtime relies on when
// it copies a computation into another core's launch slot.
#include <catch2/catch.hpp>

#include <cstring>
#include <type_traits>

#include "hal/support/function_ref.hpp"
#include "hal/support/inplace_function.hpp"

namespace {

int twice(int x) { return 2 * x; }

}  // namespace

TEST_CASE("InplaceFunction is empty until given a callable", "[inplace_function]") {
  rt::InplaceFunction<int(int)> empty;
  CHECK_FALSE(static_cast<bool>(empty));
  rt::InplaceFunction<int(int)> from_function = twice;
  REQUIRE(static_cast<bool>(from_function));
  CHECK(from_function(21) == 42);
}

TEST_CASE("InplaceFunction keeps its own copy of the captures", "[inplace_function]") {
  int offset = 5;
  rt::InplaceFunction<int(int)> add = [offset](int x) { return x + offset; };
  offset = 100;  // the stored lambda captured 5 by value
  CHECK(add(1) == 6);

  // A byte copy (what a launch slot gets) works after the original is overwritten.
  rt::InplaceFunction<int(int)> copy;
  std::memcpy(static_cast<void*>(&copy), static_cast<const void*>(&add), sizeof(add));
  add = [](int x) { return -x; };
  CHECK(copy(1) == 6);
  CHECK(add(1) == -1);
}

TEST_CASE("InplaceFunction passes references through and calls mutable lambdas", "[inplace_function]") {
  rt::InplaceFunction<void(int&)> bump = [](int& value) { ++value; };
  int value = 1;
  bump(value);
  CHECK(value == 2);

  rt::InplaceFunction<int()> counter = [count = 0]() mutable { return ++count; };
  CHECK(counter() == 1);
  CHECK(counter() == 2);
}

TEST_CASE("InplaceFunction is trivially copyable and of fixed size", "[inplace_function]") {
  using Function = rt::InplaceFunction<int(int)>;
  STATIC_REQUIRE(std::is_trivially_copyable_v<Function>);
  STATIC_REQUIRE(sizeof(Function) <= rt::kInplaceFunctionBytes + 2 * rt::kInplaceFunctionAlignment);
  STATIC_REQUIRE(alignof(Function) == rt::kInplaceFunctionAlignment);
  // A capture of exactly the buffer's size fits.
  struct Full {
    unsigned char bytes[rt::kInplaceFunctionBytes];
  } full{};
  full.bytes[rt::kInplaceFunctionBytes - 1] = 7;
  Function last_byte = [full](int x) { return x + full.bytes[rt::kInplaceFunctionBytes - 1]; };
  CHECK(last_byte(1) == 8);
}

TEST_CASE("FunctionRef calls the callable it refers to", "[inplace_function]") {
  int calls = 0;
  auto count = [&calls](int x) { calls += x; };
  rt::FunctionRef<void(int)> ref = count;
  ref(2);
  ref(3);
  CHECK(calls == 5);
}
