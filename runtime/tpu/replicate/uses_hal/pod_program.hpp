// The program's own exchanges between the boards of a pod (outside any replicated computation): core
// 0 of every board calls them at the same point of the same program (SPMD), and each returns once
// every board has called. They travel as the reserved host function ".pod" of kind "rows" through
// each board's `tpu` (host-tools/lib/pod/pod_collectives.hpp), over Open MPI.
#pragma once
#include "runtime/tensor/tensor.hpp"

namespace rt::tpu {

// A vector of `bytes` int8 in pod memory (the core's arena): the rows these exchanges trade.
Result<Tensor> pod_byte_vector(size_t bytes, StringView what);

// Every board's row (board t's is sizes[t] bytes; this board's is `mine`), concatenated in task
// order, in pod memory.
Result<Tensor> exchange_rows_between_boards(const Tensor& mine, Span<const size_t> sizes);

// The smallest of every board's `value` (every board gets the same answer).
Result<int64_t> smallest_across_boards(int64_t value);

}  // namespace rt::tpu
