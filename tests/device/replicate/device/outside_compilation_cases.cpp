// outside_compilation (runtime/tpu/TF_BEHAVIOUR.md section 3) with TF's example:
//   def computation_with_string_ops(x):
//     output = tf.strings.format('1{}', x); return tf.strings.to_number(output)   # 11 for x = 1
// Outside replicate it is a plain call on every board. Inside a replicated computation it runs on
// the host: in-process on the host board (replica r passes r + 1, so gets "1" followed by r + 1);
// elsewhere only a captureless lambda crosses to the PC (the outside-compilation example runs that
// through tpu), so this function is refused, saying why. Nesting is TF's "Cannot nest
// outside_compilation clusters".
#include "hal/board.hpp"
#include "runtime/tpu/replicate/outside_compilation.hpp"
#include "runtime/tpu/replicate/pod_memory.hpp"
#include "suite.hpp"

namespace replicate_test {
namespace {

using rt::Status;
using rt::Tensor;
using rt::tpu::ReplicaArgs;
using rt::tpu::ReplicaContext;
using rt::tpu::ReplicaOutputs;

rt::Result<int32_t> computation_with_string_ops(int32_t x) {
  rt::FixedString<32> text;
  rt::format_to(text, "1{}", x);  // tf.strings.format('1{}', x)
  int32_t number = 0;             // tf.strings.to_number
  for (char c : text.view()) {
    if (c < '0' || c > '9') return rt::invalid_argument("StringToNumberOp could not correctly convert string: {}", text);
    number = number * 10 + (c - '0');
  }
  return number;
}

// A function cannot cross the link: on purpose (the host board runs it, the others refuse it), so
// this file's build warns that it cannot (outside_compilation.hpp, host_board_only_callable).
Status calls_host(ReplicaContext& replica, ReplicaArgs, ReplicaOutputs& outputs) {
  rt::Result<int32_t> number =
      rt::tpu::outside_compilation(computation_with_string_ops, static_cast<int32_t>(replica.replica_id() + 1));
  if (!number) return number.status();
  rt::Result<Tensor> out = i32_tensor(replica.arena(), {}, {*number});
  if (!out) return out.status();
  return outputs.add(*out);
}

Status nests_host_calls(ReplicaContext&, ReplicaArgs, ReplicaOutputs&) {
  return rt::tpu::outside_compilation([] {
    return rt::tpu::outside_compilation([] { return Status::ok(); });
  });
}

bool on_host_board() { return rt::StringView(hal::board::name()) == rt::StringView("host"); }

int32_t expected_number(unsigned replica) {
  const unsigned x = replica + 1;
  return static_cast<int32_t>((x < 10 ? 10 : 100) + x);  // "1" followed by the digits of x
}

}  // namespace

Status run_outside_compilation_cases(unsigned cores) {
  rt::tpu::PodMemoryScope memory(cores);
  rt::Result<int32_t> direct = rt::tpu::outside_compilation(computation_with_string_ops, 1);  // outside replicate
  if (!direct || *direct != 11)
    return rt::internal_error("outside_compilation outside replicate: {} ({})", direct ? *direct : -1,
                              direct.status().message());

  const ReplicaArgs no_inputs[rt::tpu::kMaxReplicas] = {};
  const rt::Span<const ReplicaArgs> every_core(no_inputs, cores);
  const rt::tpu::Computation host_call{"calls_host", calls_host, {0}};
  const Status status = rt::tpu::replicate(host_call, every_core, {}, result());
  if (!on_host_board()) {
    rt::FixedString<256> expected;
    rt::format_to(expected,
                  "outside_compilation: replica 0 on core 0 of board {} cannot run rt::Result<int>(int) on the host: "
                  "only a lambda without captures can run on the PC (the tool makes its own; captures live on the "
                  "board)",
                  hal::board::name());
    return expect_error(status, rt::StatusCode::kUnimplemented, expected.view(), "outside_compilation off the host board");
  }
  RT_RETURN_IF_ERROR(status);
  RT_RETURN_IF_ERROR(expect_output_counts(result(), cores, 1, "outside_compilation"));
  for (unsigned r = 0; r < cores; ++r)
    if (i32_at(result()[r][0], 0) != expected_number(r))
      return rt::internal_error("outside_compilation: replica {} got {}, expected {}", r, i32_at(result()[r][0], 0),
                                expected_number(r));
  if (rt::tpu::host_call_count() == 0) return rt::internal_error("core 0's host call was not counted");
  const rt::tpu::Computation nested{"nests_host_calls", nests_host_calls, {0}};
  return expect_error(rt::tpu::replicate(nested, every_core, {}, result()), rt::StatusCode::kUnimplemented,
                      "Cannot nest outside_compilation clusters", "nested outside_compilation");
}

}  // namespace replicate_test
