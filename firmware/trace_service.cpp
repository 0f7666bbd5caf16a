// The end-of-run trace upload (trace_service.hpp).
#include "trace_service.hpp"

#include "runtime/link/protocol/host_call.hpp"
#include "runtime/log/log.hpp"
#include "runtime/trace/core_trace.hpp"

namespace firmware {
namespace {

using rt::link::TraceEvent;

constexpr uint64_t kAskTimeoutNs = 5000ull * 1000000ull;
constexpr uint64_t kSendTimeoutNs = 30000ull * 1000000ull;
constexpr unsigned kBatchEvents = 160;
// A batch's payload stays within one kTrace frame (so it could travel as one, too).
constexpr size_t kBatchBytes = rt::link::kMaxPayload;

const char* const kTotalNames[rt::trace::kCategoryCount] = {"total:run",       "total:compute",     "total:collective",
                                                            "total:host_call", "total:infeed_wait", "total:other"};

class TraceBatch {
 public:
  rt::Status add(const TraceEvent& event) {
    if (count_ == kBatchEvents || bytes_ + rt::link::trace_event_size(event.name) > kBatchBytes) RT_RETURN_IF_ERROR(flush());
    events_[count_++] = event;
    bytes_ += rt::link::trace_event_size(event.name);
    return rt::Status::ok();
  }

  rt::Status flush() {
    if (count_ == 0) return rt::Status::ok();
    rt::Result<size_t> size = rt::link::encode_trace(rt::Span<const TraceEvent>(events_, count_), payload_);
    count_ = 0;
    bytes_ = 2;
    if (!size) return size.status();
    const int64_t dims[] = {static_cast<int64_t>(*size)};
    rt::Result<rt::Shape> shape = rt::Shape::make(dims);
    if (!shape) return shape.status();
    const rt::Tensor batch[] = {rt::Tensor::contiguous(rt::DType::kI8, *shape, payload_)};
    return rt::link::host_call("trace.events", "", batch, {}, kSendTimeoutNs);
  }

 private:
  TraceEvent events_[kBatchEvents];
  unsigned count_ = 0;
  size_t bytes_ = 2;  // the event count
  uint8_t payload_[kBatchBytes];
};

TraceBatch batch;

bool host_wants_trace() {
  rt::link::Endpoint* endpoint = rt::link::board_endpoint();
  if (endpoint == nullptr) return false;
  endpoint->poll();  // an app that never used the link may not have read the host's hello yet
  if (!endpoint->host_connected()) return false;
  rt::FixedString<8> answer;
  const rt::link::HostResult result[] = {rt::link::HostResult::text(answer)};
  return rt::link::host_call("trace.wanted", "", {}, result, kAskTimeoutNs).is_ok() && answer.view() == "1";
}

rt::Status upload_core(unsigned core) {
  const rt::trace::TraceRing& ring = rt::trace::core_ring(core);
  uint64_t last_ns = 0;
  for (unsigned i = 0; i < ring.size(); ++i) {
    const rt::trace::TraceRecord& record = ring.at(i);
    const uint64_t duration = record.end_ns > record.begin_ns ? record.end_ns - record.begin_ns : 0;
    RT_RETURN_IF_ERROR(batch.add(TraceEvent{record.begin_ns, duration, static_cast<uint16_t>(core), 'X', record.name}));
    if (record.end_ns > last_ns) last_ns = record.end_ns;
  }
  const rt::trace::CategoryTotals totals = ring.totals();
  for (unsigned c = 0; c < rt::trace::kCategoryCount; ++c)
    RT_RETURN_IF_ERROR(batch.add(TraceEvent{last_ns, totals.ns[c], static_cast<uint16_t>(core), 'C', kTotalNames[c]}));
  return batch.add(TraceEvent{last_ns, ring.dropped(), static_cast<uint16_t>(core), 'C', "dropped"});
}

}  // namespace

void trace_service_upload(unsigned cores) {
  if (!host_wants_trace()) return;
  rt::trace::set_recording(false);  // the upload's own host calls are not part of the run
  rt::Status status = rt::Status::ok();
  for (unsigned core = 0; core < cores && status.is_ok(); ++core) status = upload_core(core);
  if (status.is_ok()) status = batch.flush();
  if (!status.is_ok()) rt::log_warning("trace upload failed: {}", status.message());
}

}  // namespace firmware
