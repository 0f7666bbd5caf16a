// Helpers shared by the bench-* apps: timed loops that every core runs in lock step, and the
// "BENCH {json}" console line that tests/bench.py collects (one JSON object per line).
#pragma once
#include "hal/time.hpp"
#include "runtime/collectives/collectives.hpp"
#include "runtime/log/log.hpp"
#include "runtime/mailbox/mailbox.hpp"

namespace firmware::bench {

// Runs `body` `iterations` times on every core between two barriers; returns seconds per iteration
// as seen by this core (the barriers make it the slowest core's time).
template <class Body>
rt::Result<double> timed(rt::Collectives& collectives, unsigned iterations, Body body) {
  RT_RETURN_IF_ERROR(collectives.barrier());
  const uint64_t start = hal::time_ns();
  for (unsigned i = 0; i < iterations; ++i) RT_RETURN_IF_ERROR(body());
  RT_RETURN_IF_ERROR(collectives.barrier());
  return static_cast<double>(hal::time_ns() - start) * 1e-9 / iterations;
}

// One 8-byte mailbox round trip between cores 0 and 1 (0 -> 1 -> 0); both cores call it.
inline rt::Status mailbox_round_trip(unsigned core) {
  uint64_t message = core;
  if (core == 0) {
    RT_RETURN_IF_ERROR(rt::mailbox::send(1, &message, sizeof(message)));
    return rt::mailbox::receive(1, &message, sizeof(message));
  }
  RT_RETURN_IF_ERROR(rt::mailbox::receive(0, &message, sizeof(message)));
  return rt::mailbox::send(0, &message, sizeof(message));
}

// Picks an iteration count giving about `target_seconds` per measurement (at least 3), agreed on by
// all cores (replica 0 decides and broadcasts).
template <class Body>
rt::Result<unsigned> calibrate(rt::Collectives& collectives, double target_seconds, Body body) {
  rt::Result<double> once = timed(collectives, 1, body);
  if (!once) return once.status();
  double wanted = *once > 0 ? target_seconds / *once : 1000.0;
  uint32_t iterations = static_cast<uint32_t>(wanted < 3 ? 3 : (wanted > 100000 ? 100000 : wanted));
  RT_RETURN_IF_ERROR(collectives.broadcast(0, rt::DType::kU32, &iterations, 1));
  return static_cast<unsigned>(iterations);
}

// Sorts `count` samples ascending, for medians and min/max (insertion sort: the bench apps sort a
// few dozen values).
inline void sort_samples(uint64_t* values, unsigned count) {
  for (unsigned i = 1; i < count; ++i)
    for (unsigned j = i; j > 0 && values[j] < values[j - 1]; --j) {
      const uint64_t t = values[j];
      values[j] = values[j - 1];
      values[j - 1] = t;
    }
}

// Prints the raw samples of one contender for tests/bench/benchmarks.py, which pools them over runs:
//   SAMPLES {"bench":"<name>","contender":"<contender>","ps":[v, ...]}
// at most 16 values a line (a console line holds 400 characters); lines of one contender add up.
inline void print_samples(rt::StringView name, rt::StringView contender, const uint64_t* values, unsigned count) {
  for (unsigned first = 0; first < count; first += 16) {
    const unsigned chunk = count - first < 16 ? count - first : 16;
    rt::log_info("SAMPLES {{\"bench\":\"{}\",\"contender\":\"{}\",\"ps\":{}}}", name, contender,
                 rt::Span<const uint64_t>(values + first, chunk));
  }
}

// Prints: BENCH {"bench":"<name>","metric":"<metric>","value":v,"unit":"<unit>","baseline":"<b>","ratio":r}
inline void report(rt::StringView name, rt::StringView metric, double value, rt::StringView unit, rt::StringView baseline,
                   double ratio) {
  rt::log_info("BENCH {{\"bench\":\"{}\",\"metric\":\"{}\",\"value\":{},\"unit\":\"{}\",\"baseline\":\"{}\",\"ratio\":{}}}",
               name, metric, value, unit, baseline, ratio);
}

}  // namespace firmware::bench
