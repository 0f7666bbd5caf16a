// The host function that tells device code how long an infeed dataset is:
//   infeed_steps(text "QUEUE") -> int64 scalar: the steps (tuples) `tpu run --infeed QUEUE=...` streams
// so the program on the board can run one step per tuple (TF's training loop knows its step
// count on the host; here the dataset's length is on the PC). A queue without a dataset is
// NOT_FOUND naming it; a text that is no queue number is INVALID_ARGUMENT.
#pragma once
#include "host-tools/lib/functions/host_functions.hpp"
#include "infeed_sender.hpp"

namespace tpu {

// Registers infeed_steps over `sender`'s datasets (the sender must outlive `functions`' use).
void add_infeed_functions(HostFunctions& functions, const InfeedSender& sender);

}  // namespace tpu
