// all_reduce's eager algorithm, for payloads of a few cache lines (kEagerAlgorithmMaxBytes): every
// member sends its input itself, after the description of its call, to every other member, and
// reduces all of them in group order into its own output (the same kernel and order as the other
// algorithms, so the same bits). One message round, and no member reads another's memory, so no
// "done reading" round: the sum of a scalar loss costs one message each way, where sharing addresses
// costs two rounds. The description is the first kCallDescriptionBytes (32) of SharedBuffers, the
// addresses left out, so a peer that called another algorithm (whose message carries a whole
// SharedBuffers) is still read right and named by the same checks and texts; a scalar's message
// (32 + 4 bytes) fits the first 64-byte mailbox cell, which holds 40 bytes after the header.
#include <stddef.h>
#include <string.h>

#include "collectives.hpp"
#include "exchange.hpp"
#include "reduce.hpp"

namespace rt {

Status Collectives::all_reduce_eager(ReduceOp op, DType type, const uint8_t* in, uint8_t* out, size_t count,
                                     const Group& group, const CollectiveOptions& options) {
  struct alignas(8) EagerMessage {
    uint8_t bytes[kCallDescriptionBytes + kEagerAlgorithmMaxBytes];
  };
  const size_t bytes = count * dtype_size(type);
  const size_t message_bytes = kCallDescriptionBytes + bytes;
  SharedBuffers mine = describe(CollectiveKind::kAllReduce, type, op, Algorithm::kEager, count, group.size, in, out);
  mine.shape = shape_digest(options.shape);
  EagerMessage sent;
  memcpy(sent.bytes, &mine, kCallDescriptionBytes);
  memcpy(sent.bytes + kCallDescriptionBytes, in, bytes);
  EagerMessage received[hal::kMaxCores];
  StridedBytes sinks[hal::kMaxCores];
  Exchange exchange(CollectiveKind::kAllReduce, sequence_);
  for (unsigned j = 0; j < group.size; ++j) {
    if (j == group.position) continue;
    exchange.send(core_of(group.members[j]), StridedBytes::contiguous(sent.bytes, message_bytes));
    sinks[j] = StridedBytes::contiguous(received[j].bytes, message_bytes);
    exchange.receive(core_of(group.members[j]), message_bytes, Sink{&sinks[j]});
  }
  RT_RETURN_IF_ERROR(exchange.run(options.timeout_ns));
  SharedBuffers calls[hal::kMaxCores];
  const uint8_t* inputs[hal::kMaxCores];
  for (unsigned j = 0; j < group.size; ++j) {
    const bool own = j == group.position;
    calls[j] = mine;
    if (!own) memcpy(&calls[j], received[j].bytes, kCallDescriptionBytes);  // its addresses: none (unused)
    inputs[j] = own ? sent.bytes + kCallDescriptionBytes : received[j].bytes + kCallDescriptionBytes;
  }
  RT_RETURN_IF_ERROR(check_peer_calls(group, mine, calls, options.shape));
  reduce_many(op, type, inputs, group.size, &out, 1, count);
  return Status::ok();
}

}  // namespace rt
