// outside-compilation: TF's example from runtime/tpu/TF_BEHAVIOUR.md section 3, per replica, across
// the host link (run it with `tpu run`, which serves the host functions):
//   def computation_with_string_ops(x):
//     output = tf.strings.format('1{}', x)      # runs on the host PC
//     return tf.strings.to_number(output)        # runs on the host PC: 11 for x = 1
// replicate() runs it on every core with x = replica id + 1, so replica r must return the number
// "1" followed by the digits of r + 1. Also: an unknown host function comes back to the replica as
// NOT_FOUND (and replicate returns it). Nesting rules are checked by the replicate app.
// Then the app's own host functions (host/functions.cpp, served by this app's tool): two
// tensors in and two out per replica (weighted_sum, checked against the same sum done here), and
// errors coming back as a Status (a HostError's code and text; a C++ exception as INTERNAL).
// Calls with a text result or several results use the named form host_function(name, text, args,
// results); calls returning one tensor use host_function(arena, name, {x}, dtype, shape).
// Last, the declared functions (../host_api.hpp: name and typed signature in one header both halves
// include): scalars travel as scalars and a call that does not fit the declaration does not compile.
#include "../host_api.hpp"
#include "firmware/tpu_pod.hpp"

namespace {

using namespace rt;
using namespace rt::tpu;
using rt::tpu::HostResult;

float expected_number(unsigned replica) {
  const unsigned x = replica + 1;
  return static_cast<float>((x < 10 ? 10 : 100) + x);  // "1" followed by the digits of x
}

// Every replica r returned one value, "1" followed by the digits of r + 1.
Status expect_numbers(const Replicated& output, size_t replicas, const char* form) {
  for (unsigned r = 0; r < replicas; ++r) {
    if (output[r].size() != 1) return internal_error("replica {} returned {} values, expected 1", r, output[r].size());
    const float got = output[r][0].scalar<float>();
    if (got != expected_number(r))
      return internal_error("replica {} ({} form): to_number(format('1{{}}', {})) = {}, expected {}", r, form, r + 1,
                            got, expected_number(r));
  }
  return Status::ok();
}

Status check_example(Span<const ReplicaArgs> inputs) {
  auto computation_with_string_ops = [](ReplicaContext& replica, const Tensor& x) -> Result<Tensor> {
    FixedString<64> output;
    const HostResult as_text[] = {HostResult::text(output)};
    RT_RETURN_IF_ERROR(host_function("format", "1{}", Span<const Tensor>(&x, 1), as_text));
    return host_function(replica.arena(), "to_number", {}, DType::kF32, Shape(), output.view());
  };
  RT_RETURN_IF_ERROR(expect_numbers(RT_TRY(replicate(computation_with_string_ops, inputs)), inputs.size(), "named"));
  log_info("outside_compilation: {} replicas each got '1<x>' back from the host", inputs.size());
  return Status::ok();
}

// The same example as TF writes it, the host part a lambda beside the device code: on every board it
// runs on the PC (in this app's tool, built from these sources), once per replica.
Status check_lambda_example(Span<const ReplicaArgs> inputs) {
  auto computation_with_string_ops = [](ReplicaContext& replica, const Tensor& x) -> Result<Tensor> {
    const float number = RT_TRY(outside_compilation(
        [](const Tensor& value) -> Result<float> {
          FixedString<32> output;
          format_to(output, "1{}", static_cast<int32_t>(value.scalar<float>()));  // tf.strings.format('1{}', x)
          float parsed = 0;                                                        // tf.strings.to_number
          for (const char digit : output.view()) {
            if (digit < '0' || digit > '9')
              return invalid_argument("StringToNumberOp could not correctly convert string: {}", output.view());
            parsed = parsed * 10 + static_cast<float>(digit - '0');
          }
          return parsed;
        },
        x));
    return scalar(replica.arena(), number);
  };
  RT_RETURN_IF_ERROR(expect_numbers(RT_TRY(replicate(computation_with_string_ops, inputs)), inputs.size(), "lambda"));
  log_info("outside_compilation: {} replicas ran the lambda on the host and got '1<x>' back", inputs.size());
  return Status::ok();
}

// Several clusters in one computation (lambdas with different parameters: the PC doubles x, then
// adds the replica id), a cluster nested in a cluster (TF's error, raised on the PC), and a cluster
// inside TPUStrategy.run. Replica r: x = r + 1, so 2(r + 1) + r back.
Result<Tensor> several_clusters(ReplicaContext& replica, const Tensor& x) {
  const float doubled = RT_TRY(outside_compilation([](const Tensor& value) -> Result<float> { return 2 * value.scalar<float>(); }, x));
  const float plus_id = RT_TRY(outside_compilation([](float value, int32_t id) -> Result<float> { return value + static_cast<float>(id); },
                                                   doubled, static_cast<int32_t>(replica.replica_id())));
  const Status nested = outside_compilation([]() -> Status {
    return outside_compilation([]() -> Status { return Status::ok(); });
  });
  if (nested.code() != StatusCode::kUnimplemented || !(nested.message() == "Cannot nest outside_compilation clusters"))
    return internal_error("replica {}: a nested cluster gave {} '{}', expected TF's nesting error", replica.replica_id(),
                          status_code_name(nested.code()), nested.message());
  return scalar(replica.arena(), plus_id);
}

Status check_clusters(Span<const ReplicaArgs> inputs) {
  const Replicated output = RT_TRY(replicate(several_clusters, inputs));
  for (unsigned r = 0; r < inputs.size(); ++r)
    if (output[r][0].scalar<float>() != static_cast<float>(3 * r + 2))
      return internal_error("replica {}: two clusters gave {}, expected 2(r + 1) + r = {}", r, output[r][0].scalar<float>(),
                            3 * r + 2);
  TPUStrategy strategy = RT_TRY(TPUStrategy::for_board());
  const RunResult squares = RT_TRY(strategy.run([](StrategyReplicaContext& context) -> Result<Tensor> {
    const int32_t id = static_cast<int32_t>(context.replica_id_in_sync_group());
    const int32_t square = RT_TRY(outside_compilation([](int32_t value) -> Result<int32_t> { return value * value; }, id));
    return scalar(context.arena(), square);
  }));
  for (unsigned r = 0; r < inputs.size(); ++r)
    if (squares[0].component(r).scalar<int32_t>() != static_cast<int32_t>(r * r))
      return internal_error("replica {}: the cluster in strategy.run gave {}, expected {}", r,
                            squares[0].component(r).scalar<int32_t>(), r * r);
  log_info("outside_compilation: two clusters per computation, a nested one refused, one inside strategy.run");
  return Status::ok();
}

Status check_unknown_function(Span<const ReplicaArgs> inputs) {
  auto calls_unknown_function = [](ReplicaContext& replica, const Tensor& x) -> Result<Tensor> {
    return host_function(replica.arena(), "no_such_host_function", {x}, DType::kF32, x.shape);
  };
  const Status status = replicate(calls_unknown_function, inputs).status();  // OK if it succeeded
  if (status.code() != StatusCode::kNotFound)
    return internal_error("an unknown host function gave {} ({}), expected NOT_FOUND", status_code_name(status.code()),
                          status.message());
  return Status::ok();
}

// Replica r: x = (r + 1) * [0.5, 1.5, 2.5, 3.5], w = [1, -2, 3, -4]; the host returns the sum of x*w
// and the calling core.
Result<Tensor> calls_weighted_sum(ReplicaContext& replica, const Tensor&) {
  Arena& arena = replica.arena();
  const float r1 = static_cast<float>(replica.replica_id() + 1);
  const Tensor x = RT_TRY(constant<float>(arena, {4}, {0.5f * r1, 1.5f * r1, 2.5f * r1, 3.5f * r1}, "x"));
  const Tensor w = RT_TRY(constant<int32_t>(arena, {4}, {1, -2, 3, -4}, "w"));
  const Tensor sum = RT_TRY(arena.allocate_tensor(DType::kF32, Shape(), "sum"));
  const Tensor core = RT_TRY(arena.allocate_tensor(DType::kI32, Shape(), "core"));
  const Tensor arguments[] = {x, w};
  const HostResult into[] = {HostResult::tensor(sum), HostResult::tensor(core)};
  RT_RETURN_IF_ERROR(host_function("weighted_sum", "", arguments, into));
  float expected = 0;
  for (size_t i = 0; i < x.num_elements(); ++i) expected += x.at<float>(i) * static_cast<float>(w.at<int32_t>(i));
  if (sum.scalar<float>() != expected)
    return internal_error("replica {}: weighted_sum returned {}, expected {}", replica.replica_id(), sum.scalar<float>(),
                          expected);
  if (core.scalar<int32_t>() != static_cast<int32_t>(replica.core()))
    return internal_error("replica {}: the host says core {} called, it was core {}", replica.replica_id(),
                          core.scalar<int32_t>(), replica.core());
  return sum;
}

// must_be_positive on a tensor with a negative element must come back as OUT_OF_RANGE with the host's
// text; `throws` as INTERNAL carrying the exception's text.
Status host_errors_arrive(ReplicaContext& replica, const Tensor& x) {
  const Tensor negative = RT_TRY(scalar(replica.arena(), -1.0f, "negative"));
  const Status refused =
      host_function(replica.arena(), "must_be_positive", {negative}, DType::kF32, negative.shape).status();
  if (refused.code() != StatusCode::kOutOfRange || !refused.message().starts_with("must_be_positive: x[0] = -1"))
    return internal_error("must_be_positive(-1) gave {} '{}', expected OUT_OF_RANGE from the host",
                          status_code_name(refused.code()), refused.message());
  const Status thrown = host_function("throws", "no luck", Span<const Tensor>(&x, 1), {});  // no results
  if (thrown.code() != StatusCode::kInternal || !thrown.message().starts_with("host function 'throws' failed: no luck"))
    return internal_error("throws gave {} '{}', expected INTERNAL with the exception's text",
                          status_code_name(thrown.code()), thrown.message());
  return Status::ok();
}

bool contains(StringView text, StringView part) {
  for (size_t at = 0; at + part.size() <= text.size(); ++at)
    if (text.substr(at, part.size()) == part) return true;
  return false;
}

// Host functions the replica does not wait for (outside compilation without outputs): print goes and
// settles OK; an error of `throws` comes back from settle_host_functions(), and, when nothing settles
// it, from the replica's next host call (which then does not run); nothing is left in flight after.
Status no_wait_calls(ReplicaContext& replica, const Tensor& x) {
  RT_RETURN_IF_ERROR(host_function_no_wait("print", "a call the replica did not wait for", {}));
  RT_RETURN_IF_ERROR(settle_host_functions());
  RT_RETURN_IF_ERROR(host_function_no_wait("throws", "later", Span<const Tensor>(&x, 1)));  // the replica goes on
  const Status later = settle_host_functions();
  if (later.code() != StatusCode::kInternal ||
      !contains(later.message(), "'throws' (sent without waiting for it): host function 'throws' failed: later"))
    return internal_error("replica {}: a failed no-wait call settled as {} '{}'", replica.replica_id(),
                          status_code_name(later.code()), later.message());
  RT_RETURN_IF_ERROR(host_function_no_wait("throws", "poisons the next call", {}));
  const Status next = host_function("print", "never printed", {}, {});
  if (next.code() != StatusCode::kInternal || !contains(next.message(), "failed: poisons the next call"))
    return internal_error("replica {}: the call after a failed no-wait call gave {} '{}'", replica.replica_id(),
                          status_code_name(next.code()), next.message());
  return settle_host_functions();  // nothing in flight: OK
}

// Replica r: x = (r + 1) * [1, 2, 3, 4]. scale(x, 0.5) = x / 2; count_above(x, 2.5) counts the
// elements above 2.5 (4 - floor(2.5 / (r + 1)) of them, at most 4); require_non_negative(-r - 1)
// comes back as the host's OUT_OF_RANGE.
Result<Tensor> calls_declared_functions(ReplicaContext& replica, const Tensor&) {
  Arena& arena = replica.arena();
  const unsigned r1 = replica.replica_id() + 1;
  const float f = static_cast<float>(r1);
  const Tensor x = RT_TRY(constant<float>(arena, {4}, {f, 2 * f, 3 * f, 4 * f}, "x"));
  const Tensor half = RT_TRY(outside_compilation_app::scale(arena, {DType::kF32, x.shape}, x, 0.5f));
  for (size_t i = 0; i < 4; ++i)
    if (half.at<float>(i) != x.at<float>(i) * 0.5f)
      return internal_error("replica {}: scale(x, 0.5)[{}] = {}, expected {}", r1 - 1, i, half.at<float>(i),
                            x.at<float>(i) * 0.5f);
  const int32_t above = RT_TRY(outside_compilation_app::count_above(x, 2.5f));
  int32_t expected = 0;
  for (unsigned k = 1; k <= 4; ++k) expected += static_cast<float>(k * r1) > 2.5f ? 1 : 0;
  if (above != expected)
    return internal_error("replica {}: count_above(x, 2.5) = {}, expected {}", r1 - 1, above, expected);
  RT_RETURN_IF_ERROR(outside_compilation_app::require_non_negative(static_cast<int64_t>(r1)));
  const Status refused = outside_compilation_app::require_non_negative(-static_cast<int64_t>(r1));
  FixedString<64> text;
  format_to(text, "require_non_negative: -{} < 0", r1);
  if (refused.code() != StatusCode::kOutOfRange || !contains(refused.message(), text.view()))
    return internal_error("replica {}: require_non_negative(-{}) gave {} '{}', expected the host's OUT_OF_RANGE", r1 - 1,
                          r1, status_code_name(refused.code()), refused.message());
  return half;
}

Status check_app_host_functions(Span<const ReplicaArgs> inputs) {
  RT_TRY(replicate(calls_weighted_sum, inputs));
  RT_TRY(replicate(host_errors_arrive, inputs));
  RT_TRY(replicate(no_wait_calls, inputs));
  RT_TRY(replicate(calls_declared_functions, inputs));
  log_info("outside_compilation: {} replicas called the app's host functions, errors arrived as Status (named and "
           "declared functions)", inputs.size());
  return Status::ok();
}

Status program(unsigned cores) {
  PodMemoryScope memory(cores);  // gives back what the calls below allocate
  Tensor x[kMaxReplicas];        // replica r's x: r + 1
  ReplicaArgs inputs[kMaxReplicas];
  for (unsigned r = 0; r < cores; ++r) {
    x[r] = RT_TRY(scalar(hbm(), static_cast<float>(r + 1), "x"));
    inputs[r] = ReplicaArgs(&x[r], 1);
  }
  const Span<const ReplicaArgs> replicas(inputs, cores);
  RT_RETURN_IF_ERROR(check_example(replicas));
  RT_RETURN_IF_ERROR(check_lambda_example(replicas));
  RT_RETURN_IF_ERROR(check_clusters(replicas));
  RT_RETURN_IF_ERROR(check_unknown_function(replicas));
  return check_app_host_functions(replicas);
}

Status run(const firmware::CoreContext& context) {
  return run_program(context, [&] { return program(context.cores); });
}

}  // namespace

const firmware::App firmware::kApp = {
    "outside-compilation", "TF's outside_compilation example per replica over the host link (run with tpu run)", run};
