// Reading the per-core status table out of board memory (core_status_reader.hpp).
#include "core_status_reader.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace tpu {
namespace {

using rt::trace::CoreActivity;
using rt::trace::CoreStatusHeader;
using rt::trace::CoreStatusRecord;
using rt::trace::TraceRingPlace;

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the table is read in the board's byte order (little-endian)");

constexpr unsigned kMaxRecords = 64;        // more records than this is garbage, not a board
constexpr unsigned kCopyAttempts = 5;       // copies of a record that keeps changing before it counts as unsettled
constexpr uint64_t kTraceRecordBytes = 32;  // core_status.hpp's TraceRingPlace
constexpr uint32_t kMaxTraceCapacity = 1u << 20;
constexpr size_t kMaxEventNameChars = 40;

std::string hex(uint64_t value) {
  std::ostringstream text;
  text << "0x" << std::hex << value;
  return text.str();
}

template <class T>
T load(const uint8_t* bytes) {
  T value;
  std::memcpy(&value, bytes, sizeof value);
  return value;
}

ActivityView view_of(const CoreActivity& activity) {
  ActivityView view;
  view.state = activity.state;
  view.peer = activity.peer;
  view.collective = activity.collective;
  view.sequence = activity.sequence;
  view.call_id = activity.call_id;
  view.infeed_queue = activity.infeed_queue;
  view.direction = activity.direction;
  view.infeed_tuple = activity.infeed_tuple;
  view.name = printable_name(reinterpret_cast<const uint8_t*>(activity.name), sizeof activity.name,
                             rt::trace::kStatusNameBytes - 1);
  return view;
}

// Why the header cannot be trusted ("" if it can).
std::string header_problem(const CoreStatusHeader& header, uint64_t address, uint64_t announced_bytes) {
  if (header.magic != rt::trace::kCoreStatusMagic)
    return "no status table at " + hex(address) + " (magic " + hex(header.magic) + ", expected " +
           hex(rt::trace::kCoreStatusMagic) + ")";
  if (header.version != rt::trace::kCoreStatusVersion)
    return "the status table is version " + std::to_string(header.version) + "; this tpu reads version " +
           std::to_string(rt::trace::kCoreStatusVersion) + " (rebuild tpu and the image from one tree)";
  if (header.header_bytes != rt::trace::kCoreStatusHeaderBytes || header.record_bytes != sizeof(CoreStatusRecord) ||
      header.record_count == 0 || header.record_count > kMaxRecords)
    return "the status table's sizes are not this tpu's (header " + std::to_string(header.header_bytes) + " bytes, " +
           std::to_string(header.record_count) + " records of " + std::to_string(header.record_bytes) + " bytes)";
  const uint64_t table_bytes = uint64_t{header.header_bytes} + uint64_t{header.record_count} * header.record_bytes;
  if (announced_bytes != 0 && table_bytes > announced_bytes)
    return "the status table needs " + std::to_string(table_bytes) + " bytes but the board announced " +
           std::to_string(announced_bytes);
  return "";
}

// A copy of the record at `address` taken between two equal, even update counts, else the last copy
// with `settled` false; nothing if it cannot be read at all.
std::optional<CoreStatusRecord> copy_record(const BoardRamReader& read, uint64_t address, bool& settled) {
  std::optional<CoreStatusRecord> last;
  for (unsigned attempt = 0; attempt < kCopyAttempts; ++attempt) {
    const std::optional<std::vector<uint8_t>> first = read(address, sizeof(CoreStatusRecord));
    const std::optional<std::vector<uint8_t>> second = read(address, sizeof(CoreStatusRecord));
    if (!first || !second || first->size() != sizeof(CoreStatusRecord) || second->size() != sizeof(CoreStatusRecord))
      return std::nullopt;
    last.emplace();
    std::memcpy(&*last, second->data(), sizeof(CoreStatusRecord));
    if (*first == *second && last->writes % 2 == 0) {
      settled = true;
      return last;
    }
  }
  settled = false;
  return last;
}

// The NUL-terminated name at `address` (a string literal in the board's image), read as far as RAM
// goes (a name may end with it).
std::string read_event_name(const BoardRamReader& read, uint64_t address) {
  if (address == 0) return "<unnamed>";
  for (uint64_t bytes = kMaxEventNameChars + 1; bytes != 0; --bytes) {
    if (address > UINT64_MAX - bytes) continue;
    if (const std::optional<std::vector<uint8_t>> text = read(address, bytes); text && text->size() == bytes)
      return printable_name(text->data(), text->size(), kMaxEventNameChars);
  }
  return "<name unreadable at " + hex(address) + ">";
}

// Up to `count` of the newest events of the ring at `place`, newest first.
std::vector<TraceEventView> read_last_events(const BoardRamReader& read, const TraceRingPlace& place, unsigned count,
                                             std::string& problem) {
  std::vector<TraceEventView> events;
  if (place.records_address == 0 && place.written_address == 0 && place.capacity == 0) return events;  // no ring
  if (place.record_bytes != kTraceRecordBytes || place.capacity == 0 || place.capacity > kMaxTraceCapacity) {
    problem = "trace ring of " + std::to_string(place.capacity) + " records of " + std::to_string(place.record_bytes) +
              " bytes is not one this tpu reads";
    return events;
  }
  const std::optional<std::vector<uint8_t>> written_bytes = read(place.written_address, 8);
  if (!written_bytes || written_bytes->size() != 8) {
    problem = "trace ring count at " + hex(place.written_address) + " is outside the board's RAM";
    return events;
  }
  const uint64_t written = load<uint64_t>(written_bytes->data());
  const uint64_t available = std::min<uint64_t>(written, place.capacity);
  for (uint64_t i = 0; i < std::min<uint64_t>(count, available); ++i) {
    const uint64_t offset = ((written - 1 - i) % place.capacity) * kTraceRecordBytes;
    if (place.records_address > UINT64_MAX - offset) break;
    const std::optional<std::vector<uint8_t>> record = read(place.records_address + offset, kTraceRecordBytes);
    if (!record || record->size() != kTraceRecordBytes) {
      problem = "trace record at " + hex(place.records_address + offset) + " is outside the board's RAM";
      break;
    }
    const uint64_t begin = load<uint64_t>(record->data());
    const uint64_t end = load<uint64_t>(record->data() + 8);
    TraceEventView event;
    event.name = read_event_name(read, load<uint64_t>(record->data() + 16));
    event.category = (*record)[24];
    event.duration_ns = end > begin ? end - begin : 0;
    events.push_back(std::move(event));
  }
  return events;
}

}  // namespace

std::string printable_name(const uint8_t* bytes, size_t size, size_t max_chars) {
  std::string text;
  for (size_t i = 0; i < size; ++i) {
    if (bytes[i] == 0) return text;
    if (text.size() == max_chars) break;
    text += bytes[i] >= 0x20 && bytes[i] < 0x7f ? static_cast<char>(bytes[i]) : '?';
  }
  return text + "...";
}

CoreStatusRead read_core_statuses(const BoardRamReader& read, uint64_t address, uint64_t announced_bytes,
                                  unsigned cores_hint, unsigned last_events) {
  CoreStatusRead result;
  const std::optional<std::vector<uint8_t>> header_bytes = read(address, sizeof(CoreStatusHeader));
  if (!header_bytes || header_bytes->size() != sizeof(CoreStatusHeader)) {
    result.problem = "the status table's address " + hex(address) + " is outside the board's RAM";
    return result;
  }
  const CoreStatusHeader header = load<CoreStatusHeader>(header_bytes->data());
  if (std::string problem = header_problem(header, address, announced_bytes); !problem.empty()) {
    result.problem = std::move(problem);
    return result;
  }
  unsigned cores = header.cores != 0 ? header.cores : cores_hint;
  if (cores == 0 || cores > header.record_count) cores = header.record_count;
  for (unsigned core = 0; core < cores; ++core) {
    const uint64_t record_address = address + header.header_bytes + uint64_t{core} * header.record_bytes;
    CoreSnapshot snapshot;
    snapshot.core = core;
    const std::optional<CoreStatusRecord> record = copy_record(read, record_address, snapshot.settled);
    if (!record) {
      result.cores.clear();
      result.problem = "core " + std::to_string(core) + "'s status record at " + hex(record_address) +
                       " is outside the board's RAM";
      return result;
    }
    snapshot.writes = record->writes;
    snapshot.result_code = record->result_code;
    snapshot.waits_given_up = record->waits_given_up;
    snapshot.now = view_of(record->now);
    snapshot.gave_up = view_of(record->gave_up);
    snapshot.last_events = read_last_events(read, record->trace, last_events, snapshot.trace_problem);
    result.cores.push_back(std::move(snapshot));
  }
  return result;
}

}  // namespace tpu
