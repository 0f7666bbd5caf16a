// link-corrupt: fault injection for the shared-memory host link (runtime/link/transport/shm_ring.hpp). Run
// under `tpu run --link shm`; the run must fail with tpu naming the corruption, never hang, and
// leave no backing file. Core 0 makes one good host call (the link is up), then publishes a bad
// record in the to-host ring; which kind depends on the core count:
//   1 core:  a record header whose check word is wrong (a torn or stale write)
//   2 cores: a record whose length claims more bytes than the ring has published
//   3 cores: a write position more than a whole ring ahead of the reader
//   4 cores: a well-formed record whose body is not a frame (its CRC and magic fail)
// Other cores (and core 0 afterwards) wait for the host to stop the board. Without the
// shared-memory link (make run, --link uart) the app fails at once saying so.
#include "firmware/app.hpp"
#include "hal/link_window.hpp"
#include "hal/time.hpp"
#include "runtime/link/protocol/host_call.hpp"  // a link test: it calls the link itself, below rt::tpu
#include "runtime/link/transport/shm_ring.hpp"  // a link test: it corrupts the ring on purpose
#include "runtime/log/log.hpp"

namespace {

using rt::Status;
using rt::link::ShmControl;
using rt::link::ShmRingIndices;

constexpr uint64_t kCallTimeoutNs = 20ull * 1000000000ull;
constexpr uint64_t kWaitForHostNs = 30ull * 1000000000ull;

float value = 1.0f;

// The published write position of the to-host ring and the bytes behind it.
struct ToHostRing {
  ShmRingIndices* indices;
  uint8_t* data;
  uint32_t capacity;
};

rt::Result<ToHostRing> to_host_ring() {
  const hal::board::LinkWindow window = hal::board::link_window();
  if (window.size == 0) return rt::invalid_argument("link-corrupt: this board has no shared-memory link window");
  auto* control = reinterpret_cast<ShmControl*>(window.base);
  if (!rt::link::check_shm_control(*control, window.size).is_ok() ||
      rt::link::shm_board_state(*control) != rt::link::ShmBoardState::kAttached)
    return rt::invalid_argument("link-corrupt needs the shared-memory link: run it with `tpu run --link shm`");
  auto* indices = reinterpret_cast<ShmRingIndices*>(window.base + control->to_host.offset);
  return ToHostRing{indices, window.base + control->to_host.offset + sizeof(ShmRingIndices), control->to_host.capacity};
}

// Publishes a bad record after everything already written (the board's link sends nothing while
// core 0 runs this: every other core only waits).
void corrupt(const ToHostRing& ring, unsigned variant) {
  const uint64_t head = ring.indices->head.load(rt::MemoryOrder::kAcquire);
  uint8_t* at = ring.data + (head & (ring.capacity - 1));
  uint32_t header[2] = {16, 0xBADC0DE};  // variant 1: the check word does not match
  if (variant == 2) header[0] = ring.capacity / 4;
  if (variant != 1) header[1] = header[0] ^ rt::link::kRecordKey ^ static_cast<uint32_t>(head);
  __builtin_memcpy(at, header, sizeof header);
  for (unsigned i = 0; i < 16; ++i) at[sizeof header + i] = static_cast<uint8_t>(0xA5 ^ i);  // no frame magic, no CRC
  const uint64_t published = variant == 3 ? head + 2ull * ring.capacity : head + 24;
  rt::log_info("link-corrupt: publishing a bad to-host record (variant {}) at ring byte {}", variant, head);
  ring.indices->head.store(published, rt::MemoryOrder::kRelease);
}

Status run(const firmware::CoreContext& context) {
  rt::Result<ToHostRing> ring = to_host_ring();
  if (!ring) return ring.status();
  if (context.core == 0) {
    const rt::Tensor x[] = {rt::Tensor::contiguous(rt::DType::kF32, rt::Shape(), &value)};
    RT_RETURN_IF_ERROR(rt::link::host_call("print", "link-corrupt: the link works before the corruption:", x, {},
                                           kCallTimeoutNs));
    corrupt(*ring, context.cores > 4 ? 1 : context.cores);
  }
  const uint64_t deadline = hal::deadline_after(kWaitForHostNs);
  while (hal::time_ns() < deadline) hal::delay_ns(1000000);
  return rt::internal_error("core {}: the host did not stop the board within 30 s of the corruption", context.core);
}

}  // namespace

const firmware::App firmware::kApp = {"link-corrupt", "fault injection: a corrupt record in the shared-memory link", run};
