// link-selftest: outside compilation and outfeed over the host link, called directly on every core
// (rt::link::host_call, no replicate); run it under `tpu run` (alone it fails: no host ever answers).
//   1. in turn, core 0 first: x = core + 1 (float32 scalar); format("1{}", x) on the host must give
//      the text "1<x>" and to_number(that text) that number (runtime/tpu/TF_BEHAVIOUR.md section 3:
//      11 for x = 1, then 12, ..., 19, 110, ...)
//   2. all cores at once, the same round trip (replies are routed to the right core)
//   3. an unknown function comes back as NOT_FOUND naming it; a bad format template as
//      INVALID_ARGUMENT, the link still usable afterwards
//   4. print and summary_csv on the host
//   5. core 0 sends one outfeed tuple of two tensors on queue 0: float32 [2, 3] = 0.5 * i and
//      int32 [5000] = i * i - 7 (20000 bytes, several chunks); `tpu run --outfeed-dir` saves them
//      as c0_q0_t0_e0.npy and c0_q0_t0_e1.npy
// Every core's tensors live in its own arena (rt::hbm()).
#include "firmware/tpu_pod.hpp"
#include "runtime/link/protocol/host_call.hpp"  // a link test: it calls the link itself, below rt::tpu
#include "runtime/sync/barrier.hpp"

namespace {

using namespace rt;
using firmware::CoreContext;
using rt::link::HostResult;

constexpr uint64_t kCallTimeoutNs = 20000ull * 1000000ull;
constexpr uint64_t kTurnTimeoutNs = 60000ull * 1000000ull;
constexpr int64_t kLongLength = 5000;

alignas(SpinBarrier) unsigned char barrier_storage[sizeof(SpinBarrier)];
SpinBarrier* barrier;

// format("1{}", x) -> to_number -> the number "1<x>" (x = core + 1), checked; returns that number.
Result<float> round_trip(const Tensor& x) {
  const unsigned value = static_cast<unsigned>(x.scalar<float>());
  FixedString<64> text;
  const HostResult text_result[] = {HostResult::text(text)};
  RT_RETURN_IF_ERROR(rt::link::host_call("format", "1{}", Span<const Tensor>(&x, 1), text_result, kCallTimeoutNs));
  FixedString<16> expected_text;
  format_to(expected_text, "1{}", value);
  if (!(text.view() == expected_text.view()))
    return internal_error("format(\"1{{}}\", {}) gave '{}', expected '{}'", value, text.view(), expected_text.view());

  const Tensor number = RT_TRY(scalar(hbm(), -1.0f, "number"));
  const HostResult number_result[] = {HostResult::tensor(number)};
  RT_RETURN_IF_ERROR(rt::link::host_call("to_number", text.view(), {}, number_result, kCallTimeoutNs));
  const float expected = static_cast<float>((value < 10 ? 10 : 100) + value);  // the number "1<value>": 11, 12, ... 110, ...
  if (number.scalar<float>() != expected)
    return internal_error("to_number('{}') gave {}, expected {}", text.view(), number.scalar<float>(), expected);
  return number.scalar<float>();
}

Status expect_error(const Status& status, StatusCode code, StringView needle, StringView what) {
  if (status.code() != code)
    return internal_error("{}: expected {}, got {}: {}", what, status_code_name(code), status_code_name(status.code()),
                          status.message());
  for (size_t i = 0; i + needle.size() <= status.message().size(); ++i)
    if (status.message().substr(i, needle.size()) == needle) return Status::ok();
  return internal_error("{}: the error '{}' does not mention '{}'", what, status.message(), needle);
}

// The errors, then a round trip (the link still works after them); returns its number.
Result<float> error_paths(const Tensor& x) {
  const Span<const Tensor> arguments(&x, 1);
  FixedString<64> text;
  const HostResult text_result[] = {HostResult::text(text)};
  RT_RETURN_IF_ERROR(expect_error(rt::link::host_call("no_such_function", "", arguments, text_result, kCallTimeoutNs),
                                  StatusCode::kNotFound, "no_such_function", "unknown host function"));
  RT_RETURN_IF_ERROR(expect_error(rt::link::host_call("format", "{} and {}", arguments, text_result, kCallTimeoutNs),
                                  StatusCode::kInvalidArgument, "placeholders", "format with too few inputs"));
  return round_trip(x);
}

Status host_side_effects(const Tensor& x, unsigned core) {
  const Span<const Tensor> arguments(&x, 1);
  FixedString<48> line;
  format_to(line, "hello from core {}, x =", core);
  RT_RETURN_IF_ERROR(rt::link::host_call("print", line.view(), arguments, {}, kCallTimeoutNs));
  return rt::link::host_call("summary_csv", "link-selftest", arguments, {}, kCallTimeoutNs);
}

Status send_outfeed() {
  const Tensor matrix = RT_TRY(constant<float>(hbm(), {2, 3}, {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 2.5f}, "matrix"));
  const int64_t vector_dims[] = {kLongLength};
  const Tensor vector = RT_TRY(hbm().allocate_tensor(DType::kI32, RT_TRY(Shape::make(vector_dims)), "vector"));
  for (int64_t i = 0; i < kLongLength; ++i) vector.at<int32_t>(i) = static_cast<int32_t>(i * i - 7);
  const Tensor tuple[] = {matrix, vector};
  return rt::link::outfeed(0, tuple, kCallTimeoutNs);
}

Status run(const CoreContext& context) {
  ArenaScope memory(hbm());  // gives back this core's tensors at the end
  const Tensor x = RT_TRY(scalar(hbm(), static_cast<float>(context.core + 1), "x"));
  for (unsigned turn = 0; turn < context.cores; ++turn) {
    RT_RETURN_IF_ERROR(barrier->arrive(kTurnTimeoutNs));
    if (turn == context.core) RT_TRY(round_trip(x));
  }
  RT_RETURN_IF_ERROR(barrier->arrive(kTurnTimeoutNs));
  RT_TRY(round_trip(x));
  const float number = RT_TRY(error_paths(x));
  RT_RETURN_IF_ERROR(host_side_effects(x, context.core));
  if (context.core == 0) RT_RETURN_IF_ERROR(send_outfeed());
  log_info("link round trips ok: format/to_number gave {}", number);
  return Status::ok();
}

void init(unsigned cores) { barrier = new (barrier_storage) SpinBarrier(cores); }

}  // namespace

const firmware::App firmware::kApp = {"link-selftest", "host calls (outside compilation) and outfeed over the host link",
                                      run, init};
