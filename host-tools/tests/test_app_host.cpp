// The host half of apps (host-tools/lib/functions/app_host.hpp): registered functions reach HostFunctions,
// typed values in and out, HostError codes, exceptions turned into INTERNAL, dtype mismatches into
// INVALID_ARGUMENT, names clashing with built-ins refused. This binary links the host halves of the
// repository's apps, so their functions are checked here too against values computed by hand.
#include <catch2/catch.hpp>

#include <cstring>
#include <sstream>

#include "host-tools/lib/functions/app_host.hpp"

namespace {

using rt::StatusCode;

tpu::HostCallOutcome call(const tpu::HostFunctions& functions, const std::string& name,
                          std::vector<tpu::HostTensor> tensors, const std::string& text = "", unsigned core = 0) {
  tpu::HostCallRequest request;
  request.core = core;
  request.function = name;
  request.text = text;
  request.tensors = std::move(tensors);
  return functions.call(request);
}

struct AppFunctions {
  std::ostringstream out;
  tpu::HostFunctions functions{tpu::HostEnvironment{std::nullopt, &out}};
  AppFunctions() { REQUIRE(tpu::add_app_host_functions(functions).empty()); }
};

}  // namespace

TEST_CASE("app host functions: tensors in and out, by hand", "[app_host]") {
  AppFunctions app;
  // outside-compilation's weighted_sum: 0.5*1 + 1.5*(-2) + 2.5*3 + 3.5*(-4) = -9, and the caller's core.
  const tpu::HostCallOutcome sum =
      call(app.functions, "weighted_sum",
           {tpu::HostTensor::of<float>({4}, {0.5f, 1.5f, 2.5f, 3.5f}), tpu::HostTensor::of<int32_t>({4}, {1, -2, 3, -4})},
           "", 5);
  REQUIRE(sum.code == StatusCode::kOk);
  REQUIRE(sum.results.size() == 2);
  CHECK(sum.results[0].values<float>() == std::vector<float>{-9.0f});
  CHECK(sum.results[0].dims.empty());
  CHECK(sum.results[1].values<int32_t>() == std::vector<int32_t>{5});
}

TEST_CASE("app host functions: errors come back as a status", "[app_host]") {
  AppFunctions app;
  const tpu::HostCallOutcome refused = call(app.functions, "must_be_positive", {tpu::HostTensor::of<float>({2}, {1.0f, -2.0f})});
  CHECK(refused.code == StatusCode::kOutOfRange);
  CHECK(refused.message == "must_be_positive: x[1] = -2.000000 is not positive");
  const tpu::HostCallOutcome thrown = call(app.functions, "throws", {}, "disk on fire");
  CHECK(thrown.code == StatusCode::kInternal);
  CHECK(thrown.message == "host function 'throws' failed: disk on fire");
  const tpu::HostCallOutcome wrong_type = call(app.functions, "must_be_positive", {tpu::HostTensor::of<int32_t>({1}, {3})});
  CHECK(wrong_type.code == StatusCode::kInvalidArgument);
  CHECK(wrong_type.message == "must_be_positive: tensor 0 is int32[1], expected float32");
  const tpu::HostCallOutcome missing = call(app.functions, "must_be_positive", {});
  CHECK(missing.code == StatusCode::kInvalidArgument);
  CHECK(missing.message == "must_be_positive: asked for tensor 0 of a call that brought 0");
}

TEST_CASE("app host functions: a name taken by a built-in is refused", "[app_host]") {
  std::ostringstream out;
  tpu::HostFunctions functions{tpu::HostEnvironment{std::nullopt, &out}};
  functions.add("weighted_sum", [](const tpu::HostCallRequest&, const tpu::HostEnvironment&) { return tpu::HostCallOutcome::ok(); });
  CHECK(tpu::add_app_host_functions(functions) ==
        "the app's host function 'weighted_sum' is already defined (twice in the app); rename it");
  CHECK(functions.is_builtin("print"));
  CHECK_FALSE(functions.is_builtin("weighted_sum"));
}

TEST_CASE("HostTensor typed construction and access", "[app_host]") {
  const tpu::HostTensor t = tpu::HostTensor::of<int64_t>({2, 2}, {1, -2, 3, 1ll << 40});
  CHECK(t.dtype == rt::DType::kI64);
  CHECK(t.describe() == "int64[2, 2]");
  int64_t last = 0;
  std::memcpy(&last, t.bytes.data() + 24, 8);
  CHECK(last == (1ll << 40));
  CHECK_THROWS_WITH(tpu::HostTensor::of<float>({3}, {1.0f}), "HostTensor::of: shape float32[3] holds 3 elements, given 1");
  CHECK_THROWS_AS(t.values<float>(), tpu::DTypeMismatch);
}

TEST_CASE("a host function that throws never takes tpu down", "[app_host]") {
  std::ostringstream out;
  tpu::HostFunctions functions{tpu::HostEnvironment{std::nullopt, &out}};
  functions.add("bad_alloc", [](const tpu::HostCallRequest&, const tpu::HostEnvironment&) -> tpu::HostCallOutcome {
    throw std::bad_alloc();
  });
  const tpu::HostCallOutcome outcome = call(functions, "bad_alloc", {});
  CHECK(outcome.code == StatusCode::kInternal);
  CHECK(outcome.message.rfind("host function 'bad_alloc' failed: ", 0) == 0);
}

TEST_CASE("declared host functions: typed arguments and results, checked calls", "[app_host]") {
  AppFunctions app;
  // outside-compilation's scale(x, 0.5) and count_above(x, 2.5) on x = [1, 2, 3, 4]: [0.5, 1, 1.5, 2] and 2.
  const tpu::HostTensor x = tpu::HostTensor::of<float>({4}, {1.0f, 2.0f, 3.0f, 4.0f});
  const tpu::HostCallOutcome half = call(app.functions, "scale", {x, tpu::HostTensor::scalar<float>(0.5f)});
  REQUIRE(half.code == StatusCode::kOk);
  REQUIRE(half.results.size() == 1);
  CHECK(half.results[0].values<float>() == std::vector<float>{0.5f, 1.0f, 1.5f, 2.0f});
  CHECK(half.results[0].dims == std::vector<int64_t>{4});
  const tpu::HostCallOutcome above = call(app.functions, "count_above", {x, tpu::HostTensor::scalar<float>(2.5f)});
  REQUIRE(above.code == StatusCode::kOk);
  CHECK(above.results[0].values<int32_t>() == std::vector<int32_t>{2});
  CHECK(above.results[0].dims.empty());
  const tpu::HostCallOutcome none = call(app.functions, "require_non_negative", {tpu::HostTensor::scalar<int64_t>(3)});
  CHECK(none.code == StatusCode::kOk);
  CHECK(none.results.empty());
  const tpu::HostCallOutcome refused = call(app.functions, "require_non_negative", {tpu::HostTensor::scalar<int64_t>(-2)});
  CHECK(refused.code == StatusCode::kOutOfRange);
  CHECK(refused.message == "require_non_negative: -2 < 0");
  // Calls that do not fit the declaration (a device built against another header).
  const tpu::HostCallOutcome short_call = call(app.functions, "scale", {x});
  CHECK(short_call.code == StatusCode::kInvalidArgument);
  CHECK(short_call.message == "scale is declared with 2 arguments, the call sent 1");
  const tpu::HostCallOutcome text_factor = call(app.functions, "scale", {x, tpu::HostTensor::scalar<int32_t>(2)});
  CHECK(text_factor.code == StatusCode::kInvalidArgument);
  CHECK(text_factor.message == "scale: argument 1 is int32[], expected float32");
  const tpu::HostCallOutcome vector_factor = call(app.functions, "scale", {x, x});
  CHECK(vector_factor.code == StatusCode::kInvalidArgument);
  CHECK(vector_factor.message == "scale: argument 1 is declared a scalar, the call sent a tensor of 4 elements");
}
