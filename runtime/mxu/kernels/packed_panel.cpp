// The packed panel a block kernel is asked for (FloatKernel::run_block's pack_to), made by a plain
// copy: for kernels that pack before they multiply (float_kernel.hpp).
#include "runtime/dtype/half.hpp"
#include "runtime/mxu/float_kernel.hpp"

namespace rt {

void copy_to_packed_panel(BlockWeights weights, unsigned k_rows, unsigned columns, unsigned panel_columns,
                          float* packed) {
  for (unsigned k = 0; k < k_rows; ++k, packed += panel_columns) {
    const int64_t row = k * weights.row_stride;
    if (weights.bfloat16) {
      const uint16_t* in = static_cast<const uint16_t*>(weights.data) + row;
      for (unsigned j = 0; j < columns; ++j) packed[j] = to_float(BFloat16{in[j]});
    } else {
      const float* in = static_cast<const float*>(weights.data) + row;
      for (unsigned j = 0; j < columns; ++j) packed[j] = in[j];
    }
  }
}

}  // namespace rt
