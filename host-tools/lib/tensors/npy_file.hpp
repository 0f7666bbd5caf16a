// Writing a HostTensor as a NumPy .npy file: the header from the runtime's npy_write_header (the
// same code the firmware uses), then the tensor's bytes, which already are the .npy data section.
#pragma once
#include <filesystem>
#include <string>

#include "host_tensor.hpp"

namespace tpu {

// Returns "" or what went wrong.
std::string write_npy_file(const std::filesystem::path& path, const HostTensor& tensor);

}  // namespace tpu
