// Strided copy: one memcpy for contiguous views, else a row walk (IndexIterator) that memcpy's
// rows contiguous on both sides and moves other rows element by element.
#include "copy.hpp"

#include <string.h>

#include "index_iterator.hpp"
#include "hal/support/unaligned.hpp"

namespace rt {
namespace {

template <class T>
void copy_strided_row(const uint8_t* in, int64_t in_stride, uint8_t* out, int64_t out_stride, int64_t count) {
  for (int64_t k = 0; k < count; ++k, in += in_stride, out += out_stride) store_unaligned(out, load_unaligned<T>(in));
}

void copy_row(const uint8_t* in, int64_t in_stride, uint8_t* out, int64_t out_stride, int64_t count, size_t element_size) {
  const int64_t size = static_cast<int64_t>(element_size);
  if (in_stride == size && out_stride == size) {
    memcpy(out, in, static_cast<size_t>(count) * element_size);
    return;
  }
  switch (element_size) {
    case 1: copy_strided_row<uint8_t>(in, in_stride, out, out_stride, count); return;
    case 2: copy_strided_row<uint16_t>(in, in_stride, out, out_stride, count); return;
    case 4: copy_strided_row<uint32_t>(in, in_stride, out, out_stride, count); return;
    default: copy_strided_row<uint64_t>(in, in_stride, out, out_stride, count); return;  // 8 bytes
  }
}

bool same_view(const Tensor& a, const Tensor& b) {
  if (a.data != b.data) return false;
  for (unsigned d = 0; d < a.shape.rank; ++d)
    if (a.shape.dims[d] != 1 && a.strides[d] != b.strides[d]) return false;
  return true;
}

}  // namespace

void copy_unchecked(const Tensor& in, const Tensor& out) {
  if (out.num_elements() == 0 || same_view(in, out)) return;
  if (in.is_contiguous() && out.is_contiguous()) {
    memcpy(out.data, in.data, out.num_elements() * out.element_size());
    return;
  }
  IndexIterator<2> rows(out.shape);
  rows.set_operand(0, in);
  rows.set_operand(1, out);
  rows.coalesce();
  do {
    copy_row(rows.pointer(0), rows.row_stride(0), rows.pointer(1), rows.row_stride(1), rows.row_size(), out.element_size());
  } while (rows.next_row());
}

Status copy(const Tensor& in, const Tensor& out) {
  if (in.dtype != out.dtype)
    return invalid_argument("copy: input dtype {} differs from output dtype {}", dtype_name(in.dtype), dtype_name(out.dtype));
  if (!(in.shape == out.shape))
    return invalid_argument("copy: input shape {} differs from output shape {}", in.shape.sizes(), out.shape.sizes());
  copy_unchecked(in, out);
  return Status::ok();
}

}  // namespace rt
