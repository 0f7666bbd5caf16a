// bench-mailbox: round-trip latency of an 8-byte mailbox message between cores 0 and 1, against two
// raw atomic ping-pongs between the same two cores in the same run:
//   one shared line: both directions toggle one variable (one cache line moves per hop; the floor
//                    for any handshake, but a channel per direction cannot share a line)
//   line per direction: each direction owns a flag (the floor for a mailbox with one ring per
//                    direction, which is what the mailbox is)
// kRounds rounds, each one batch of kRoundTrips round trips of every kind in turn (one line, line
// per direction, mailbox, one line, ...), each batch timed between two barriers. Short batches,
// many of them, interleaved, and medians: a batch the OS preempted (other processes share these
// CPUs) is an outlier, not the result. On the host board each core pins itself to a CPU of its own
// (hal/affinity.hpp), as mpirun binds ranks. Lines (core 0):
//   BENCH {"bench":"mailbox_roundtrip/<board>/cores0-1","metric":"latency","value":median ns,
//          "min":..,"max":..,"unit":"ns","baseline":"raw atomic ping-pong, ...","ratio":value/baseline,
//          "baseline_value":..,"baseline_min":..,"baseline_max":..,"samples":kRounds}
//   SAMPLES {"bench":...,"contender":"mailbox"|"one_line"|"line_per_direction","ps":[...]} (per batch,
//          picoseconds per round trip; tests/bench/benchmarks.py pools them over runs)
#include "firmware/app.hpp"
#include "firmware/bench.hpp"
#include "hal/board.hpp"
#include "hal/event.hpp"
#include "hal/affinity.hpp"

namespace {

using rt::Status;

alignas(128) rt::Atomic<uint32_t> ping{0};
alignas(128) rt::Atomic<uint32_t> forward{0};
alignas(128) rt::Atomic<uint32_t> backward{0};
constexpr unsigned kRoundTrips = 2000;
constexpr unsigned kRounds = 41;

// One round trip: core 0 publishes an odd value, core 1 answers with the next even one.
Status raw_round_trip(unsigned core, uint32_t& round) {
  const uint32_t request = 2 * round + 1;
  ++round;
  if (core == 0) {
    ping.store(request, rt::MemoryOrder::kRelease);
    while (ping.load(rt::MemoryOrder::kAcquire) != request + 1) hal::cpu_relax();
  } else {
    while (ping.load(rt::MemoryOrder::kAcquire) != request) hal::cpu_relax();
    ping.store(request + 1, rt::MemoryOrder::kRelease);
  }
  return Status::ok();
}

Status two_line_round_trip(unsigned core, uint32_t& round) {
  const uint32_t value = ++round;
  if (core == 0) {
    forward.store(value, rt::MemoryOrder::kRelease);
    while (backward.load(rt::MemoryOrder::kAcquire) != value) hal::cpu_relax();
  } else {
    while (forward.load(rt::MemoryOrder::kAcquire) != value) hal::cpu_relax();
    backward.store(value, rt::MemoryOrder::kRelease);
  }
  return Status::ok();
}

double ns(uint64_t picoseconds) { return static_cast<double>(picoseconds) * 1e-3; }

void report(rt::StringView name, uint64_t* mailbox, uint64_t* baseline, rt::StringView baseline_name) {
  const double value = ns(mailbox[kRounds / 2]);
  const double base = ns(baseline[kRounds / 2]);
  rt::log_info("BENCH {{\"bench\":\"{}\",\"metric\":\"latency\",\"value\":{},\"min\":{},\"max\":{},\"unit\":\"ns\","
               "\"baseline\":\"{}\",\"ratio\":{},\"baseline_value\":{},\"baseline_min\":{},\"baseline_max\":{},"
               "\"samples\":{}}}",
               name, value, ns(mailbox[0]), ns(mailbox[kRounds - 1]), baseline_name, value / base, base,
               ns(baseline[0]), ns(baseline[kRounds - 1]), kRounds);
}

Status run(const firmware::CoreContext& context) {
  if (context.cores < 2) return rt::Status::error(rt::StatusCode::kFailedPrecondition, "bench-mailbox needs 2 cores");
  hal::pin_core_to_own_cpu(context.core, context.cores);
  rt::Collectives collectives(rt::ReplicaSet::one_per_core(context.cores), context.core);
  const bool playing = context.core < 2;
  const unsigned trips = playing ? kRoundTrips : 0;
  uint32_t round = 0;
  uint32_t two_line_round = 0;
  static uint64_t one_line[kRounds];
  static uint64_t two_line[kRounds];
  static uint64_t mailbox[kRounds];
  const auto sample = [&](rt::Result<double> seconds, uint64_t& out) {
    if (seconds && context.core == 0) out = static_cast<uint64_t>(*seconds * 1e12);  // core 0 keeps the samples
    return seconds.status();
  };
  for (unsigned r = 0; r <= kRounds; ++r) {  // round 0 warms up and is not kept
    const unsigned k = r == 0 ? 0 : r - 1;
    RT_RETURN_IF_ERROR(sample(firmware::bench::timed(collectives, trips, [&] { return raw_round_trip(context.core, round); }),
                              one_line[k]));
    RT_RETURN_IF_ERROR(sample(firmware::bench::timed(collectives, trips,
                                                     [&] { return two_line_round_trip(context.core, two_line_round); }),
                              two_line[k]));
    RT_RETURN_IF_ERROR(sample(firmware::bench::timed(collectives, trips,
                                                     [&] { return firmware::bench::mailbox_round_trip(context.core); }),
                              mailbox[k]));
  }
  if (context.core != 0) return Status::ok();
  rt::FixedString<96> name;
  rt::format_to(name, "mailbox_roundtrip/{}/cores0-1", hal::board::name());
  firmware::bench::print_samples(name.view(), "mailbox", mailbox, kRounds);
  firmware::bench::print_samples(name.view(), "one_line", one_line, kRounds);
  firmware::bench::print_samples(name.view(), "line_per_direction", two_line, kRounds);
  firmware::bench::sort_samples(one_line, kRounds);
  firmware::bench::sort_samples(two_line, kRounds);
  firmware::bench::sort_samples(mailbox, kRounds);
  report(name.view(), mailbox, one_line, "raw atomic ping-pong, one shared line");
  report(name.view(), mailbox, two_line, "raw atomic ping-pong, one line per direction");
  return Status::ok();
}

}  // namespace

const firmware::App firmware::kApp = {"bench-mailbox", "mailbox round trip against raw atomic ping-pong", run};
