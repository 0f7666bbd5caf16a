// hello: proves that every core runs C++ code at the same time and that cores exchange data through
// shared memory correctly. Each check recomputes its expectation independently on the reading core.
//   1. concurrency: every core keeps ticking a counter until it has watched every other core's
//      counter move while its own was moving (impossible unless all cores run at once)
//   2. exchange: each core fills a 4 KiB block from its own PRNG seed and publishes it; every core
//      checks every other core's block word by word against a regenerated sequence
//   3. atomics: all cores add to one shared counter; the total must be exact
//   4. C++ runtime: static constructors ran, virtual dispatch works, errno is per core (TLS)
#include <errno.h>

#include "firmware/tpu_pod.hpp"

namespace {

using firmware::CoreContext;
using rt::Atomic;
using rt::MemoryOrder;
using rt::Status;

constexpr unsigned kBlockWords = 1024;      // 4 KiB per core
constexpr unsigned kAtomicAddsPerCore = 20000;
constexpr uint64_t kCheckTimeoutNs = 60000 * hal::kNanosPerMilli;

struct alignas(rt::kCacheLineSize) Ticker {
  Atomic<uint64_t> ticks{0};
};

struct alignas(rt::kCacheLineSize) Outbox {
  Atomic<bool> ready{false};
  uint32_t words[kBlockWords];
};

Ticker tickers[hal::kMaxCores];
Atomic<unsigned> cores_satisfied{0};
Outbox outboxes[hal::kMaxCores];
Atomic<uint64_t> shared_total{0};
alignas(rt::SpinBarrier) unsigned char barrier_storage[sizeof(rt::SpinBarrier)];
rt::SpinBarrier* barrier;  // built by init() for the cores of this run

// xorshift32 with a per-core seed: cheap, deterministic, different for every core.
uint32_t next_word(uint32_t& state) {
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state;
}
uint32_t seed_for(unsigned core) { return 0x9e3779b9u * (core + 1); }

Status check_concurrency(const CoreContext& context) {
  uint64_t first_seen[hal::kMaxCores];
  bool moved[hal::kMaxCores] = {};
  for (unsigned core = 0; core < context.cores; ++core) first_seen[core] = tickers[core].ticks.load(MemoryOrder::kRelaxed);
  moved[context.core] = true;
  unsigned moved_count = 1;
  bool satisfied = false;
  const uint64_t deadline = hal::time_ns() + kCheckTimeoutNs;
  while (cores_satisfied.load(MemoryOrder::kAcquire) < context.cores) {
    tickers[context.core].ticks.fetch_add(1, MemoryOrder::kRelaxed);
    for (unsigned core = 0; core < context.cores; ++core) {
      if (!moved[core] && tickers[core].ticks.load(MemoryOrder::kRelaxed) != first_seen[core]) {
        moved[core] = true;
        ++moved_count;
      }
    }
    if (!satisfied && moved_count == context.cores) {
      satisfied = true;
      cores_satisfied.fetch_add(1, MemoryOrder::kRelease);
    }
    if (hal::time_ns() > deadline) {
      for (unsigned core = 0; core < context.cores; ++core)
        if (!moved[core]) return rt::deadline_exceeded("core {} never saw core {} running concurrently", context.core, core);
      return rt::deadline_exceeded("core {}: not every core saw all others run", context.core);
    }
  }
  return Status::ok();
}

Status check_exchange(const CoreContext& context) {
  Outbox& mine = outboxes[context.core];
  uint32_t state = seed_for(context.core);
  for (uint32_t& word : mine.words) word = next_word(state);
  mine.ready.store(true, MemoryOrder::kRelease);  // publishes the words written above
  hal::send_event();
  for (unsigned offset = 1; offset < context.cores; ++offset) {
    const unsigned peer = (context.core + offset) % context.cores;
    Outbox& theirs = outboxes[peer];
    RT_RETURN_IF_ERROR(rt::wait_until([&] { return theirs.ready.load(MemoryOrder::kAcquire); }, "a peer's outbox",
                                      kCheckTimeoutNs));
    uint32_t expected_state = seed_for(peer);
    for (unsigned i = 0; i < kBlockWords; ++i) {
      const uint32_t expected = next_word(expected_state);
      if (theirs.words[i] != expected)
        return rt::internal_error("core {} read word {} of core {}'s block as {:#x}, expected {:#x}", context.core, i,
                                  peer, theirs.words[i], expected);
    }
  }
  return Status::ok();
}

Status check_atomics(const CoreContext& context) {
  for (unsigned i = 0; i < kAtomicAddsPerCore; ++i) shared_total.fetch_add(context.core + 1, MemoryOrder::kRelaxed);
  RT_RETURN_IF_ERROR(barrier->arrive(kCheckTimeoutNs));
  const uint64_t n = context.cores;
  const uint64_t expected = uint64_t{kAtomicAddsPerCore} * n * (n + 1) / 2;
  const uint64_t total = shared_total.load(MemoryOrder::kRelaxed);
  if (total != expected)
    return rt::internal_error("shared atomic total is {}, expected {} (lost updates)", total, expected);
  return Status::ok();
}

// A static object with a constructor: proves the boot core ran .init_array before any app code.
struct ConstructedAtBoot {
  ConstructedAtBoot() : magic(0x600dc0de) {}
  volatile uint32_t magic;
};
ConstructedAtBoot constructed_at_boot;

struct Shape {
  virtual ~Shape() = default;
  virtual uint32_t area() const = 0;
};
struct Rectangle final : Shape {
  Rectangle(uint32_t w, uint32_t h) : w(w), h(h) {}
  uint32_t area() const override { return w * h; }
  uint32_t w, h;
};

Status check_cxx_runtime(const CoreContext& context) {
  if (constructed_at_boot.magic != 0x600dc0de)
    return rt::internal_error("static constructors did not run (magic {:#x})", constructed_at_boot.magic);
  Rectangle rectangle(context.core + 2, 3);
  const Shape& shape = rectangle;
  if (shape.area() != (context.core + 2) * 3) return rt::internal_error("virtual dispatch returned {}", shape.area());
  errno = static_cast<int>(100 + context.core);
  RT_RETURN_IF_ERROR(barrier->arrive(kCheckTimeoutNs));  // every core has written its errno now
  if (errno != static_cast<int>(100 + context.core))
    return rt::internal_error("errno is {} on core {}: thread-local storage is shared between cores", errno,
                              context.core);
  return Status::ok();
}

void init(unsigned cores) { barrier = new (barrier_storage) rt::SpinBarrier(cores); }

Status run(const CoreContext& context) {
  RT_RETURN_IF_ERROR(check_concurrency(context));
  RT_RETURN_IF_ERROR(check_exchange(context));
  RT_RETURN_IF_ERROR(check_atomics(context));
  RT_RETURN_IF_ERROR(check_cxx_runtime(context));
  return Status::ok();
}

}  // namespace

const firmware::App firmware::kApp = {
    "hello",
    "all cores run C++ concurrently and exchange data through shared memory",
    run,
    init,
};
