// Padded pieces: how a piece of an uneven split (logical_devices.hpp), or a block of an operand
// that reaches past the operand's end (spmd_reshard.hpp), gets its elements: the part of the tensor
// that exists goes to the piece's leading corner and every other element is zero, as XLA's SPMD
// partitioner pads a dimension it tiles unevenly. HAL-free.
#pragma once
#include "runtime/tensor/tensor.hpp"

namespace rt::tpu {

// Every element of `view` (any strides) set to zero bits (0.0f, 0, ...).
Status zero_fill(const Tensor& view);

// `part` (of piece's dtype, no dimension larger than piece's) copied to piece's leading corner, the
// rest of `piece` zeros. Real sizes are left as they are.
Status copy_into_corner(const Tensor& part, const Tensor& piece);

}  // namespace rt::tpu
