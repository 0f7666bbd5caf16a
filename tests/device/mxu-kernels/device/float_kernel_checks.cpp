// The float32 micro-kernels at their own interface (float_kernel.hpp): one call per case, every
// c element (padding included) against a naive loop of __builtin_fmaf in k order; `run_narrow`
// (where a kernel has it) for every width below the panel's, its columns past the width free.
#include "runtime/tensor/arena.hpp"
#include "suite.hpp"

namespace mxu_kernels {
namespace {

// How a call lays the activations out; element (r, k) is at a[r * row_stride + k * k_stride].
enum class Layout : uint8_t {
  kRows,        // rows in place, back to back (row stride K)
  kRowsPadded,  // rows in place with a gap between them
  kKMajor,      // k-major, `rows` floats per k step (what the MXU packs partial and bf16 blocks into)
  kKMajorWide,  // k-major with a wider step (a layout no kernel special-cases: gathered)
  kStrided,     // both strides > 1 (a transposed or sliced tensor)
  kPacked,      // a kernel's own packed layout (packed_k_stride != 0): slots past `rows` zero
};

const char* layout_name(Layout layout) {
  switch (layout) {
    case Layout::kRows: return "rows";
    case Layout::kRowsPadded: return "padded-rows";
    case Layout::kKMajor: return "k-major";
    case Layout::kKMajorWide: return "wide-k-major";
    case Layout::kStrided: return "strided";
    case Layout::kPacked: return "packed";
  }
  return "?";
}

struct Strides {
  int64_t row, k;
};

Strides strides_of(Layout layout, const rt::FloatKernel& kernel, unsigned k_rows) {
  switch (layout) {
    case Layout::kRows: return {k_rows == 0 ? 1 : int64_t{k_rows}, 1};
    case Layout::kRowsPadded: return {int64_t{k_rows} + 1 + k_rows % 5, 1};
    case Layout::kKMajor: return {1, int64_t{kernel.rows}};
    case Layout::kKMajorWide: return {1, int64_t{kernel.rows} + 3};
    case Layout::kStrided: return {2 * int64_t{k_rows} + 3, 2};
    case Layout::kPacked: return {1, int64_t{kernel.packed_k_stride}};
  }
  return {1, 1};
}

// One call of kernel.run, or of kernel.run_narrow for `cols` below the panel's width.
rt::Status check_call(const rt::FloatKernel& kernel, unsigned k_rows, Layout layout, bool accumulate, FloatFill fill,
                      unsigned c_padding, Random& random, unsigned cols = 0) {
  rt::ArenaScope scope(rt::hbm());
  const unsigned rows = kernel.rows, columns = kernel.columns;
  const Strides strides = strides_of(layout, kernel, k_rows);
  const size_t a_size = static_cast<size_t>((rows - 1) * strides.row + (k_rows == 0 ? 0 : (k_rows - 1) * strides.k) + 1);
  float* a = RT_TRY(scratch<float>(a_size));
  float* w = RT_TRY(scratch<float>(size_t{k_rows} * columns));
  const int64_t c_row_stride = columns + c_padding;
  const size_t c_size = static_cast<size_t>(rows * c_row_stride) + 8;  // 8 floats past the last row too
  float* c = RT_TRY(scratch<float>(c_size));
  uint32_t* want = RT_TRY(scratch<uint32_t>(c_size));
  for (size_t i = 0; i < a_size; ++i) a[i] = random_float(random, fill);
  if (layout == Layout::kPacked)
    for (unsigned k = 0; k < k_rows; ++k)
      for (unsigned r = rows; r < kernel.packed_k_stride; ++r) a[k * kernel.packed_k_stride + r] = 0.0f;
  const FloatFill weight_fill = fill == FloatFill::kNegativeZeros ? FloatFill::kNormal : fill;
  for (size_t i = 0; i < size_t{k_rows} * columns; ++i) w[i] = random_float(random, weight_fill);
  // c: what the kernel accumulates onto, junk it must ignore when overwriting; negative zeros
  // with the negative-zero activations (the sum of -0 products onto -0 stays -0).
  for (size_t i = 0; i < c_size; ++i) c[i] = fill == FloatFill::kNegativeZeros ? -0.0f : random_float(random, fill);
  for (size_t i = 0; i < c_size; ++i) want[i] = bits_of(c[i]);
  for (unsigned r = 0; r < rows; ++r)
    for (unsigned j = 0; j < columns; ++j) {
      float acc = accumulate ? c[r * c_row_stride + j] : 0.0f;
      for (unsigned k = 0; k < k_rows; ++k) acc = __builtin_fmaf(a[r * strides.row + k * strides.k], w[k * columns + j], acc);
      want[r * c_row_stride + j] = bits_of(acc);
    }
  const bool narrow = cols != 0 && cols < columns;
  if (narrow)
    kernel.run_narrow(a, strides.row, strides.k, w, k_rows, cols, c, c_row_stride, accumulate);
  else
    kernel.run(a, strides.row, strides.k, w, k_rows, c, c_row_stride, accumulate);
  const int64_t width = narrow ? cols : columns;
  for (size_t i = 0; i < c_size; ++i) {
    const uint32_t got = bits_of(c[i]);
    const int64_t column = static_cast<int64_t>(i) % c_row_stride;
    const bool in_rows = i < static_cast<size_t>(rows * c_row_stride);
    if (in_rows && column >= width && column < columns) continue;  // run_narrow: unspecified there
    const bool result = in_rows && column < width;
    if (result ? same_result(got, want[i]) : got == want[i]) continue;
    return rt::internal_error("float kernel {}{}: K {}, {} a (strides {}, {}), c row stride {}, {}, {} fill: c[{}][{}]{} "
                              "is 0x{:08x}, expected 0x{:08x}",
                              kernel.name, narrow ? " (narrow)" : "", k_rows, layout_name(layout), strides.row, strides.k, c_row_stride,
                              accumulate ? "accumulate" : "overwrite", fill_name(fill), static_cast<int64_t>(i) / c_row_stride,
                              static_cast<int64_t>(i) % c_row_stride, result ? "" : " (padding)", got, want[i]);
  }
  return rt::Status::ok();
}

}  // namespace

rt::Status check_float_kernel(const rt::FloatKernel& kernel, Random& random, unsigned& cases) {
  // Every K up to 64 (each remainder of any unrolling up to 24 or chunking up to 32, twice), then
  // around the tile sizes.
  unsigned k_values[64 + 1 + 8];
  unsigned count = 0;
  for (unsigned k = 0; k <= 64; ++k) k_values[count++] = k;
  for (unsigned k : {95u, 96u, 97u, 127u, 128u, 129u, 200u, 257u}) k_values[count++] = k;
  const Layout free_layouts[] = {Layout::kRows, Layout::kRowsPadded, Layout::kKMajor, Layout::kKMajorWide, Layout::kStrided};
  const Layout packed_layouts[] = {Layout::kPacked};
  const bool packed = kernel.packed_k_stride != 0;
  const rt::Span<const Layout> layouts = packed ? rt::Span<const Layout>(packed_layouts) : rt::Span<const Layout>(free_layouts);
  for (unsigned i = 0; i < count; ++i) {
    const unsigned k_rows = k_values[i];
    for (Layout layout : layouts)
      for (bool accumulate : {false, true})
        for (FloatFill fill : {FloatFill::kNormal, FloatFill::kSpecials}) {
          RT_RETURN_IF_ERROR(check_call(kernel, k_rows, layout, accumulate, fill, (k_rows + cases) % 2 ? 5 : 0, random));
          ++cases;
        }
    // Negative zeros: one layout per K is enough (the start value does not depend on the layout).
    for (bool accumulate : {false, true}) {
      RT_RETURN_IF_ERROR(check_call(kernel, k_rows, layouts[k_rows % layouts.size()], accumulate, FloatFill::kNegativeZeros,
                                    3, random));
      ++cases;
    }
  }
  if (kernel.run_narrow == nullptr) return rt::Status::ok();
  // Every narrower width, on the Ks around the kernels' k unrolling and a tile's worth.
  for (unsigned k_rows : {0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u, 10u, 31u, 32u, 33u, 128u})
    for (unsigned cols = 1; cols < kernel.columns; ++cols)
      for (Layout layout : layouts)
        for (bool accumulate : {false, true}) {
          const FloatFill fill = (k_rows + cols) % 3 == 0 ? FloatFill::kSpecials : FloatFill::kNormal;
          RT_RETURN_IF_ERROR(check_call(kernel, k_rows, layout, accumulate, fill, cols % 2 ? 5 : 0, random, cols));
          ++cases;
        }
  return rt::Status::ok();
}

}  // namespace mxu_kernels
