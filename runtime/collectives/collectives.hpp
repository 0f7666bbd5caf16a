// Collectives over replicas, each replica a core (TF's cross_replica_sum and friends). Every
// participating core calls the same collective with its own buffers (SPMD); the call returns once
// this core's output is complete. Errors use TF's texts; every wait is bounded by the timeout and
// names the core that waited and the peers it waited for.
//
// Reductions read the other members' buffers directly (all cores share coherent memory); the
// mailbox carries buffer addresses and phase signals. all_reduce picks an algorithm by size:
//   latency   (small): two message rounds; every member reduces the whole buffer itself;
//   bandwidth (large): two message rounds too; in between, member k reduces chunk k (1/n of the
//                      elements) reading every member's input directly and writes the result into
//                      every member's output: the reduce-scatter and the all-gather in one pass, all
//                      members at once, with nothing to pipeline. Per core that is N bytes read and
//                      N bytes written for an N-byte buffer, whatever n: what a copy of the buffer
//                      costs (bench-allreduce measures it against exactly that). From
//                      kStreamingMinBytes on, the outputs are written with non-temporal stores.
// Both reduce contributions in group order with the kernels in reduce.hpp, so the bits of the
// result do not depend on the algorithm, the arrival order or the board.
//
// Buffers: all_reduce may run in place (in == out); otherwise input and output must not overlap
// (rejected with an error). Errors found before any data moves (validation, mismatched calls
// across the group) are returned; a member that fails after the buffers were shared (a peer
// stopped answering mid-call) panics, because peers may still access its buffers. A member whose
// share itself fails by a timeout or a mismatch returns the error although its addresses may have
// reached a peer that completes the share: that peer panics in its signal round, but until then it
// may still touch the returned member's buffers. (A cancellation never does this:
// cancellation.hpp.) After any error the mailboxes may hold bytes of the failed call: treat
// collective errors as fatal for the pod.
#pragma once
#include "cross_board.hpp"
#include "exchange.hpp"
#include "groups.hpp"
#include "reduce.hpp"
#include "hal/support/atomic.hpp"
#include "hal/support/function_ref.hpp"
#include "hal/support/result.hpp"
#include "hal/support/span.hpp"
#include "runtime/sync/wait.hpp"

namespace rt {

// Which core runs each replica.
struct ReplicaSet {
  unsigned count = 0;
  // Indexed by replica id, global in a pod (kMaxPodDevices); the values are local cores and tasks.
  uint8_t core_of[kMaxPodDevices] = {};  // the core (on its own board) running each member
  // A pod of boards: each member's task (board), this board's task, and how a reduction leaves the
  // board (cross_board.hpp). On a single board every member is on task 0 and there is no exchange.
  uint8_t task_of[kMaxPodDevices] = {};
  uint8_t local_task = 0;
  CrossBoardExchange cross_board = nullptr;
  // Which logical core of each replica the members are (model parallelism: every logical core of a
  // replica has its own set); across boards it tells apart the same group's calls from each one.
  uint8_t logical_core = 0;

  static ReplicaSet one_per_core(unsigned cores);
};

enum class Algorithm : uint8_t { kAuto, kLatency, kBandwidth, kEager };

struct Shape;

struct CollectiveOptions {
  GroupAssignment groups;  // default: one group of all replicas
  Algorithm algorithm = Algorithm::kAuto;
  uint64_t timeout_ns = kDefaultWaitTimeoutNs;
  // The operand's shape, where the caller has a tensor: members whose operands hold as many elements
  // in different shapes ([4] here, [2, 2] there) are a mismatch too, as in XLA, where every replica's
  // operand has the one shape of the program. Null: only counts and types are compared.
  const Shape* shape = nullptr;
};

// Payloads up to this size travel in the messages themselves under Algorithm::kAuto (all_reduce's
// eager algorithm: one message round), up to the next the latency algorithm (two rounds, peers'
// buffers read in place), above it the bandwidth algorithm.
inline constexpr size_t kEagerAlgorithmMaxBytes = 256;
inline constexpr size_t kLatencyAlgorithmMaxBytes = 8 * 1024;
// Across boards, a board's partial sum of this many bytes or more is reduced by all its members in
// parallel, each a slice (one signal round more than the leader alone).
inline constexpr size_t kParallelPartialMinBytes = 32 * 1024;
// Bandwidth all-reduces of at least this many bytes write their results with non-temporal stores
// (where the target has them): every member's input and output together then exceed the last-level
// caches of these machines, so the output lines would only be read from memory to be overwritten.
inline constexpr size_t kStreamingMinBytes = size_t{16} << 20;

class Collectives {
 public:
  Collectives(const ReplicaSet& replicas, unsigned replica) : replicas_(replicas), replica_(replica) {}

  unsigned replica_id() const { return replica_; }
  unsigned num_replicas() const { return replicas_.count; }
  // A pod of boards: whether replica `replica` runs on this board, and whether any runs elsewhere.
  bool is_on_this_board(unsigned replica) const { return replicas_.task_of[replica] == replicas_.local_task; }
  bool spans_boards() const {
    for (unsigned r = 0; r < replicas_.count; ++r)
      if (!is_on_this_board(r)) return true;
    return false;
  }

  // out = reduction over the group of every member's `in` (count elements each). in == out is allowed.
  Status all_reduce(ReduceOp op, DType type, const void* in, void* out, size_t count,
                    const CollectiveOptions& options = {});
  // out = concatenation of every member's `in` in group order (count elements each).
  Status all_gather(DType type, const void* in, void* out, size_t count, const CollectiveOptions& options = {});
  // in has count elements, split into group-size equal chunks; out = reduction of chunk `position`.
  Status reduce_scatter(ReduceOp op, DType type, const void* in, void* out, size_t count,
                        const CollectiveOptions& options = {});
  // Every member's `data` becomes `source_replica`'s (which must be in the caller's group).
  Status broadcast(unsigned source_replica, DType type, void* data, size_t count, const CollectiveOptions& options = {});
  // Returns once every member of the group has entered the barrier.
  Status barrier(const CollectiveOptions& options = {});
  // TF all_to_all on a row-major tensor of `shape`: split along split_dimension into split_count
  // blocks, block j goes to group member j, received blocks are concatenated along concat_dimension.
  Status all_to_all(DType type, const void* in, void* out, Span<const int64_t> shape, int64_t concat_dimension,
                    int64_t split_dimension, int64_t split_count, const CollectiveOptions& options = {});
  // pairs = [[source, target], ...] flattened: target receives source's `in`; non-targets get zeros.
  Status collective_permute(DType type, const void* in, void* out, size_t count, Span<const int64_t> pairs,
                            const CollectiveOptions& options = {});

 private:
  // What a member tells the others about its side of a reduction. Everything but the addresses
  // must agree across the group before any member touches another's memory. The call's description
  // comes first (kCallDescriptionBytes): the eager algorithm sends that part alone before its data,
  // so a message of either form, whatever its size, reads as a description.
  struct SharedBuffers {
    uint64_t count;
    uint64_t shape;  // a digest of CollectiveOptions::shape (0: none given), set by share_buffers
    CollectiveKind kind;
    DType type;
    ReduceOp op;
    Algorithm algorithm;
    uint8_t unused;
    uint32_t group_size;
    const uint8_t* in;
    uint8_t* out;
  };
  static constexpr size_t kCallDescriptionBytes = 32;  // count .. group_size, padded: what precedes `in`
  static SharedBuffers describe(CollectiveKind kind, DType type, ReduceOp op, Algorithm algorithm, size_t count,
                                unsigned group_size, const uint8_t* in, uint8_t* out);
  Status share_buffers(const Group& group, const SharedBuffers& mine, SharedBuffers* peers,
                       const CollectiveOptions& options);
  // Every member's call agrees with `mine` but for the addresses (kind, op, type, count, algorithm,
  // group size, operand shape): else INVALID_ARGUMENT naming the first member that differs.
  static Status check_peer_calls(const Group& group, const SharedBuffers& mine, const SharedBuffers* peers,
                                 const Shape* shape);
  static uint64_t shape_digest(const Shape* shape);  // rank and dimensions (FNV-1a); 0 for none
  // A signal round that failed after buffers were shared: peers may still read or write this
  // member's buffers, so returning would let them corrupt memory the caller reuses. Panics. (A
  // leader's trade across boards that fails is no such case: fan_out_across_boards.)
  [[noreturn]] void fail_after_sharing(const Status& status);
  void reduce_direct(CollectiveKind kind, ReduceOp op, DType type, const SharedBuffers* peers, size_t offset,
                     size_t input_bytes, uint8_t* out, size_t count, const Group& group, const CollectiveOptions& options);
  Status all_reduce_eager(ReduceOp op, DType type, const uint8_t* in, uint8_t* out, size_t count, const Group& group,
                          const CollectiveOptions& options);
  Status all_reduce_latency(ReduceOp op, DType type, const uint8_t* in, uint8_t* out, size_t count, const Group& group,
                            const CollectiveOptions& options);
  Status all_reduce_bandwidth(ReduceOp op, DType type, const uint8_t* in, uint8_t* out, size_t count,
                              const Group& group, const CollectiveOptions& options);
  Status signal_group(CollectiveKind kind, const Group& group, const CollectiveOptions& options);
  // Groups with members on other boards (cross_board.hpp): the members here meet, their leader trades
  // the board's contribution with the other boards, the others copy the result from the leader.
  struct BoardMembers {
    Group local;                           // the members on this board, group order; position 0 leads
    uint8_t member_tasks[kMaxPodDevices];  // the task of every group position (the group spans the pod)
  };
  BoardMembers board_members(const Group& group) const;
  Status across_boards(CrossBoardCall call, const Group& group, const BoardMembers& members,
                       const CollectiveOptions& options);
  // The board's leader makes its call from the local members' shared buffers.
  using LeaderCall = FunctionRef<CrossBoardCall(const SharedBuffers* peers, const Group& local)>;
  // What every member here does with the shared buffers before the leader's call (its slice of the
  // board's partial); true if it did something, and then the members meet once more (a signal round)
  // before the call. Every member here must answer alike (decide from `local`, not the position).
  using MemberStep = FunctionRef<bool(const SharedBuffers* peers, const Group& local)>;
  Status fan_out_across_boards(const Group& group, const SharedBuffers& mine, size_t result_bytes,
                               const CollectiveOptions& options, LeaderCall leader_call,
                               const MemberStep* before_call = nullptr);
  Status all_reduce_across_boards(ReduceOp op, DType type, const uint8_t* in, uint8_t* out, size_t count,
                                  const Group& group, const CollectiveOptions& options);
  // By the members' own buffers (cross_board.hpp): the host writes every member's output here, in
  // one board's order and rounding. collective_permute's group is every replica; it goes across
  // boards when some pair crosses them (crosses_boards).
  static CrossBoardCall members_call(CrossBoardKind kind, DType type, size_t count, const SharedBuffers* peers,
                                    const Group& local, bool every_output);
  Status reduce_scatter_across_boards(ReduceOp op, DType type, const uint8_t* in, uint8_t* out, size_t count,
                                      const Group& group, const CollectiveOptions& options);
  Status all_to_all_across_boards(DType type, const uint8_t* in, uint8_t* out, const BlockGeometry& blocks,
                                  const Group& group, const CollectiveOptions& options);
  Status collective_permute_across_boards(DType type, const uint8_t* in, uint8_t* out, size_t count,
                                          Span<const int64_t> pairs, const CollectiveOptions& options);
  bool crosses_boards(Span<const int64_t> pairs) const;
  Status all_gather_across_boards(DType type, const uint8_t* in, uint8_t* out, size_t count, const Group& group,
                                  const CollectiveOptions& options);
  Status broadcast_across_boards(unsigned source_position, DType type, uint8_t* data, size_t count, const Group& group,
                                 const CollectiveOptions& options);
  Status barrier_across_boards(const Group& group, const CollectiveOptions& options);
  bool spans_boards(const Group& group) const;
  // signal_group, but a failure is fatal (see fail_after_sharing).
  void signal_after_sharing(CollectiveKind kind, const Group& group, const CollectiveOptions& options);
  // Counts the call and finds the caller's group.
  Result<Group> enter(const CollectiveOptions& options, const char* name);
  unsigned core_of(uint32_t replica) const { return replicas_.core_of[replica]; }

  ReplicaSet replicas_;
  unsigned replica_;
  uint32_t sequence_ = 0;  // collectives this replica has called; must match across the group
};

}  // namespace rt
