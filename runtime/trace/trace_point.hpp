// Trace points: one-line, header-only hooks that runtime code puts around the work a core does
// (a matmul, a collective, a host call, an infeed wait):
//
//   RT_TRACE_SCOPE("all_reduce", rt::trace::Category::kCollective);
//
// A scope asks the installed Recorder for the time when it opens and reports (name, category,
// begin, end) when it closes. Without a recorder (unit tests, host tools, benchmarks) a trace point
// is one relaxed load and a branch, and nothing here needs linking: the firmware installs the board's
// recorder (core_trace.hpp) at boot. Names must be string literals (they are kept as pointers).
#pragma once
#include "hal/support/atomic.hpp"

namespace rt::trace {

// What a core was doing; the utilisation table adds time up per category.
enum class Category : uint8_t {
  kRun,         // the app's whole run on the core (the denominator)
  kCompute,     // MXU and op work ("busy")
  kCollective,  // inside a collective (communication and waiting for peers)
  kHostCall,    // waiting for the host to answer a call (outside compilation)
  kInfeedWait,  // waiting for infeed data
  kOther,
};
inline constexpr unsigned kCategoryCount = 6;

constexpr const char* category_name(Category category) {
  switch (category) {
    case Category::kRun: return "run";
    case Category::kCompute: return "compute";
    case Category::kCollective: return "collective";
    case Category::kHostCall: return "host_call";
    case Category::kInfeedWait: return "infeed_wait";
    case Category::kOther: return "other";
  }
  return "other";
}

class Recorder {
 public:
  virtual uint64_t now_ns() = 0;
  // Called on the core that did the work, when the scope closes.
  virtual void record(const char* name, Category category, uint64_t begin_ns, uint64_t end_ns) = 0;

 protected:
  ~Recorder() = default;
};

inline Atomic<Recorder*> installed_recorder{nullptr};

inline void install(Recorder* recorder) { installed_recorder.store(recorder, MemoryOrder::kRelease); }
inline Recorder* recorder() { return installed_recorder.load(MemoryOrder::kAcquire); }

class Scope {
 public:
  Scope(const char* name, Category category) : recorder_(recorder()), name_(name), category_(category) {
    if (recorder_ != nullptr) begin_ns_ = recorder_->now_ns();
  }
  ~Scope() {
    if (recorder_ != nullptr) recorder_->record(name_, category_, begin_ns_, recorder_->now_ns());
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  Recorder* recorder_;
  const char* name_;
  Category category_;
  uint64_t begin_ns_ = 0;
};

}  // namespace rt::trace

#define RT_TRACE_CONCAT_INNER(a, b) a##b
#define RT_TRACE_CONCAT(a, b) RT_TRACE_CONCAT_INNER(a, b)
#define RT_TRACE_SCOPE(name, category) ::rt::trace::Scope RT_TRACE_CONCAT(rt_trace_scope_, __LINE__)(name, category)
