// Collective algorithms over the mailbox Exchange engine.
#include "collectives.hpp"

#include <stddef.h>
#include <string.h>

#include "cancellation.hpp"
#include "exchange.hpp"
#include "hal/fault.hpp"
#include "runtime/log/log.hpp"
#include "hal/support/result.hpp"
#include "hal/support/utility.hpp"
#include "runtime/tensor/shape.hpp"
#include "runtime/trace/trace_point.hpp"

namespace rt {
namespace {

// Per-core reduction accumulators bound the elements reduced per step (segments of a larger call).
constexpr size_t kScratchElements = 16 * 1024;
alignas(kCacheLineSize) uint8_t scratch[hal::kMaxCores][kScratchElements * 8];

bool overlapping(const void* a, size_t a_bytes, const void* b, size_t b_bytes) {
  const auto* x = static_cast<const uint8_t*>(a);
  const auto* y = static_cast<const uint8_t*>(b);
  return a_bytes != 0 && b_bytes != 0 && x < y + b_bytes && y < x + a_bytes;
}

Status overlap_error(const char* operation) {
  return invalid_argument("{}: input and output buffers overlap (only all_reduce may run in place)", operation);
}

// all_to_all's arguments against XLA's rules, with TF's texts.
Status check_all_to_all(Span<const int64_t> shape, int64_t concat_dimension, int64_t split_dimension,
                        int64_t split_count, unsigned group_size) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  if (rank > static_cast<int64_t>(kMaxRank))
    return invalid_argument("all_to_all supports tensors up to rank {}; got rank {}", kMaxRank, rank);
  if (split_count < 1) return invalid_argument("split_count {} must at least be one.", split_count);
  if (split_count != group_size)  // TF's AllToAll shape check prints the group size (the dimension's value)
    return invalid_argument("split_count {} must equal the size of the second dimension of group_assignment {}",
                            split_count, group_size);
  if (concat_dimension < 0 || concat_dimension >= rank)
    return invalid_argument("concat_dimension {} is out of range of input rank {}", concat_dimension, rank);
  if (split_dimension < 0 || split_dimension >= rank)
    return invalid_argument("split_dimension {} is out of range of input rank {}", split_dimension, rank);
  for (int64_t d = 0; d < rank; ++d)
    if (shape[d] < 0)
      return invalid_argument("all_to_all: dimension {} of the input shape is negative ({})", d, shape[d]);
  if (shape[split_dimension] % split_count != 0)
    return invalid_argument("input dimension {} not divisible by split_count {}", shape[split_dimension], split_count);
  return Status::ok();
}

// Where all_to_all's blocks lie (checked arguments): block j of the input is split_rows rows over the
// dimensions before split_dimension; block j of the output is concat_rows rows over the block's
// dimensions before concat_dimension (a block: the split dimension divided by split_count).
BlockGeometry all_to_all_blocks(size_t element, Span<const int64_t> shape, int64_t concat_dimension,
                                int64_t split_dimension, int64_t split_count) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  const auto product = [](int64_t from, int64_t to, const int64_t* dims) {
    size_t p = 1;
    for (int64_t d = from; d < to; ++d) p *= static_cast<size_t>(dims[d]);
    return p;
  };
  int64_t block[kMaxRank] = {};
  for (int64_t d = 0; d < rank; ++d) block[d] = shape[d];
  block[split_dimension] /= split_count;
  BlockGeometry blocks;
  blocks.split_rows = product(0, split_dimension, shape.data());
  blocks.split_row_bytes =
      static_cast<size_t>(block[split_dimension]) * product(split_dimension + 1, rank, shape.data()) * element;
  blocks.concat_rows = product(0, concat_dimension, block);
  blocks.concat_row_bytes =
      static_cast<size_t>(block[concat_dimension]) * product(concat_dimension + 1, rank, block) * element;
  return blocks;
}

Status unsupported_dtype(const char* operation, DType type) {
  return invalid_argument("{} does not support dtype {}; supported: float16, bfloat16, float32, float64, int32, uint32",
                          operation, dtype_name(type));
}

// Whether a board leader's trade across boards failed in its latest collective, by the leader's core
// (fan_out_across_boards).
Atomic<bool> leader_trade_failed[hal::kMaxCores];

// A member's options for waiting on its board leader's trade across boards: the timeout a quarter
// longer, at least a second (the leader starts its call a little after the members start waiting, and
// a trade that never ends is then reported by the leader), saturating for a timeout meaning "forever".
CollectiveOptions waiting_for_leader(const CollectiveOptions& options) {
  constexpr uint64_t kSecond = 1000 * hal::kNanosPerMilli;
  const uint64_t grace = options.timeout_ns / 4 > kSecond ? options.timeout_ns / 4 : kSecond;
  CollectiveOptions waiting = options;
  waiting.timeout_ns = options.timeout_ns > UINT64_MAX - grace ? UINT64_MAX : options.timeout_ns + grace;
  return waiting;
}

}  // namespace

ReplicaSet ReplicaSet::one_per_core(unsigned cores) {
  ReplicaSet set;
  set.count = cores;
  for (unsigned r = 0; r < cores; ++r) set.core_of[r] = static_cast<uint8_t>(r);
  return set;
}

Result<Group> Collectives::enter(const CollectiveOptions& options, const char* name) {
  ++sequence_;
  if (replica_ >= replicas_.count)
    return invalid_argument("{}: replica {} is outside the {} replicas", name, replica_, replicas_.count);
  RT_RETURN_IF_ERROR(validate_groups(options.groups, replicas_.count));
  return group_of(options.groups, replicas_.count, replica_);
}

// Whether some pair's source and target run on different boards (every member sees the same pairs).
bool Collectives::crosses_boards(Span<const int64_t> pairs) const {
  for (size_t i = 0; i + 1 < pairs.size(); i += 2)
    if (replicas_.task_of[pairs[i]] != replicas_.task_of[pairs[i + 1]]) return true;
  return false;
}

bool Collectives::spans_boards(const Group& group) const {
  for (unsigned j = 0; j < group.size; ++j)
    if (replicas_.task_of[group.members[j]] != replicas_.local_task) return true;
  return false;
}

Collectives::SharedBuffers Collectives::describe(CollectiveKind kind, DType type, ReduceOp op, Algorithm algorithm,
                                                size_t count, unsigned group_size, const uint8_t* in, uint8_t* out) {
  static_assert(offsetof(SharedBuffers, in) == kCallDescriptionBytes, "the description is what precedes the addresses");
  SharedBuffers call;
  memset(&call, 0, sizeof call);  // no byte of it sent unset
  call.count = count;
  call.kind = kind;
  call.type = type;
  call.op = op;
  call.algorithm = algorithm;
  call.group_size = group_size;
  call.in = in;
  call.out = out;
  return call;
}

uint64_t Collectives::shape_digest(const Shape* shape) {
  if (shape == nullptr) return 0;
  uint64_t digest = 0xcbf29ce484222325ull ^ shape->rank;
  for (const int64_t dim : shape->sizes()) digest = (digest ^ static_cast<uint64_t>(dim)) * 0x100000001b3ull;
  return digest | 1;  // never 0
}

// Sends this member's {in, out} addresses to every other member and collects theirs.
Status Collectives::share_buffers(const Group& group, const SharedBuffers& given, SharedBuffers* peers,
                                  const CollectiveOptions& options) {
  SharedBuffers mine = given;
  mine.shape = shape_digest(options.shape);
  peers[group.position] = mine;
  StridedBytes sinks[hal::kMaxCores];
  Exchange exchange(mine.kind, sequence_);
  for (unsigned j = 0; j < group.size; ++j) {
    if (j == group.position) continue;
    exchange.send(core_of(group.members[j]), StridedBytes::contiguous(&mine, sizeof(mine)));
    sinks[j] = StridedBytes::contiguous(&peers[j], sizeof(SharedBuffers));
    exchange.receive(core_of(group.members[j]), sizeof(SharedBuffers), Sink{&sinks[j]});
  }
  RT_RETURN_IF_ERROR(exchange.run(options.timeout_ns));
  return check_peer_calls(group, mine, peers, options.shape);
}

Status Collectives::check_peer_calls(const Group& group, const SharedBuffers& mine, const SharedBuffers* peers,
                                     const Shape* shape) {
  for (unsigned j = 0; j < group.size; ++j) {
    const SharedBuffers& peer = peers[j];
    if (peer.count != mine.count || peer.kind != mine.kind || peer.type != mine.type || peer.op != mine.op ||
        peer.algorithm != mine.algorithm || peer.group_size != mine.group_size)
      return Status::error(StatusCode::kInvalidArgument,
                           "core {}: collective mismatch with replica {}: {} {} of {} {} (algorithm {}, group of {}) here, "
                           "{} {} of {} {} (algorithm {}, group of {}) there",
                           hal::core_id(), group.members[j], collective_kind_name(mine.kind), reduce_op_name(mine.op),
                           mine.count, dtype_name(mine.type), static_cast<int>(mine.algorithm), mine.group_size,
                           collective_kind_name(peer.kind), reduce_op_name(peer.op), peer.count, dtype_name(peer.type),
                           static_cast<int>(peer.algorithm), peer.group_size);
    if (peer.shape != 0 && mine.shape != 0 && peer.shape != mine.shape) {
      const bool reduces = mine.kind == CollectiveKind::kAllReduce || mine.kind == CollectiveKind::kReduceScatter;
      return Status::error(StatusCode::kInvalidArgument,
                           "core {}: collective mismatch with replica {}: {}{}{} of {} {} shaped {} here, the same number "
                           "of elements in another shape there", hal::core_id(), group.members[j],
                           collective_kind_name(mine.kind), reduces ? " " : "", reduces ? reduce_op_name(mine.op) : "",
                           mine.count, dtype_name(mine.type), shape->sizes());  // "[2, 2]"
    }
  }
  return Status::ok();
}

// out[i] = reduction over members j (group order) of peers[j].in[offset + i], i < count, reading every
// member's input directly. Segment by segment (the same segments on every member, so all take part
// in the same signal rounds): reduce, then a signal round after which no member reads that segment
// of any input. If `out` overlaps this member's input (input_bytes long), which peers are reading,
// the segment is reduced into scratch and copied out only after the signal.
void Collectives::reduce_direct(CollectiveKind kind, ReduceOp op, DType type, const SharedBuffers* peers, size_t offset,
                                size_t input_bytes, uint8_t* out, size_t count, const Group& group,
                                const CollectiveOptions& options) {
  const size_t element = dtype_size(type);
  const uint8_t* own = peers[group.position].in;
  const bool overlaps = overlapping(out, count * element, own, input_bytes);
  const uint8_t* inputs[hal::kMaxCores];
  size_t begin = 0;
  do {  // at least once: every member takes part in a signal round even for empty buffers
    const size_t length = min(kScratchElements, count - begin);
    for (unsigned j = 0; j < group.size; ++j) inputs[j] = peers[j].in + (offset + begin) * element;
    uint8_t* destination = overlaps ? scratch[hal::core_id()] : out + begin * element;
    reduce_many(op, type, inputs, group.size, &destination, 1, length);
    signal_after_sharing(kind, group, options);
    if (overlaps) memcpy(out + begin * element, destination, length * element);
    begin += length;
  } while (begin < count);
}

// Latency algorithm: two message rounds (addresses, "done reading") for payloads that fit the
// scratch accumulator; every member reduces the whole buffer itself.
Status Collectives::all_reduce_latency(ReduceOp op, DType type, const uint8_t* in, uint8_t* out, size_t count,
                                       const Group& group, const CollectiveOptions& options) {
  SharedBuffers peers[hal::kMaxCores];
  const SharedBuffers mine = describe(CollectiveKind::kAllReduce, type, op, Algorithm::kLatency, count, group.size, in,
                                      out);
  RT_RETURN_IF_ERROR(share_buffers(group, mine, peers, options));
  reduce_direct(CollectiveKind::kAllReduce, op, type, peers, 0, count * dtype_size(type), out, count, group, options);
  return Status::ok();
}

// Bandwidth algorithm, single copy: the cores share coherent memory, so the mailbox carries only
// buffer addresses and phase signals while every byte moves once.
//   1. every member sends every other member its {in, out} addresses (and count/type/op, checked)
//   2. member k reduces chunk k, reading chunk k of every member's `in` directly, in group order
//      (the same kernels and order as every other path), and writes each finished vector into
//      chunk k of every member's `out` (reduce_many: one pass, every input and output touched once)
//   3. one signal round: after it every `out` is complete and no member reads any `in` any more
// In place is safe: chunk k of member j's buffer is read and then overwritten only by member k.
// Per core: reads N bytes and writes N bytes (n chunks of N/n each way), like a copy of the buffer;
// all members work at once between the two rounds, so there is nothing to pipeline.
Status Collectives::all_reduce_bandwidth(ReduceOp op, DType type, const uint8_t* in, uint8_t* out, size_t count,
                                         const Group& group, const CollectiveOptions& options) {
  const size_t element = dtype_size(type);
  const unsigned n = group.size;
  const unsigned me = group.position;
  SharedBuffers peers[hal::kMaxCores];
  const SharedBuffers mine = describe(CollectiveKind::kAllReduce, type, op, Algorithm::kBandwidth, count, group.size,
                                      in, out);
  RT_RETURN_IF_ERROR(share_buffers(group, mine, peers, options));
  // Member k owns [k*count/n, (k+1)*count/n).
  const size_t begin = count * me / n;
  const size_t end = count * (me + 1) / n;
  const uint8_t* inputs[hal::kMaxCores];
  uint8_t* outputs[hal::kMaxCores];
  outputs[0] = out + begin * element;  // own output first: the others are copied from it
  for (unsigned j = 0, k = 1; j < n; ++j) {
    inputs[j] = peers[j].in + begin * element;
    if (j != me) outputs[k++] = peers[j].out + begin * element;
  }
  reduce_many(op, type, inputs, n, outputs, n, end - begin, count * element >= kStreamingMinBytes);
  signal_after_sharing(CollectiveKind::kAllReduce, group, options);
  return Status::ok();
}

void Collectives::fail_after_sharing(const Status& status) {
  log_error("{}", status.message());
  hal::panic("a collective failed after its buffers were shared with peers that may still use them");
}

void Collectives::signal_after_sharing(CollectiveKind kind, const Group& group, const CollectiveOptions& options) {
  const Status status = signal_group(kind, group, options);
  if (!status.is_ok()) fail_after_sharing(status);
}

// A zero-byte message to and from every other member: returns once all have sent theirs.
Status Collectives::signal_group(CollectiveKind kind, const Group& group, const CollectiveOptions& options) {
  Exchange exchange(kind, sequence_);
  for (unsigned j = 0; j < group.size; ++j) {
    if (j == group.position) continue;
    exchange.send(core_of(group.members[j]), StridedBytes{});
    exchange.receive(core_of(group.members[j]), 0, Sink{});
  }
  return exchange.run(options.timeout_ns);
}

Status Collectives::all_reduce(ReduceOp op, DType type, const void* in, void* out, size_t count,
                               const CollectiveOptions& options) {
  RT_TRACE_SCOPE("all_reduce", trace::Category::kCollective);
  Result<Group> group = enter(options, "cross_replica_sum");
  if (!group) return group.status();
  if (!reducible(type)) return unsupported_dtype("cross_replica_sum", type);
  const auto* source = static_cast<const uint8_t*>(in);
  auto* destination = static_cast<uint8_t*>(out);
  const size_t bytes = count * dtype_size(type);
  if (in != out && overlapping(in, bytes, out, bytes))
    return invalid_argument("cross_replica_sum: output overlaps input without being the same buffer");
  if (options.algorithm == Algorithm::kEager && bytes > kEagerAlgorithmMaxBytes)
    return invalid_argument("cross_replica_sum: the eager algorithm takes at most {} bytes, not {}",
                            kEagerAlgorithmMaxBytes, bytes);
  if (spans_boards(*group)) return all_reduce_across_boards(op, type, source, destination, count, *group, options);
  if (group->size == 1) {
    // One member: the result is its own value, through the reduction kernel with one input (mean
    // divides by 1, 16-bit types round-trip exactly): one pass, no scratch. In place, where that
    // kernel stores every element as it loaded it (sum, max, min of 32- and 64-bit types), nothing.
    const bool identity = op != ReduceOp::kMean && type != DType::kBF16 && type != DType::kF16;
    if (in != out || !identity) reduce_many(op, type, &source, 1, &destination, 1, count);
    return Status::ok();
  }
  Algorithm algorithm = options.algorithm;
  if (algorithm == Algorithm::kAuto)
    algorithm = bytes <= kEagerAlgorithmMaxBytes     ? Algorithm::kEager
                : bytes <= kLatencyAlgorithmMaxBytes ? Algorithm::kLatency
                                                     : Algorithm::kBandwidth;
  switch (algorithm) {
    case Algorithm::kEager: return all_reduce_eager(op, type, source, destination, count, *group, options);
    case Algorithm::kLatency: return all_reduce_latency(op, type, source, destination, count, *group, options);
    default: return all_reduce_bandwidth(op, type, source, destination, count, *group, options);
  }
}

// Across boards, for a group with members on other boards (cross_board.hpp). The group's members on
// this board (in group order) share their buffers; the first of them, the board's leader, makes the
// board's contribution and trades it with the other boards; a signal round, and the others copy the
// result from the leader's output; another round, and no member touches another's buffers any more.
// A leader's trade that fails (another board never came) fails every member here with an error after
// the signal round; a signal round that fails after the buffers were shared ends the board
// (fail_after_sharing): the other members may still be reading them.
Collectives::BoardMembers Collectives::board_members(const Group& group) const {
  BoardMembers members{};
  for (unsigned j = 0; j < group.size; ++j) {
    const uint8_t task = replicas_.task_of[group.members[j]];
    members.member_tasks[j] = task;
    if (task != replicas_.local_task) continue;
    if (j == group.position) members.local.position = members.local.size;
    members.local.members[members.local.size++] = group.members[j];
  }
  return members;
}

// The leader's trade with the other boards (the call's kind, row and out are set by the caller).
Status Collectives::across_boards(CrossBoardCall call, const Group& group, const BoardMembers& members,
                                  const CollectiveOptions& options) {
  if (replicas_.cross_board == nullptr)
    return Status::error(StatusCode::kFailedPrecondition,
                         "{}: replica {}'s group spans boards, but no link to the other boards is set up",
                         cross_board_kind_name(call.kind), replica_);
  call.member_tasks = members.member_tasks;
  call.group_size = group.size;
  call.first_member = group.members[0];
  call.logical_core = replicas_.logical_core;
  call.sequence = sequence_;
  call.timeout_ns = options.timeout_ns;
  call.shape = options.shape;
  return replicas_.cross_board(call);
}

// The round every collective across boards with a result makes (see above): the members here share
// `mine`, the leader makes its call from the peers' buffers (`leader_call`) and trades it, and the
// others copy `result_bytes` of the leader's output into theirs.
Status Collectives::fan_out_across_boards(const Group& group, const SharedBuffers& mine, size_t result_bytes,
                                          const CollectiveOptions& options, LeaderCall leader_call,
                                          const MemberStep* before_call) {
  const BoardMembers members = board_members(group);
  const Group& local = members.local;
  SharedBuffers peers[hal::kMaxCores];
  RT_RETURN_IF_ERROR(share_buffers(local, mine, peers, options));
  if (before_call != nullptr && (*before_call)(peers, local)) signal_after_sharing(mine.kind, local, options);
  const unsigned leader_core = core_of(local.members[0]);
  Status traded;
  if (local.position == 0) {
    traded = across_boards(leader_call(peers, local), group, members, options);
    // Read by the members after the signal round below (the round orders it): a trade that failed
    // (another board never came, say) fails every member here with an error, not a panic. No reply
    // is written into the leader's output after it gave up (its reply targets are disarmed before
    // the round); tpu may still read the board's part for a while (its call to the other boards
    // lasts longer than a collective's timeout), but the pod ends with this board's failure, so what
    // a late board would compute from reused memory is never a result.
    leader_trade_failed[leader_core].store(!traded.is_ok(), MemoryOrder::kRelease);
  }
  // The others wait for the leader's trade a little longer than the leader waits for it, so that a
  // trade that never ends is reported by the leader, naming the collective across boards, rather
  // than by a member here naming the leader it waited for.
  signal_after_sharing(mine.kind, local, local.position == 0 ? options : waiting_for_leader(options));
  const bool failed = leader_trade_failed[leader_core].load(MemoryOrder::kAcquire);
  if (local.position != 0 && !failed) memcpy(mine.out, peers[0].out, result_bytes);
  signal_after_sharing(mine.kind, local, options);
  if (!traded.is_ok()) return traded;
  if (!failed) return Status::ok();
  stopping_for(leader_core);  // the launch's first failure is the leader's
  return Status::error(StatusCode::kCancelled, "core {} stopped waiting in {} #{} across boards: core {}, this "
                       "board's leader in it, gave up on the other boards", hal::core_id(),
                       collective_kind_name(mine.kind), sequence_, leader_core);
}

// A call by the members' own buffers (cross_board.hpp): every member here hands its input; the host
// writes every member's output, or only the leader's (`every_output` false: the others copy it).
CrossBoardCall Collectives::members_call(CrossBoardKind kind, DType type, size_t count, const SharedBuffers* peers,
                                         const Group& local, bool every_output) {
  CrossBoardCall call;
  call.kind = kind;
  call.type = type;
  call.count = count;
  call.by_members = true;
  call.inputs_here = local.size;
  call.outputs_here = every_output ? local.size : 1;
  for (unsigned j = 0; j < local.size; ++j) {
    call.member_in[j] = peers[j].in;
    call.member_out[j] = peers[j].out;
  }
  return call;
}

// sum, max and min of the 32- and 64-bit types go by the boards' partials (exact, the cheapest);
// mean and the 16-bit floats by every member's input, reduced on the host exactly as one board does.
// The board's partial is its members' inputs reduced in group order: one member's input as it is (the
// host reads it in place, no copy); from kParallelPartialMinBytes every member reduces a slice of the
// elements into the leader's output; below that the leader alone. Each element is reduced over the
// same inputs in the same order either way: the same bits.
Status Collectives::all_reduce_across_boards(ReduceOp op, DType type, const uint8_t* in, uint8_t* out, size_t count,
                                             const Group& group, const CollectiveOptions& options) {
  const bool by_partials = reducible_by_partials(op, type);
  const size_t element = dtype_size(type);
  const SharedBuffers mine = describe(CollectiveKind::kAllReduce, type, op, Algorithm::kBandwidth, count, group.size,
                                      in, out);
  const auto parallel = [&](const Group& local) {
    return by_partials && local.size > 1 && count * element >= kParallelPartialMinBytes;
  };
  const auto slice_of_partial = [&](const SharedBuffers* peers, const Group& local) {
    if (!parallel(local)) return false;
    const size_t chunk = ((count + local.size - 1) / local.size + 15) / 16 * 16;  // whole cache lines of float32
    const size_t begin = chunk * local.position < count ? chunk * local.position : count;
    const size_t end = begin + chunk < count ? begin + chunk : count;
    const uint8_t* inputs[hal::kMaxCores];
    for (unsigned j = 0; j < local.size; ++j) inputs[j] = peers[j].in + begin * element;
    uint8_t* into = peers[0].out + begin * element;
    if (begin != end) reduce_many(op, type, inputs, local.size, &into, 1, end - begin);
    return true;
  };
  const MemberStep parallel_partial(slice_of_partial);
  const auto leader_call = [&](const SharedBuffers* peers, const Group& local) {
    if (!by_partials) {
      CrossBoardCall call = members_call(CrossBoardKind::kAllReduce, type, count, peers, local, false);
      call.op = op;
      call.out_elements = count;
      return call;
    }
    const uint8_t* partial = local.size == 1 ? in : out;
    if (local.size > 1 && !parallel(local)) {
      const uint8_t* inputs[hal::kMaxCores];
      for (unsigned j = 0; j < local.size; ++j) inputs[j] = peers[j].in;
      reduce_many(op, type, inputs, local.size, &out, 1, count);
    }
    CrossBoardCall call;
    call.kind = CrossBoardKind::kAllReduce;
    call.op = op;
    call.type = type;
    call.count = call.row_elements = call.out_elements = count;
    call.row = partial;
    call.out = out;
    return call;
  };
  return fan_out_across_boards(group, mine, count * element, options, leader_call, &parallel_partial);
}

Status Collectives::reduce_scatter_across_boards(ReduceOp op, DType type, const uint8_t* in, uint8_t* out, size_t count,
                                                 const Group& group, const CollectiveOptions& options) {
  const SharedBuffers mine = describe(CollectiveKind::kReduceScatter, type, op, Algorithm::kAuto, count, group.size, in,
                                      out);
  return fan_out_across_boards(group, mine, 0, options, [&](const SharedBuffers* peers, const Group& local) {
    CrossBoardCall call = members_call(CrossBoardKind::kReduceScatter, type, count, peers, local, true);
    call.op = op;
    call.out_elements = count / group.size;
    return call;
  });
}

Status Collectives::all_to_all_across_boards(DType type, const uint8_t* in, uint8_t* out, const BlockGeometry& blocks,
                                             const Group& group, const CollectiveOptions& options) {
  const size_t count = blocks.split_rows * blocks.split_row_bytes * group.size / dtype_size(type);
  const SharedBuffers mine = describe(CollectiveKind::kAllToAll, type, ReduceOp::kSum, Algorithm::kAuto, count,
                                      group.size, in, out);
  return fan_out_across_boards(group, mine, 0, options, [&](const SharedBuffers* peers, const Group& local) {
    CrossBoardCall call = members_call(CrossBoardKind::kAllToAll, type, count, peers, local, true);
    call.out_elements = count;
    call.blocks = blocks;
    return call;
  });
}

// The group is every replica (pairs name replica ids): every member takes part, targets or not.
Status Collectives::collective_permute_across_boards(DType type, const uint8_t* in, uint8_t* out, size_t count,
                                                     Span<const int64_t> pairs, const CollectiveOptions& options) {
  const Group group = group_of(GroupAssignment{}, replicas_.count, replica_);
  const SharedBuffers mine = describe(CollectiveKind::kCollectivePermute, type, ReduceOp::kSum, Algorithm::kAuto, count,
                                      group.size, in, out);
  return fan_out_across_boards(group, mine, 0, options, [&](const SharedBuffers* peers, const Group& local) {
    CrossBoardCall call = members_call(CrossBoardKind::kCollectivePermute, type, count, peers, local, true);
    call.out_elements = count;
    call.pairs = pairs;
    return call;
  });
}

Status Collectives::all_gather_across_boards(DType type, const uint8_t* in, uint8_t* out, size_t count,
                                             const Group& group, const CollectiveOptions& options) {
  const size_t bytes = count * dtype_size(type);
  const SharedBuffers mine = describe(CollectiveKind::kAllGather, type, ReduceOp::kSum, Algorithm::kAuto, count,
                                      group.size, in, out);
  return fan_out_across_boards(group, mine, group.size * bytes, options,
                               [&](const SharedBuffers* peers, const Group& local) {
                                 for (unsigned j = 0; j < local.size; ++j)  // the board's row
                                   memcpy(out + j * bytes, peers[j].in, bytes);
                                 CrossBoardCall call;
                                 call.kind = CrossBoardKind::kAllGather;
                                 call.type = type;
                                 call.count = count;
                                 call.row = call.out = out;
                                 call.row_elements = local.size * count;
                                 call.out_elements = group.size * count;
                                 return call;
                               });
}

Status Collectives::broadcast_across_boards(unsigned source_position, DType type, uint8_t* data, size_t count,
                                            const Group& group, const CollectiveOptions& options) {
  const SharedBuffers mine = describe(CollectiveKind::kBroadcast, type, ReduceOp::kSum, Algorithm::kAuto, count,
                                      group.size, data, data);
  return fan_out_across_boards(group, mine, count * dtype_size(type), options,
                               [&](const SharedBuffers* peers, const Group& local) {
                                 CrossBoardCall call;
                                 call.kind = CrossBoardKind::kBroadcast;
                                 call.type = type;
                                 call.count = call.out_elements = count;
                                 call.out = data;
                                 call.source_position = source_position;
                                 for (unsigned j = 0; j < local.size; ++j)  // the source's data if it is here
                                   if (local.members[j] == group.members[source_position]) {
                                     call.row = peers[j].in;
                                     call.row_elements = count;
                                   }
                                 return call;
                               });
}

Status Collectives::barrier_across_boards(const Group& group, const CollectiveOptions& options) {
  const BoardMembers members = board_members(group);
  RT_RETURN_IF_ERROR(signal_group(CollectiveKind::kBarrier, members.local, options));  // every member here arrived
  if (members.local.position == 0) {
    CrossBoardCall call;
    call.kind = CrossBoardKind::kBarrier;
    // No buffers are shared: the members here, waiting for the leader, stop once it leaves its launch.
    RT_RETURN_IF_ERROR(across_boards(call, group, members, options));
    return signal_group(CollectiveKind::kBarrier, members.local, options);  // released once every board arrived
  }
  return signal_group(CollectiveKind::kBarrier, members.local, waiting_for_leader(options));  // as in fan_out_across_boards
}

Status Collectives::reduce_scatter(ReduceOp op, DType type, const void* in, void* out, size_t count,
                                   const CollectiveOptions& options) {
  RT_TRACE_SCOPE("reduce_scatter", trace::Category::kCollective);
  Result<Group> group = enter(options, "reduce_scatter");
  if (!group) return group.status();
  if (!reducible(type)) return unsupported_dtype("reduce_scatter", type);
  if (count % group->size != 0)
    return invalid_argument("reduce_scatter: input of {} elements does not split evenly over a group of {}", count,
                            group->size);
  if (overlapping(in, count * dtype_size(type), out, count / group->size * dtype_size(type)))
    return overlap_error("reduce_scatter");
  if (spans_boards(*group))
    return reduce_scatter_across_boards(op, type, static_cast<const uint8_t*>(in), static_cast<uint8_t*>(out), count,
                                        *group, options);
  SharedBuffers peers[hal::kMaxCores];
  const SharedBuffers mine = describe(CollectiveKind::kReduceScatter, type, op, Algorithm::kAuto, count, group->size,
                                      static_cast<const uint8_t*>(in), static_cast<uint8_t*>(out));
  RT_RETURN_IF_ERROR(share_buffers(*group, mine, peers, options));
  const size_t chunk = count / group->size;
  reduce_direct(CollectiveKind::kReduceScatter, op, type, peers, group->position * chunk, count * dtype_size(type),
                static_cast<uint8_t*>(out), chunk, *group, options);
  return Status::ok();
}

Status Collectives::all_gather(DType type, const void* in, void* out, size_t count, const CollectiveOptions& options) {
  RT_TRACE_SCOPE("all_gather", trace::Category::kCollective);
  Result<Group> group = enter(options, "all_gather");
  if (!group) return group.status();
  const size_t bytes = count * dtype_size(type);
  if (overlapping(in, bytes, out, bytes * group->size)) return overlap_error("all_gather");
  if (spans_boards(*group))
    return all_gather_across_boards(type, static_cast<const uint8_t*>(in), static_cast<uint8_t*>(out), count, *group,
                                    options);
  auto* destination = static_cast<uint8_t*>(out);
  Exchange exchange(CollectiveKind::kAllGather, sequence_);
  StridedBytes destinations[hal::kMaxCores];
  for (unsigned j = 0; j < group->size; ++j) {
    destinations[j] = StridedBytes::contiguous(destination + j * bytes, bytes);
    const Sink sink{&destinations[j]};
    if (j == group->position) {
      exchange.local(StridedBytes::contiguous(in, bytes), sink);
    } else {
      exchange.send(core_of(group->members[j]), StridedBytes::contiguous(in, bytes));
      exchange.receive(core_of(group->members[j]), bytes, sink);
    }
  }
  return exchange.run(options.timeout_ns);
}

Status Collectives::broadcast(unsigned source_replica, DType type, void* data, size_t count,
                              const CollectiveOptions& options) {
  RT_TRACE_SCOPE("broadcast", trace::Category::kCollective);
  Result<Group> group = enter(options, "broadcast");
  if (!group) return group.status();
  unsigned source_position = group->size;
  for (unsigned j = 0; j < group->size; ++j)
    if (group->members[j] == source_replica) source_position = j;
  if (source_position == group->size)
    return invalid_argument("broadcast: source replica {} is not in the group of replica {}", source_replica, replica_);
  if (spans_boards(*group))
    return broadcast_across_boards(source_position, type, static_cast<uint8_t*>(data), count, *group, options);
  const size_t bytes = count * dtype_size(type);
  Exchange exchange(CollectiveKind::kBroadcast, sequence_);
  StridedBytes destination = StridedBytes::contiguous(data, bytes);
  if (group->position == source_position) {
    for (unsigned j = 0; j < group->size; ++j)
      if (j != source_position) exchange.send(core_of(group->members[j]), destination);
  } else {
    exchange.receive(core_of(source_replica), bytes, Sink{&destination});
  }
  return exchange.run(options.timeout_ns);
}

Status Collectives::barrier(const CollectiveOptions& options) {
  RT_TRACE_SCOPE("barrier", trace::Category::kCollective);
  Result<Group> group = enter(options, "barrier");
  if (!group) return group.status();
  if (spans_boards(*group)) return barrier_across_boards(*group, options);
  return signal_group(CollectiveKind::kBarrier, *group, options);
}

Status Collectives::all_to_all(DType type, const void* in, void* out, Span<const int64_t> shape,
                               int64_t concat_dimension, int64_t split_dimension, int64_t split_count,
                               const CollectiveOptions& options) {
  RT_TRACE_SCOPE("all_to_all", trace::Category::kCollective);
  Result<Group> group = enter(options, "all_to_all");
  if (!group) return group.status();
  RT_RETURN_IF_ERROR(check_all_to_all(shape, concat_dimension, split_dimension, split_count, group->size));
  const BlockGeometry blocks =
      all_to_all_blocks(dtype_size(type), shape, concat_dimension, split_dimension, split_count);
  const size_t block_bytes = blocks.split_rows * blocks.split_row_bytes;
  if (overlapping(in, block_bytes * group->size, out, block_bytes * group->size)) return overlap_error("all_to_all");
  if (spans_boards(*group))
    return all_to_all_across_boards(type, static_cast<const uint8_t*>(in), static_cast<uint8_t*>(out), blocks, *group,
                                    options);
  const size_t split_stride = blocks.split_row_bytes * static_cast<size_t>(split_count);
  const size_t concat_stride = blocks.concat_row_bytes * static_cast<size_t>(split_count);
  Exchange exchange(CollectiveKind::kAllToAll, sequence_);
  StridedBytes destinations[hal::kMaxCores];
  for (unsigned j = 0; j < group->size; ++j) {
    const StridedBytes source{static_cast<const uint8_t*>(in) + j * blocks.split_row_bytes, blocks.split_rows,
                              blocks.split_row_bytes, split_stride};
    destinations[j] = StridedBytes{static_cast<uint8_t*>(out) + j * blocks.concat_row_bytes, blocks.concat_rows,
                                   blocks.concat_row_bytes, concat_stride};
    if (block_bytes == 0) destinations[j] = StridedBytes{};
    const Sink sink{&destinations[j]};
    if (j == group->position) {
      exchange.local(block_bytes == 0 ? StridedBytes{} : source, sink);
    } else {
      exchange.send(core_of(group->members[j]), block_bytes == 0 ? StridedBytes{} : source);
      exchange.receive(core_of(group->members[j]), block_bytes, sink);
    }
  }
  return exchange.run(options.timeout_ns);
}

Status Collectives::collective_permute(DType type, const void* in, void* out, size_t count, Span<const int64_t> pairs,
                                       const CollectiveOptions& options) {
  RT_TRACE_SCOPE("collective_permute", trace::Category::kCollective);
  ++sequence_;
  if (pairs.size() % 2 != 0)
    return invalid_argument("source_target_pairs must have shape [n, 2]; got {} values", pairs.size());
  FixedString<200> text;
  text.append('[');
  for (size_t i = 0; i < pairs.size(); i += 2) format_to(text, "{}[{}, {}]", i ? ", " : "", pairs[i], pairs[i + 1]);
  text.append(']');
  bool is_source[kMaxPodDevices] = {};  // by replica id (global in a pod)
  bool is_target[kMaxPodDevices] = {};
  int64_t my_source = -1;
  int64_t my_target = -1;
  // XLA's HLO verifier (CheckDuplicatedSourceOrTarget), pair by pair: the source's range, a repeated
  // source, the target's range, a repeated target. After " : " XLA prints the HLO instruction, the
  // runtime the pairs; XLA skips the range check for a replica count of 1, the runtime keeps it.
  const int64_t limit = static_cast<int64_t>(replicas_.count);
  for (size_t i = 0; i < pairs.size(); i += 2) {
    const int64_t source = pairs[i];
    const int64_t target = pairs[i + 1];
    if (source < 0) return invalid_argument("Source {} in the instruction's source-target pair must be >= 0 : {}", source, text);
    if (source >= limit)
      return invalid_argument("Source {} in the instruction's source-target pair must be < {} : {}", source, limit, text);
    if (is_source[source]) return invalid_argument("Source {} appears more than once in instruction's source-target pairs: {}", source, text);
    if (target < 0) return invalid_argument("Target {} in the instruction's source-target pair must be >= 0 : {}", target, text);
    if (target >= limit)
      return invalid_argument("Target {} in the instruction's source-target pair must be < {} : {}", target, limit, text);
    if (is_target[target]) return invalid_argument("Target {} appears more than once in instruction's source-target pairs: {}", target, text);
    is_source[source] = is_target[target] = true;
    if (source == replica_) my_target = target;
    if (target == replica_) my_source = source;
  }
  const size_t bytes = count * dtype_size(type);
  if (overlapping(in, bytes, out, bytes)) return overlap_error("collective_permute");
  if (crosses_boards(pairs))
    return collective_permute_across_boards(type, static_cast<const uint8_t*>(in), static_cast<uint8_t*>(out), count,
                                            pairs, options);
  Exchange exchange(CollectiveKind::kCollectivePermute, sequence_);
  StridedBytes destination = StridedBytes::contiguous(out, bytes);
  const Sink sink{&destination};
  if (my_target >= 0 && my_target != replica_) exchange.send(core_of(my_target), StridedBytes::contiguous(in, bytes));
  if (my_source == replica_) exchange.local(StridedBytes::contiguous(in, bytes), sink);
  else if (my_source >= 0) exchange.receive(core_of(my_source), bytes, sink);
  RT_RETURN_IF_ERROR(exchange.run(options.timeout_ns));
  if (my_source < 0) memset(out, 0, bytes);  // not a target: zeros, as TF
  return Status::ok();
}

}  // namespace rt
