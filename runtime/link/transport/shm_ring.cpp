// Shared-memory link rings (design and memory ordering in shm_ring.hpp): window planning and
// checking, the record writer and the checking record reader.
#include "shm_ring.hpp"

namespace rt::link {
namespace {

constexpr uint32_t kMinRingBytes = 4096;
constexpr uint32_t kIndicesBytes = sizeof(ShmRingIndices);

bool is_power_of_two(uint64_t value) { return value != 0 && (value & (value - 1)) == 0; }

uint64_t floor_power_of_two(uint64_t value) {
  uint64_t power = 1;
  while (power * 2 <= value) power *= 2;
  return value == 0 ? 0 : power;
}

uint64_t align_up(uint64_t value, uint64_t alignment) { return (value + alignment - 1) & ~(alignment - 1); }

uint32_t record_check(uint32_t length, uint64_t position) {
  return length ^ kRecordKey ^ static_cast<uint32_t>(position);
}

Status check_place(const ShmRingPlace& place, const char* name, size_t window_bytes) {
  if (place.offset < kShmControlBytes || place.offset % 64 != 0)
    return invalid_argument("shared-memory link: the {} ring's offset {} is not a 64-byte aligned offset after the "
                            "control block",
                            name, place.offset);
  if (!is_power_of_two(place.capacity) || place.capacity < kMinRingBytes)
    return invalid_argument("shared-memory link: the {} ring's capacity {} is not a power of two of at least {} bytes",
                            name, place.capacity, kMinRingBytes);
  if (uint64_t{place.offset} + kIndicesBytes + place.capacity > window_bytes)
    return invalid_argument("shared-memory link: the {} ring ({} bytes at offset {}) does not fit the {}-byte window",
                            name, place.capacity, place.offset, window_bytes);
  return Status::ok();
}

}  // namespace

Status check_shm_control(const ShmControl& control, size_t window_bytes) {
  if (control.magic != kShmMagic) return invalid_argument("shared-memory link: no link set up in the window (magic)");
  if (control.version != kShmVersion)
    return invalid_argument("shared-memory link: window version {}, this side speaks {}", control.version, kShmVersion);
  if (control.window_bytes != window_bytes)
    return invalid_argument("shared-memory link: the host planned a {}-byte window, the board has {} bytes",
                            control.window_bytes, window_bytes);
  RT_RETURN_IF_ERROR(check_place(control.to_board, "to-board", window_bytes));
  RT_RETURN_IF_ERROR(check_place(control.to_host, "to-host", window_bytes));
  const uint64_t board_end = uint64_t{control.to_board.offset} + kIndicesBytes + control.to_board.capacity;
  const uint64_t host_end = uint64_t{control.to_host.offset} + kIndicesBytes + control.to_host.capacity;
  if (control.to_board.offset < host_end && control.to_host.offset < board_end)
    return invalid_argument("shared-memory link: the two rings overlap");
  return Status::ok();
}

Result<ShmControl> plan_shm_window(size_t window_bytes) {
  const uint64_t usable = window_bytes > kShmControlBytes + 2 * (kIndicesBytes + 64) ? window_bytes - kShmControlBytes - 2 * (kIndicesBytes + 64) : 0;
  // to_board: the largest power of two up to two thirds of the room; to_host: what is left.
  const uint64_t to_board = floor_power_of_two(usable * 2 / 3);
  const uint64_t to_host = floor_power_of_two(usable - to_board);
  if (to_board < 2 * kMinRingBytes || to_host < 2 * kMinRingBytes || window_bytes > 0xFFFFFFFFull)
    return invalid_argument("shared-memory link: a {}-byte window is too small (or too large) for two rings", window_bytes);
  ShmControl control{};
  control.magic = kShmMagic;
  control.version = kShmVersion;
  control.window_bytes = static_cast<uint32_t>(window_bytes);
  control.to_board = {kShmControlBytes, static_cast<uint32_t>(to_board)};
  control.to_host = {static_cast<uint32_t>(align_up(kShmControlBytes + kIndicesBytes + to_board, 64)),
                     static_cast<uint32_t>(to_host)};
  control.board_state = static_cast<uint32_t>(ShmBoardState::kNotSeen);
  control.host_state = static_cast<uint32_t>(ShmHostState::kOpen);
  return control;
}

// ---------------------------------------------------------------- writer

void ShmRingWriter::attach(uint8_t* window, const ShmRingPlace& place) {
  indices_ = reinterpret_cast<ShmRingIndices*>(window + place.offset);
  data_ = window + place.offset + kIndicesBytes;
  capacity_ = place.capacity;
  head_ = indices_->head.load(MemoryOrder::kAcquire);
  cached_tail_ = head_ - capacity_;  // "full" until the reader's real tail is loaded (and checked)
}

Result<bool> ShmRingWriter::has_room(uint64_t body_bytes) {
  if (body_bytes > max_body())
    return invalid_argument("a {}-byte record does not fit a {}-byte ring (at most {})", body_bytes, capacity_, max_body());
  if (head_ % 8 != 0)
    return Status::error(StatusCode::kAborted, "shared-memory link: the ring's write position {} is not 8-byte aligned",
                         head_);
  const uint64_t need = shm_record_bytes(body_bytes);
  const uint64_t to_end = capacity_ - (head_ & (capacity_ - 1));
  const uint64_t total = need + (need > to_end ? to_end : 0);
  if (head_ - cached_tail_ + total <= capacity_) return true;
  const uint64_t tail = indices_->tail.load(MemoryOrder::kAcquire);
  if (tail > head_ || head_ - tail > capacity_)
    return Status::error(StatusCode::kAborted,
                         "shared-memory link: the reader's position {} is impossible (written {}, ring of {} bytes)", tail,
                         head_, capacity_);
  cached_tail_ = tail;
  return head_ - cached_tail_ + total <= capacity_;
}

void ShmRingWriter::write(Span<const uint8_t> part0, Span<const uint8_t> part1, Span<const uint8_t> part2) {
  const uint64_t body = part0.size() + part1.size() + part2.size();
  const uint64_t need = shm_record_bytes(body);
  const uint64_t to_end = capacity_ - (head_ & (capacity_ - 1));
  if (need > to_end) {  // a pad record covers the rest; the record starts at offset 0
    const uint32_t pad[2] = {kPadLength, record_check(kPadLength, head_)};
    __builtin_memcpy(at(head_), pad, sizeof pad);
    head_ += to_end;
  }
  uint8_t* record = at(head_);
  const uint32_t header[2] = {static_cast<uint32_t>(body), record_check(static_cast<uint32_t>(body), head_)};
  __builtin_memcpy(record, header, sizeof header);
  uint8_t* out = record + kRecordHeaderBytes;
  for (Span<const uint8_t> part : {part0, part1, part2}) {
    if (!part.empty()) __builtin_memcpy(out, part.data(), part.size());
    out += part.size();
  }
  for (uint64_t pad = body; pad % 8 != 0; ++pad) *out++ = 0;
  head_ += need;
  indices_->head.store(head_, MemoryOrder::kRelease);  // publishes the record (and any pad before it)
}

// ---------------------------------------------------------------- reader

void ShmRingReader::attach(uint8_t* window, const ShmRingPlace& place) {
  indices_ = reinterpret_cast<ShmRingIndices*>(window + place.offset);
  data_ = window + place.offset + kIndicesBytes;
  capacity_ = place.capacity;
  tail_ = indices_->tail.load(MemoryOrder::kAcquire);
  pending_ = 0;
  fault_ = Status::ok();
}

Status ShmRingReader::fail(const Status& reason) {
  fault_ = reason;
  return fault_;
}

Result<Span<const uint8_t>> ShmRingReader::peek() {
  if (faulted()) return fault_;
  if (tail_ % 8 != 0)
    return fail(Status::error(StatusCode::kAborted, "shared-memory link: the ring's read position {} is not 8-byte aligned",
                              tail_));
  const uint64_t published = indices_->head.load(MemoryOrder::kAcquire);
  if (published < tail_ || published - tail_ > capacity_ || published % 8 != 0)
    return fail(Status::error(StatusCode::kAborted,
                              "shared-memory link: the writer's position {} is impossible (read up to {}, ring of {} "
                              "bytes)",
                              published, tail_, capacity_));
  if (published == tail_) return Span<const uint8_t>();  // null data: nothing published
  return read_record(published);
}

Result<Span<const uint8_t>> ShmRingReader::read_record(uint64_t published) {
  uint64_t position = tail_ & (capacity_ - 1);
  uint32_t header[2];
  __builtin_memcpy(header, data_ + position, sizeof header);  // one copy: checked values are the used ones
  const uint32_t length = header[0];
  if (header[1] != record_check(length, tail_))
    return fail(Status::error(StatusCode::kAborted,
                              "shared-memory link: the record at ring byte {} has a bad header (length {:#x}, check "
                              "{:#x}): a torn or corrupted write",
                              tail_, length, header[1]));
  if (length == kPadLength) {
    const uint64_t to_end = capacity_ - position;
    if (to_end > published - tail_)
      return fail(Status::error(StatusCode::kAborted,
                                "shared-memory link: a pad record at ring byte {} covers {} bytes, only {} are published",
                                tail_, to_end, published - tail_));
    tail_ += to_end;
    indices_->tail.store(tail_, MemoryOrder::kRelease);
    if (published == tail_) return Span<const uint8_t>();
    return read_record(published);  // the record after a pad starts at offset 0: no second pad
  }
  if (length > shm_max_body(capacity_))
    return fail(Status::error(StatusCode::kAborted,
                              "shared-memory link: the record at ring byte {} claims {} bytes, at most {} fit the ring",
                              tail_, length, shm_max_body(capacity_)));
  const uint64_t need = shm_record_bytes(length);
  if (need > published - tail_)
    return fail(Status::error(StatusCode::kAborted,
                              "shared-memory link: the record at ring byte {} claims {} bytes, only {} are published",
                              tail_, length, published - tail_ - kRecordHeaderBytes));
  if (position + need > capacity_)
    return fail(Status::error(StatusCode::kAborted,
                              "shared-memory link: the record at ring byte {} ({} bytes) crosses the end of the ring",
                              tail_, length));
  pending_ = need;
  return Span<const uint8_t>(data_ + position + kRecordHeaderBytes, length);
}

void ShmRingReader::release() {
  if (pending_ == 0) return;
  tail_ += pending_;
  pending_ = 0;
  indices_->tail.store(tail_, MemoryOrder::kRelease);
}

}  // namespace rt::link
