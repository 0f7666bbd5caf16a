// InfeedDequeue: the device side of an InfeedQueue (infeed_queue.hpp). It generates the queue's
// dequeue op (freezing it), gives the queue a receive buffer in shared memory attached to the board's
// link endpoint (runtime/link/protocol/infeed_buffer.hpp: the host streams full tuples, the board grants
// credits as slots free up), and dequeues: replica r waits for the next complete tuple and gets its
// shard of every element (element i sharded number_of_shards ways along its shard dimension: a full
// [8, 3] sharded 4 ways on dimension 0 gives replica r rows [2r, 2r + 2)), as new contiguous
// tensors in the replica core's arena. Every replica dequeues every tuple once, in order; a slot is
// handed back to the host when all of them released it.
//
// With replicate (TF_BEHAVIOUR.md section 1: the dequeued tuple follows the regular inputs):
//   InfeedDequeue infeed;                                     // static: it must outlive the run
//   RT_RETURN_IF_ERROR(infeed.open(queue, hbm(), {.link_queue = 0}));   // core 0, program
//   ReplicateOptions options;
//   options.infeed_queue = &infeed.binding();
//   for (step ...) RT_RETURN_IF_ERROR(replicate(computation, inputs, options, result));
//   infeed.close();
//
// The number of replicas that dequeue is the queue's number_of_shards (set it to the replica count;
// the default is 1). A replica index past it is an error; so are number_of_partitions > 1 (model
// parallel infeed is not implemented) and a dequeue that waits longer than options.timeout_ns, which
// names the core, the tuple and the queue. HAL-free: it reaches the link through the registered board
// endpoint (runtime/link/protocol/host_call.hpp) or the one in the options.
#pragma once
#include "runtime/tpu/nest/nest.hpp"
#include "infeed_hook.hpp"
#include "infeed_queue.hpp"
#include "runtime/link/protocol/endpoint.hpp"

namespace rt::tpu {

inline constexpr uint64_t kDefaultInfeedTimeoutNs = 60000ull * 1000000ull;
inline constexpr uint64_t kInfeedPrefetchBytes = uint64_t{4} << 20;
inline constexpr unsigned kMinDefaultInfeedSlots = 4, kMaxDefaultInfeedSlots = 64;

struct InfeedDequeueOptions {
  uint16_t link_queue = 0;    // the queue number on the wire (`tpu run --infeed 0=...`)
  // Full tuples the board buffers: how far the host may run ahead of the replicas (its credit
  // window). 0: as many as fit kInfeedPrefetchBytes, from 4 (large tuples) up to 64 (small ones: the
  // buffer's most), so a host that answers late now and then never leaves the replicas waiting. On
  // a machine whose CPUs the board's cores take (2 bound cores on 2 CPUs), tpu runs only when a core
  // yields: 64 slots of the digits MLP's 8 KiB tuples (credits every 16) ran 2 cores at ~450k
  // samples/s against ~385k with 32, interleaved runs.
  unsigned slots = 0;
  uint64_t timeout_ns = kDefaultInfeedTimeoutNs;  // per dequeue
  link::Endpoint* endpoint = nullptr;  // null: the board's registered endpoint
  // Dequeued tensors are views of the tuple where the host put it (its slot) instead of copies in
  // the replica's arena: no byte of the tuple is copied on the board. They stay valid until the same
  // replica's next dequeue (or close()), which hands the slot back to the host. A shard that is not
  // contiguous in the tuple (sharded along a dimension other than the first) is copied as usual.
  bool in_place = false;
};

class InfeedDequeue {
 public:
  InfeedDequeue() = default;
  ~InfeedDequeue() { close(); }
  InfeedDequeue(const InfeedDequeue&) = delete;
  InfeedDequeue& operator=(const InfeedDequeue&) = delete;

  // Generates the queue's dequeue op (TF's errors, including a second dequeue op from the same
  // queue), takes options.slots full tuples of memory from `shared_arena` (memory every core can
  // read: core 0's arena in the program) and attaches the buffer to the link, granting the host
  // its first credits.
  Status open(InfeedQueue& queue, Arena& shared_arena, const InfeedDequeueOptions& options = {});
  // Hands back the tuples replicas still hold (in_place) and detaches from the link (the memory stays
  // with the arena). Also done by the destructor. Call it once the replicas are done.
  void close();
  bool is_open() const { return endpoint_ != nullptr; }

  // For ReplicateOptions::infeed_queue.
  const InfeedBinding& binding() const { return binding_; }
  const InfeedDequeueSignature& signature() const { return signature_; }
  const link::InfeedBuffer& buffer() const { return buffer_; }

  // Replica `replica`'s shard of its next tuple: tuple[0 .. elements) become new tensors in `arena`.
  Status dequeue(unsigned replica, Tensor* tuple, Arena& arena);
  // The same as a structure S whose leaves, in flatten order, are the tuple's elements
  // (struct Batch { Tensor images, labels; }); a structure of another size is an error naming both.
  template <class S>
  Result<S> dequeue(unsigned replica, Arena& arena) {
    if (nest::leaf_count_v<S> != signature_.count)
      return invalid_argument("infeed dequeue: the queue's tuples have {} elements, the structure {} has {} tensors",
                              signature_.count, nest::structure_text<S>().view(), nest::leaf_count_v<S>);
    Tensor elements[kMaxInfeedTupleElements];
    RT_RETURN_IF_ERROR(dequeue(replica, elements, arena));
    return nest::pack_sequence_as<S>(Span<const Tensor>(elements, signature_.count));
  }

 private:
  Result<Tensor> copy_shard(unsigned local, uint64_t tuple, unsigned element, Arena& arena) const;
  Status copy_shards(unsigned local, uint64_t tuple, Tensor* out, Arena& arena) const;
  // The shards as views of the slot where they are contiguous there (in_place), copies otherwise.
  Status view_shards(unsigned local, uint64_t tuple, Tensor* out, Arena& arena) const;
  // in_place: hands back the tuple replica `local` still holds, if any.
  Status release_held(unsigned local);
  Status per_host_shapes(const InfeedQueue& queue, link::InfeedElementSpec* specs);

  InfeedBinding binding_;
  InfeedDequeueSignature signature_;
  unsigned shards_ = 1;
  // In a pod of boards (TPU per-host input) this board's tpu streams only its board's block of each
  // element's shard dimension, holding the shards of replicas first_replica_ .. first_replica_ +
  // local_shards_ - 1.
  unsigned local_shards_ = 1;
  unsigned first_replica_ = 0;
  int shard_dimensions_[kMaxInfeedTupleElements] = {};
  uint64_t timeout_ns_ = kDefaultInfeedTimeoutNs;
  bool in_place_ = false;
  bool holding_[link::kMaxInfeedConsumers] = {};  // in_place: the local replica still holds its last tuple
  link::Endpoint* endpoint_ = nullptr;
  link::InfeedBuffer buffer_;
};

// Copies shard `shard` of `full` (sharded `shards` ways along `dimension`) into `out`, which must be
// contiguous with the shard's shape and dtype.
Status copy_infeed_shard(const Tensor& full, unsigned dimension, unsigned shards, unsigned shard, const Tensor& out);

}  // namespace rt::tpu
