// exec: the device half of `tpu exec` (protocol: exec_protocol.hpp). Core 0 runs the program
// (rt::tpu::run_program): it fetches one op spec and its input tensors from the host, runs the op
// with replicate() over the spec's replicas (replica r on core r), and sends every replica's output
// back. Other cores serve replicas. Run alone (make run) it fails after the host-call timeout: no
// host ever answers.
#include "exec_ops.hpp"
#include "firmware/tpu_pod.hpp"

namespace {

using namespace rt;
using namespace rt::tpu;
using exec_app::ExecSpec;

constexpr uint64_t kCallTimeoutNs = 60000ull * 1000000ull;

// The request, and its inputs replica-major (kept out of core 0's stack: they are large).
ExecSpec spec;
FixedString<exec_protocol::kMaxSpecBytes> spec_text;
Tensor inputs[exec_app::kMaxExecTensors];

// A host call of the exec protocol (a tensor as large as the host sends may take long on the UART);
// host_function traces it under the host_call category.
Status call_host(StringView function, StringView argument, Span<const Tensor> tensors,
                 Span<const HostResult> results) {
  return host_function(function, argument, tensors, results, kCallTimeoutNs);
}

Status fetch_spec(unsigned cores) {
  const HostResult text[] = {HostResult::text(spec_text)};
  RT_RETURN_IF_ERROR(call_host(exec_protocol::kFetchOp, "", {}, text));
  RT_RETURN_IF_ERROR(exec_app::parse_exec_spec(spec_text.view(), spec));
  if (spec.replicas != 1 && spec.replicas != cores)
    return invalid_argument("exec: {} replicas need a board with {} cores (tpu exec --cores {}), this one has {}",
                            spec.replicas, spec.replicas, spec.replicas, cores);
  return Status::ok();
}

// Every input tensor, in core 0's arena, with the dtype and shape the spec announced.
Status fetch_inputs() {
  for (unsigned t = 0; t < spec.tensors; ++t) {
    inputs[t] = RT_TRY(hbm().allocate_tensor(spec.tensor[t].dtype, spec.tensor[t].shape, "an exec input"));
    FixedString<16> index;
    format_to(index, "{}", t);
    const HostResult slot[] = {HostResult::tensor(inputs[t])};
    RT_RETURN_IF_ERROR(call_host(exec_protocol::kFetchInput, index.view(), {}, slot));
  }
  return Status::ok();
}

Status send_outputs(const Replicated& outputs) {
  for (unsigned r = 0; r < outputs.num_replicas(); ++r)
    for (unsigned j = 0; j < outputs[r].size(); ++j) {
      FixedString<32> index;
      format_to(index, "{} {}", r, j);
      const Span<const Tensor> output(&outputs[r][j], 1);
      RT_RETURN_IF_ERROR(call_host(exec_protocol::kSendOutput, index.view(), output, {}));
    }
  return Status::ok();
}

Status program(unsigned cores) {
  PodMemoryScope memory(cores);  // gives back the inputs and outputs at the end
  RT_RETURN_IF_ERROR(fetch_spec(cores));
  RT_RETURN_IF_ERROR(fetch_inputs());
  ReplicaArgs replica_inputs[kMaxReplicas];
  for (unsigned r = 0; r < spec.replicas; ++r) replica_inputs[r] = ReplicaArgs(&inputs[r * spec.inputs], spec.inputs);
  const Span<const ReplicaArgs> replicas(replica_inputs, spec.replicas);
  const Replicated outputs = RT_TRY(exec_app::run_exec_op(spec, replicas));
  RT_RETURN_IF_ERROR(send_outputs(outputs));
  log_info("exec: {} over {} replica(s) done", exec_app::exec_op_name(spec.op), spec.replicas);
  return Status::ok();
}

Status run(const firmware::CoreContext& context) {
  return run_program(context, [&] { return program(context.cores); });
}

}  // namespace

const firmware::App firmware::kApp = {"exec", "serves one op request from `tpu exec` (matmul, conv2d, collectives)", run};
