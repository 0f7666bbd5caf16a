// The int8 micro-kernels at their own interface (int_kernel.hpp): operands packed here from the
// layouts the header defines (kInt16: int16 in groups of k_group; kBiasedBytes: int8 rows, int8
// weights in groups of four and the -128 x column-sum corrections), each call's c (padding and the
// rows a partial call must not touch included) against int32 sums mod 2^32; and the kBiasedBytes
// kernels' own panel packing, byte for byte.
#include "runtime/tensor/arena.hpp"
#include "suite.hpp"

namespace mxu_kernels {
namespace {

unsigned padded(unsigned k, unsigned group) { return (k + group - 1) / group * group; }

// w[k][j] (k < k_rows, j < valid, row stride w_row_stride) as the kBiasedBytes panel of `columns`
// columns and its corrections, written from int_kernel.hpp's description.
void pack_biased(const int8_t* w, int64_t w_row_stride, unsigned k_rows, unsigned valid, unsigned columns,
                 int8_t* panel, int32_t* correction) {
  const unsigned k_steps = padded(k_rows, 4);
  for (unsigned j = 0; j < columns; ++j) {
    uint32_t sum = 0;
    for (unsigned k = 0; k < k_steps; ++k) {
      const int8_t value = k < k_rows && j < valid ? w[k * w_row_stride + j] : int8_t{0};
      panel[((k / 4) * columns + j) * 4 + k % 4] = value;
      sum += static_cast<uint32_t>(int32_t{value});
    }
    correction[j] = static_cast<int32_t>(sum * 0xffffff80u);  // -128 * sum, mod 2^32
  }
}

// A start value for accumulation: anything, or close below / above the int32 wrap.
uint32_t random_start(Random& random) {
  switch (random.below(3)) {
    case 0: return 0x80000000u - 1 - random.below(1u << 22);
    case 1: return 0x80000000u + random.below(1u << 22);
    default: return static_cast<uint32_t>(random.next());
  }
}

// One call for `rows_used` rows (kInt16 kernels: always all of them) with K = k_rows.
rt::Status check_call(const rt::IntKernel& kernel, unsigned k_rows, unsigned rows_used, bool accumulate, IntFill fill,
                      unsigned a_padding, unsigned c_padding, Random& random) {
  rt::ArenaScope scope(rt::hbm());
  const bool biased = kernel.layout == rt::IntLayout::kBiasedBytes;
  const unsigned rows = kernel.rows, columns = kernel.columns;
  const unsigned k_steps = padded(k_rows, biased ? 4 : kernel.k_group);
  int8_t* a = RT_TRY(scratch<int8_t>(size_t{rows} * k_rows));  // a[r * k_rows + k]
  int8_t* w = RT_TRY(scratch<int8_t>(size_t{k_rows} * columns));  // w[k * columns + j]
  for (size_t i = 0; i < size_t{rows} * k_rows; ++i) a[i] = random_int8(random, fill, false);
  for (size_t i = 0; i < size_t{k_rows} * columns; ++i) w[i] = random_int8(random, fill, true);
  const int64_t c_row_stride = columns + c_padding;
  const size_t c_size = static_cast<size_t>(rows * c_row_stride) + 8;
  uint32_t* c = RT_TRY(scratch<uint32_t>(c_size));
  uint32_t* want = RT_TRY(scratch<uint32_t>(c_size));
  for (size_t i = 0; i < c_size; ++i) c[i] = random_start(random);
  for (size_t i = 0; i < c_size; ++i) want[i] = c[i];
  for (unsigned r = 0; r < rows_used; ++r)
    for (unsigned j = 0; j < columns; ++j) {
      uint32_t acc = accumulate ? c[r * c_row_stride + j] : 0u;
      for (unsigned k = 0; k < k_rows; ++k)
        acc += static_cast<uint32_t>(int32_t{a[size_t{r} * k_rows + k]}) * static_cast<uint32_t>(int32_t{w[size_t{k} * columns + j]});
      want[r * c_row_stride + j] = acc;
    }
  int32_t* c_data = reinterpret_cast<int32_t*>(c);
  if (biased) {
    // Rows of k_steps (+ a_padding) int8 bytes; the slots past K hold junk, which the zero weights cancel.
    const int64_t a_row_stride = k_steps + a_padding;
    int8_t* a8 = RT_TRY(scratch<int8_t>(static_cast<size_t>(rows_used * a_row_stride)));
    for (unsigned r = 0; r < rows_used; ++r)
      for (int64_t k = 0; k < a_row_stride; ++k)
        a8[r * a_row_stride + k] = k < k_rows ? a[size_t{r} * k_rows + k] : static_cast<int8_t>(random.next());
    int8_t* panel = RT_TRY(scratch<int8_t>(size_t{k_steps} * columns));
    int32_t* correction = RT_TRY(scratch<int32_t>(columns));
    pack_biased(w, columns, k_rows, columns, columns, panel, correction);
    kernel.run_biased(a8, a_row_stride, panel, correction, k_steps, rows_used, c_data, c_row_stride, accumulate);
  } else {
    const unsigned group = kernel.k_group;
    int16_t* a16 = RT_TRY(scratch<int16_t>(size_t{k_steps} * rows));
    int16_t* w16 = RT_TRY(scratch<int16_t>(size_t{k_steps} * columns));
    for (unsigned k = 0; k < k_steps; ++k) {
      for (unsigned r = 0; r < rows; ++r)
        a16[((k / group) * rows + r) * group + k % group] = k < k_rows ? a[size_t{r} * k_rows + k] : int16_t{0};
      for (unsigned j = 0; j < columns; ++j)
        w16[((k / group) * columns + j) * group + k % group] = k < k_rows ? w[size_t{k} * columns + j] : int16_t{0};
    }
    kernel.run(a16, w16, k_steps, c_data, c_row_stride, accumulate);
  }
  for (size_t i = 0; i < c_size; ++i) {
    if (c[i] == want[i]) continue;
    const int64_t r = static_cast<int64_t>(i) / c_row_stride, j = static_cast<int64_t>(i) % c_row_stride;
    const bool result = r < rows_used && j < columns;
    return rt::internal_error("int kernel {}: K {}, {} of {} rows, a row padding {}, c row stride {}, {}, {} fill: "
                              "c[{}][{}]{} is 0x{:08x}, expected 0x{:08x}",
                              kernel.name, k_rows, rows_used, rows, a_padding, c_row_stride,
                              accumulate ? "accumulate" : "overwrite", fill_name(fill), r, j,
                              result ? "" : " (must stay untouched)", c[i], want[i]);
  }
  return rt::Status::ok();
}

// The kernel's own panel packing against pack_biased, byte for byte (panel and corrections).
rt::Status check_panel_packing(const rt::IntKernel& kernel, unsigned k_rows, unsigned valid, unsigned row_padding,
                               IntFill fill, Random& random) {
  rt::ArenaScope scope(rt::hbm());
  const unsigned columns = kernel.columns, k_steps = padded(k_rows, 4);
  const int64_t w_row_stride = valid + row_padding;
  int8_t* w = RT_TRY(scratch<int8_t>(static_cast<size_t>(k_rows * w_row_stride)));
  for (size_t i = 0; i < static_cast<size_t>(k_rows * w_row_stride); ++i) w[i] = random_int8(random, fill, true);
  const size_t panel_bytes = size_t{k_steps} * columns;
  int8_t* got_panel = RT_TRY(scratch<int8_t>(panel_bytes + 64));
  int8_t* want_panel = RT_TRY(scratch<int8_t>(panel_bytes));
  int32_t* got_correction = RT_TRY(scratch<int32_t>(columns + 16));
  int32_t* want_correction = RT_TRY(scratch<int32_t>(columns));
  for (size_t i = 0; i < panel_bytes + 64; ++i) got_panel[i] = 0x5a;
  for (size_t i = 0; i < columns + 16; ++i) got_correction[i] = 0x5a5a5a5a;
  pack_biased(w, w_row_stride, k_rows, valid, columns, want_panel, want_correction);
  kernel.pack_biased_panel(w, w_row_stride, k_rows, valid, got_panel, got_correction);
  for (size_t i = 0; i < panel_bytes + 64; ++i) {
    const int8_t want = i < panel_bytes ? want_panel[i] : int8_t{0x5a};
    if (got_panel[i] != want)
      return rt::internal_error("int kernel {} panel packing: K {}, {} of {} columns, row stride {}, {} fill: panel byte {}{} "
                                "(k {}, column {}) is 0x{:02x}, expected 0x{:02x}",
                                kernel.name, k_rows, valid, columns, w_row_stride, fill_name(fill), i,
                                i < panel_bytes ? "" : " (past the panel)", i / (4 * columns) * 4 + i % 4, i / 4 % columns,
                                static_cast<uint8_t>(got_panel[i]), static_cast<uint8_t>(want));
  }
  for (size_t j = 0; j < columns + 16; ++j) {
    const int32_t want = j < columns ? want_correction[j] : 0x5a5a5a5a;
    if (got_correction[j] != want)
      return rt::internal_error("int kernel {} panel packing: K {}, {} of {} columns, row stride {}, {} fill: correction[{}]{} "
                                "is 0x{:08x}, expected 0x{:08x}",
                                kernel.name, k_rows, valid, columns, w_row_stride, fill_name(fill), j,
                                j < columns ? "" : " (past the panel)", static_cast<uint32_t>(got_correction[j]),
                                static_cast<uint32_t>(want));
  }
  return rt::Status::ok();
}

// Enough k steps of -128 x -128 (2^14 each) that a sum from zero passes 2^31 and wraps.
constexpr unsigned kWrappingK = (1u << 17) + 37;

}  // namespace

rt::Status check_int_kernel(const rt::IntKernel& kernel, Random& random, unsigned& cases) {
  const bool biased = kernel.layout == rt::IntLayout::kBiasedBytes;
  // A layout this app does not pack for (int_kernel.hpp grew one) fails here instead of being
  // fed the wrong operands.
  if (!(kernel.layout == rt::IntLayout::kInt16 && kernel.run != nullptr) && !(biased && kernel.run_biased != nullptr))
    return rt::internal_error("int kernel {}: layout {} (or its entry point) is unknown to this app", kernel.name,
                              static_cast<unsigned>(kernel.layout));
  unsigned k_values[64 + 1 + 8];
  unsigned count = 0;
  for (unsigned k = 0; k <= 64; ++k) k_values[count++] = k;
  for (unsigned k : {95u, 100u, 127u, 128u, 129u, 255u, 256u, 257u}) k_values[count++] = k;
  unsigned call = 0;
  for (unsigned i = 0; i < count; ++i) {
    const unsigned k_rows = k_values[i];
    for (bool accumulate : {false, true})
      for (IntFill fill : {IntFill::kRandom, IntFill::kExtremes, IntFill::kMinimum, IntFill::kMaximum, IntFill::kMinTimesMax}) {
        // kBiasedBytes: every row count 1 .. rows in turn (all of them every other call), padded
        // activation rows every third call.
        const unsigned rows_used = !biased || call % 2 == 0 ? kernel.rows : 1 + (call / 2) % kernel.rows;
        const unsigned a_padding = biased && call % 3 == 0 ? 5 : 0;
        RT_RETURN_IF_ERROR(check_call(kernel, k_rows, rows_used, accumulate, fill, a_padding, call % 2 ? 3 : 0, random));
        ++call;
        ++cases;
      }
  }
  // Long K: the int32 sums wrap (from zero, and from a start near the wrap).
  RT_RETURN_IF_ERROR(check_call(kernel, kWrappingK, kernel.rows, false, IntFill::kMinimum, 0, 1, random));
  RT_RETURN_IF_ERROR(check_call(kernel, kWrappingK, kernel.rows, true, IntFill::kMinTimesMax, 0, 0, random));
  RT_RETURN_IF_ERROR(check_call(kernel, kWrappingK - 2, kernel.rows, true, IntFill::kExtremes, biased ? 7 : 0, 2, random));
  cases += 3;
  if (biased && kernel.pack_biased_panel != nullptr) {
    const unsigned columns = kernel.columns;
    const unsigned valid_counts[] = {1, 3, columns / 2 - 1, columns / 2 + 1, columns - 1, columns};
    const unsigned k_counts[] = {1, 2, 3, 4, 5, 7, 8, 13, 31, 32, 33, 64, 127, 128};
    unsigned packing = 0;
    for (unsigned k_rows : k_counts)
      for (unsigned valid : valid_counts) {
        const IntFill fill = packing % 3 == 0 ? IntFill::kMinimum : packing % 3 == 1 ? IntFill::kExtremes : IntFill::kRandom;
        RT_RETURN_IF_ERROR(check_panel_packing(kernel, k_rows, valid, packing % 2 ? 0 : 9, fill, random));
        ++packing;
        ++cases;
      }
  }
  return rt::Status::ok();
}

}  // namespace mxu_kernels
