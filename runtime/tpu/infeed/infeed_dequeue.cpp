// The device side of an InfeedQueue (infeed_dequeue.hpp): opening its link buffer, and each
// replica's dequeue of its shard.
#include "infeed_dequeue.hpp"

#include "runtime/tpu/mesh/pod_membership.hpp"

#include "runtime/link/protocol/host_call.hpp"
#include "runtime/trace/trace_point.hpp"

namespace rt::tpu {
namespace {

// Bytes of one index step along dimensions [from, rank) of a contiguous tensor.
uint64_t inner_bytes(const Tensor& tensor, unsigned from) {
  uint64_t bytes = tensor.element_size();
  for (unsigned d = from; d < tensor.shape.rank; ++d) bytes *= static_cast<uint64_t>(tensor.shape.dims[d]);
  return bytes;
}

uint64_t outer_count(const Shape& shape, unsigned before) {
  uint64_t count = 1;
  for (unsigned d = 0; d < before; ++d) count *= static_cast<uint64_t>(shape.dims[d]);
  return count;
}

}  // namespace

Status copy_infeed_shard(const Tensor& full, unsigned dimension, unsigned shards, unsigned shard, const Tensor& out) {
  if (!full.is_contiguous() || !out.is_contiguous() || full.dtype != out.dtype)
    return internal_error("infeed shard copy needs contiguous tensors of one dtype");
  if (shards == 1) {
    if (!(full.shape == out.shape)) return internal_error("infeed shard copy: shapes differ");
    const uint64_t bytes = inner_bytes(full, 0);
    if (bytes != 0) __builtin_memcpy(out.data, full.data, bytes);
    return Status::ok();
  }
  if (dimension >= full.shape.rank || shard >= shards || full.shape.dims[dimension] % shards != 0 ||
      out.shape.dims[dimension] != full.shape.dims[dimension] / shards)
    return internal_error("infeed shard copy: shard {} of {} along dimension {} does not fit {} -> {}", shard, shards,
                          dimension, full.shape.sizes(), out.shape.sizes());
  const uint64_t row = inner_bytes(full, dimension + 1);  // one index of the shard dimension
  const uint64_t piece = row * static_cast<uint64_t>(out.shape.dims[dimension]);
  const uint64_t full_stride = row * static_cast<uint64_t>(full.shape.dims[dimension]);
  const uint64_t outer = outer_count(full.shape, dimension);
  for (uint64_t o = 0; o < outer && piece != 0; ++o)
    __builtin_memcpy(out.data + o * piece, full.data + o * full_stride + shard * piece, piece);
  return Status::ok();
}

// In a pod of K boards each board's tpu streams its own part of every tuple (TPU per-host input):
// for each element, the block [t D / K, (t + 1) D / K) of its shard dimension (of length D), which
// holds the shards of the board's replicas t R .. t R + R - 1 (TF's default placement, R = shards /
// K). The board's tuples are the queue's with that dimension divided by K, sharded R ways along it;
// the credits tell the host which dimension each element is cut along (InfeedCredits::cut_dimensions).
Status InfeedDequeue::per_host_shapes(const InfeedQueue& queue, link::InfeedElementSpec* specs) {
  local_shards_ = shards_;
  first_replica_ = 0;
  const PodMembership& pod = pod_membership();
  if (!pod.in_pod()) return Status::ok();
  if (shards_ % pod.num_tasks != 0)
    return invalid_argument("infeed queue '{}' in a pod of {} boards: its {} shards do not split over the boards",
                            queue.name(), pod.num_tasks, shards_);
  local_shards_ = shards_ / pod.num_tasks;
  first_replica_ = pod.task * local_shards_;
  for (unsigned e = 0; e < signature_.count; ++e) {
    const unsigned dimension = shards_ > 1 && shard_dimensions_[e] > 0 ? static_cast<unsigned>(shard_dimensions_[e]) : 0;
    Shape& shape = specs[e].shape;
    if (dimension >= shape.rank || shape.dims[dimension] % pod.num_tasks != 0)
      return invalid_argument("infeed queue '{}' in a pod of {} boards: element {} of shape {} does not split along "
                              "dimension {} over the boards",
                              queue.name(), pod.num_tasks, e, shape.sizes(), dimension);
    shape.dims[dimension] /= pod.num_tasks;
    shape.real[dimension] = shape.dims[dimension];
    specs[e].pod_cut_dimension = static_cast<uint8_t>(dimension);
  }
  return Status::ok();
}

namespace {

// InfeedDequeueOptions::slots = 0: as many tuples as fit kInfeedPrefetchBytes, within 4..64.
Result<unsigned> default_slots(Span<const link::InfeedElementSpec> elements) {
  const size_t tuple = RT_TRY(link::InfeedBuffer::storage_bytes(elements, 1));
  const uint64_t fitting = tuple == 0 ? kMaxDefaultInfeedSlots : kInfeedPrefetchBytes / tuple;
  if (fitting < kMinDefaultInfeedSlots) return kMinDefaultInfeedSlots;
  if (fitting > kMaxDefaultInfeedSlots) return kMaxDefaultInfeedSlots;
  return static_cast<unsigned>(fitting);
}

}  // namespace

Status InfeedDequeue::open(InfeedQueue& queue, Arena& shared_arena, const InfeedDequeueOptions& options) {
  if (is_open()) return Status::error(StatusCode::kFailedPrecondition, "infeed queue '{}' is already open", queue.name());
  Result<InfeedDequeueSignature> signature = queue.generate_dequeue_op();
  if (!signature) return signature.status();
  if (queue.number_of_partitions() > 1)
    return Status::error(StatusCode::kUnimplemented,
                         "infeed queue '{}': number_of_partitions {} (model-parallel infeed) is not implemented yet",
                         queue.name(), queue.number_of_partitions());
  link::Endpoint* endpoint = options.endpoint != nullptr ? options.endpoint : link::board_endpoint();
  if (endpoint == nullptr)
    return Status::error(StatusCode::kUnavailable, "infeed queue '{}': this image has no host link", queue.name());
  signature_ = *signature;
  shards_ = static_cast<unsigned>(queue.number_of_shards());
  link::InfeedElementSpec specs[kMaxInfeedTupleElements];
  for (unsigned e = 0; e < signature_.count; ++e) {
    specs[e] = {queue.tuple_type(e), queue.tuple_shape(e)};
    shard_dimensions_[e] = queue.sharding_policy(e).shard_dimension();
  }
  RT_RETURN_IF_ERROR(per_host_shapes(queue, specs));
  const Span<const link::InfeedElementSpec> elements(specs, signature_.count);
  const unsigned slots = options.slots != 0 ? options.slots : RT_TRY(default_slots(elements));
  Result<size_t> bytes = link::InfeedBuffer::storage_bytes(elements, slots);
  if (!bytes) return bytes.status();
  Result<uint8_t*> storage = shared_arena.allocate(*bytes, link::kInfeedAlignment, "infeed buffer");
  if (!storage) return storage.status();
  RT_RETURN_IF_ERROR(
      buffer_.init(options.link_queue, queue.name(), elements, slots, local_shards_, Span<uint8_t>(*storage, *bytes)));
  RT_RETURN_IF_ERROR(endpoint->attach_infeed(buffer_));
  endpoint_ = endpoint;
  timeout_ns_ = options.timeout_ns;
  in_place_ = options.in_place;
  for (bool& held : holding_) held = false;
  binding_.number_of_tuple_elements = signature_.count;
  binding_.dequeue = [this](unsigned replica, Tensor* tuple, Arena& arena) { return dequeue(replica, tuple, arena); };
  return Status::ok();
}

void InfeedDequeue::close() {
  if (endpoint_ == nullptr) return;
  for (unsigned local = 0; local < local_shards_; ++local) (void)release_held(local);  // the host sees them consumed
  endpoint_->detach_infeed(buffer_);
  endpoint_ = nullptr;
}

Result<Tensor> InfeedDequeue::copy_shard(unsigned local, uint64_t tuple, unsigned element, Arena& arena) const {
  const Tensor shard =
      RT_TRY(arena.allocate_tensor(signature_.types[element], signature_.shapes[element], "infeed shard"));
  const unsigned dimension = static_cast<unsigned>(shard_dimensions_[element]);
  RT_RETURN_IF_ERROR(copy_infeed_shard(buffer_.element(tuple, element), dimension, local_shards_, local, shard));
  return shard;
}

Status InfeedDequeue::copy_shards(unsigned local, uint64_t tuple, Tensor* out, Arena& arena) const {
  for (unsigned e = 0; e < signature_.count; ++e) out[e] = RT_TRY(copy_shard(local, tuple, e, arena));
  return Status::ok();
}

Status InfeedDequeue::view_shards(unsigned local, uint64_t tuple, Tensor* out, Arena& arena) const {
  for (unsigned e = 0; e < signature_.count; ++e) {
    const Tensor full = buffer_.element(tuple, e);
    if (local_shards_ == 1) {
      out[e] = full;
    } else if (shard_dimensions_[e] == 0) {  // rows [local * n, (local + 1) * n): contiguous in the slot
      const int64_t rows = full.shape.dims[0] / local_shards_;
      out[e] = RT_TRY(full.slice(0, local * rows, (local + 1) * rows));
    } else {
      out[e] = RT_TRY(copy_shard(local, tuple, e, arena));
    }
  }
  return Status::ok();
}

Status InfeedDequeue::release_held(unsigned local) {
  if (!holding_[local]) return Status::ok();
  holding_[local] = false;
  buffer_.release(local);
  return endpoint_->grant_infeed_credits(buffer_);
}

Status InfeedDequeue::dequeue(unsigned replica, Tensor* tuple, Arena& arena) {
  RT_TRACE_SCOPE("infeed_dequeue", trace::Category::kInfeedWait);
  if (!is_open()) return Status::error(StatusCode::kFailedPrecondition, "infeed queue is not open (InfeedDequeue::open)");
  if (replica >= shards_)
    return invalid_argument("replica {} dequeues from infeed queue '{}', which is sharded {} ways (set its number of "
                            "shards to the number of replicas)",
                            replica, buffer_.name(), shards_);
  if (replica < first_replica_ || replica >= first_replica_ + local_shards_)
    return invalid_argument("replica {} dequeues from infeed queue '{}' on this board, whose tpu streams the shards of "
                            "replicas {} to {} (a pod's per-host input)",
                            replica, buffer_.name(), first_replica_, first_replica_ + local_shards_ - 1);
  const unsigned local = replica - first_replica_;
  RT_RETURN_IF_ERROR(release_held(local));
  const uint64_t next = buffer_.next_tuple(local);
  RT_RETURN_IF_ERROR(endpoint_->wait_for_infeed(buffer_, next, timeout_ns_));
  if (in_place_) {
    RT_RETURN_IF_ERROR(view_shards(local, next, tuple, arena));
    holding_[local] = true;  // handed back by this replica's next dequeue
    return Status::ok();
  }
  RT_RETURN_IF_ERROR(copy_shards(local, next, tuple, arena));
  buffer_.release(local);
  return endpoint_->grant_infeed_credits(buffer_);
}

}  // namespace rt::tpu
