// InfeedBinding: how replicate takes the infeed part of every replica's arguments (TF_BEHAVIOUR.md
// sections 1 and 4). The InfeedQueue itself (tuple types and shapes, sharding, the host link that
// fills it) lives in infeed_queue.hpp and infeed_dequeue.hpp; replicate only needs how many tuple elements a queue yields (its
// checks count them: the computation's arity, "Dynamic input shapes are not supported with infeed
// queues") and a function that dequeues one replica's tuple. The dequeued elements are appended
// after the replica's regular inputs.
#pragma once
#include "hal/support/inplace_function.hpp"
#include "runtime/tensor/arena.hpp"

namespace rt::tpu {

struct InfeedBinding {
  unsigned number_of_tuple_elements = 0;
  // Runs on the replica's core before its computation: fills tuple[0 .. number_of_tuple_elements)
  // with replica `replica`'s dequeued elements (memory from `arena`, the core's own). Empty: infeed
  // is not wired, and replicate fails with an error saying so (after its argument checks).
  InplaceFunction<Status(unsigned replica, Tensor* tuple, Arena& arena)> dequeue;
};

}  // namespace rt::tpu
