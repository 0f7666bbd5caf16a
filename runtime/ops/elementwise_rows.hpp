// The fast path of binary(): one row of the output (its last dimension), written contiguously, each
// operand either contiguous along the row or one value repeated (broadcast). Plain loops over typed
// pointers, with the operation chosen once per row, so the compiler vectorizes them; the numerics
// are exactly those of elementwise.hpp (IEEE ops one at a time, no contraction, every NaN result
// the canonical quiet NaN, XLA's integer division), so results are the same bits as the
// element-by-element path.
#pragma once
#include "elementwise.hpp"

namespace rt {

// out[i] = a[i * a_step] op b[i * b_step] for i < count (a_step, b_step: 0 or 1). False, with
// nothing written, for what the fast path does not take (16-bit floats, a pointer not aligned to
// its element); the caller then goes element by element.
bool binary_row(BinaryOp op, DType type, const uint8_t* a, bool a_step, const uint8_t* b, bool b_step, uint8_t* out,
                int64_t count);

}  // namespace rt
