// Fuzz target: the .npy parser (runtime/tensor/npy.hpp) that reads every .npy file a user gives tpu
// (tpu run --infeed, tpu exec) and that the firmware uses too. Any bytes at all go in; besides
// "no crash, no read outside the buffer" (ASan, UBSan) the parser's promises are checked:
//   - an accepted file's data lies inside the file and holds exactly elements x itemsize bytes,
//     with no overflow on the way (the 2^64-byte shape of issue 14 must be refused, not wrapped);
//   - the header the writer makes for the parsed dtype and shape parses back to the same dtype and
//     shape (the host writes .npy outfeed files with it).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "runtime/tensor/npy.hpp"

namespace {

[[noreturn]] void broken(const char* promise) {
  std::fprintf(stderr, "npy_parser: broken promise: %s\n", promise);
  std::abort();
}

void check_accepted(const rt::NpyView& view, const uint8_t* data, size_t size) {
  if (view.data.size() > 0 && (view.data.data() < data || view.data.data() + view.data.size() > data + size))
    broken("the data section lies inside the file");
  const int64_t elements = view.shape.num_elements();
  if (elements < 0) broken("the element count is not negative");
  unsigned __int128 bytes = static_cast<unsigned __int128>(elements) * rt::dtype_size(view.dtype);
  if (bytes != view.data.size()) broken("the data holds exactly elements x itemsize bytes");

  std::vector<uint8_t> header(4096);
  const rt::Result<size_t> written = rt::npy_write_header(view.dtype, view.shape, rt::Span<uint8_t>(header.data(), header.size()));
  if (!written.is_ok()) return;  // a shape whose header does not fit 4 KiB: the writer says so
  header.resize(written.value() + view.data.size());
  for (size_t i = 0; i < view.data.size(); ++i) header[written.value() + i] = view.data[i];
  const rt::Result<rt::NpyView> again = rt::npy_parse(rt::Span<const uint8_t>(header.data(), header.size()));
  if (!again.is_ok()) broken("a header the writer made parses");
  if (again.value().dtype != view.dtype || !(again.value().shape == view.shape)) broken("the round trip keeps dtype and shape");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const rt::Result<rt::NpyView> view = rt::npy_parse(rt::Span<const uint8_t>(data, size));
  if (view.is_ok()) check_accepted(view.value(), data, size);
  else if (view.status().message().size() == 0) broken("a refusal says why");
  return 0;
}
