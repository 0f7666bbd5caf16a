// The one header a device program includes: the app interface and the runtime API it programs
// against (tensors and arenas, tensor literals, ops, the MXU, mailboxes, collectives, and the TPU programming
// model: replicate, outside compilation, infeed and outfeed, device assignment, TPUStrategy and its
// step functions, logical devices), plus the cores, time and synchronisation an app without the TPU
// model uses (firmware/examples/hello).
//   #include "firmware/tpu_pod.hpp"
// The examples in firmware/examples include nothing else from runtime/, hal/ or firmware/
// (`make examples-check` keeps them so). The five ways to call a collective, and which to use
// where, are listed in runtime/collectives/README.md.
#pragma once

// The app interface, cores, time, logging and synchronisation.
#include "firmware/app.hpp"
#include "hal/core.hpp"
#include "hal/event.hpp"
#include "hal/time.hpp"
#include "hal/support/atomic.hpp"
#include "hal/support/inplace_function.hpp"
#include "hal/support/new.hpp"
#include "hal/support/result.hpp"
#include "runtime/log/log.hpp"
#include "runtime/sync/barrier.hpp"
#include "runtime/sync/wait.hpp"

// Tensors, ops and the MXU.
#include "runtime/tensor/arena.hpp"
#include "runtime/tensor/constant.hpp"
#include "runtime/tensor/hbm.hpp"
#include "runtime/tensor/tensor.hpp"
#include "runtime/ops/arena_ops.hpp"
#include "runtime/ops/broadcast_to.hpp"
#include "runtime/ops/cast.hpp"
#include "runtime/ops/concat.hpp"
#include "runtime/ops/conv2d.hpp"
#include "runtime/ops/copy.hpp"
#include "runtime/ops/elementwise.hpp"
#include "runtime/ops/pad.hpp"
#include "runtime/ops/reduce_axes.hpp"
#include "runtime/ops/reshape.hpp"
#include "runtime/ops/softmax.hpp"
#include "runtime/ops/softmax_cross_entropy.hpp"
#include "runtime/ops/training_ops.hpp"
#include "runtime/ops/unary.hpp"
#include "runtime/mxu/core_mxu.hpp"
#include "runtime/mxu/mxu.hpp"

// Point-to-point mailboxes between cores (runtime/mailbox: send / receive, polling and blocking),
// and the collectives built on them (runtime/collectives/README.md).
#include "runtime/mailbox/mailbox.hpp"
#include "runtime/collectives/collectives.hpp"
#include "runtime/collectives/reduce.hpp"
#include "runtime/tpu/replicate/cross_replica_ops.hpp"

// The TPU programming model.
#include "runtime/tpu/mesh/device_assignment.hpp"
#include "runtime/tpu/mesh/pod_membership.hpp"
#include "runtime/tpu/mesh/topology.hpp"
#include "runtime/tpu/replicate/outside_compilation.hpp"
#include "runtime/tpu/replicate/pod_memory.hpp"
#include "runtime/tpu/replicate/program.hpp"
#include "runtime/tpu/replicate/replica_context.hpp"
#include "runtime/tpu/replicate/replicate.hpp"
#include "runtime/tpu/infeed/infeed_dequeue.hpp"
#include "runtime/tpu/infeed/infeed_queue.hpp"
#include "runtime/tpu/infeed/infeed_steps.hpp"
#include "runtime/tpu/infeed/outfeed.hpp"
#include "runtime/tpu/nest/nest.hpp"
#include "runtime/tpu/strategy/mirrored_structure.hpp"
#include "runtime/tpu/strategy/strategy.hpp"
#include "runtime/tpu/strategy/strategy_steps.hpp"
#include "runtime/tpu/spmd/logical_devices.hpp"
#include "runtime/tpu/spmd/logical_devices_context.hpp"
#include "runtime/tpu/spmd/spmd_conv2d.hpp"
#include "runtime/tpu/spmd/spmd_ops.hpp"
#include "runtime/tpu/spmd/spmd_tensor.hpp"
