// The exec app's ops as replicated computations: each replica runs the op named by the spec on its
// inputs, on its own core's MXU and arena, and returns one output.
#pragma once
#include "exec_spec.hpp"
#include "runtime/tpu/replicate/replicate.hpp"

namespace exec_app {

// Runs spec.op over spec.replicas replicas with inputs[replica][input]; returns every replica's
// output (in pod memory).
rt::Result<rt::tpu::Replicated> run_exec_op(const ExecSpec& spec, rt::Span<const rt::tpu::ReplicaArgs> inputs);

}  // namespace exec_app
