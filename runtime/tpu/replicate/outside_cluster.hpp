// outside_compilation clusters that cross the link: a captureless lambda given to
// outside_compilation(fn, args...) inside a replicated computation, off the host board, runs on the PC
// in the app's tool, which is built from the same device sources. Both builds name the cluster by the
// lambda's type as the compiler spells it (its enclosing function and its parameters: "program(unsigned
// int)::<lambda(const rt::Tensor&)>"), the board in its host call, the tool in a table of entries filled
// at start-up: every instantiation of the cluster template registers its entry. Two lambdas of one
// function with the same parameters share a name; the tool refuses to start then, naming it (the
// runtime's rule, not TF's; see TF_BEHAVIOUR.md section 3).
//
// An entry gets the call's tensors (a scalar argument as a scalar tensor of its dtype) and `result`,
// whose data points at 16 bytes of storage: it writes a scalar result there and sets its dtype and
// shape, or sets data to null for a function returning nothing or a Status.
#pragma once
#include "hal/support/span.hpp"
#include "hal/support/status.hpp"
#include "hal/support/string_view.hpp"
#include "runtime/tensor/tensor.hpp"

namespace rt::tpu {

// The host function name of a cluster: this prefix, then its key.
inline constexpr StringView kOutsideClusterPrefix = "outside_compilation ";

using OutsideClusterEntry = Status (*)(Span<const Tensor> arguments, Tensor& result);

// Records a cluster's entry in the app's tool (host-tools/tpu/outside_clusters.cpp); on a board it
// records nothing (a weak default). Returns whether it was recorded.
bool register_outside_cluster(StringView key, OutsideClusterEntry entry);

}  // namespace rt::tpu
