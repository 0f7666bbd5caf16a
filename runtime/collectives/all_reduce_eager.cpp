// all_reduce's eager algorithm, for payloads of a few cache lines (kEagerAlgorithmMaxBytes): every
// member sends its input itself, in the message that describes its call, to every other member, and
// reduces all of them in group order into its own output (the same kernel and order as the other
// algorithms, so the same bits). One message round, and no member reads another's memory, so no
// "done reading" round: the sum of a scalar loss costs one message each way, where sharing addresses
// costs two rounds. A scalar's message fits one 64-byte mailbox cell (the header's 16 bytes, the
// 24-byte description, up to 16 bytes of data).
#include <stddef.h>
#include <string.h>

#include "collectives.hpp"
#include "exchange.hpp"
#include "reduce.hpp"

namespace rt {
namespace {

// A call's description, all that a peer checks (SharedBuffers without the addresses), packed.
struct EagerCall {
  uint64_t count;
  uint64_t shape;  // Collectives::shape_digest
  CollectiveKind kind;
  DType type;
  ReduceOp op;
  Algorithm algorithm;
  uint8_t reserved;
  uint32_t group_size;
};
static_assert(sizeof(EagerCall) == 28 || sizeof(EagerCall) == 32, "a compact description");

struct EagerMessage {
  EagerCall call;
  alignas(8) uint8_t data[kEagerAlgorithmMaxBytes];
};

}  // namespace

Status Collectives::all_reduce_eager(ReduceOp op, DType type, const uint8_t* in, uint8_t* out, size_t count,
                                     const Group& group, const CollectiveOptions& options) {
  const size_t bytes = count * dtype_size(type);
  const size_t message_bytes = offsetof(EagerMessage, data) + bytes;
  EagerMessage mine;
  mine.call = {count, shape_digest(options.shape), CollectiveKind::kAllReduce, type, op, Algorithm::kEager, 0,
               group.size};
  memcpy(mine.data, in, bytes);
  EagerMessage received[hal::kMaxCores];
  StridedBytes sinks[hal::kMaxCores];
  Exchange exchange(CollectiveKind::kAllReduce, sequence_);
  for (unsigned j = 0; j < group.size; ++j) {
    if (j == group.position) continue;
    exchange.send(core_of(group.members[j]), StridedBytes::contiguous(&mine, message_bytes));
    sinks[j] = StridedBytes::contiguous(&received[j], message_bytes);
    exchange.receive(core_of(group.members[j]), message_bytes, Sink{&sinks[j]});
  }
  RT_RETURN_IF_ERROR(exchange.run(options.timeout_ns));
  // The same checks and texts as the other algorithms' (a call of another size already failed in
  // the exchange, whose header carries the size).
  SharedBuffers calls[hal::kMaxCores];
  const uint8_t* inputs[hal::kMaxCores];
  for (unsigned j = 0; j < group.size; ++j) {
    const EagerCall& call = j == group.position ? mine.call : received[j].call;
    calls[j] = {nullptr,   nullptr, call.count,     call.kind, call.type, call.op,
                call.algorithm, call.group_size, call.shape};
    inputs[j] = j == group.position ? mine.data : received[j].data;
  }
  RT_RETURN_IF_ERROR(check_peer_calls(group, calls[group.position], calls, options.shape));
  reduce_many(op, type, inputs, group.size, &out, 1, count);
  return Status::ok();
}

}  // namespace rt
