// GEMM benchmark for `make bench`: C = A x B on one host thread, the runtime's MXU (runtime/mxu)
// against the best libraries for this CPU, all timed in the same run, round-robin (so they share
// the machine's noise):
//   float32  OpenBLAS cblas_sgemm, oneDNN dnnl_sgemm, oneDNN's matmul primitive (f32)
//   int8     oneDNN dnnl_gemm_u8s8s32 (u8 A x s8 B, VNNI's native form), dnnl_gemm_s8s8s32 (s8 x s8,
//            the MXU's numerics) and oneDNN's matmul primitive (s8 x s8 -> s32)
//   bfloat16 oneDNN's matmul primitive (bf16 x bf16 -> f32) and, on the same values widened to
//            float32, dnnl_sgemm and cblas_sgemm and the MXU's own float32 path
// Shapes: f32 512^3, 1024^3 and TPU-like L x 128 x 128 (L = 8, 128, 1024); int8 512^3 and
// L x 128 x 128; bf16 512^3; at 512^3 also every MXU micro-kernel this CPU runs.
//
// One thread everywhere: the MXU is single-threaded, OpenBLAS gets openblas_set_num_threads(1) and
// oneDNN (OpenMP in Debian's build) needs OMP_NUM_THREADS=1, checked here. Each figure is the best
// of kRepetitions repetitions (the median is printed too), each repetition as many calls as fit in
// kRepetitionSeconds; operands stay in cache between calls, for every contender alike.
//
// Before timing, every contender is checked on small shapes (37x259x45: ragged tiles; 8x128x128)
// against a naive reference (int8: equal mod 2^32 to an int64 loop; float: within the worst-case
// rounding bound of a double loop), and after timing on sampled elements of the benchmark shape
// (which also catches state carried between calls), so a baseline called wrongly
// (transposed, wrong leading dimension, saturating int8 path) stops the benchmark instead of
// producing a fast wrong number.
//
// Output, one JSON object per line: a "machine" line (CPU model, libraries and the kernels they
// picked), then per shape one line for the MXU {"bench": "gemm", "metric": "f32 512x512x512 MXU",
// "value", "unit", "baseline": best library, "ratio": MXU / best library, "best_library",
// "libraries": {name: value}, "ratio_to": {name: MXU / that}} and one per library ("baseline"
// "peak", "ratio" null: tests/bench/benchmarks.py fills in the core's peak for "peak_dtype", measured by
// tests/bench/baselines/fma_peak.cpp, and "ratio_to_peak" on every line).
#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl.hpp>
#include <unistd.h>

#if DNNL_CPU_RUNTIME == DNNL_RUNTIME_OMP
#include <omp.h>
#endif

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "runtime/dtype/half.hpp"
#include "runtime/mxu/mxu.hpp"
#include "hal/support/panic.hpp"

// The runtime's panic in this hosted program: a programming error in the MXU stops the benchmark.
void rt::panic(const char* message) {
  std::fprintf(stderr, "gemm_baselines: *** PANIC: %s\n", message);
  std::abort();
}

namespace {

constexpr int kRepetitions = 7;
constexpr double kRepetitionSeconds = 0.03;
constexpr int kProbes = 64;  // sampled elements checked at benchmark shapes

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "gemm_baselines: %s\n", message.c_str());
  std::exit(1);
}

// ---------------------------------------------------------------- JSON output

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (static_cast<unsigned char>(ch) >= 0x20) out += ch;
  }
  return out + "\"";
}

std::string number(double value) {
  if (!std::isfinite(value)) return "null";
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", value);
  return text;
}

// Fields of one JSON object, in the order added.
class Json {
 public:
  Json& text(const char* key, const std::string& value) { return raw(key, quoted(value)); }
  Json& value(const char* key, double value) { return raw(key, number(value)); }
  Json& raw(const char* key, const std::string& json) {
    body_ += (body_.empty() ? "" : ", ") + quoted(key) + ": " + json;
    return *this;
  }
  std::string str() const { return "{" + body_ + "}"; }

 private:
  std::string body_;
};

// ---------------------------------------------------------------- operands and references

enum class Kind { kF32, kBF16, kI8 };

const char* kind_name(Kind kind) { return kind == Kind::kF32 ? "f32" : kind == Kind::kBF16 ? "bf16" : "int8"; }

// The operands of one shape in every form the contenders take. f32/bf16: `af`/`bf` hold the
// values as float32 (for bf16, the bf16 values widened exactly), `ah`/`bh` their bf16 bits. int8:
// `ai`/`bi` the bytes, read as s8 (the MXU, s8s8s32) or, for A, as u8 (u8s8s32).
struct Operands {
  Kind kind;
  int64_t m, k, n;
  std::vector<float> af, bf;
  std::vector<uint16_t> ah, bh;
  std::vector<int8_t> ai, bi;
};

Operands make_operands(Kind kind, int64_t m, int64_t k, int64_t n) {
  Operands ops{kind, m, k, n, {}, {}, {}, {}, {}, {}};
  std::mt19937 random(uint32_t(m * 1000003 + k * 1009 + n));
  const auto fill = [&](int64_t count, std::vector<float>& f, std::vector<uint16_t>& h, std::vector<int8_t>& i) {
    if (kind == Kind::kI8) {
      i.resize(count);
      for (auto& x : i) x = int8_t(random());  // the full range, -128 included
      return;
    }
    f.resize(count);
    std::uniform_real_distribution<float> real(-1, 1);
    for (auto& x : f) x = real(random);
    if (kind == Kind::kBF16) {
      h.resize(count);
      for (int64_t j = 0; j < count; ++j) {
        h[j] = rt::to_bfloat16(f[j]).bits;
        f[j] = rt::to_float(rt::BFloat16{h[j]});  // exactly the bf16 value
      }
    }
  };
  fill(m * k, ops.af, ops.ah, ops.ai);
  fill(k * n, ops.bf, ops.bh, ops.bi);
  return ops;
}

// What one contender writes: float32 or int32 (stored as 32-bit words), and for int8 whether A is
// read as unsigned.
struct Output {
  bool integer = false;
  bool a_unsigned = false;
  std::vector<uint32_t> words;
};

// Checks C[row, col] against the naive product; empty string when it matches.
std::string check_element(const Operands& ops, const Output& out, int64_t row, int64_t col) {
  const uint32_t got = out.words[size_t(row * ops.n + col)];
  char text[200];
  if (out.integer) {
    int64_t want = 0;
    for (int64_t l = 0; l < ops.k; ++l) {
      const int64_t a = out.a_unsigned ? int64_t(uint8_t(ops.ai[size_t(row * ops.k + l)])) : ops.ai[size_t(row * ops.k + l)];
      want += a * ops.bi[size_t(l * ops.n + col)];
    }
    if (got == uint32_t(uint64_t(want))) return "";
    std::snprintf(text, sizeof(text), "C[%lld,%lld] = %d, naive int64 loop mod 2^32 gives %d", (long long)row,
                  (long long)col, int32_t(got), int32_t(uint32_t(uint64_t(want))));
    return text;
  }
  double want = 0, magnitude = 0;
  for (int64_t l = 0; l < ops.k; ++l) {
    const double product = double(ops.af[size_t(row * ops.k + l)]) * ops.bf[size_t(l * ops.n + col)];
    want += product;
    magnitude += std::fabs(product);
  }
  float value;
  std::memcpy(&value, &got, 4);
  // Worst-case bound of float32 summation in any order: k * 2^-24 * sum |a b| (doubled for slack).
  const double bound = 2.0 * double(ops.k) * std::ldexp(1.0, -24) * magnitude + 1e-30;
  if (std::fabs(double(value) - want) <= bound) return "";
  std::snprintf(text, sizeof(text), "C[%lld,%lld] = %.9g, double loop gives %.9g (bound %.3g)", (long long)row,
                (long long)col, double(value), want, bound);
  return text;
}

// ---------------------------------------------------------------- contenders

struct Contender {
  std::string name;    // "MXU", "oneDNN dnnl_sgemm", ...
  bool mxu = false;    // the runtime's unit (else a library)
  std::string detail;  // MXU kernel, oneDNN implementation, input types
  bool f32_math = false;  // float32 arithmetic (in the bf16 case its ceiling is the f32 peak, not bf16's)
  Output out;
  std::function<void()> call;
  std::vector<double> seconds;  // per call, one entry per repetition
  bool wrong = false;             // a library that computed a wrong result: reported as excluded, not timed
};

// A deque: contenders never move once added (their calls point at their own output buffers).
using Contenders = std::deque<Contender>;

rt::Tensor matrix(rt::DType dtype, int64_t rows, int64_t cols, const void* data) {
  const int64_t dims[] = {rows, cols};
  return rt::Tensor::contiguous(dtype, *rt::Shape::make(rt::Span<const int64_t>(dims, 2)), const_cast<void*>(data));
}

void add_mxu(Contenders& list, const Operands& ops, std::shared_ptr<rt::Mxu> unit, const std::string& name) {
  Contender& c = list.emplace_back();
  c.name = name;
  c.mxu = true;
  c.out.integer = ops.kind == Kind::kI8;
  c.out.words.resize(size_t(ops.m * ops.n));
  c.detail = std::string(ops.kind == Kind::kI8 ? "int kernel " : "float kernel ") +
             (ops.kind == Kind::kI8 ? unit->int_kernel().name : unit->float_kernel().name);
  const rt::DType in = ops.kind == Kind::kF32 ? rt::DType::kF32 : ops.kind == Kind::kBF16 ? rt::DType::kBF16 : rt::DType::kI8;
  const rt::DType out = ops.kind == Kind::kI8 ? rt::DType::kI32 : rt::DType::kF32;
  const void* a = ops.kind == Kind::kF32 ? (const void*)ops.af.data() : ops.kind == Kind::kBF16 ? (const void*)ops.ah.data() : ops.ai.data();
  const void* b = ops.kind == Kind::kF32 ? (const void*)ops.bf.data() : ops.kind == Kind::kBF16 ? (const void*)ops.bh.data() : ops.bi.data();
  const rt::Tensor ta = matrix(in, ops.m, ops.k, a), tb = matrix(in, ops.k, ops.n, b);
  const rt::Tensor tc = matrix(out, ops.m, ops.n, c.out.words.data());
  c.call = [unit, ta, tb, tc] {
    const rt::Status status = rt::matmul(*unit, ta, tb, tc);
    if (!status.is_ok()) fail(std::string("MXU matmul failed: ") + status.c_str());
  };
}

void add_openblas_sgemm(Contenders& list, const Operands& ops, const std::string& note) {
  Contender c;
  c.name = "OpenBLAS cblas_sgemm";
  c.f32_math = true;
  c.detail = std::string("core ") + openblas_get_corename() + note;
  c.out.words.resize(size_t(ops.m * ops.n));
  float* out = reinterpret_cast<float*>(c.out.words.data());
  const Operands* o = &ops;
  c.call = [o, out] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(o->m), int(o->n), int(o->k), 1.0f, o->af.data(),
                int(o->k), o->bf.data(), int(o->n), 0.0f, out, int(o->n));
  };
  list.push_back(std::move(c));
}

void add_dnnl_sgemm(Contenders& list, const Operands& ops, const std::string& note) {
  Contender c;
  c.name = "oneDNN dnnl_sgemm";
  c.f32_math = true;
  c.detail = "f32 x f32" + note;
  c.out.words.resize(size_t(ops.m * ops.n));
  float* out = reinterpret_cast<float*>(c.out.words.data());
  const Operands* o = &ops;
  c.call = [o, out] {  // row-major, as dnnl_sgemm defines it
    if (dnnl_sgemm('N', 'N', o->m, o->n, o->k, 1.0f, o->af.data(), o->k, o->bf.data(), o->n, 0.0f, out, o->n) !=
        dnnl_success) fail("dnnl_sgemm failed");
  };
  list.push_back(std::move(c));
}

void add_dnnl_int8_gemm(Contenders& list, const Operands& ops, bool a_unsigned) {
  Contender c;
  c.name = a_unsigned ? "oneDNN dnnl_gemm_u8s8s32" : "oneDNN dnnl_gemm_s8s8s32";
  c.detail = a_unsigned ? "u8 A x s8 B -> s32 (A's bytes read as unsigned)" : "s8 x s8 -> s32";
  c.out.integer = true;
  c.out.a_unsigned = a_unsigned;
  c.out.words.resize(size_t(ops.m * ops.n));
  int32_t* out = reinterpret_cast<int32_t*>(c.out.words.data());
  const Operands* o = &ops;
  c.call = [o, out, a_unsigned] {
    static const int32_t zero_offset = 0;
    const dnnl_status_t status =
        a_unsigned ? dnnl_gemm_u8s8s32('N', 'N', 'F', o->m, o->n, o->k, 1.0f,
                                       reinterpret_cast<const uint8_t*>(o->ai.data()), o->k, 0, o->bi.data(), o->n, 0,
                                       0.0f, out, o->n, &zero_offset)
                   : dnnl_gemm_s8s8s32('N', 'N', 'F', o->m, o->n, o->k, 1.0f, o->ai.data(), o->k, 0, o->bi.data(),
                                       o->n, 0, 0.0f, out, o->n, &zero_offset);
    if (status != dnnl_success) fail("dnnl int8 gemm failed");
  };
  list.push_back(std::move(c));
}

// oneDNN's matmul primitive, created once per shape (its JIT code generation stays out of the
// timing), row-major A, B and C on our buffers. Skipped with a note where oneDNN has no
// implementation for the types on this CPU.
void add_dnnl_matmul(Contenders& list, const Operands& ops) {
  using dt = dnnl::memory::data_type;
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  static dnnl::stream stream(engine);
  const dt in = ops.kind == Kind::kF32 ? dt::f32 : ops.kind == Kind::kBF16 ? dt::bf16 : dt::s8;
  const dt out_type = ops.kind == Kind::kI8 ? dt::s32 : dt::f32;
  const dnnl::memory::desc a_md({ops.m, ops.k}, in, dnnl::memory::format_tag::ab);
  const dnnl::memory::desc b_md({ops.k, ops.n}, in, dnnl::memory::format_tag::ab);
  const dnnl::memory::desc c_md({ops.m, ops.n}, out_type, dnnl::memory::format_tag::ab);
  Contender c;
  c.name = "oneDNN matmul";
  c.out.integer = ops.kind == Kind::kI8;
  c.out.words.resize(size_t(ops.m * ops.n));
  try {
#if DNNL_VERSION_MAJOR >= 3
    const dnnl::matmul::primitive_desc pd(engine, a_md, b_md, c_md);
#else
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), engine);
#endif
    c.detail = std::string(ops.kind == Kind::kF32 ? "f32 x f32 -> f32" : ops.kind == Kind::kBF16 ? "bf16 x bf16 -> f32" : "s8 x s8 -> s32") +
               ", implementation " + pd.impl_info_str();
    const void* a = ops.kind == Kind::kF32 ? (const void*)ops.af.data() : ops.kind == Kind::kBF16 ? (const void*)ops.ah.data() : ops.ai.data();
    const void* b = ops.kind == Kind::kF32 ? (const void*)ops.bf.data() : ops.kind == Kind::kBF16 ? (const void*)ops.bh.data() : ops.bi.data();
    auto primitive = std::make_shared<dnnl::matmul>(pd);
    auto am = std::make_shared<dnnl::memory>(a_md, engine, const_cast<void*>(a));
    auto bm = std::make_shared<dnnl::memory>(b_md, engine, const_cast<void*>(b));
    auto cm = std::make_shared<dnnl::memory>(c_md, engine, c.out.words.data());
    c.call = [primitive, am, bm, cm] {
      primitive->execute(stream, {{DNNL_ARG_SRC, *am}, {DNNL_ARG_WEIGHTS, *bm}, {DNNL_ARG_DST, *cm}});
      stream.wait();
    };
  } catch (const dnnl::error& error) {
    std::fprintf(stderr, "gemm_baselines: oneDNN matmul %s skipped: %s\n", kind_name(ops.kind), error.what());
    return;
  }
  list.push_back(std::move(c));
}

// ---------------------------------------------------------------- timing and checks

using Clock = std::chrono::steady_clock;

// Every contender, kRepetitions times, round-robin; each repetition calls it until
// kRepetitionSeconds have passed and records seconds per call. One warm-up call each first.
void time_round_robin(Contenders& list) {
  for (auto& c : list)
    if (!c.wrong) c.call();
  for (int repetition = 0; repetition < kRepetitions; ++repetition) {
    for (auto& c : list) {
      if (c.wrong) continue;
      long calls = 0;
      double elapsed = 0;
      const auto start = Clock::now();
      do {
        c.call();
        ++calls;
        elapsed = std::chrono::duration<double>(Clock::now() - start).count();
      } while (elapsed < kRepetitionSeconds);
      c.seconds.push_back(elapsed / double(calls));
    }
  }
}

// Library contenders that computed a wrong result on this machine: left out of every later case.
std::vector<std::string> excluded_libraries;

// A library that is wrong here is excluded (one JSON line and a note say so) and the run goes on:
// the other contenders still count. The MXU being wrong ends the run (exit 1).
void wrong_result(Contender& c, const std::string& message) {
  if (c.mxu) fail(message);
  c.wrong = true;
  excluded_libraries.push_back(c.name);
  std::fprintf(stderr, "gemm_baselines: %s; %s is left out of this run\n", message.c_str(), c.name.c_str());
  Json line;
  line.text("bench", "gemm").text("metric", c.name + " excluded").raw("value", "null").text("unit", "")
      .raw("baseline", "null").raw("ratio", "null").text("error", message);
  std::printf("%s\n", line.str().c_str());
}

bool excluded(const std::string& name) {
  return std::find(excluded_libraries.begin(), excluded_libraries.end(), name) != excluded_libraries.end();
}

// Checks every element (small shapes) or kProbes sampled ones; a mismatch is wrong_result's.
void verify(const Operands& ops, Contenders& list, bool every_element, const char* when) {
  std::mt19937 random(12345);
  for (auto& c : list) {
    if (c.wrong) continue;
    if (c.seconds.empty()) c.call();  // not timed yet: compute once
    const auto check = [&](int64_t row, int64_t col) {
      if (c.wrong) return;
      const std::string problem = check_element(ops, c.out, row, col);
      if (!problem.empty())
        wrong_result(c, std::string(kind_name(ops.kind)) + " " + std::to_string(ops.m) + "x" + std::to_string(ops.k) +
                            "x" + std::to_string(ops.n) + " " + c.name + " (" + c.detail + ") wrong " + when + ": " + problem);
    };
    if (every_element) {
      for (int64_t row = 0; row < ops.m; ++row)
        for (int64_t col = 0; col < ops.n; ++col) check(row, col);
    } else {
      for (int probe = 0; probe < kProbes; ++probe) check(int64_t(random() % uint64_t(ops.m)), int64_t(random() % uint64_t(ops.n)));
    }
  }
}

double best_seconds(const Contender& c) { return *std::min_element(c.seconds.begin(), c.seconds.end()); }

double median_seconds(const Contender& c) {
  std::vector<double> sorted = c.seconds;
  std::sort(sorted.begin(), sorted.end());
  return sorted[sorted.size() / 2];
}

const char* const kMxuF32Path = "MXU float32 path";

const std::string kStatistic = "best of " + std::to_string(kRepetitions) + " repetitions (each >= " +
                               std::to_string(int(kRepetitionSeconds * 1000)) +
                               " ms of back-to-back calls, operands in cache), round-robin with the other contenders";

// Prints one line per contender: MXU lines against the best library, library lines for the peak.
void report(const Operands& ops, const Contenders& list) {
  const double ops_per_call = 2.0 * double(ops.m) * double(ops.k) * double(ops.n);
  const char* unit = ops.kind == Kind::kI8 ? "GOP/s" : "GFLOP/s";
  char shape[64];
  std::snprintf(shape, sizeof(shape), "%s %lldx%lldx%lld", kind_name(ops.kind), (long long)ops.m, (long long)ops.k,
                (long long)ops.n);
  const auto rate = [&](const Contender& c) { return ops_per_call / best_seconds(c) * 1e-9; };
  const Contender* best = nullptr;
  Json libraries;
  for (const auto& c : list) {
    if (c.mxu || c.wrong) continue;
    libraries.value(c.name.c_str(), rate(c));
    if (!best || rate(c) > rate(*best)) best = &c;
  }
  const std::string shape_json = "[" + std::to_string(ops.m) + ", " + std::to_string(ops.k) + ", " + std::to_string(ops.n) + "]";
  for (const auto& c : list) {
    if (c.wrong) continue;
    const std::string metric = std::string(shape) + " " + c.name;
    Json line;
    line.text("bench", "gemm").text("metric", metric).value("value", rate(c)).text("unit", unit);
    if (c.mxu && best) {
      Json ratio_to;
      for (const auto& other : list)
        if (!other.mxu && !other.wrong) ratio_to.value(other.name.c_str(), rate(c) / rate(other));
      line.text("baseline", best->name).value("ratio", rate(c) / rate(*best)).text("best_library", best->name)
          .value("best_library_value", rate(*best)).raw("libraries", libraries.str()).raw("ratio_to", ratio_to.str());
      if (ops.kind == Kind::kBF16) {  // the MXU's float32 path on the same (widened) values
        for (const auto& other : list)
          if (other.name == kMxuF32Path && c.name != kMxuF32Path) line.value("ratio_to_mxu_f32", rate(c) / rate(other));
      }
    } else {
      line.text("baseline", "peak").raw("ratio", "null");
    }
    line.text("dtype", kind_name(ops.kind)).text("peak_dtype", c.f32_math ? "f32" : kind_name(ops.kind))
        .raw("shape_mkn", shape_json).text("implementation", c.mxu ? "MXU" : "library")
        .text("detail", c.detail).value("median", ops_per_call / median_seconds(c) * 1e-9).text("statistic", kStatistic)
        .value("threads", 1);
    std::printf("%s\n", line.str().c_str());
  }
  std::fflush(stdout);
}

// ---------------------------------------------------------------- cases

std::shared_ptr<rt::Mxu> default_mxu() { return std::make_shared<rt::Mxu>(rt::kMaxMxuTile); }

// Every contender for `ops` (at 512^3 also each MXU kernel variant).
Contenders contenders(const Operands& ops, bool kernel_variants) {
  Contenders list;
  add_mxu(list, ops, default_mxu(), "MXU");
  if (kernel_variants && ops.kind != Kind::kBF16) {
    bool first = true;
    if (ops.kind == Kind::kF32) {
      for (const rt::FloatKernel* kernel : rt::float_kernels_for_this_cpu()) {
        if (!std::exchange(first, false))
          add_mxu(list, ops, std::make_shared<rt::Mxu>(rt::kMaxMxuTile, *kernel), std::string("MXU float kernel ") + kernel->name);
      }
    } else {
      const rt::FloatKernel& float_kernel = *rt::float_kernels_for_this_cpu()[0];
      for (const rt::IntKernel* kernel : rt::int_kernels_for_this_cpu()) {
        if (!std::exchange(first, false))
          add_mxu(list, ops, std::make_shared<rt::Mxu>(rt::kMaxMxuTile, float_kernel, *kernel),
                  std::string("MXU int kernel ") + kernel->name);
      }
    }
  }
  const size_t mxu_contenders = list.size();
  switch (ops.kind) {
    case Kind::kF32:
      add_openblas_sgemm(list, ops, "");
      add_dnnl_sgemm(list, ops, "");
      add_dnnl_matmul(list, ops);
      break;
    case Kind::kI8:
      add_dnnl_int8_gemm(list, ops, true);
      add_dnnl_int8_gemm(list, ops, false);
      add_dnnl_matmul(list, ops);
      break;
    case Kind::kBF16:
      add_dnnl_matmul(list, ops);
      add_dnnl_sgemm(list, ops, " on the bf16 values widened to f32");
      add_openblas_sgemm(list, ops, ", on the bf16 values widened to f32");
      break;
  }
  for (size_t i = mxu_contenders; i < list.size(); ++i) list[i].wrong = excluded(list[i].name);
  return list;
}

// bf16 runs alongside the MXU's float32 path on the same widened values (not a library: it is
// reported as "ratio_to_mxu_f32" on the bf16 MXU line).
void add_mxu_f32_of_bf16(Contenders& list, const Operands& ops, Operands& widened) {
  widened = ops;
  widened.kind = Kind::kF32;
  add_mxu(list, widened, default_mxu(), kMxuF32Path);
  list.back().detail += " (same values widened to f32)";
  list.back().f32_math = true;
}

// The cases named on the command line ("f32:512x512x512" ...), or all when none is.
std::vector<std::string> chosen_cases, cases_run;

void run_case(Kind kind, int64_t m, int64_t k, int64_t n, bool kernel_variants = false) {
  const std::string name = std::string(kind_name(kind)) + ":" + std::to_string(m) + "x" + std::to_string(k) + "x" +
                           std::to_string(n);
  if (!chosen_cases.empty() && std::find(chosen_cases.begin(), chosen_cases.end(), name) == chosen_cases.end()) return;
  cases_run.push_back(name);
  const Operands ops = make_operands(kind, m, k, n);
  Contenders list = contenders(ops, kernel_variants);
  Operands widened;
  if (kind == Kind::kBF16) add_mxu_f32_of_bf16(list, ops, widened);
  time_round_robin(list);
  verify(ops, list, false, "at the benchmark shape");
  report(ops, list);
}

// Every contender on small odd shapes (several MXU tiles in k, a ragged last tile) against the
// naive references, before any timing.
void sanity_checks() {
  for (Kind kind : {Kind::kF32, Kind::kI8, Kind::kBF16}) {
    for (const auto& [m, k, n] : {std::array<int64_t, 3>{37, 259, 45}, std::array<int64_t, 3>{8, 128, 128}}) {
      const Operands ops = make_operands(kind, m, k, n);
      Contenders list = contenders(ops, true);
      Operands widened;
      if (kind == Kind::kBF16) add_mxu_f32_of_bf16(list, ops, widened);
      verify(ops, list, true, "on the sanity-check shape");
    }
  }
}

// ---------------------------------------------------------------- the machine

std::string cpuinfo_field(const std::string& key) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.compare(0, key.size(), key) != 0) continue;
    const size_t colon = line.find(':');
    if (colon != std::string::npos && line.find_first_not_of(" \t", key.size()) == colon)
      return line.substr(std::min(line.size(), colon + 2));
  }
  return "unknown";
}

std::string onednn_isa() {
  switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_sse41: return "sse41";
    case dnnl_cpu_isa_avx: return "avx";
    case dnnl_cpu_isa_avx2: return "avx2";
    case dnnl_cpu_isa_avx2_vnni: return "avx2_vnni";
    case dnnl_cpu_isa_avx512_core: return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
    default: return "other (" + std::to_string(int(dnnl_get_effective_cpu_isa())) + ")";
  }
}

void machine_line() {
  const std::string flags = " " + cpuinfo_field("flags") + " ";
  std::string relevant;
  for (const char* flag : {"avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx_vnni", "avx512_bf16",
                           "amx_bf16", "amx_int8", "hypervisor"})
    if (flags.find(std::string(" ") + flag + " ") != std::string::npos) relevant += (relevant.empty() ? "" : " ") + std::string(flag);
  const dnnl_version_t* version = dnnl_version();
  char onednn[64];
  std::snprintf(onednn, sizeof(onednn), "oneDNN %d.%d.%d", version->major, version->minor, version->patch);
  const auto mxu = default_mxu();
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  Json line;
  line.text("bench", "machine").text("metric", cpuinfo_field("model name")).value("value", double(cpus))
      .text("unit", "logical CPUs").raw("baseline", "null").raw("ratio", "null")
      .text("cpu_model", cpuinfo_field("model name")).text("cpu_family", cpuinfo_field("cpu family"))
      .text("cpu_model_number", cpuinfo_field("model")).text("cpu_flags", relevant)
      .text("openblas_config", openblas_get_config()).text("openblas_corename", openblas_get_corename())
      .value("openblas_threads", openblas_get_num_threads()).text("onednn", onednn)
      .text("onednn_max_isa", onednn_isa())
#if DNNL_CPU_RUNTIME == DNNL_RUNTIME_OMP
      .value("onednn_omp_max_threads", omp_get_max_threads())
#endif
      .text("mxu_float_kernel", mxu->float_kernel().name).text("mxu_int_kernel", mxu->int_kernel().name)
      .text("compiler", "g++ " __VERSION__)
      .text("threads", "1: the MXU is single-threaded; OpenBLAS openblas_set_num_threads(1) (and OPENBLAS_NUM_THREADS=1); "
                       "oneDNN OMP_NUM_THREADS=1");
  std::printf("%s\n", line.str().c_str());
}

}  // namespace

// gemm_baselines [KIND:MxKxN ...]: every case, or only those named (f32, int8 or bf16).
int main(int argc, char** argv) {
  chosen_cases.assign(argv + 1, argv + argc);
  const char* omp = std::getenv("OMP_NUM_THREADS");
  if (!omp || std::string(omp) != "1") fail("run with OMP_NUM_THREADS=1 (oneDNN's OpenMP threads; one thread for every contender)");
  openblas_set_num_threads(1);
  if (openblas_get_num_threads() != 1) fail("OpenBLAS would not run on one thread");
#if DNNL_CPU_RUNTIME == DNNL_RUNTIME_OMP
  if (omp_get_max_threads() != 1) fail("OpenMP would run oneDNN on more than one thread");
#endif
  machine_line();
  sanity_checks();

  run_case(Kind::kF32, 512, 512, 512, true);
  run_case(Kind::kF32, 1024, 1024, 1024);
  for (int64_t l : {8, 128, 1024}) run_case(Kind::kF32, l, 128, 128);
  run_case(Kind::kI8, 512, 512, 512, true);
  for (int64_t l : {8, 128, 1024}) run_case(Kind::kI8, l, 128, 128);
  run_case(Kind::kBF16, 512, 512, 512);
  for (const std::string& name : chosen_cases)
    if (std::find(cases_run.begin(), cases_run.end(), name) == cases_run.end())
      fail("no case " + name + " (cases: f32:512x512x512, f32:1024x1024x1024, f32:Lx128x128 and int8:Lx128x128 "
           "for L = 8, 128, 1024, int8:512x512x512, bf16:512x512x512)");
  return 0;
}
