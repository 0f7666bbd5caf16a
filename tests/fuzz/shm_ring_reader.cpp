// Fuzz target: the shared-memory link's ring reader and control-block check
// (runtime/link/transport/shm_ring.hpp). The host maps the board's RAM and reads the board's records from it;
// the board may write anything there at any time, so the reader must check every index and header
// and never read outside the ring's data area. The first input byte picks a mode:
//   0  control block: the rest is a ShmControl as the peer wrote it. A block check_shm_control
//      accepts must be one whose rings really lie inside the window, aligned, power-of-two sized,
//      apart from the control page and from each other (checked here independently).
//   1  hostile ring: a ring whose data area, starting tail and a series of head values the peer
//      "publishes" come from the input. Every body peek() returns lies inside the data area; after
//      a fault, peek() keeps returning it.
//   2  honest ring: records of fuzzed sizes and bytes go through a ShmRingWriter and come out of the
//      ShmRingReader, interleaved as the input says: every record arrives, once, in order, unchanged.
// The ring buffers are allocated at exactly their size, so ASan catches any byte read beyond them.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>

#include "runtime/link/transport/shm_ring.hpp"

namespace {

using rt::link::ShmRingPlace;
constexpr uint32_t kIndices = sizeof(rt::link::ShmRingIndices);

[[noreturn]] void broken(const char* promise) {
  std::fprintf(stderr, "shm_ring_reader: broken promise: %s\n", promise);
  std::abort();
}

bool power_of_two(uint32_t value) { return value != 0 && (value & (value - 1)) == 0; }

void fuzz_control(FuzzedDataProvider& input) {
  rt::link::ShmControl control{};
  const std::vector<uint8_t> bytes = input.ConsumeBytes<uint8_t>(sizeof control);
  if (!bytes.empty()) std::memcpy(&control, bytes.data(), bytes.size());
  const size_t window = input.ConsumeBool() ? control.window_bytes : input.ConsumeIntegral<uint32_t>();
  if (!rt::link::check_shm_control(control, window).is_ok()) return;
  for (const ShmRingPlace& ring : {control.to_board, control.to_host}) {
    if (ring.offset % 64 != 0 || !power_of_two(ring.capacity) || ring.capacity < 4096) broken("rings are aligned powers of two");
    if (ring.offset < rt::link::kShmControlBytes) broken("rings lie after the control page");
    if (uint64_t{ring.offset} + kIndices + ring.capacity > window) broken("rings lie inside the window");
  }
  const ShmRingPlace& a = control.to_board;
  const ShmRingPlace& b = control.to_host;
  if (a.offset < uint64_t{b.offset} + kIndices + b.capacity && b.offset < uint64_t{a.offset} + kIndices + a.capacity)
    broken("the rings do not overlap");
}

// A ring of `capacity` bytes alone in an exactly sized buffer (its place: offset 0).
struct Ring {
  explicit Ring(uint32_t capacity) : capacity(capacity), bytes(new uint8_t[kIndices + capacity]()) {}
  uint8_t* window() { return bytes.get(); }
  rt::link::ShmRingIndices& indices() { return *reinterpret_cast<rt::link::ShmRingIndices*>(bytes.get()); }
  uint8_t* data() { return bytes.get() + kIndices; }
  ShmRingPlace place() const { return {0, capacity}; }
  uint32_t capacity;
  std::unique_ptr<uint8_t[]> bytes;
};

void check_inside(Ring& ring, const rt::Span<const uint8_t>& body) {
  if (body.data() == nullptr) return;
  if (body.data() < ring.data() || body.data() + body.size() > ring.data() + ring.capacity) broken("bodies lie inside the data area");
}

void fuzz_hostile(FuzzedDataProvider& input) {
  Ring ring(4096u << input.ConsumeIntegralInRange(0, 2));
  const std::vector<uint8_t> data = input.ConsumeBytes<uint8_t>(ring.capacity);
  if (!data.empty()) std::memcpy(ring.data(), data.data(), data.size());
  ring.indices().tail.store(input.ConsumeBool() ? 0 : input.ConsumeIntegral<uint64_t>(), rt::MemoryOrder::kRelaxed);
  rt::link::ShmRingReader reader;
  reader.attach(ring.window(), ring.place());
  for (int published = 0; published < 16 && input.remaining_bytes() > 0; ++published) {
    const uint64_t head = input.ConsumeBool() ? reader.released() + input.ConsumeIntegral<uint16_t>()
                                              : input.ConsumeIntegral<uint64_t>();
    ring.indices().head.store(head, rt::MemoryOrder::kRelaxed);
    for (int records = 0; records < 64; ++records) {
      const rt::Result<rt::Span<const uint8_t>> body = reader.peek();
      if (!body.is_ok()) {
        if (reader.peek().is_ok()) broken("a fault is final");
        return;
      }
      if (body.value().data() == nullptr) break;
      check_inside(ring, body.value());
      reader.release();
    }
  }
}

void fuzz_honest(FuzzedDataProvider& input) {
  Ring ring(4096u << input.ConsumeIntegralInRange(0, 1));
  rt::link::ShmRingWriter writer;
  rt::link::ShmRingReader reader;
  writer.attach(ring.window(), ring.place());
  reader.attach(ring.window(), ring.place());
  std::deque<std::vector<uint8_t>> in_flight;
  auto read_one = [&] {
    const rt::Result<rt::Span<const uint8_t>> body = reader.peek();
    if (!body.is_ok()) broken("an honest ring never faults");
    if (body.value().data() == nullptr) {
      if (!in_flight.empty()) broken("every written record is published");
      return false;
    }
    check_inside(ring, body.value());
    if (in_flight.empty()) broken("no record arrives that was not written");
    const std::vector<uint8_t>& expected = in_flight.front();
    if (body.value().size() != expected.size() ||
        (!expected.empty() && std::memcmp(body.value().data(), expected.data(), expected.size()) != 0))
      broken("records arrive in order and unchanged");
    in_flight.pop_front();
    reader.release();
    return true;
  };
  while (input.remaining_bytes() > 0) {
    if (input.ConsumeBool()) {
      read_one();
      continue;
    }
    const size_t size = input.ConsumeIntegralInRange<size_t>(0, writer.max_body());
    std::vector<uint8_t> body = input.ConsumeBytes<uint8_t>(size);
    const rt::Result<bool> room = writer.has_room(body.size());
    if (!room.is_ok()) broken("an honest reader's position is always possible");
    if (!room.value()) {
      if (in_flight.empty()) broken("an empty ring has room for any record up to max_body");
      read_one();
      continue;
    }
    writer.write(rt::Span<const uint8_t>(body.data(), body.size()));
    in_flight.push_back(std::move(body));
  }
  while (read_one()) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider input(data, size);
  switch (input.ConsumeIntegralInRange(0, 2)) {
    case 0: fuzz_control(input); break;
    case 1: fuzz_hostile(input); break;
    default: fuzz_honest(input); break;
  }
  return 0;
}
