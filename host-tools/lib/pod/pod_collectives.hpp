// The host's part of a pod's collectives across boards (runtime/collectives/cross_board.hpp): the
// board's leader of a group calls the reserved host function ".pod" with its board's contribution
// (runtime/tpu/replicate/uses_hal/pod_bridge.hpp); tpu trades it with the other boards of the group
// through a RowExchange (Open MPI) and answers the call with the group's result:
//   all_reduce  the boards' partials folded left in the group's task order (the order in which each
//               task's first member appears), element by element in the dtype itself (a float32 sum
//               rounds after every addition, as the board's own reduction does): tasks 0, 1, 2 give
//               (row0 + row1) + row2
//   all_gather  each group position's block, taken from its board's row (the board's members in order)
//   broadcast   the source's board's row
//   barrier     nothing, once every board of the group arrived
//   rows        every board's row (of the size `sizes` says), concatenated in task order: the program's
//               exchanges between the boards (each board's replicas' outputs after replicate)
// Calls "by=members" (all_reduce of mean or 16-bit floats, reduce_scatter, all_to_all,
// collective_permute) bring every member's input and get every member's output, computed as one
// board computes it (pod_members.hpp).
// Calls are deferred: several groups may be in flight at once (boards may see them in different
// orders), and the run loop calls pump() to progress them. Every board's call text goes ahead of its
// part (the exchange's signature, row_exchange.hpp): boards whose calls of one tag differ (another
// shape, count, dtype, op, member list; one with a shape against one without) fail the call
// INVALID_ARGUMENT, each naming the other task and both calls (pod_mismatch), before anything is
// folded. Calls of different tags (another sequence or first member) never meet: they time out.
// Without copies where the link maps board memory (shared memory): the board's part is sent to the
// other boards straight from where the board keeps it (HostCallRequest::in_board), the other boards'
// parts arrive in buffers kept from call to call (no page is faulted in twice), and the result is
// folded straight into the board's output (HostCallOutcome::write); the by-members form still copies.
// Split all_reduce: an all_reduce by partials of at least kSplitFrom bytes over K tasks is done as
// Open MPI's large all-reduces are, a reduce-scatter and an all-gather: the row is cut in K pieces
// (piece p: elements [p count / K, (p + 1) count / K)), task p receives every task's piece p and
// folds it (the same left fold in task order), then every task sends its folded piece to every
// other. Each tpu folds 1/K of the row instead of all of it; the bits are those of the whole fold.
// Where the link lets the board's output be written before the reply (write_results_in_place), the
// fold and the other tasks' pieces go straight into it; elsewhere into a buffer the reply copies
// from. The output is claimed only once every task's pieces arrived (so never while a late board is
// waited for) and for at most kClaimHold: the all-gather then only waits for tpu processes that are
// in the same call, and one that takes longer fails the call, its receives cancelled before the
// output is handed back (a board that gives a call up takes its output back after
// kShmHostWritingTimeoutNs, 5 s). Every task splits the same calls (the decision is the
// request's), whatever its link.
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "host-tools/lib/functions/host_functions.hpp"
#include "row_exchange.hpp"
#include "runtime/collectives/cross_board.hpp"

namespace tpu {

struct PodRequest {
  std::string text;  // as the board sent it: every board of the group sends the same (the exchange's signature)
  std::string kind;  // all_reduce, all_gather, broadcast, barrier, reduce_scatter, all_to_all, collective_permute, rows
  std::string op;    // all_reduce: sum, max, min (by members also mean); reduce_scatter: the same four
  rt::DType type = rt::DType::kF32;
  size_t count = 0;                     // elements per member (by members: of each member's input)
  std::vector<unsigned> member_tasks;   // the task of every group position
  unsigned source = 0;                  // broadcast: the source's group position
  std::vector<size_t> sizes;            // rows: the bytes of every task's row (tasks 0, 1, ...)
  uint32_t sequence = 0;
  uint32_t first_member = 0;
  uint32_t logical_core = 0;            // lc=, the members' logical core (0 where the text has none)
  bool by_members = false;              // every member's own input and output (pod_members.hpp)
  rt::BlockGeometry blocks;             // all_to_all
  std::vector<std::pair<unsigned, unsigned>> pairs;  // collective_permute: (source, target) replicas
  std::string shape;                    // shape=, the operand's dimensions where the board knows them ("[2,2]")

  // The group's tasks in order of first appearance (the order of the rows and of the fold).
  std::vector<unsigned> tasks() const;
  // The bytes task `from` sends task `to` (by the board's part: the same row to every task; by
  // members: what `to` needs of `from`'s members, pod_members.hpp), and the bytes of the result (by
  // members: of each member's).
  size_t row_bytes(unsigned from, unsigned to) const;
  size_t result_bytes() const;
  // The group positions on task `task`, in group order.
  std::vector<unsigned> members_on(unsigned task) const;
};

// Parses the call's text ("all_reduce op=sum type=float32 count=4 members=0,0,1,1 source=0 seq=3
// first=0 lc=0 shape=[2,2]"); nullopt with `error` naming what is wrong.
std::optional<PodRequest> parse_pod_request(const std::string& text, std::string& error);

// What a board's call is, for a person: "all_reduce sum of 4 float32 shaped [2, 2]".
std::string describe_pod_request(const PodRequest& request);
// The error of a call whose group's boards disagree: task `task` sent `their_text` for it (a single
// board's words: "collective mismatch with task 1: all_reduce sum of 4 float32 shaped [2, 2] here,
// all_reduce sum of 4 float32 shaped [4] there"; the texts where the descriptions are alike).
std::string pod_mismatch(const PodRequest& mine, unsigned task, const std::string& their_text);

// The group's result from the rows (one per task, in tasks() order), written into `out`
// (result_bytes() long; it may be one of the rows, exactly, as cross_replica_sum's output is its input).
void combine_rows_into(const PodRequest& request, const std::vector<std::span<const uint8_t>>& rows, std::span<uint8_t> out);
std::vector<uint8_t> combine_rows(const PodRequest& request, const std::vector<std::vector<uint8_t>>& rows);

// The MPI tag of a request: equal on every board for one collective, different for concurrent groups
// and for the same group's calls from a replica's different logical cores.
int pod_tag(const PodRequest& request);

class PodCollectives {
 public:
  explicit PodCollectives(RowExchange& exchange) : exchange_(exchange) {}
  // The board's run is over: refused calls' exchanges still draining (a board that never sent its
  // part, say) are cancelled, so that MPI can end the pod normally with the calls' own errors.
  ~PodCollectives();
  PodCollectives(const PodCollectives&) = delete;
  PodCollectives& operator=(const PodCollectives&) = delete;
  // Registers ".pod" in `functions`.
  void serve(HostFunctions& functions);
  // How a call's result is claimed before the reply (BoardChannel::claim_result: its board memory, or
  // nullptr) and handed back, so that a split all_reduce is written in place; and the size from
  // which all_reduces are split (kSplitFrom; every board of a pod must use the same).
  using ClaimResult = std::function<uint8_t*(unsigned core, uint32_t id, size_t bytes)>;
  using ReleaseResult = std::function<void(unsigned core, uint32_t id)>;
  static constexpr size_t kSplitFrom = 256 * 1024;
  static constexpr std::chrono::milliseconds kClaimHold{2000};
  void write_results_in_place(ClaimResult claim, ReleaseResult release, size_t split_from = kSplitFrom,
                              std::chrono::milliseconds claim_hold = kClaimHold);
  bool busy() const { return !pending_.empty(); }
  // One line per call still open (the board ended, or was stopped, in it): which tasks' parts never
  // came, e.g. "tpu: the board ended in all_reduce #1 across boards; no part came from task 1
  // (all_reduce sum of 2 float32)": a board that skipped the collective is named where the waiting
  // board fails.
  void report_unfinished(std::ostream& out) const;
  // How long the run loop may wait for the board between pump() calls: not at all during a call's
  // first kSpinFor (the other boards' parts usually arrive within it: sub-millisecond collectives),
  // 1 ms after that (a slow board is not spun for, so the boards keep the CPUs).
  static constexpr std::chrono::milliseconds kSpinFor{5};
  std::chrono::milliseconds poll_interval() const;
  // Progresses the pending calls and answers the finished ones. A call not finished by its deadline is
  // answered DEADLINE_EXCEEDED naming the tasks of its group; its MPI requests can no longer be
  // finished cleanly, so its buffers are kept (abandoned_) for as long as this object lives.
  void pump();

 private:
  // Receive buffers, kept for the next calls once a call is answered (so their pages stay resident).
  class Buffers {
   public:
    std::span<uint8_t> take(size_t bytes);
    void give_back(std::span<uint8_t> buffer);

   private:
    struct Buffer {
      std::unique_ptr<uint8_t[]> bytes;
      size_t capacity = 0;
      bool in_use = false;
    };
    std::vector<Buffer> buffers_;
  };
  struct Pending {
    PodRequest request;
    std::vector<std::vector<uint8_t>> inputs_here;  // by members: this board's members' inputs
    std::vector<uint8_t> own_copy;                  // this board's row when it is not read in board memory
    std::vector<std::vector<uint8_t>> packed;       // by members: the row for each task (tasks() order)
    std::vector<std::span<const uint8_t>> rows;     // every task's row (tasks() order)
    std::vector<std::span<uint8_t>> received;       // the buffers the other rows arrive in
    HostFunctions::Reply reply;
    std::chrono::steady_clock::time_point deadline;
    std::chrono::steady_clock::time_point started;
    // A split all_reduce: where the result is made (the board's output, claimed, or a buffer of
    // ours), the calling core, and whether the pieces are being exchanged (the fold is done). Its
    // rows are every task's piece of this task's part.
    bool split = false;
    uint8_t* output = nullptr;
    bool output_claimed = false;
    std::chrono::steady_clock::time_point claimed_at;
    std::span<uint8_t> output_buffer;
    unsigned core = 0;
    uint32_t call_id = 0;
    bool pieces_folded = false;
  };
  void start(HostCallRequest call, HostFunctions::Reply reply);
  // Whether `request` is split (split all_reduce above): the same on every board.
  bool splits(const PodRequest& request) const;
  // Where a split call's result is made: the board's output if it can be claimed, else a buffer.
  void place_split_output(Pending& call);
  // Whether a call must give up now: its deadline passed, or it holds a claim too long.
  bool overdue(const Pending& call, std::chrono::steady_clock::time_point now) const;
  // A call that failed: its claimed output's receives cancelled (exchange `id`), the output handed back.
  void abandon(int id, Pending& call);
  // A call whose boards disagree (`differs`): answered INVALID_ARGUMENT at once. Its exchange, unless
  // `done`, is left to finish into buffers of ours (draining_): a row cancelled before it came would
  // stay in MPI under the call's tag, where a later call on that tag would take it for its own.
  void refuse_mismatched(int id, Pending call, const RowExchange::Disagreement& differs, bool done);
  // Ends the exchanges of refused calls that finished (or failed: the rest cancelled).
  void drain();
  // A split all_reduce: every task's piece of this task's part in, this task's pieces out.
  void start_piece_gather(Pending call, std::span<const uint8_t> mine);
  // This task's piece folded into the board's output, then sent to every task as theirs arrive.
  void exchange_folded_pieces(Pending call);
  // The claim on a split call's output, handed back (before its reply, or as it fails).
  void release_output(const Pending& call);
  // What is wrong with this board's part of `request` ("" if nothing).
  std::string check_part(const PodRequest& request, const HostCallRequest& call) const;
  void answer(Pending& call);
  // The buffers the other tasks' rows or pieces arrived in, given back (once folded in, or at the end).
  void give_back_received(Pending& call);
  // Every buffer of a call that ended given back: the received ones and a split's output buffer.
  void release(Pending& call);

  RowExchange& exchange_;
  ClaimResult claim_;
  ReleaseResult release_;
  size_t split_from_ = kSplitFrom;
  std::chrono::milliseconds claim_hold_ = kClaimHold;
  std::map<int, Pending> pending_;  // by exchange id
  std::vector<Pending> abandoned_;  // failed calls: MPI may still read their rows or write their buffers
  std::vector<int> draining_;       // the exchanges of refused calls, left to finish
  Buffers buffers_;
};

}  // namespace tpu
