// .npy header parsing (a small, bounds-checked reader for the Python dict literal NumPy writes)
// and header writing.
#include "npy.hpp"

#include "hal/support/format.hpp"

namespace rt {
namespace {

constexpr uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

struct Descr {
  const char* text;
  DType dtype;
};
constexpr Descr kDescrs[] = {
    {"<f4", DType::kF32}, {"<f8", DType::kF64}, {"<f2", DType::kF16}, {"<i4", DType::kI32},  {"<u4", DType::kU32},
    {"|i1", DType::kI8},  {"|b1", DType::kBool}, {"<i8", DType::kI64}, {"<c8", DType::kC64}, {"|V2", DType::kBF16},
};

// Reads the value after `'key':` in the header dict, or returns an empty view.
StringView value_after(StringView header, StringView key) {
  for (size_t i = 0; i + key.size() + 2 < header.size(); ++i) {
    if (header[i] != '\'' || !header.substr(i + 1).starts_with(key) || header[i + 1 + key.size()] != '\'') continue;
    size_t j = i + key.size() + 2;
    while (j < header.size() && (header[j] == ' ' || header[j] == ':')) ++j;
    return header.substr(j);
  }
  return StringView();
}

Result<DType> parse_descr(StringView value) {
  if (value.empty() || value[0] != '\'') return invalid_argument(".npy header has no 'descr' string");
  const size_t end = value.find('\'', 1);
  if (end == StringView::npos) return invalid_argument(".npy header: unterminated 'descr'");
  const StringView text = value.substr(1, end - 1);
  for (const Descr& descr : kDescrs)
    if (text == StringView(descr.text)) return descr.dtype;
  if (text == StringView("<i1") || text == StringView("<b1")) return text[1] == 'i' ? DType::kI8 : DType::kBool;
  if (text == StringView("<V2")) return DType::kBF16;
  return invalid_argument(".npy dtype '{}' is not supported (little-endian f4 f8 f2 i4 u4 i1 b1 i8 c8, |V2 = bfloat16)",
                          text);
}

// A Python tuple literal of non-negative integers: "()", "(3,)", "(2, 3)", "(2, 3,)". Numbers must be
// separated by commas ("(2 3)" is not a tuple), and the element count of the dimensions that are not
// zero must fit int64, so Shape::num_elements() can never overflow on a parsed shape.
Result<Shape> parse_shape(StringView value) {
  if (value.empty() || value[0] != '(') return invalid_argument(".npy header has no 'shape' tuple");
  int64_t sizes[kMaxRank];
  size_t rank = 0;
  size_t i = 1;
  auto skip_spaces = [&] {
    while (i < value.size() && value[i] == ' ') ++i;
  };
  for (;;) {
    skip_spaces();
    if (i >= value.size()) return invalid_argument(".npy header: unterminated 'shape'");
    if (value[i] == ')') break;
    if (value[i] < '0' || value[i] > '9') return invalid_argument(".npy header: 'shape' holds a non-number");
    int64_t size = 0;
    while (i < value.size() && value[i] >= '0' && value[i] <= '9') {
      if (size > (int64_t{1} << 40)) return invalid_argument(".npy header: a dimension is implausibly large");
      size = size * 10 + (value[i++] - '0');
    }
    if (rank == kMaxRank) return invalid_argument(".npy shape has more than {} dimensions", kMaxRank);
    sizes[rank++] = size;
    skip_spaces();
    if (i < value.size() && value[i] == ',') ++i;
    else if (i < value.size() && value[i] != ')') return invalid_argument(".npy header: 'shape' is not a tuple of integers");
  }
  int64_t elements = 1;
  for (size_t d = 0; d < rank; ++d)
    if (sizes[d] != 0 && __builtin_mul_overflow(elements, sizes[d], &elements))
      return invalid_argument(".npy shape {} has more than 2^63 elements", Span<const int64_t>(sizes, rank));
  return Shape::make(Span<const int64_t>(sizes, rank));
}

}  // namespace

const char* npy_descr(DType dtype) {
  for (const Descr& descr : kDescrs)
    if (descr.dtype == dtype) return descr.text;
  return "?";
}

Result<NpyHeader> npy_parse_header(Span<const uint8_t> file, uint64_t file_size) {
  if (file.size() > file_size) return invalid_argument(".npy: {} bytes read of a {} byte file", file.size(), file_size);
  if (file.size() < 10) return invalid_argument(".npy file of {} bytes is too short for a header", file.size());
  for (unsigned i = 0; i < 6; ++i)
    if (file[i] != kMagic[i]) return invalid_argument("not a .npy file (bad magic)");
  const unsigned major = file[6];
  size_t header_length;
  size_t header_start;
  if (major == 1) {
    header_length = file[8] | (size_t{file[9]} << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (file.size() < 12) return invalid_argument(".npy file is too short for a version {} header", major);
    header_length = file[8] | (size_t{file[9]} << 8) | (size_t{file[10]} << 16) | (size_t{file[11]} << 24);
    header_start = 12;
  } else {
    return invalid_argument(".npy format version {} is not supported", major);
  }
  if (header_length > file.size() - header_start) {
    if (file.size() == file_size)
      return invalid_argument(".npy header of {} bytes runs past the end of the {} byte file", header_length, file_size);
    return invalid_argument(".npy header of {} bytes is longer than the {} bytes read of it", header_length,
                            file.size() - header_start);
  }
  const StringView header(reinterpret_cast<const char*>(file.data() + header_start), header_length);
  Result<DType> dtype = parse_descr(value_after(header, "descr"));
  if (!dtype) return dtype.status();
  const StringView order = value_after(header, "fortran_order");
  if (!order.starts_with("False"))
    return invalid_argument(".npy array is not in C order (fortran_order must be False)");
  Result<Shape> shape = parse_shape(value_after(header, "shape"));
  if (!shape) return shape.status();
  const size_t data_start = header_start + header_length;
  // The data's size, multiplied out with overflow checks: a header may claim any shape.
  uint64_t expected = dtype_size(*dtype);
  bool overflow = false;
  for (unsigned d = 0; d < shape->rank; ++d)
    overflow |= __builtin_mul_overflow(expected, static_cast<uint64_t>(shape->dims[d]), &expected);
  for (unsigned d = 0; d < shape->rank; ++d)
    if (shape->dims[d] == 0) expected = 0, overflow = false;  // an empty array: no data, whatever the other sizes
  if (overflow)
    return invalid_argument(".npy shape {} of {} needs more than 2^64 bytes", shape->sizes(), dtype_name(*dtype));
  if (file_size - data_start != expected)
    return invalid_argument(".npy data is {} bytes, shape and dtype need {}", file_size - data_start, expected);
  return NpyHeader{*dtype, *shape, data_start, expected};
}

Result<NpyView> npy_parse(Span<const uint8_t> file) {
  const NpyHeader header = RT_TRY(npy_parse_header(file, file.size()));
  return NpyView{header.dtype, header.shape, file.subspan(header.data_offset, header.data_bytes)};
}

Result<size_t> npy_write_header(DType dtype, const Shape& shape, Span<uint8_t> out) {
  FixedString<256> dict;
  format_to(dict, "{{'descr': '{}', 'fortran_order': False, 'shape': (", npy_descr(dtype));
  for (unsigned d = 0; d < shape.rank; ++d) format_to(dict, "{}{}", shape.dims[d], shape.rank == 1 || d + 1 < shape.rank ? "," : "");
  dict.append("), }");
  const size_t unpadded = 10 + dict.length() + 1;  // + the terminating newline
  const size_t total = (unpadded + 63) / 64 * 64;
  if (total > out.size()) return invalid_argument(".npy header needs {} bytes, the buffer has {}", total, out.size());
  for (unsigned i = 0; i < 6; ++i) out[i] = kMagic[i];
  out[6] = 1;
  out[7] = 0;
  const size_t header_length = total - 10;
  out[8] = static_cast<uint8_t>(header_length & 0xff);
  out[9] = static_cast<uint8_t>(header_length >> 8);
  size_t at = 10;
  for (char c : dict.view()) out[at++] = static_cast<uint8_t>(c);
  while (at < total - 1) out[at++] = ' ';
  out[at] = '\n';
  return total;
}

}  // namespace rt
