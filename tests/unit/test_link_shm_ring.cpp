// The shared-memory link rings (runtime/link/transport/shm_ring.cpp), each part checked against a model written
// from the design in shm_ring.hpp, never against the code itself:
//   - plan_shm_window: a 16 MiB window gets an 8 MiB and a 4 MiB ring; every window size plans two
//     power-of-two rings inside the window, apart from each other and the control page, which
//     check_shm_control accepts; check_shm_control rejects each single corruption of a plan;
//   - one thread: 300k records of 0..max_body bytes written in 1-3 parts through an 8 KiB ring (so
//     wraparound and pad records are frequent), interleaved randomly with reads, once from position 0
//     and once across 2^32 (the header check uses the low 32 bits): every body, every record header,
//     pad record and zero padding in the window, both indices and every has_room answer equal a model
//     ring (a deque of bodies whose positions follow the record rules);
//   - each corruption the reader must catch (impossible head, torn, stale or altered header, too long
//     a record, a record past the published bytes or across the end, a short or doubled pad record)
//     is a fault that stays, and the writer refuses an impossible tail;
//   - fuzz: 200k rings of random bytes with planted headers and random indices: every peek equals a
//     model reader (nothing, the record at the model's offset, or a fault), spans stay in the data
//     area, and the data area ends the allocation, so under ASan a read past it would be reported;
//   - two threads: 200k numbered, checksummed records through a 16 KiB ring of a planned window.
// The attach checks at the end are bugs this file found (a restarted writer, unaligned indices in the
// window, a window too large for the control block's u32).
// Under AddressSanitizer the one-thread records and the fuzz's rings are a quarter as many, the same
// seeds (trials.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "runtime/link/transport/shm_ring.hpp"
#include "trials.hpp"

namespace {

using Bytes = std::vector<uint8_t>;
using namespace rt::link;

constexpr uint64_t kIndicesSize = 128;  // ShmRingIndices: head and tail, each on its own cache line
constexpr uint8_t kGuardByte = 0xA5;

std::string message(const rt::Status& status) { return std::string(status.message().data(), status.message().size()); }
bool mentions(const rt::Status& status, const std::string& part) { return message(status).find(part) != std::string::npos; }

rt::Span<const uint8_t> view(const Bytes& bytes, size_t from = 0, size_t to = ~size_t{0}) {
  to = std::min(to, bytes.size());
  return rt::Span<const uint8_t>(bytes.data() + from, to - from);
}

bool is_power_of_two(uint64_t value) { return value != 0 && (value & (value - 1)) == 0; }

// The record rules of shm_ring.hpp, restated: an 8-byte header, the body padded to a multiple of 8,
// at most half the ring, and a check word of length ^ key ^ the low 32 bits of the position.
uint64_t record_size(uint64_t body) { return 8 + (body + 7) / 8 * 8; }
uint64_t largest_body(uint32_t capacity) { return capacity / 2 - 8; }
uint32_t header_check(uint32_t length, uint64_t position) { return length ^ kRecordKey ^ static_cast<uint32_t>(position); }

void store_le32(uint8_t* at, uint32_t value) {
  for (int i = 0; i < 4; ++i) at[i] = static_cast<uint8_t>(value >> (8 * i));
}
uint32_t load_le32(const uint8_t* at) {
  return uint32_t{at[0]} | uint32_t{at[1]} << 8 | uint32_t{at[2]} << 16 | uint32_t{at[3]} << 24;
}
uint64_t load_le64(const uint8_t* at) { return uint64_t{load_le32(at)} | uint64_t{load_le32(at + 4)} << 32; }

uint64_t below(std::mt19937_64& rng, uint64_t bound) { return rng() % bound; }

Bytes random_bytes(std::mt19937_64& rng, size_t size) {
  Bytes bytes(size);
  for (size_t at = 0; at < size; at += 8) {
    const uint64_t word = rng();
    std::memcpy(bytes.data() + at, &word, std::min<size_t>(8, size - at));
  }
  return bytes;
}

// Mostly small bodies (many records, many pads), some of any size, some of the largest sizes.
uint64_t random_body_size(std::mt19937_64& rng, uint64_t max_body) {
  switch (below(rng, 8)) {
    case 0: return max_body - below(rng, 17);
    case 1:
    case 2: return below(rng, max_body + 1);
    case 3:
    case 4: return below(rng, 17);
    default: return below(rng, 400);
  }
}

// Memory laid out like the board's RAM: zeroed and 64-byte aligned (ShmRingIndices wants it).
class Window {
 public:
  explicit Window(size_t bytes) : lines_((bytes + 63) / 64) {}
  uint8_t* bytes() { return lines_.front().bytes; }
  size_t size() const { return lines_.size() * 64; }

 private:
  struct alignas(64) Line {
    uint8_t bytes[64];
  };
  std::vector<Line> lines_;
};

// One ring right after the control page, both indices at `start`, then `guard` bytes of kGuardByte
// (with no guard the data area ends the allocation: a read or write past it is an ASan report).
class TestRing {
 public:
  TestRing(uint32_t capacity, uint64_t start, size_t guard = 0)
      : window_(kShmControlBytes + kIndicesSize + capacity + guard), place_{kShmControlBytes, capacity}, guard_(guard) {
    std::fill(data() + capacity, data() + capacity + guard, kGuardByte);
    set_head(start);
    set_tail(start);
  }

  uint8_t* window() { return window_.bytes(); }
  const ShmRingPlace& place() const { return place_; }
  uint32_t capacity() const { return place_.capacity; }
  uint8_t* data() { return window() + place_.offset + kIndicesSize; }
  uint8_t* at(uint64_t position) { return data() + position % capacity(); }

  uint64_t head() { return load_le64(window() + place_.offset); }
  uint64_t tail() { return load_le64(window() + place_.offset + 64); }
  void set_head(uint64_t value) { indices().head.store(value); }
  void set_tail(uint64_t value) { indices().tail.store(value); }

  void put_header(uint64_t position, uint32_t length, uint32_t check) {
    store_le32(at(position), length);
    store_le32(at(position) + 4, check);
  }
  void put_valid_header(uint64_t position, uint32_t length) { put_header(position, length, header_check(length, position)); }
  uint32_t length_at(uint64_t position) { return load_le32(at(position)); }
  uint32_t check_at(uint64_t position) { return load_le32(at(position) + 4); }

  bool guard_intact() {
    return std::all_of(data() + capacity(), data() + capacity() + guard_, [](uint8_t byte) { return byte == kGuardByte; });
  }
  bool control_page_untouched() {
    return std::all_of(window(), window() + place_.offset, [](uint8_t byte) { return byte == 0; });
  }

 private:
  ShmRingIndices& indices() { return *reinterpret_cast<ShmRingIndices*>(window() + place_.offset); }

  Window window_;
  ShmRingPlace place_;
  size_t guard_;
};

// Writes `body` as one record cut into 1..3 parts at random places (parts may be empty).
void write_in_parts(ShmRingWriter& writer, const Bytes& body, std::mt19937_64& rng) {
  size_t first = below(rng, body.size() + 1), second = below(rng, body.size() + 1);
  if (first > second) std::swap(first, second);
  switch (below(rng, 3)) {
    case 0: writer.write(view(body)); break;
    case 1: writer.write(view(body, 0, first), view(body, first)); break;
    default: writer.write(view(body, 0, first), view(body, first, second), view(body, second)); break;
  }
}

// ---------------------------------------------------------------- window planning and checking

struct Extent {
  uint64_t begin, end;  // [offset, offset + indices + capacity)
};
Extent extent_of(const ShmRingPlace& place) { return {place.offset, uint64_t{place.offset} + kIndicesSize + place.capacity}; }

void require_sound_plan(const ShmControl& control, size_t window_bytes) {
  INFO("window of " << window_bytes << " bytes: to_board " << control.to_board.capacity << " at "
                    << control.to_board.offset << ", to_host " << control.to_host.capacity << " at "
                    << control.to_host.offset);
  REQUIRE(control.magic == kShmMagic);
  REQUIRE(control.version == kShmVersion);
  REQUIRE(control.window_bytes == window_bytes);
  for (const ShmRingPlace& place : {control.to_board, control.to_host}) {
    REQUIRE(place.offset >= kShmControlBytes);
    REQUIRE(place.offset % 64 == 0);
    REQUIRE(is_power_of_two(place.capacity));
    REQUIRE(place.capacity >= 8192);
    REQUIRE(extent_of(place).end <= window_bytes);
  }
  const Extent board = extent_of(control.to_board), host = extent_of(control.to_host);
  REQUIRE((board.end <= host.begin || host.end <= board.begin));
  REQUIRE(control.to_board.capacity >= control.to_host.capacity);
  REQUIRE(check_shm_control(control, window_bytes).is_ok());
}

TEST_CASE("a 16 MiB window gets an 8 MiB to-board ring and a 4 MiB to-host ring that check_shm_control accepts") {
  constexpr size_t kWindow = 16u << 20;
  const rt::Result<ShmControl> plan = plan_shm_window(kWindow);
  REQUIRE(plan.is_ok());
  require_sound_plan(*plan, kWindow);
  // The largest powers of two: two 8 MiB rings plus the control page exceed 16 MiB.
  CHECK(plan->to_board.capacity == 8u << 20);
  CHECK(plan->to_host.capacity == 4u << 20);
  CHECK(plan->board_state == static_cast<uint32_t>(ShmBoardState::kNotSeen));
  CHECK(plan->host_state == static_cast<uint32_t>(ShmHostState::kOpen));
}

TEST_CASE("every window size below 4 GiB either plans sound rings or is too small for two 8 KiB rings") {
  // Two 8 KiB rings with their indices after the control page need at least this many bytes.
  constexpr size_t kSmallestPossible = kShmControlBytes + 2 * (kIndicesSize + 8192);
  std::vector<size_t> sizes;
  for (size_t size = 0; size <= 96 * 1024; size += 8) sizes.push_back(size);
  std::mt19937_64 rng(0x5A11);
  for (int i = 0; i < 3000; ++i) sizes.push_back(96 * 1024 + below(rng, (uint64_t{1} << 32) - 96 * 1024));
  for (size_t size : {size_t{20863}, size_t{20864}, size_t{20865}, size_t{0xFFFFFFFF}, size_t{0xFFFFFFC0}})
    sizes.push_back(size);
  for (size_t size : sizes) {
    const rt::Result<ShmControl> plan = plan_shm_window(size);
    if (plan.is_ok()) {
      require_sound_plan(*plan, size);
    } else {
      INFO("window of " << size << " bytes: " << message(plan.status()));
      REQUIRE(plan.status().code() == rt::StatusCode::kInvalidArgument);
      REQUIRE(!message(plan.status()).empty());
      REQUIRE(size < 24 * 1024);  // 24 KiB holds two 8 KiB rings with room to spare
    }
    if (size < kSmallestPossible) REQUIRE_FALSE(plan.is_ok());
  }
}

TEST_CASE("a window too small for two 8 KiB rings is an error") {
  for (size_t size : {size_t{0}, size_t{64}, size_t{4096}, size_t{16384}, size_t{20735}}) {
    INFO("window of " << size << " bytes");
    const rt::Result<ShmControl> plan = plan_shm_window(size);
    REQUIRE_FALSE(plan.is_ok());
    CHECK(mentions(plan.status(), "too small"));
  }
}

TEST_CASE("check_shm_control rejects each single corruption of a plan and accepts other sound layouts") {
  constexpr size_t kWindow = 16u << 20;
  const rt::Result<ShmControl> planned = plan_shm_window(kWindow);
  REQUIRE(planned.is_ok());
  const ShmControl plan = *planned;
  REQUIRE(check_shm_control(plan, kWindow).is_ok());
  const uint32_t board_end = static_cast<uint32_t>(extent_of(plan.to_board).end);

  struct Corruption {
    const char* what;
    std::function<void(ShmControl&)> apply;
    const char* named;  // a word the message must contain
  };
  const std::vector<Corruption> corruptions = {
      {"magic with one bit flipped", [](ShmControl& c) { c.magic ^= 1; }, "magic"},
      {"no magic", [](ShmControl& c) { c.magic = 0; }, "magic"},
      {"version 1 (no doorbells)", [](ShmControl& c) { c.version = 1; }, "version"},
      {"version 2 (no host doorbell)", [](ShmControl& c) { c.version = 2; }, "version"},
      {"version 3 (no room waiters)", [](ShmControl& c) { c.version = 3; }, "version"},
      {"version 5", [](ShmControl& c) { c.version = 5; }, "version"},
      {"version 0", [](ShmControl& c) { c.version = 0; }, "version"},
      {"planned for a smaller window", [](ShmControl& c) { c.window_bytes -= 64; }, "window"},
      {"planned for a larger window", [](ShmControl& c) { c.window_bytes += 4096; }, "window"},
      {"to-board offset not 64-byte aligned", [](ShmControl& c) { c.to_board.offset += 8; }, "offset"},
      {"to-host offset not 64-byte aligned", [](ShmControl& c) { c.to_host.offset += 32; }, "offset"},
      {"to-board offset 0 (over the control page)", [](ShmControl& c) { c.to_board.offset = 0; }, "offset"},
      {"to-board offset inside the control page", [](ShmControl& c) { c.to_board.offset = kShmControlBytes - 64; },
       "offset"},
      {"to-host offset inside the control page", [](ShmControl& c) { c.to_host.offset = 64; }, "offset"},
      {"to-board capacity not a power of two", [](ShmControl& c) { c.to_board.capacity -= 4096; }, "capacity"},
      {"to-host capacity 3 MiB", [](ShmControl& c) { c.to_host.capacity = 3u << 20; }, "capacity"},
      {"to-host capacity 0", [](ShmControl& c) { c.to_host.capacity = 0; }, "capacity"},
      {"to-host capacity 2 KiB (a power of two below the minimum)", [](ShmControl& c) { c.to_host.capacity = 2048; },
       "capacity"},
      {"to-host ring ending 64 bytes past the window",
       [](ShmControl& c) { c.to_host.offset = static_cast<uint32_t>(kWindow - kIndicesSize - c.to_host.capacity + 64); },
       "fit"},
      {"to-host ring doubled past the window", [](ShmControl& c) { c.to_host.capacity *= 2; }, "fit"},
      {"to-board ring at the top of the 32-bit offsets", [](ShmControl& c) { c.to_board.offset = 0xFFFFFFC0u; }, "fit"},
      {"to-host indices over the end of the to-board data",
       [board_end](ShmControl& c) { c.to_host.offset = board_end - 64; }, "overlap"},
      {"both rings at the same offset", [](ShmControl& c) { c.to_host.offset = c.to_board.offset; }, "overlap"},
      {"to-host first, reaching into the to-board indices",
       [](ShmControl& c) {
         c.to_host.offset = kShmControlBytes;
         c.to_board.offset = kShmControlBytes + c.to_host.capacity;  // 128 bytes short of the to-host end
       },
       "overlap"},
  };
  for (const Corruption& corruption : corruptions) {
    ShmControl control = plan;
    corruption.apply(control);
    const rt::Status status = check_shm_control(control, kWindow);
    INFO(corruption.what << ": " << message(status));
    REQUIRE_FALSE(status.is_ok());
    CHECK(status.code() == rt::StatusCode::kInvalidArgument);
    CHECK(mentions(status, corruption.named));
  }

  SECTION("the board's window differs from the planned one") {
    CHECK_FALSE(check_shm_control(plan, kWindow - 64).is_ok());
    CHECK_FALSE(check_shm_control(plan, kWindow + 4096).is_ok());
  }
  SECTION("the to-host ring first and the to-board ring right after it is sound") {
    ShmControl control = plan;
    control.to_host.offset = kShmControlBytes;
    control.to_board.offset = static_cast<uint32_t>(extent_of(control.to_host).end);  // adjacent, 64-byte aligned
    REQUIRE(control.to_board.offset % 64 == 0);
    CHECK(check_shm_control(control, kWindow).is_ok());
  }
  SECTION("a ring ending exactly at the window's end is sound") {
    ShmControl control = plan;
    control.to_host.offset = static_cast<uint32_t>(kWindow - kIndicesSize - control.to_host.capacity);
    CHECK(check_shm_control(control, kWindow).is_ok());
  }
}

// ---------------------------------------------------------------- one thread against a model ring

// The ring as shm_ring.hpp describes it: the records in order with their positions (a record that
// does not fit before the end follows a pad record and starts at offset 0), and head/tail in bytes.
class ModelRing {
 public:
  struct Record {
    bool after_pad;
    uint64_t pad_at;  // where its pad record is, if after_pad
    uint64_t at;      // where its header is
    Bytes body;
  };

  ModelRing(uint32_t capacity, uint64_t start) : capacity_(capacity), head_(start), tail_(start) {}

  bool has_room(uint64_t body) const {
    const uint64_t free = capacity_ - (head_ - tail_);
    const uint64_t to_end = capacity_ - head_ % capacity_;
    const uint64_t size = record_size(body);
    if (size <= to_end) return size <= free;  // fits before the end of the data area
    return to_end + size <= free;             // a pad record fills the rest, the record starts at 0
  }

  const Record& write(Bytes body) {
    const uint64_t to_end = capacity_ - head_ % capacity_;
    const uint64_t size = record_size(body.size());
    Record record{size > to_end, head_, 0, std::move(body)};
    if (record.after_pad) head_ += to_end;
    record.at = head_;
    head_ += size;
    records_.push_back(std::move(record));
    return records_.back();
  }

  bool empty() const { return records_.empty(); }
  const Record& front() const { return records_.front(); }
  void release() {
    tail_ = records_.front().at + record_size(records_.front().body.size());
    records_.pop_front();
  }
  uint64_t head() const { return head_; }
  uint64_t tail() const { return tail_; }

 private:
  uint32_t capacity_;
  uint64_t head_, tail_;
  std::deque<Record> records_;
};

// The window holds what the model says was written: the pad record, the header, the body, zeros.
void require_record_in_window(TestRing& ring, const ModelRing::Record& record) {
  if (record.after_pad) {
    REQUIRE(ring.length_at(record.pad_at) == kPadLength);
    REQUIRE(ring.check_at(record.pad_at) == header_check(kPadLength, record.pad_at));
    REQUIRE(record.at % ring.capacity() == 0);
  }
  const uint32_t length = static_cast<uint32_t>(record.body.size());
  REQUIRE(record.at % ring.capacity() + record_size(length) <= ring.capacity());
  REQUIRE(ring.length_at(record.at) == length);
  REQUIRE(ring.check_at(record.at) == header_check(length, record.at));
  const uint8_t* body = ring.at(record.at) + 8;
  REQUIRE(std::equal(record.body.begin(), record.body.end(), body));
  for (size_t i = length; i % 8 != 0; ++i) REQUIRE(body[i] == 0);
}

struct RoundTripCounts {
  uint64_t pads = 0, refusals = 0, empty_peeks = 0, empty_bodies = 0;
};

RoundTripCounts round_trip(uint64_t start, uint64_t records, uint64_t seed) {
  constexpr uint32_t kCapacity = 8192;
  TestRing ring(kCapacity, start, /*guard=*/64);
  ShmRingWriter writer;
  writer.attach(ring.window(), ring.place());
  ShmRingReader reader;
  reader.attach(ring.window(), ring.place());
  ModelRing model(kCapacity, start);
  std::mt19937_64 rng(seed);
  const uint64_t max_body = largest_body(kCapacity);
  REQUIRE(writer.max_body() == max_body);

  RoundTripCounts counts;
  uint64_t written = 0, read = 0, write_percent = 50;
  while (read < records) {
    if (below(rng, 400) == 0) write_percent = std::vector<uint64_t>{10, 50, 90}[below(rng, 3)];
    if (written < records && below(rng, 100) < write_percent) {
      const uint64_t probe = random_body_size(rng, max_body);  // an answer for a size not written
      const rt::Result<bool> probe_room = writer.has_room(probe);
      REQUIRE(probe_room.is_ok());
      REQUIRE(*probe_room == model.has_room(probe));
      const uint64_t size = random_body_size(rng, max_body);
      const rt::Result<bool> room = writer.has_room(size);
      INFO("record " << written << ": " << size << " bytes, head " << model.head() << ", tail " << model.tail());
      REQUIRE(room.is_ok());
      REQUIRE(*room == model.has_room(size));
      if (!*room) {
        ++counts.refusals;
        continue;
      }
      Bytes body = random_bytes(rng, size);
      write_in_parts(writer, body, rng);
      const ModelRing::Record& record = model.write(std::move(body));
      counts.pads += record.after_pad;
      counts.empty_bodies += size == 0;
      REQUIRE(ring.head() == model.head());
      require_record_in_window(ring, record);
      ++written;
    } else {
      const rt::Result<rt::Span<const uint8_t>> got = reader.peek();
      REQUIRE(got.is_ok());
      if (model.empty()) {
        REQUIRE(got->empty());
        ++counts.empty_peeks;
        continue;
      }
      const ModelRing::Record& expected = model.front();
      INFO("record " << read << " at " << expected.at << ": " << expected.body.size() << " bytes");
      // The data pointer tells a 0-byte record from "nothing published" (both are empty spans).
      REQUIRE(got->data() == ring.at(expected.at) + 8);
      REQUIRE(got->size() == expected.body.size());
      REQUIRE(std::equal(got->begin(), got->end(), expected.body.begin()));
      if (below(rng, 8) == 0) {  // peeking again without release gives the same record
        const rt::Result<rt::Span<const uint8_t>> again = reader.peek();
        REQUIRE(again.is_ok());
        REQUIRE(again->data() == got->data());
        REQUIRE(again->size() == got->size());
      }
      reader.release();
      model.release();
      ++read;
      REQUIRE(ring.tail() == model.tail());
      REQUIRE(reader.released() == model.tail());
    }
  }
  REQUIRE_FALSE(reader.faulted());
  REQUIRE(ring.guard_intact());
  REQUIRE(ring.control_page_untouched());
  return counts;
}

TEST_CASE("one thread: 300k records through an 8 KiB ring equal a model ring, byte for byte and answer for answer") {
  const uint64_t across_2_32 = (uint64_t{1} << 32) - 20000;  // mid-ring, crosses 2^32 within a few records
  for (uint64_t start : {uint64_t{0}, across_2_32}) {
    INFO("starting at position " << start);
    const RoundTripCounts counts = round_trip(start, unit_tests::trials(150000), 0xC0FFEE + start);
    // The run exercised what it is meant to: wraparound behind pad records, a full ring, an empty
    // ring and empty bodies.
    CHECK(counts.pads > 1000);
    CHECK(counts.refusals > 1000);
    CHECK(counts.empty_peeks > 1000);
    CHECK(counts.empty_bodies > 1000);
  }
}

TEST_CASE("has_room refuses a body larger than max_body, and a largest record fits an empty ring at any position") {
  constexpr uint32_t kCapacity = 8192;
  for (uint64_t start = 0; start < 2 * kCapacity; start += 8) {
    TestRing ring(kCapacity, start);
    ShmRingWriter writer;
    writer.attach(ring.window(), ring.place());
    INFO("at position " << start);
    const rt::Result<bool> too_big = writer.has_room(largest_body(kCapacity) + 1);
    REQUIRE_FALSE(too_big.is_ok());
    const rt::Result<bool> largest = writer.has_room(largest_body(kCapacity));
    REQUIRE(largest.is_ok());
    REQUIRE(*largest);
  }
}

// ---------------------------------------------------------------- corruption

// A peek that faults, naming `reason`; faulted() says so and the next peek repeats the same fault.
void require_sticky_fault(ShmRingReader& reader, const std::string& reason) {
  const rt::Result<rt::Span<const uint8_t>> first = reader.peek();
  REQUIRE_FALSE(first.is_ok());
  INFO("fault: " << message(first.status()));
  CHECK(mentions(first.status(), reason));
  REQUIRE(reader.faulted());
  const rt::Result<rt::Span<const uint8_t>> again = reader.peek();
  REQUIRE_FALSE(again.is_ok());
  REQUIRE(message(again.status()) == message(first.status()));
}

ShmRingReader attached_reader(TestRing& ring) {
  ShmRingReader reader;
  reader.attach(ring.window(), ring.place());
  return reader;
}

// An 8 KiB ring (its data area ends the allocation) into which a writer put records of 100, 200 and
// 50 bytes from `kStart`, the first of them released: a reader attached now gets the 200-byte one.
struct ThreeRecords {
  static constexpr uint32_t kCapacity = 8192;
  static constexpr uint64_t kStart = 5 * kCapacity + 1000;
  static constexpr uint64_t kTail = kStart + 8 + 104;         // the second record
  static constexpr uint64_t kHead = kTail + 8 + 200 + 8 + 56;  // after the third

  ThreeRecords() : ring(kCapacity, kStart) {
    ShmRingWriter writer;
    writer.attach(ring.window(), ring.place());
    std::mt19937_64 rng(3);
    for (size_t size : {100, 200, 50}) {
      bodies.push_back(random_bytes(rng, size));
      const rt::Result<bool> room = writer.has_room(size);
      REQUIRE((room.is_ok() && *room));
      writer.write(view(bodies.back()));
    }
    ShmRingReader reader = attached_reader(ring);
    const rt::Result<rt::Span<const uint8_t>> first = reader.peek();
    REQUIRE((first.is_ok() && first->size() == 100));
    reader.release();
    REQUIRE(ring.tail() == kTail);
    REQUIRE(ring.head() == kHead);
  }

  // The state the cases corrupt is sound: a fresh reader gets the second record.
  void require_second_record_readable() {
    ShmRingReader reader = attached_reader(ring);
    const rt::Result<rt::Span<const uint8_t>> got = reader.peek();
    REQUIRE(got.is_ok());
    REQUIRE(Bytes(got->begin(), got->end()) == bodies[1]);
  }

  TestRing ring;
  std::vector<Bytes> bodies;
};

TEST_CASE("the reader faults, and keeps faulting, on each corruption of the indices or of a record") {
  ThreeRecords fixture;
  TestRing& ring = fixture.ring;
  constexpr uint64_t kTail = ThreeRecords::kTail, kCapacity = ThreeRecords::kCapacity;
  fixture.require_second_record_readable();

  SECTION("head more than a ring ahead of tail") {
    ring.set_head(kTail + kCapacity + 8);
    ShmRingReader reader = attached_reader(ring);
    require_sticky_fault(reader, "impossible");
    ring.set_head(ThreeRecords::kHead);  // sound again: the fault stays
    require_sticky_fault(reader, "impossible");
  }
  SECTION("head far ahead of tail") {
    ring.set_head(kTail + (uint64_t{1} << 40));
    ShmRingReader reader = attached_reader(ring);
    require_sticky_fault(reader, "impossible");
  }
  SECTION("head behind tail") {
    ring.set_head(kTail - 8);
    ShmRingReader reader = attached_reader(ring);
    require_sticky_fault(reader, "impossible");
  }
  SECTION("head not a multiple of 8") {
    ring.set_head(ThreeRecords::kHead + 4);
    ShmRingReader reader = attached_reader(ring);
    require_sticky_fault(reader, "impossible");
  }
  SECTION("head moved behind tail after a record was read") {
    ShmRingReader reader = attached_reader(ring);
    const rt::Result<rt::Span<const uint8_t>> second = reader.peek();
    REQUIRE(second.is_ok());
    reader.release();
    ring.set_head(kTail);  // behind the reader's released position now
    require_sticky_fault(reader, "impossible");
  }
  SECTION("a header zeroed after publishing (a torn write)") {
    ring.put_header(kTail, 0, 0);
    ShmRingReader reader = attached_reader(ring);
    require_sticky_fault(reader, "bad header");
  }
  SECTION("a header left from the previous lap of the ring") {
    ring.put_header(kTail, 200, header_check(200, kTail - kCapacity));
    ShmRingReader reader = attached_reader(ring);
    require_sticky_fault(reader, "bad header");
  }
  SECTION("a length changed after the check was written") {
    ring.put_header(kTail, 200 ^ 0x10, header_check(200, kTail));
    ShmRingReader reader = attached_reader(ring);
    require_sticky_fault(reader, "bad header");
  }
  SECTION("a length one over the largest body, with the whole ring published") {
    ring.put_valid_header(kTail, static_cast<uint32_t>(largest_body(kCapacity) + 1));
    ring.set_head(kTail + kCapacity);
    ShmRingReader reader = attached_reader(ring);
    require_sticky_fault(reader, "at most");
  }
  SECTION("a length just under the pad marker") {
    ring.put_valid_header(kTail, kPadLength - 1);
    ring.set_head(kTail + kCapacity);
    ShmRingReader reader = attached_reader(ring);
    require_sticky_fault(reader, "at most");
  }
  SECTION("a record longer than the bytes published") {
    ring.set_head(kTail + 200);  // the record takes 8 + 200
    ShmRingReader reader = attached_reader(ring);
    require_sticky_fault(reader, "are published");
  }
  SECTION("a pad record with fewer bytes published than remain to the end") {
    ring.put_valid_header(kTail, kPadLength);  // covers 8192 - 1112 bytes, 336 are published
    ShmRingReader reader = attached_reader(ring);
    require_sticky_fault(reader, "pad record");
  }
}

// A reader positioned 64 bytes before the end of an 8 KiB data area (which ends the allocation).
constexpr uint32_t kEndCapacity = 8192;
constexpr uint64_t kNearEnd = 7 * kEndCapacity - 64;

TEST_CASE("at the end of the data area: a pad then a record is read, a record across the end or a second pad faults") {
  TestRing ring(kEndCapacity, kNearEnd);
  SECTION("a pad record, then a record at offset 0 (hand-built: the encoding the fault cases use is right)") {
    ring.put_valid_header(kNearEnd, kPadLength);
    ring.put_valid_header(kNearEnd + 64, 5);
    std::memcpy(ring.at(0) + 8, "hello", 5);
    ring.set_head(kNearEnd + 64 + 16);
    ShmRingReader reader = attached_reader(ring);
    const rt::Result<rt::Span<const uint8_t>> got = reader.peek();
    REQUIRE(got.is_ok());
    REQUIRE(std::string(got->begin(), got->end()) == "hello");
    reader.release();
    CHECK(ring.tail() == kNearEnd + 64 + 16);
    const rt::Result<rt::Span<const uint8_t>> none = reader.peek();
    REQUIRE(none.is_ok());
    CHECK(none->empty());
  }
  SECTION("a record of exactly the bytes left before the end") {
    ring.put_valid_header(kNearEnd, 56);
    ring.set_head(kNearEnd + 64);
    ShmRingReader reader = attached_reader(ring);
    const rt::Result<rt::Span<const uint8_t>> got = reader.peek();
    REQUIRE(got.is_ok());
    CHECK(got->data() == ring.at(kNearEnd) + 8);
    CHECK(got->size() == 56);
  }
  SECTION("a record crossing the end") {
    ring.put_valid_header(kNearEnd, 100);
    ring.set_head(kNearEnd + 112);
    ShmRingReader reader = attached_reader(ring);
    require_sticky_fault(reader, "crosses the end");
  }
  SECTION("a record one byte too long to fit before the end") {
    ring.put_valid_header(kNearEnd, 57);
    ring.set_head(kNearEnd + 128);
    ShmRingReader reader = attached_reader(ring);
    require_sticky_fault(reader, "crosses the end");
  }
  SECTION("a pad record followed by a second pad record at offset 0") {
    ring.put_valid_header(kNearEnd, kPadLength);
    ring.put_valid_header(kNearEnd + 64, kPadLength);
    ring.set_head(kNearEnd + 64 + 200);
    ShmRingReader reader = attached_reader(ring);
    require_sticky_fault(reader, "pad record");
  }
  SECTION("a pad record published without the record after it is nothing to read yet") {
    ring.put_valid_header(kNearEnd, kPadLength);
    ring.set_head(kNearEnd + 64);
    ShmRingReader reader = attached_reader(ring);
    const rt::Result<rt::Span<const uint8_t>> got = reader.peek();
    REQUIRE(got.is_ok());
    CHECK(got->empty());
    CHECK_FALSE(reader.faulted());
  }
}

TEST_CASE("the writer's has_room is a fault when the reader's tail is impossible") {
  constexpr uint32_t kCapacity = 8192;
  constexpr uint64_t kStart = 10 * kCapacity;
  TestRing ring(kCapacity, kStart);
  ShmRingWriter writer;
  writer.attach(ring.window(), ring.place());
  const Bytes largest(largest_body(kCapacity), 0x42);
  for (int i = 0; i < 2; ++i) {
    const rt::Result<bool> room = writer.has_room(largest.size());
    REQUIRE((room.is_ok() && *room));
    writer.write(view(largest));
  }
  const uint64_t head = kStart + kCapacity;
  REQUIRE(ring.head() == head);
  const rt::Result<bool> full = writer.has_room(0);
  REQUIRE(full.is_ok());
  REQUIRE_FALSE(*full);

  SECTION("tail ahead of head") {
    ring.set_tail(head + 8);
    const rt::Result<bool> room = writer.has_room(0);
    REQUIRE_FALSE(room.is_ok());
    CHECK(mentions(room.status(), "impossible"));
  }
  SECTION("tail more than a ring behind head") {
    ring.set_tail(head - kCapacity - 8);
    const rt::Result<bool> room = writer.has_room(0);
    REQUIRE_FALSE(room.is_ok());
    CHECK(mentions(room.status(), "impossible"));
  }
  SECTION("a sound tail (control): one record released makes room for one largest record") {
    ring.set_tail(kStart + kCapacity / 2);
    const rt::Result<bool> room = writer.has_room(largest.size());
    REQUIRE(room.is_ok());
    CHECK(*room);
    const rt::Result<bool> more = writer.has_room(largest.size() + 1);
    CHECK_FALSE(more.is_ok());  // over max_body
  }
}

// ---------------------------------------------------------------- fuzz

// What a reader must make of a ring, from shm_ring.hpp: nothing, a record, or a fault.
struct ExpectedPeek {
  enum Kind { kNothing, kRecord, kFault } kind;
  uint64_t tail = 0;    // the reader's position after skipping pad records
  uint64_t offset = 0;  // of the body in the data area
  uint64_t length = 0;
};

ExpectedPeek expected_peek(const uint8_t* data, uint32_t capacity, uint64_t tail, uint64_t head) {
  const ExpectedPeek fault{ExpectedPeek::kFault};
  if (head < tail || head - tail > capacity || head % 8 != 0) return fault;
  for (;;) {
    if (head == tail) return {ExpectedPeek::kNothing, tail};
    const uint64_t at = tail % capacity;
    const uint32_t length = load_le32(data + at), check = load_le32(data + at + 4);
    if (check != header_check(length, tail)) return fault;
    if (length == kPadLength) {
      if (capacity - at > head - tail) return fault;  // the pad claims more than is published
      tail += capacity - at;
      continue;  // a second pad at offset 0 covers the whole ring: more than can be published
    }
    const uint64_t size = record_size(length);
    if (length > largest_body(capacity) || size > head - tail || at + size > capacity) return fault;
    return {ExpectedPeek::kRecord, tail, at + 8, length};
  }
}

uint64_t random_tail(std::mt19937_64& rng) {
  switch (below(rng, 4)) {
    case 0: return below(rng, 1 << 20) * 8;
    case 1: return ((uint64_t{1} << 32) - below(rng, 1 << 16)) & ~uint64_t{7};  // around 2^32
    case 2: return rng() & ~uint64_t{7};
    default: return below(rng, uint64_t{1} << 45) * 8;
  }
}

uint32_t random_length(std::mt19937_64& rng, uint64_t to_end, uint32_t capacity) {
  const uint64_t largest = largest_body(capacity);
  switch (below(rng, 10)) {
    case 0:
    case 1: return kPadLength;
    case 2: return static_cast<uint32_t>(below(rng, 33));
    case 3: return static_cast<uint32_t>(below(rng, largest + 1));
    case 4: return static_cast<uint32_t>(largest - below(rng, 8));
    case 5: return static_cast<uint32_t>(largest + 1 + below(rng, 8));
    case 6: return static_cast<uint32_t>(to_end - 8);                   // ends exactly at the end
    case 7: return static_cast<uint32_t>(to_end - 8 + 1 + below(rng, 8));  // just crosses it
    case 8: return static_cast<uint32_t>(rng());
    default: return static_cast<uint32_t>(below(rng, 300));
  }
}

uint64_t random_head(std::mt19937_64& rng, uint64_t tail, uint64_t chain_end, uint32_t capacity) {
  switch (below(rng, 10)) {
    case 0:
    case 1:
    case 2: return chain_end;
    case 3: return chain_end + 8 * below(rng, 3) - 8;
    case 4: return tail;
    case 5: return tail + (below(rng, capacity + 1) & ~uint64_t{7});
    case 6: return tail + below(rng, capacity + 64);  // may be unaligned or too far
    case 7: return tail + capacity + 8 * below(rng, 2);
    case 8: return tail - 8 * (1 + below(rng, 4));
    default: return rng();
  }
}

TEST_CASE("fuzz: 200k rings of random bytes and random indices: each peek is nothing, an in-bounds record, or a fault") {
  constexpr uint32_t kCapacity = 8192;
  TestRing ring(kCapacity, 0);  // the data area ends the allocation
  std::mt19937_64 rng(0xF022);
  const Bytes noise = random_bytes(rng, kCapacity);
  std::memcpy(ring.data(), noise.data(), kCapacity);
  const uint8_t* const data_begin = ring.data();
  const uint8_t* const data_end = ring.data() + kCapacity;
  uint64_t records = 0, nothing = 0, faults = 0;

  const uint64_t iterations = unit_tests::trials(200000);
  for (uint64_t iteration = 0; iteration < iterations; ++iteration) {
    for (int i = 0; i < 4; ++i) {  // fresh garbage
      const uint64_t word = rng();
      std::memcpy(ring.data() + below(rng, kCapacity / 8) * 8, &word, 8);
    }
    // A chain of up to 4 headers from the tail, most with a valid check, so the reader gets past it.
    const uint64_t tail = random_tail(rng);
    uint64_t chain_end = tail;
    for (uint64_t planted = below(rng, 5); planted > 0; --planted) {
      const uint64_t to_end = kCapacity - chain_end % kCapacity;
      const uint32_t length = random_length(rng, to_end, kCapacity);
      const uint32_t check = below(rng, 12) == 0 ? static_cast<uint32_t>(rng()) : header_check(length, chain_end);
      ring.put_header(chain_end, length, check);
      if (length == kPadLength) {
        chain_end += to_end;
      } else {
        chain_end += record_size(length);
        if (record_size(length) > to_end) break;
      }
    }
    const uint64_t head = random_head(rng, tail, chain_end, kCapacity);
    ring.set_head(head);
    ring.set_tail(tail);
    ShmRingReader reader = attached_reader(ring);

    uint64_t model_tail = tail;
    for (int step = 0; step < 6; ++step) {
      const ExpectedPeek expected = expected_peek(ring.data(), kCapacity, model_tail, head);
      const rt::Result<rt::Span<const uint8_t>> got = reader.peek();
      INFO("iteration " << iteration << ", step " << step << ": tail " << model_tail << ", head " << head);
      if (got.is_ok() && !got->empty()) {  // whatever the model says: never a span outside the data area
        REQUIRE(got->data() >= data_begin);
        REQUIRE(got->data() + got->size() <= data_end);
      }
      if (expected.kind == ExpectedPeek::kFault) {
        REQUIRE_FALSE(got.is_ok());
        REQUIRE(reader.faulted());
        const rt::Result<rt::Span<const uint8_t>> again = reader.peek();
        REQUIRE_FALSE(again.is_ok());
        REQUIRE(message(again.status()) == message(got.status()));
        ++faults;
        break;
      }
      REQUIRE(got.is_ok());
      if (expected.kind == ExpectedPeek::kNothing) {
        REQUIRE(got->empty());
        REQUIRE(ring.tail() == expected.tail);  // pad records skipped are released
        ++nothing;
        break;
      }
      REQUIRE(got->data() == ring.data() + expected.offset);
      REQUIRE(got->size() == expected.length);
      reader.release();
      model_tail = expected.tail + record_size(expected.length);
      REQUIRE(ring.tail() == model_tail);
      ++records;
    }
  }
  // Each outcome happened often enough for the comparison to mean something.
  CHECK(records > iterations / 10);
  CHECK(nothing > iterations / 10);
  CHECK(faults > iterations / 10);
}

// ---------------------------------------------------------------- two threads

// Record `sequence` of the threaded test: u64 sequence | u32 FNV-1a of the payload | payload, the
// payload's size and bytes a function of the sequence number so the consumer can rebuild it.
constexpr size_t kRecordPrefix = 12;

uint64_t mix(uint64_t value) {
  value ^= value >> 33;
  value *= 0xFF51AFD7ED558CCDull;
  value ^= value >> 33;
  value *= 0xC4CEB9FE1A85EC53ull;
  return value ^ (value >> 33);
}

size_t payload_size(uint64_t sequence, uint64_t max_payload) {
  const uint64_t random = mix(sequence * 2 + 1);
  switch (random % 10) {
    case 0: return (random >> 8) % (max_payload + 1);
    case 1:
    case 2:
    case 3: return (random >> 8) % 1024;
    default: return (random >> 8) % 128;
  }
}

void fill_payload(uint64_t sequence, uint8_t* out, size_t size) {
  uint64_t state = mix(sequence * 2 + 2) | 1;
  for (size_t at = 0; at < size; at += 8) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    std::memcpy(out + at, &state, std::min<size_t>(8, size - at));
  }
}

uint32_t fnv1a(const uint8_t* bytes, size_t size) {
  uint32_t hash = 2166136261u;
  for (size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * 16777619u;
  return hash;
}

TEST_CASE("two threads: 200k numbered, checksummed records cross a ring of a planned window in order and intact") {
  constexpr size_t kWindowBytes = 40 * 1024;
  constexpr uint64_t kRecords = 200000;
  const rt::Result<ShmControl> plan = plan_shm_window(kWindowBytes);
  REQUIRE(plan.is_ok());
  require_sound_plan(*plan, kWindowBytes);
  Window window(kWindowBytes);
  std::memcpy(window.bytes(), &*plan, sizeof(ShmControl));
  REQUIRE(check_shm_control(*reinterpret_cast<const ShmControl*>(window.bytes()), kWindowBytes).is_ok());
  const ShmRingPlace place = plan->to_board;
  const uint64_t max_payload = largest_body(place.capacity) - kRecordPrefix;
  // The other ring must come through untouched.
  const Extent other = extent_of(plan->to_host);
  std::fill(window.bytes() + other.begin, window.bytes() + other.end, uint8_t{0x5A});

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  std::atomic<bool> give_up{false};
  std::string producer_error, consumer_error;  // each written by its thread only, read after join
  uint64_t full_waits = 0, empty_waits = 0, received = 0;

  std::thread producer([&] {
    ShmRingWriter writer;
    writer.attach(window.bytes(), place);
    Bytes body;
    for (uint64_t sequence = 0; sequence < kRecords; ++sequence) {
      const size_t payload = payload_size(sequence, max_payload);
      body.resize(kRecordPrefix + payload);
      fill_payload(sequence, body.data() + kRecordPrefix, payload);
      const uint32_t checksum = fnv1a(body.data() + kRecordPrefix, payload);
      std::memcpy(body.data(), &sequence, 8);
      std::memcpy(body.data() + 8, &checksum, 4);
      for (;;) {
        const rt::Result<bool> room = writer.has_room(body.size());
        if (!room.is_ok()) {
          producer_error = "has_room: " + message(room.status());
          give_up = true;
          return;
        }
        if (*room) break;
        ++full_waits;
        if (give_up || std::chrono::steady_clock::now() > deadline) {
          producer_error = "gave up waiting for room at record " + std::to_string(sequence);
          give_up = true;
          return;
        }
        std::this_thread::yield();
      }
      const size_t cut = kRecordPrefix + sequence % (payload + 1);
      writer.write(view(body, 0, kRecordPrefix), view(body, kRecordPrefix, cut), view(body, cut));
    }
  });

  std::thread consumer([&] {
    ShmRingReader reader;
    reader.attach(window.bytes(), place);
    Bytes expected;
    while (received < kRecords) {
      const rt::Result<rt::Span<const uint8_t>> got = reader.peek();
      if (!got.is_ok()) {
        consumer_error = "peek: " + message(got.status());
        give_up = true;
        return;
      }
      if (got->empty()) {  // every record has at least kRecordPrefix bytes: nothing published yet
        ++empty_waits;
        if (give_up || std::chrono::steady_clock::now() > deadline) {
          consumer_error = "gave up waiting for record " + std::to_string(received);
          give_up = true;
          return;
        }
        std::this_thread::yield();
        continue;
      }
      const std::string where = "record " + std::to_string(received) + ": ";
      const size_t payload = payload_size(received, max_payload);
      if (got->size() != kRecordPrefix + payload) {
        consumer_error = where + std::to_string(got->size()) + " bytes, expected " + std::to_string(kRecordPrefix + payload);
        give_up = true;
        return;
      }
      uint64_t sequence;
      uint32_t checksum;
      std::memcpy(&sequence, got->data(), 8);
      std::memcpy(&checksum, got->data() + 8, 4);
      expected.resize(payload);
      fill_payload(received, expected.data(), payload);
      if (sequence != received) {
        consumer_error = where + "sequence number " + std::to_string(sequence);
      } else if (checksum != fnv1a(got->data() + kRecordPrefix, payload)) {
        consumer_error = where + "checksum does not match the payload";
      } else if (!std::equal(expected.begin(), expected.end(), got->data() + kRecordPrefix)) {
        consumer_error = where + "payload differs from what was sent";
      }
      if (!consumer_error.empty()) {
        give_up = true;
        return;
      }
      reader.release();
      ++received;
    }
  });

  producer.join();
  consumer.join();
  INFO("producer waited for room " << full_waits << " times, consumer for records " << empty_waits << " times");
  REQUIRE(producer_error == "");
  REQUIRE(consumer_error == "");
  REQUIRE(received == kRecords);
  CHECK(std::all_of(window.bytes() + other.begin, window.bytes() + other.end, [](uint8_t byte) { return byte == 0x5A; }));
  CHECK(std::memcmp(window.bytes(), &*plan, sizeof(ShmControl)) == 0);
}

// ---------------------------------------------------------------- attach checks (bugs found while writing this file)

// A writer that attaches to a ring with unread records (a restarted producer) must load the
// reader's tail before it believes there is room.
TEST_CASE("a writer attached to a full ring sees it full and overwrites nothing") {
  constexpr uint32_t kCapacity = 8192;
  TestRing ring(kCapacity, 0);
  const Bytes largest(largest_body(kCapacity), 0x11);
  {
    ShmRingWriter first;
    first.attach(ring.window(), ring.place());
    for (int i = 0; i < 2; ++i) first.write(view(largest));
    const rt::Result<bool> full = first.has_room(0);
    REQUIRE((full.is_ok() && !*full));
  }
  ShmRingWriter second;  // takes over the same ring: both records are still unread
  second.attach(ring.window(), ring.place());
  const rt::Result<bool> room = second.has_room(0);
  REQUIRE(room.is_ok());
  CHECK_FALSE(*room);
  ShmRingReader reader = attached_reader(ring);
  const rt::Result<rt::Span<const uint8_t>> got = reader.peek();
  REQUIRE(got.is_ok());
  CHECK(Bytes(got->begin(), got->end()) == largest);
}

// Garbage in the window: a head that is not a multiple of 8 is a fault, never a pad header written
// past the data area.
TEST_CASE("a writer attached at a head that is not a multiple of 8 faults and writes nothing") {
  constexpr uint32_t kCapacity = 8192;
  TestRing ring(kCapacity, kCapacity - 4, /*guard=*/64);
  ShmRingWriter writer;
  writer.attach(ring.window(), ring.place());
  const rt::Result<bool> room = writer.has_room(8);
  CHECK_FALSE(room.is_ok());
  CHECK(ring.guard_intact());
}

// The reader's own tail taken from the window must be 8-byte aligned too: here the 4 bytes after the
// area are set so that a half-outside header would pass its check.
TEST_CASE("a reader attached at a tail that is not a multiple of 8 faults instead of reading past the area") {
  constexpr uint32_t kCapacity = 8192;
  constexpr uint64_t kTail = 2 * kCapacity - 4;
  TestRing ring(kCapacity, kTail, /*guard=*/64);
  ring.set_head(kTail + 4);  // a multiple of 8, 4 bytes published
  store_le32(ring.data() + kCapacity - 4, kPadLength);
  store_le32(ring.data() + kCapacity, header_check(kPadLength, kTail));  // outside the data area
  ShmRingReader reader = attached_reader(ring);
  const rt::Result<rt::Span<const uint8_t>> got = reader.peek();
  CHECK_FALSE(got.is_ok());
}

// window_bytes is a u32 in the control block: a window of 4 GiB or more is refused, not truncated.
TEST_CASE("a window of 4 GiB or more is refused") {
  CHECK_FALSE(plan_shm_window(size_t{5} << 30).is_ok());
  CHECK_FALSE(plan_shm_window(size_t{4} << 30).is_ok());
  CHECK(plan_shm_window((size_t{4} << 30) - 4096).is_ok());
}

}  // namespace
