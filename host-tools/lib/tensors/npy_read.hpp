// Reading a NumPy .npy file into a HostTensor, with the runtime's own parser (runtime/tensor/npy.hpp,
// the same code the firmware uses), so the host accepts exactly the dtypes and layouts the board does.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include "host_tensor.hpp"

namespace tpu {

// The tensor, or nothing with `error` saying what is wrong with the file.
std::optional<HostTensor> read_npy_file(const std::filesystem::path& path, std::string& error);

}  // namespace tpu
