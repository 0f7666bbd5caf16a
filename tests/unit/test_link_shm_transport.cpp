// The board's end of the shared-memory link (runtime/link/transport/shm_transport.cpp), driven from a test
// "host" that writes and reads the rings of a planned window directly, with frame bodies built here
// by hand (header fields and a CRC-32 computed by a bitwise reference, not by frame.cpp):
//   - frames from the host come out whole (header fields and payload, also 60 KiB ones) and in order;
//   - frames the board sends arrive in the to-host ring as bodies the reference accepts;
//   - a frame that fails its check, a corrupt ring and a host that closed the window end the link
//     for good, saying why; a full to-host ring is a timeout naming the core, never a hang;
//   - the board announces the largest payload it takes (what its hello says);
//   - an infeed queue's slots are not withdrawn while the host writes a tuple into them.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "runtime/link/protocol/message_kind.hpp"
#include "runtime/link/transport/shm_transport.hpp"

namespace {

using Bytes = std::vector<uint8_t>;
using namespace rt::link;

constexpr size_t kWindowBytes = 1 << 20;

// CRC-32 (reflected 0xEDB88320), bit by bit: independent of crc32.cpp's tables and instructions.
uint32_t reference_crc32(const Bytes& bytes) {
  uint32_t crc = 0xFFFFFFFFu;
  for (uint8_t byte : bytes) {
    crc ^= byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
  }
  return ~crc;
}

void put_le(Bytes& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

// A frame body as frame.hpp lays it out: magic, version, kind, 0, channel, length, sequence, payload, CRC.
Bytes frame_body(MessageKind kind, uint16_t channel, uint32_t sequence, const Bytes& payload) {
  Bytes body = {kFrameMagic, kFrameVersion, static_cast<uint8_t>(kind), 0};
  put_le(body, channel, 2);
  put_le(body, payload.size(), 2);
  put_le(body, sequence, 4);
  body.insert(body.end(), payload.begin(), payload.end());
  put_le(body, reference_crc32(body), 4);
  return body;
}

Bytes pattern(size_t size, unsigned seed) {
  Bytes bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>(i * 7 + seed * 13 + (i >> 9));
  return bytes;
}

class FakeClock final : public ShmClock {
 public:
  uint64_t now_ns() override { return now; }
  void idle() override {  // each pause: 1 ms of board time, and what the test's host does meanwhile
    now += 1000000;
    if (on_idle) on_idle();
  }
  std::function<void()> on_idle;
  unsigned core() override { return 3; }
  void sleep(const uint32_t* word, uint32_t seen, uint64_t deadline_ns) override {
    sleeps.push_back({word, seen});
    now = deadline_ns;  // nobody wakes it
  }
  void wake(const uint32_t* word) override { wakes.push_back(word); }
  std::vector<const uint32_t*> wakes;
  uint64_t now = 0;
  std::vector<std::pair<const uint32_t*, uint32_t>> sleeps;
};

// A window the way the host sets it up, plus the host's ends of both rings.
struct Window {
  Window() : bytes(kWindowBytes + 64) {
    base = bytes.data() + (64 - reinterpret_cast<uintptr_t>(bytes.data()) % 64) % 64;
    rt::Result<ShmControl> plan = plan_shm_window(kWindowBytes);
    REQUIRE(plan.is_ok());
    std::memcpy(base, &*plan, sizeof(ShmControl));
    control = reinterpret_cast<ShmControl*>(base);
    to_board.attach(base, control->to_board);
    to_host.attach(base, control->to_host);
  }
  void host_sends(const Bytes& body) {
    rt::Result<bool> room = to_board.has_room(body.size());
    REQUIRE((room.is_ok() && *room));
    to_board.write(rt::Span<const uint8_t>(body.data(), body.size()));
  }
  std::vector<uint8_t> bytes;
  uint8_t* base = nullptr;
  ShmControl* control = nullptr;
  ShmRingWriter to_board;
  ShmRingReader to_host;
};

struct Received {
  FrameHeader header;
  Bytes payload;
};

class Recorder final : public FrameSink {
 public:
  void on_text(rt::Span<const uint8_t>) override { FAIL("a frame transport delivers no text"); }
  void on_frame(const FrameView& frame) override {
    frames.push_back({frame.header, Bytes(frame.payload.begin(), frame.payload.end())});
  }
  void on_bad_frame(FrameError error) override { bad.push_back(error); }
  std::vector<Received> frames;
  std::vector<FrameError> bad;
};

TEST_CASE("shm transport: host frames arrive whole and in order, up to the announced payload") {
  Window window;
  FakeClock clock;
  ShmTransport transport(window.base, clock, kMessageKinds);
  CHECK(transport.max_receive_payload() == kMaxRecordPayload);
  const Bytes small = pattern(100, 1), large = pattern(kMaxRecordPayload, 2), empty;
  window.host_sends(frame_body(MessageKind::kHostCallReply, 5, 7, small));
  window.host_sends(frame_body(MessageKind::kInfeedData, 0, 8, large));
  window.host_sends(frame_body(MessageKind::kHello, 0, 9, empty));
  Recorder recorder;
  CHECK(transport.receive(recorder, 2) == 2);  // the budget holds
  CHECK(transport.receive(recorder, 64) == 1);
  CHECK(transport.receive(recorder, 64) == 0);
  REQUIRE(recorder.frames.size() == 3);
  CHECK(message_kind(recorder.frames[0].header) == MessageKind::kHostCallReply);
  CHECK(recorder.frames[0].header.channel == 5);
  CHECK(recorder.frames[0].header.sequence == 7);
  CHECK(recorder.frames[0].payload == small);
  CHECK(message_kind(recorder.frames[1].header) == MessageKind::kInfeedData);
  CHECK(recorder.frames[1].payload == large);
  CHECK(recorder.frames[2].payload.empty());
  CHECK(transport.counters().frames_ok == 3);
  CHECK_FALSE(transport.failed());
}

TEST_CASE("shm transport: board frames reach the host ring as checked frame bodies") {
  Window window;
  FakeClock clock;
  ShmTransport transport(window.base, clock, kMessageKinds);
  const Bytes payload = pattern(4000, 3);
  REQUIRE(transport.send(message_header(MessageKind::kOutfeedData, 2, 41), rt::Span<const uint8_t>(payload.data(), payload.size())).is_ok());
  rt::Result<rt::Span<const uint8_t>> record = window.to_host.peek();
  REQUIRE(record.is_ok());
  REQUIRE(record->data() != nullptr);
  CHECK(Bytes(record->begin(), record->end()) == frame_body(MessageKind::kOutfeedData, 2, 41, payload));
  window.to_host.release();
  rt::Result<rt::Span<const uint8_t>> none = window.to_host.peek();
  REQUIRE(none.is_ok());
  CHECK(none->data() == nullptr);
}

TEST_CASE("shm transport: a core sleeps on the board's doorbell only until the host rings it", "[link][shm]") {
  Window window;
  FakeClock clock;
  ShmTransport transport(window.base, clock, kMessageKinds);
  // The board's sleep: none if the host rang since `seen`; else one on the doorbell, counted as a
  // sleeper only while it lasts (the host wakes sleepers: host-tools/tests/test_shm_link.cpp).
  CHECK(transport.host_rings() == 0);
  window.control->board_bell.rings = 5;
  transport.sleep_until_host_rings(4, 1000);
  CHECK(clock.sleeps.empty());
  transport.sleep_until_host_rings(transport.host_rings(), 2000);
  REQUIRE(clock.sleeps.size() == 1);
  CHECK(clock.sleeps[0].first == &window.control->board_bell.rings);
  CHECK(clock.sleeps[0].second == 5);
  CHECK(clock.now == 2000);
  CHECK(window.control->board_bell.sleepers == 0);
  Recorder recorder;  // taking frames or sending them leaves the doorbell alone: only the host rings it
  window.host_sends(frame_body(MessageKind::kHello, 0, 9, Bytes()));
  CHECK(transport.receive(recorder, 8) == 1);
  const Bytes payload = pattern(64, 4);
  REQUIRE(transport.send(message_header(MessageKind::kOutfeedData, 1, 2), rt::Span<const uint8_t>(payload.data(), payload.size())).is_ok());
  CHECK(window.control->board_bell.rings == 5);
}

TEST_CASE("shm transport: ring_host bumps the host's doorbell and wakes the host only when it sleeps") {
  Window window;
  FakeClock clock;
  ShmTransport transport(window.base, clock, kMessageKinds);
  transport.ring_host();
  CHECK(window.control->host_bell.rings == 1);
  CHECK(clock.wakes.empty());  // nobody asleep: no wake-up
  window.control->host_bell.sleepers = 1;
  transport.ring_host();
  CHECK(window.control->host_bell.rings == 2);
  REQUIRE(clock.wakes.size() == 1);
  CHECK(clock.wakes[0] == &window.control->host_bell.rings);
  CHECK(window.control->board_bell.rings == 0);  // the other bell is the host's to ring
}

TEST_CASE("shm transport: a frame that fails its check ends the link") {
  Window window;
  FakeClock clock;
  ShmTransport transport(window.base, clock, kMessageKinds);
  Bytes body = frame_body(MessageKind::kHostCallReply, 1, 1, pattern(64, 4));
  body[20] ^= 0x10;  // one payload bit: the CRC no longer matches
  window.host_sends(body);
  window.host_sends(frame_body(MessageKind::kHostCallReply, 1, 2, pattern(64, 5)));
  Recorder recorder;
  CHECK(transport.receive(recorder, 64) == 0);
  CHECK(recorder.frames.empty());
  REQUIRE(recorder.bad.size() == 1);
  CHECK(recorder.bad[0] == FrameError::kCrc);
  REQUIRE(transport.failed());
  const rt::Status failure = transport.failure();
  CHECK(std::string(failure.c_str()).find("failed its check (crc mismatch") != std::string::npos);
  CHECK(transport.receive(recorder, 64) == 0);  // final: the good frame behind it is not delivered
  CHECK_FALSE(transport.send(message_header(MessageKind::kLog, 0, 1), {}).is_ok());
}

TEST_CASE("shm transport: a corrupt ring ends the link, naming what is wrong") {
  Window window;
  FakeClock clock;
  ShmTransport transport(window.base, clock, kMessageKinds);
  auto* indices = reinterpret_cast<ShmRingIndices*>(window.base + window.control->to_board.offset);
  indices->head.store(3 * uint64_t{window.control->to_board.capacity});  // more than a ring ahead
  Recorder recorder;
  CHECK(transport.receive(recorder, 64) == 0);
  REQUIRE(transport.failed());
  CHECK(std::string(transport.failure().c_str()).find("is impossible") != std::string::npos);
}

TEST_CASE("shm transport: a host that closed the window fails every wait at once") {
  Window window;
  FakeClock clock;
  ShmTransport transport(window.base, clock, kMessageKinds);
  CHECK_FALSE(transport.failed());
  set_shm_host_state(*window.control, ShmHostState::kClosed);
  REQUIRE(transport.failed());
  const rt::Status failure = transport.failure();
  CHECK(failure.code() == rt::StatusCode::kUnavailable);
  CHECK(std::string(failure.c_str()).find("host closed") != std::string::npos);
}

TEST_CASE("shm transport: a host that stops reading is a timeout naming the core, not a hang") {
  Window window;
  FakeClock clock;
  ShmTransport transport(window.base, clock, kMessageKinds);
  const Bytes payload = pattern(4000, 6);
  const rt::Span<const uint8_t> view(payload.data(), payload.size());
  rt::Status status;
  int sent = 0;
  while ((status = transport.send(message_header(MessageKind::kOutfeedData, 0, static_cast<uint32_t>(sent)), view)).is_ok()) ++sent;
  CHECK(sent * (payload.size() + 24) >= window.control->to_host.capacity / 2);  // the ring took what fits
  CHECK(status.code() == rt::StatusCode::kDeadlineExceeded);
  CHECK(std::string(status.c_str()).find("core 3") != std::string::npos);
  CHECK(clock.now >= kShmRoomTimeoutNs);
  CHECK_FALSE(transport.failed());  // a slow host is not a corrupt link: the next send may go through
  REQUIRE(window.to_host.peek().is_ok());
  window.to_host.release();
  CHECK(transport.send(message_header(MessageKind::kOutfeedData, 0, 99), view).is_ok());
}

TEST_CASE("shm transport: a core counts itself as waiting for room only while it waits, whichever way the wait ends") {
  Window window;
  FakeClock clock;
  ShmTransport transport(window.base, clock, kMessageKinds);
  const Bytes payload = pattern(4000, 7);
  const rt::Span<const uint8_t> view(payload.data(), payload.size());
  auto counted = [&window] { return __atomic_load_n(&window.control->cores_waiting_for_room, __ATOMIC_SEQ_CST); };
  std::vector<uint32_t> while_waiting;  // the count at each pause
  clock.on_idle = [&] { while_waiting.push_back(counted()); };
  uint32_t sequence = 0;
  auto fill = [&] {
    while (transport.send(message_header(MessageKind::kOutfeedData, 0, sequence++), view).is_ok()) {}
  };
  fill();  // until the host (who never reads) is a timeout
  CHECK(counted() == 0);
  REQUIRE(!while_waiting.empty());
  CHECK(while_waiting.front() == 1);
  CHECK(while_waiting.back() == 1);
  // The host takes a record during the wait: room, and the count gone with it.
  while_waiting.clear();
  clock.on_idle = [&] {
    while_waiting.push_back(counted());
    if (while_waiting.size() == 3 && window.to_host.peek().is_ok()) window.to_host.release();
  };
  CHECK(transport.send(message_header(MessageKind::kOutfeedData, 0, sequence++), view).is_ok());
  CHECK(while_waiting == std::vector<uint32_t>{1, 1, 1});
  CHECK(counted() == 0);
  // The host closes the window during the wait: the link's failure, and the count gone too.
  while_waiting.clear();
  clock.on_idle = [&] {
    while_waiting.push_back(counted());
    set_shm_host_state(*window.control, ShmHostState::kClosed);
  };
  CHECK(transport.send(message_header(MessageKind::kOutfeedData, 0, sequence++), view).code() ==
        rt::StatusCode::kUnavailable);
  CHECK(while_waiting == std::vector<uint32_t>{1});
  CHECK(counted() == 0);
}

TEST_CASE("shm transport: an infeed queue is withdrawn only once the host stopped writing into its slots",
          "[link][shm]") {
  Window window;
  FakeClock clock;
  ShmTransport transport(window.base, clock, kMessageKinds);
  alignas(64) uint8_t slots[2 * 64] = {};
  const size_t offsets[1] = {0};
  const uint64_t sizes[1] = {48};
  transport.publish_infeed({7, 2, slots, 64, rt::Span<const size_t>(offsets, 1), rt::Span<const uint64_t>(sizes, 1)});
  ShmInfeedTarget& target = window.control->infeed[0];
  REQUIRE(__atomic_load_n(&target.state, __ATOMIC_ACQUIRE) == 1);
  CHECK(target.queue == 7);
  CHECK(target.slot_bytes == 64);

  __atomic_store_n(&target.state, 2u, __ATOMIC_RELEASE);  // the host holds it: a tuple is being written
  int pauses = 0;
  bool host_done = false;
  clock.on_idle = [&] {
    if (++pauses == 3) {
      host_done = true;
      __atomic_store_n(&target.state, 1u, __ATOMIC_RELEASE);  // the host gives it back
    }
  };
  transport.withdraw_infeed(7);
  CHECK(host_done);  // it waited for the host
  CHECK(pauses == 3);
  CHECK(__atomic_load_n(&target.state, __ATOMIC_ACQUIRE) == 0);

  // A host that died holding it: taken back after kShmHostWritingTimeoutNs of board time.
  transport.publish_infeed({7, 2, slots, 64, rt::Span<const size_t>(offsets, 1), rt::Span<const uint64_t>(sizes, 1)});
  __atomic_store_n(&target.state, 2u, __ATOMIC_RELEASE);
  clock.on_idle = nullptr;
  const uint64_t start = clock.now;
  transport.withdraw_infeed(7);
  CHECK(__atomic_load_n(&target.state, __ATOMIC_ACQUIRE) == 0);
  CHECK(clock.now - start >= kShmHostWritingTimeoutNs);
}

}  // namespace
