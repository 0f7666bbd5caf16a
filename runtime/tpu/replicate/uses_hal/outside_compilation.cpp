// outside_compilation's routing: direct call, in-process host call (host board), or over the link to
// the app's tool (off the host board, outside_cluster.hpp); named host functions always go over the link.
#include "runtime/tpu/replicate/outside_compilation.hpp"

#include "runtime/tpu/replicate/current_replica.hpp"
#include "hal/board.hpp"
#include "hal/core.hpp"
#include "hal/support/string_view.hpp"
#include "runtime/trace/trace_point.hpp"

namespace rt::tpu {
namespace {

bool in_cluster[hal::kMaxCores];     // inside an outside_compilation call of a replicated computation
bool cluster_on_host = false;         // the app's tool is running a cluster (one at a time per worker)
uint64_t host_calls[hal::kMaxCores];

// On the host board the program and the device share one process.
bool host_is_this_process() { return StringView(hal::board::name()) == StringView("host"); }

}  // namespace

namespace detail {

ClusterOnHostScope::ClusterOnHostScope() { cluster_on_host = true; }
ClusterOnHostScope::~ClusterOnHostScope() { cluster_on_host = false; }

Result<HostCallRoute> enter_outside_compilation() {
  if (cluster_on_host) return Status::error(StatusCode::kUnimplemented, "Cannot nest outside_compilation clusters");
  const unsigned core = hal::core_id();
  const ReplicaContext* replica = current_replica_context();
  if (replica == nullptr) return HostCallRoute::kDirect;
  if (in_cluster[core]) return Status::error(StatusCode::kUnimplemented, "Cannot nest outside_compilation clusters");
  if (!host_is_this_process()) return HostCallRoute::kLink;  // host_function counts the call and marks the cluster
  in_cluster[core] = true;
  ++host_calls[core];
  return HostCallRoute::kInProcess;
}

void exit_outside_compilation(HostCallRoute route) {
  if (route == HostCallRoute::kInProcess) in_cluster[hal::core_id()] = false;
}

Status outside_cluster_refused(StringView cluster, const char* why) {
  const ReplicaContext* replica = current_replica_context();
  return Status::error(StatusCode::kUnimplemented,
                       "outside_compilation: replica {} on core {} of board {} cannot run {} on the host: {}",
                       replica != nullptr ? replica->replica_id() : 0u, hal::core_id(), hal::board::name(), cluster, why);
}

}  // namespace detail

uint64_t host_call_count() { return host_calls[hal::core_id()]; }

namespace {

// A named host call from core `core`: the nesting rule, the count of calls from inside replicated
// computations, and the calling replica the request names (kNoReplica outside one).
Result<uint16_t> begin_host_call(unsigned core) {
  if (in_cluster[core]) return Status::error(StatusCode::kUnimplemented, "Cannot nest outside_compilation clusters");
  const ReplicaContext* replica = current_replica_context();
  if (replica == nullptr) return link::kNoReplica;
  ++host_calls[core];
  return static_cast<uint16_t>(replica->replica_id());
}

}  // namespace

Status host_function(StringView name, StringView text_argument, Span<const Tensor> arguments,
                     Span<const link::HostResult> results, uint64_t timeout_ns) {
  RT_TRACE_SCOPE("host_call", trace::Category::kHostCall);
  const unsigned core = hal::core_id();
  const uint16_t caller = RT_TRY(begin_host_call(core));
  in_cluster[core] = true;
  const Status status = link::host_call(name, text_argument, arguments, results, timeout_ns, caller);
  in_cluster[core] = false;
  return status;
}

Status host_function_no_wait(StringView name, StringView text_argument, Span<const Tensor> arguments,
                             uint64_t timeout_ns) {
  RT_TRACE_SCOPE("host_call", trace::Category::kHostCall);
  const uint16_t caller = RT_TRY(begin_host_call(hal::core_id()));
  return link::host_call_detached(name, text_argument, arguments, timeout_ns, caller);
}

Status settle_host_functions() {
  link::Endpoint* endpoint = link::board_endpoint();
  return endpoint == nullptr ? Status::ok() : endpoint->settle_detached_call();
}

Result<Tensor> host_function(Arena& arena, StringView name, std::initializer_list<Tensor> arguments, DType dtype,
                             const Shape& shape, StringView text_argument) {
  const Tensor result = RT_TRY(arena.allocate_tensor(dtype, shape, "a host function's result"));
  const link::HostResult into[] = {link::HostResult::tensor(result)};
  RT_RETURN_IF_ERROR(host_function(name, text_argument, Span<const Tensor>(arguments.begin(), arguments.size()), into));
  return result;
}

}  // namespace rt::tpu
