// The board's infeed receive buffer (design in infeed_buffer.hpp): layout, stream checks, credits.
#include "infeed_buffer.hpp"

namespace rt::link {
namespace {

constexpr uint64_t kMaxInfeedStorage = uint64_t{1} << 36;  // far beyond any board's RAM

uint64_t align_up(uint64_t value) { return (value + kInfeedAlignment - 1) / kInfeedAlignment * kInfeedAlignment; }

// Bytes of one slot (every element 64-byte aligned), or an error.
Result<uint64_t> slot_size(Span<const InfeedElementSpec> elements) {
  if (elements.empty() || elements.size() > kMaxInfeedElements)
    return invalid_argument("an infeed tuple has 1..{} elements, got {}", kMaxInfeedElements, elements.size());
  uint64_t total = 0;
  for (const InfeedElementSpec& spec : elements) {
    Result<uint64_t> bytes = tensor_byte_size(spec.dtype, spec.shape);
    if (!bytes) return bytes.status();
    total += align_up(*bytes);
    if (total > kMaxInfeedStorage) return invalid_argument("an infeed tuple of {} bytes or more is too large", total);
  }
  return total;
}

}  // namespace

Result<size_t> InfeedBuffer::storage_bytes(Span<const InfeedElementSpec> elements, unsigned slots) {
  Result<uint64_t> slot = slot_size(elements);
  if (!slot) return slot.status();
  if (slots == 0 || slots > kMaxInfeedSlots)
    return invalid_argument("an infeed buffer has 1..{} slots, got {}", kMaxInfeedSlots, slots);
  if (*slot * slots > kMaxInfeedStorage)
    return invalid_argument("{} infeed slots of {} bytes are too large", slots, *slot);
  return static_cast<size_t>(*slot * slots);
}

Status InfeedBuffer::init(uint16_t queue, StringView name, Span<const InfeedElementSpec> elements, unsigned slots,
                          unsigned consumers, Span<uint8_t> storage) {
  Result<size_t> needed = storage_bytes(elements, slots);
  if (!needed) return needed.status();
  if (consumers == 0 || consumers > kMaxInfeedConsumers)
    return invalid_argument("an infeed queue has 1..{} consumers, got {}", kMaxInfeedConsumers, consumers);
  if (storage.size() < *needed || reinterpret_cast<uintptr_t>(storage.data()) % kInfeedAlignment != 0)
    return invalid_argument("infeed queue '{}' needs {} bytes of 64-byte aligned storage, got {} at {}", name, *needed,
                            storage.size(), static_cast<const void*>(storage.data()));
  queue_ = queue;
  name_ = name;
  element_count_ = static_cast<unsigned>(elements.size());
  slots_ = slots;
  consumers_ = consumers;
  storage_ = storage.data();
  tuple_bytes_ = 0;
  size_t offset = 0;
  for (unsigned e = 0; e < element_count_; ++e) {
    specs_[e] = elements[e];
    element_bytes_[e] = *tensor_byte_size(elements[e].dtype, elements[e].shape);
    element_offsets_[e] = offset;
    offset += static_cast<size_t>(align_up(element_bytes_[e]));
    tuple_bytes_ += element_bytes_[e];
  }
  slot_bytes_ = offset;
  receiving_ = 0;
  next_element_ = 0;
  next_offset_ = 0;
  partial_bytes_ = 0;
  complete_.store(0, MemoryOrder::kRelaxed);
  for (ConsumerCount& consumer : released_) consumer.count.store(0, MemoryOrder::kRelaxed);
  credits_claimed_.store(0, MemoryOrder::kRelaxed);
  last_refresh_ns_.store(0, MemoryOrder::kRelaxed);
  failure_ = Status::ok();
  failed_.store(false, MemoryOrder::kRelease);
  return Status::ok();
}

// ---------------------------------------------------------------- receiving

Status InfeedBuffer::fail(const Status& reason) {
  if (!failed()) {
    failure_ = reason;
    failed_.store(true, MemoryOrder::kRelease);
  }
  return reason;
}

uint64_t InfeedBuffer::min_released() const {
  uint64_t lowest = released_[0].count.load(MemoryOrder::kAcquire);
  for (unsigned c = 1; c < consumers_; ++c) {
    const uint64_t count = released_[c].count.load(MemoryOrder::kAcquire);
    if (count < lowest) lowest = count;
  }
  return lowest;
}

Status InfeedBuffer::check_element_count(unsigned count) const {
  if (count == element_count_) return Status::ok();
  return invalid_argument("infeed queue '{}' (link queue {}): the host sent a tuple of {} element{}, the queue has {}",
                          name_, queue_, count, count == 1 ? "" : "s", element_count_);
}

Status InfeedBuffer::check_element_type(unsigned element, DType dtype, const Shape& shape) const {
  const InfeedElementSpec& spec = specs_[element];
  if (dtype == spec.dtype && shape == spec.shape) return Status::ok();
  return invalid_argument("infeed queue '{}' (link queue {}): element {} is {}{}, the host sent {}{}", name_, queue_,
                          element, dtype_name(spec.dtype), spec.shape.sizes(), dtype_name(dtype), shape.sizes());
}

Status InfeedBuffer::check_chunk(const QueueData& data) const {
  RT_RETURN_IF_ERROR(check_element_count(data.element_count));
  if (data.element_index != next_element_ || data.chunk.offset != next_offset_)
    return Status::error(StatusCode::kAborted,
                         "infeed queue '{}' (link queue {}), tuple {}: a chunk of element {} at byte {} arrived, "
                         "expected element {} at byte {} (a frame from the host was lost)",
                         name_, queue_, receiving_, data.element_index, data.chunk.offset, next_element_, next_offset_);
  RT_RETURN_IF_ERROR(check_element_type(next_element_, data.chunk.dtype, data.chunk.shape));
  if (receiving_ >= min_released() + slots_)
    return Status::error(StatusCode::kResourceExhausted,
                         "infeed queue '{}' (link queue {}): the host sent tuple {} beyond its credits ({} tuples "
                         "granted)",
                         name_, queue_, receiving_, min_released() + slots_);
  return Status::ok();
}

Status InfeedBuffer::accept(const QueueData& data) {
  if (failed()) return failure_;
  if (storage_ == nullptr) return fail(internal_error("infeed buffer for link queue {} is not set up", data.queue));
  const Status problem = check_chunk(data);
  if (!problem.is_ok()) return fail(problem);
  const Span<const uint8_t> bytes = data.chunk.data;
  if (!bytes.empty())
    __builtin_memcpy(slot(receiving_) + element_offsets_[next_element_] + next_offset_, bytes.data(), bytes.size());
  next_offset_ += bytes.size();
  partial_bytes_ += bytes.size();
  if (next_offset_ < element_bytes_[next_element_]) return Status::ok();
  next_offset_ = 0;
  if (++next_element_ < element_count_) return Status::ok();
  next_element_ = 0;
  partial_bytes_ = 0;
  complete_.store(++receiving_, MemoryOrder::kRelease);
  return Status::ok();
}

Status InfeedBuffer::accept_spec(const InfeedSpec& data) {
  if (failed()) return failure_;
  Status problem = check_element_count(data.element_count);
  if (problem.is_ok())  // element_index < element_count: checked by the codec
    problem = check_element_type(data.element_index, data.dtype, data.shape);
  return problem.is_ok() ? problem : fail(problem);
}

Status InfeedBuffer::accept_in_place(uint64_t tuple) {
  if (failed()) return failure_;
  if (storage_ == nullptr) return fail(internal_error("infeed buffer for link queue {} is not set up", queue_));
  if (tuple != receiving_ || next_element_ != 0 || next_offset_ != 0)
    return fail(Status::error(StatusCode::kAborted,
                              "infeed queue '{}' (link queue {}): the host placed tuple {}, expected tuple {} (element "
                              "{} at byte {})",
                              name_, queue_, tuple, receiving_, next_element_, next_offset_));
  if (receiving_ >= min_released() + slots_)
    return fail(Status::error(StatusCode::kResourceExhausted,
                              "infeed queue '{}' (link queue {}): the host placed tuple {} beyond its credits ({} tuples "
                              "granted)",
                              name_, queue_, receiving_, min_released() + slots_));
  complete_.store(++receiving_, MemoryOrder::kRelease);
  return Status::ok();
}

// ---------------------------------------------------------------- consumers

Tensor InfeedBuffer::element(uint64_t tuple, unsigned element) const {
  const InfeedElementSpec& spec = specs_[element];
  return Tensor::contiguous(spec.dtype, spec.shape, slot(tuple) + element_offsets_[element]);
}

void InfeedBuffer::release(unsigned consumer) {
  ConsumerCount& mine = released_[consumer];
  mine.count.store(mine.count.load(MemoryOrder::kRelaxed) + 1, MemoryOrder::kRelease);
}

InfeedCredits InfeedBuffer::credits() const {
  InfeedCredits credits;
  credits.queue = queue_;
  const uint64_t tuples = min_released() + slots_;
  credits.granted_tuples = static_cast<uint32_t>(tuples);
  credits.granted_bytes = tuples * tuple_bytes_;
  for (unsigned e = 0; e < element_count_; ++e)
    credits.cut_dimensions |= static_cast<uint32_t>(specs_[e].pod_cut_dimension & 0xFu) << (4 * e);
  return credits;
}

bool InfeedBuffer::claim_credits(uint32_t granted_tuples) {
  uint32_t claimed = credits_claimed_.load(MemoryOrder::kRelaxed);
  while (claimed < granted_tuples)
    if (credits_claimed_.compare_exchange(claimed, granted_tuples, MemoryOrder::kRelaxed)) return true;
  return false;
}

bool InfeedBuffer::claim_refresh(uint64_t now_ns, uint64_t interval_ns) {
  uint64_t last = last_refresh_ns_.load(MemoryOrder::kRelaxed);
  if (now_ns - last < interval_ns && last != 0) return false;
  return last_refresh_ns_.compare_exchange(last, now_ns, MemoryOrder::kRelaxed);
}

}  // namespace rt::link
