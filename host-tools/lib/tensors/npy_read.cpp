// .npy file input (see npy_read.hpp).
#include "npy_read.hpp"

#include <fstream>
#include <iterator>
#include <vector>

#include "runtime/tensor/npy.hpp"

namespace tpu {

std::optional<HostTensor> read_npy_file(const std::filesystem::path& path, std::string& error) {
  std::error_code code;
  if (!std::filesystem::is_regular_file(path, code)) {  // a directory would make the stream throw
    error = path.string() + (std::filesystem::exists(path, code) ? " is not a regular file" : " does not exist");
    return std::nullopt;
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    error = "cannot open " + path.string();
    return std::nullopt;
  }
  std::vector<uint8_t> bytes;
  try {
    bytes.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  } catch (const std::exception& failure) {
    error = "cannot read " + path.string() + ": " + failure.what();
    return std::nullopt;
  }
  rt::Result<rt::NpyView> view = rt::npy_parse(rt::Span<const uint8_t>(bytes.data(), bytes.size()));
  if (!view) {
    error = path.string() + ": " + view.status().c_str();
    return std::nullopt;
  }
  HostTensor tensor;
  tensor.dtype = view->dtype;
  const rt::Span<const int64_t> dims = view->shape.sizes();
  tensor.dims.assign(dims.begin(), dims.end());
  tensor.bytes.assign(view->data.begin(), view->data.end());
  return tensor;
}

}  // namespace tpu
