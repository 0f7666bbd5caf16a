// link-bench: what the host link costs, measured on the board (run it with `tpu run link-bench
// --cores 1`, on either transport: --link shm|uart). Core 0 alone, timing with the board's clock:
//   host -> board: host_call("link_source", "<n>") fills an n-byte int8 tensor in this core's
//                  memory (the bytes arrive as host-call reply chunks, as infeed data does), for n
//                  from 64 KiB to 64 MiB; every byte is then checked against the pattern.
//   board -> host: host_call("link_sink") with an n-byte tensor of the pattern as its argument (as
//                  outfeed data travels); the host checks every byte and returns n.
//   round trip:    1000 calls of host_call("echo") with a float32 scalar, median and p99.
// Each figure is a console line "LINK-BENCH {json}" that tests/bench/link_throughput.py collects.
// Sizes that do not fit the core's memory (or take longer than kSizeBudgetNs on a slow link) stop
// the series with a note rather than failing.
#include "firmware/app.hpp"
#include "hal/time.hpp"
#include "runtime/link/protocol/host_call.hpp"  // a link test: it calls the link itself, below rt::tpu
#include "runtime/log/log.hpp"
#include "runtime/tensor/hbm.hpp"

namespace {

using firmware::CoreContext;
using rt::Status;
using rt::link::HostResult;

constexpr uint64_t kCallTimeoutNs = 600ull * 1000000000ull;
constexpr uint64_t kSizeBudgetNs = 20ull * 1000000000ull;  // no bigger size after one that took this long
constexpr int64_t kSmallest = 64 * 1024;
constexpr int64_t kLargest = 64 * 1024 * 1024;
constexpr unsigned kRoundTrips = 1000;

// The byte the link carries at offset i (host half: ../host/link_functions.cpp, the same formula).
uint8_t pattern(uint64_t i) { return static_cast<uint8_t>((i * 131 + (i >> 12) * 7 + 3) & 0xFF); }

rt::Result<rt::Tensor> bytes_tensor(int64_t size) {
  const int64_t dims[] = {size};
  return rt::hbm().allocate_tensor(rt::DType::kI8, *rt::Shape::make(dims), "link-bench buffer");
}

void report(rt::StringView direction, int64_t bytes, uint64_t nanoseconds) {
  rt::log_info("LINK-BENCH {{\"direction\":\"{}\",\"bytes\":{},\"seconds\":{}}}", direction, bytes,
               static_cast<double>(nanoseconds) * 1e-9);
}

Status host_to_board(const rt::Tensor& buffer, int64_t size) {
  rt::FixedString<24> argument;
  rt::format_to(argument, "{}", size);
  const HostResult result[] = {HostResult::tensor(buffer)};
  const uint64_t start = hal::time_ns();
  RT_RETURN_IF_ERROR(rt::link::host_call("link_source", argument.view(), {}, result, kCallTimeoutNs));
  const uint64_t elapsed = hal::time_ns() - start;
  for (int64_t i = 0; i < size; ++i)
    if (buffer.data[i] != pattern(i))
      return rt::internal_error("host -> board: byte {} of {} is {}, the host sent {}", i, size, buffer.data[i], pattern(i));
  report("host-to-board", size, elapsed);
  return elapsed > kSizeBudgetNs ? Status::error(rt::StatusCode::kOutOfRange, "slow") : Status::ok();
}

Status board_to_host(const rt::Tensor& buffer, int64_t size) {
  for (int64_t i = 0; i < size; ++i) buffer.data[i] = pattern(i);
  float counted = -1;
  const rt::Tensor count = rt::Tensor::contiguous(rt::DType::kF32, rt::Shape(), &counted);
  const HostResult result[] = {HostResult::tensor(count)};
  const rt::Tensor argument[] = {buffer};
  const uint64_t start = hal::time_ns();
  RT_RETURN_IF_ERROR(rt::link::host_call("link_sink", "", argument, result, kCallTimeoutNs));
  const uint64_t elapsed = hal::time_ns() - start;
  if (counted != static_cast<float>(size))
    return rt::internal_error("board -> host: the host counted {} bytes of the pattern, {} were sent", counted, size);
  report("board-to-host", size, elapsed);
  return elapsed > kSizeBudgetNs ? Status::error(rt::StatusCode::kOutOfRange, "slow") : Status::ok();
}

// Sorts the few round-trip times in place (insertion sort: 1000 values).
void sort(uint64_t* values, unsigned count) {
  for (unsigned i = 1; i < count; ++i)
    for (unsigned j = i; j > 0 && values[j - 1] > values[j]; --j) {
      const uint64_t swap = values[j];
      values[j] = values[j - 1];
      values[j - 1] = swap;
    }
}

uint64_t round_trip_ns[kRoundTrips];

Status round_trips() {
  for (unsigned i = 0; i < kRoundTrips; ++i) {
    float in = static_cast<float>(i), out = -1;
    const rt::Tensor argument[] = {rt::Tensor::contiguous(rt::DType::kF32, rt::Shape(), &in)};
    const HostResult result[] = {HostResult::tensor(rt::Tensor::contiguous(rt::DType::kF32, rt::Shape(), &out))};
    const uint64_t start = hal::time_ns();
    RT_RETURN_IF_ERROR(rt::link::host_call("echo", "", argument, result, kCallTimeoutNs));
    round_trip_ns[i] = hal::time_ns() - start;
    if (out != in) return rt::internal_error("echo({}) came back as {}", in, out);
  }
  sort(round_trip_ns, kRoundTrips);
  rt::log_info("LINK-BENCH {{\"direction\":\"round-trip\",\"calls\":{},\"median_us\":{},\"p99_us\":{}}}", kRoundTrips,
               static_cast<double>(round_trip_ns[kRoundTrips / 2]) * 1e-3,
               static_cast<double>(round_trip_ns[kRoundTrips * 99 / 100]) * 1e-3);
  return Status::ok();
}

// One direction over all sizes; a size that does not fit memory or a slow link ends the series.
template <class Transfer>
Status series(Transfer transfer) {
  for (int64_t size = kSmallest; size <= kLargest; size *= 4) {
    rt::ArenaScope scope(rt::hbm());
    rt::Result<rt::Tensor> buffer = bytes_tensor(size);
    if (!buffer) {
      rt::log_info("link-bench: stopping before {} bytes: {}", size, buffer.status().message());
      return Status::ok();
    }
    const Status status = transfer(*buffer, size);
    if (status.code() == rt::StatusCode::kOutOfRange) return Status::ok();  // slow link: enough sizes
    RT_RETURN_IF_ERROR(status);
  }
  return Status::ok();
}

Status run(const CoreContext& context) {
  if (context.core != 0) return Status::ok();
  RT_RETURN_IF_ERROR(round_trips());
  RT_RETURN_IF_ERROR(series(host_to_board));
  return series(board_to_host);
}

}  // namespace

const firmware::App firmware::kApp = {"link-bench", "host link throughput and round-trip latency (under tpu run)", run};
