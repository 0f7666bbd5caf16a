// outside-compilation: the host functions declared once, by name and typed signature, for both
// halves (device/ calls them, host/ implements them; a mismatch on either side does not compile):
//   scale(x: tensor, factor: float) -> tensor x * factor (float32)
//   count_above(x: tensor, threshold: float) -> int32 count of elements of x above threshold
//   require_non_negative(value: int64) -> nothing; OUT_OF_RANGE from the host if value < 0
#pragma once
#include "runtime/tpu/replicate/host_function_declaration.hpp"

namespace outside_compilation_app {

inline constexpr rt::tpu::HostFunctionDeclaration<"scale", rt::Tensor(rt::Tensor, float)> scale;
inline constexpr rt::tpu::HostFunctionDeclaration<"count_above", int32_t(rt::Tensor, float)> count_above;
inline constexpr rt::tpu::HostFunctionDeclaration<"require_non_negative", void(int64_t)> require_non_negative;

}  // namespace outside_compilation_app
