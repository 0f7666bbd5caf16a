// .npy file output (see npy_file.hpp).
#include "npy_file.hpp"

#include <fstream>

#include "runtime/tensor/npy.hpp"

namespace tpu {

std::string write_npy_file(const std::filesystem::path& path, const HostTensor& tensor) {
  rt::Result<rt::Shape> shape = rt::Shape::make(rt::Span<const int64_t>(tensor.dims.data(), tensor.dims.size()));
  if (!shape) return std::string(shape.status().c_str());
  uint8_t header[512];
  rt::Result<size_t> header_size = rt::npy_write_header(tensor.dtype, *shape, rt::Span<uint8_t>(header, sizeof header));
  if (!header_size) return std::string(header_size.status().c_str());
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(reinterpret_cast<const char*>(header), static_cast<std::streamsize>(*header_size));
  file.write(reinterpret_cast<const char*>(tensor.bytes.data()), static_cast<std::streamsize>(tensor.bytes.size()));
  file.close();
  if (!file) return "cannot write " + path.string();
  return "";
}

}  // namespace tpu
