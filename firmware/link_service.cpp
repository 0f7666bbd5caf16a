// The firmware's link service (link_service.hpp): picks the board's link port (the shared-memory
// window when tpu set one up, the UART otherwise) and runs the endpoint on it.
#include "link_service.hpp"

#include "hal/board.hpp"
#include "hal/core.hpp"
#include "hal/link.hpp"
#include "hal/link_window.hpp"
#include "hal/memory_map.hpp"
#include "hal_link_port.hpp"
#include "runtime/link/protocol/host_call.hpp"
#include "runtime/log/log.hpp"
#include "hal/support/new.hpp"
#include "runtime/tpu/mesh/pod_membership.hpp"
#include "runtime/tpu/mesh/topology.hpp"
#include "runtime/trace/core_status.hpp"

namespace firmware {
namespace {

static_assert(hal::kMaxCores <= rt::link::kMaxLinkCores, "the link endpoint has a slot per core");

alignas(HalLinkPort) unsigned char uart_port_storage[sizeof(HalLinkPort)];
alignas(ShmLinkPort) unsigned char shm_port_storage[sizeof(ShmLinkPort)];
ShmLinkPort* shm_port = nullptr;
HalLinkPort* uart_port = nullptr;
alignas(rt::link::Endpoint) unsigned char endpoint_storage[sizeof(rt::link::Endpoint)];
rt::link::Endpoint* endpoint = nullptr;

// Each core's outcome until it reached the host: a core that reports before the host's hello was
// decoded (a fast app, a slow UART) has its result sent by the boot core at the finish.
constexpr uint64_t kLateHostWaitNs = 3000ull * 1000000;
// How long the boot core waits for a host it expects to say which task of its pod the board is (tpu
// sends that right after its hello, as the board starts).
constexpr uint64_t kPodWaitNs = 5000ull * 1000000;
// How long a board on a UART that has heard nothing at boot listens for a host's hello before it
// runs alone (learn_pod_membership).
constexpr uint64_t kListenAtBootNs = 200ull * 1000000;
struct PendingResult {
  rt::Status outcome;
  bool reported = false;
  bool sent = false;
};
PendingResult results[hal::kMaxCores];

// Whether a host is (or was about to be) on the link: tpu set up shared memory or said so before
// boot, or bytes came in on the UART. A byte is enough (every frame or text the decoder saw came as
// bytes): tpu writes its hello and the pod's kPod as it starts the board (they wait in the serial
// line until the board reads them), and says them again until the board answers when it attached to
// a board it did not start (a Pi it is to reset); a board that polls while a hello is still coming
// through the UART's FIFO holds only part of the frame, and a booting Pi may have lost the rest.
bool host_expected() {
  if (shm_port != nullptr || hal::link_host_attached()) return true;
  return uart_port != nullptr && uart_port->bytes_read() != 0;
}

// The shared-memory port if the board has a window and tpu set the link up in it; else the UART's.
rt::link::LinkPort& choose_port() {
  const hal::board::LinkWindow window = hal::board::link_window();
  if (window.size != 0) {
    const auto& control = *reinterpret_cast<const rt::link::ShmControl*>(window.base);
    if (control.magic == rt::link::kShmMagic) {
      const rt::Status usable = rt::link::check_shm_control(control, window.size);
      if (usable.is_ok()) {
        shm_port = new (shm_port_storage) ShmLinkPort(window.base);
        const hal::FreeMemory tensors = hal::free_memory();  // where host-call results may be placed
        shm_port->transport().announce_memory(tensors.base, tensors.size);
        shm_port->transport().announce_core_status(&rt::trace::core_status_table, sizeof rt::trace::core_status_table);
        shm_port->transport().set_board_state(rt::link::ShmBoardState::kAttached);
        rt::log_info("link: shared memory ({} KiB to the board, {} KiB to the host)", control.to_board.capacity / 1024,
                     control.to_host.capacity / 1024);
        return *shm_port;
      }
      rt::log_error("link: the shared-memory window is set up wrongly, using the UART: {}", usable.message());
    }
  }
  uart_port = new (uart_port_storage) HalLinkPort();
  return *uart_port;
}

// The board's task in its pod, from the host's kPod message, before the app runs; without a host the
// board is task 0 of 1. The place is fixed here, once, and the endpoint says it to the host (now and
// whenever asked again). A board on a UART that has heard nothing yet listens a moment first:
// enabling a UART's FIFO flushes it (QEMU's 16550 and PL011, as the real parts), and what tpu wrote
// before the board booted may have been in it; tpu says its hello again every 100 ms.
void learn_pod_membership() {
  const rt::link::PodInfo single{0, 1};
  if (!host_expected() && uart_port != nullptr) (void)endpoint->wait_for_host(kListenAtBootNs, "hear a host at boot");
  if (!host_expected()) return endpoint->fix_pod_place(single);
  const rt::Result<rt::link::PodInfo> pod = endpoint->wait_for_pod(kPodWaitNs);
  if (!pod) {
    rt::log_warning("link: {}; running as a single board", pod.status().message());
    return endpoint->fix_pod_place(single);
  }
  rt::tpu::set_pod_membership(rt::tpu::PodMembership{pod->task, pod->num_tasks});
  endpoint->fix_pod_place(*pod);
  if (pod->num_tasks > 1) rt::log_info("pod: this board is task {} of {}", pod->task, pod->num_tasks);
}

}  // namespace

void link_service_start(const char* app_name) {
  rt::link::BoardIdentity identity;
  identity.board = hal::board::name();
  identity.app = app_name;
  identity.cores = static_cast<uint16_t>(hal::core_count());
  const rt::tpu::MeshShape mesh = rt::tpu::Topology::default_mesh_shape(identity.cores);  // the board's Topology
  for (unsigned axis = 0; axis < 4; ++axis) identity.mesh_shape[axis] = static_cast<uint16_t>(mesh[axis]);
  endpoint = new (endpoint_storage) rt::link::Endpoint(choose_port(), identity);
  rt::link::set_board_endpoint(endpoint);
  endpoint->poll();
  learn_pod_membership();
}

rt::Status link_service_settle() {
  return endpoint == nullptr ? rt::Status::ok() : endpoint->settle_detached_call();
}

void link_service_report(unsigned core, const rt::Status& outcome) {
  if (endpoint == nullptr || core >= hal::kMaxCores) return;
  results[core].outcome = outcome;
  results[core].reported = true;
  endpoint->poll();  // an app that never used the link has not read the host's hello yet
  results[core].sent = endpoint->send_result(core, outcome).is_ok();
}

void link_service_finish() {
  if (endpoint == nullptr) return;
  endpoint->poll();
  bool unsent = false;
  for (const PendingResult& result : results) unsent |= result.reported && !result.sent;
  if (unsent && host_expected() && endpoint->wait_for_host(kLateHostWaitNs, "send the cores' results").is_ok())
    for (unsigned core = 0; core < hal::kMaxCores; ++core)
      if (results[core].reported && !results[core].sent)
        results[core].sent = endpoint->send_result(core, results[core].outcome).is_ok();
  const rt::link::EndpointCounters counters = endpoint->counters();
  const uint64_t bad = counters.decoder.bad_frames();
  if (bad != 0 || counters.sequence_gaps != 0)
    rt::log_warning("link: {} bad frames from the host dropped, {} sequence gaps", bad, counters.sequence_gaps);
  if (shm_port != nullptr) shm_port->transport().set_board_state(rt::link::ShmBoardState::kFinished);
}

}  // namespace firmware
