// NumPy .npy files in memory: a zero-copy parser for untrusted bytes and a header writer, shared by
// the firmware and the host tools. Format 1.0/2.0/3.0, little-endian, C order. dtypes: <f4 <f8 <f2
// <i4 <u4 |i1 |b1 <i8 <c8, and bfloat16 stored as |V2 (two raw bytes per element, what NumPy
// writes for a 2-byte void dtype; NumPy has no bfloat16, ml_dtypes arrays can be viewed from it;
// <V2 is accepted too). Anything else is rejected with a clear error.
#pragma once
#include "hal/support/result.hpp"
#include "tensor.hpp"

namespace rt {

struct NpyView {
  DType dtype;
  Shape shape;
  Span<const uint8_t> data;  // points into the parsed buffer
};

Result<NpyView> npy_parse(Span<const uint8_t> file);

// The header alone, from the first bytes of a file of `file_size` bytes (a file read piecewise):
// the same checks as npy_parse, the data's size checked against file_size.
struct NpyHeader {
  DType dtype;
  Shape shape;
  uint64_t data_offset;
  uint64_t data_bytes;
};
Result<NpyHeader> npy_parse_header(Span<const uint8_t> first_bytes, uint64_t file_size);

// Writes a version 1.0 header for (dtype, shape) to `out` (padded so the data starts at a multiple
// of 64) and returns its length; the element bytes follow it.
Result<size_t> npy_write_header(DType dtype, const Shape& shape, Span<uint8_t> out);

// The .npy descr string of a dtype ("<f4", ... "|V2" for bfloat16).
const char* npy_descr(DType dtype);

}  // namespace rt
