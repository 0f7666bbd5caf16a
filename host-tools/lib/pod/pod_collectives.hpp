// The host's part of a pod's collectives across boards: the board's leader of a group calls the
// reserved host function ".pod" with its board's partial (runtime/tpu/replicate/uses_hal/
// pod_bridge.hpp); tpu exchanges the partial with the other boards of the group through a
// RowExchange (Open MPI), combines the rows in the group's task order and answers the call with the
// result. The combination is a left fold in that order, element by element, in the dtype itself
// (float32 sums round after every addition, as the board's own reduction does): for tasks 0, 1, 2
// out = (row0 + row1) + row2. Calls are deferred: several groups may be in flight at once (different
// boards may see them in different orders), and the run loop calls pump() to progress them.
#pragma once
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "host-tools/lib/functions/host_functions.hpp"
#include "row_exchange.hpp"

namespace tpu {

struct PodReduceRequest {
  std::string op;  // sum, max, min
  rt::DType type = rt::DType::kF32;
  size_t count = 0;
  std::vector<unsigned> tasks;  // in the group's order; this rank among them
  uint32_t sequence = 0;
  uint32_t first_member = 0;
};

// Parses the call's text ("all_reduce op=sum type=float32 count=4 tasks=0,1 seq=3 first=0");
// nullopt with `error` naming what is wrong.
std::optional<PodReduceRequest> parse_pod_request(const std::string& text, std::string& error);

// The rows (one per task, in order) folded left with the op; each row is count elements of type.
std::vector<uint8_t> combine_rows(const PodReduceRequest& request, const std::vector<std::vector<uint8_t>>& rows);

// The MPI tag of a request: equal on every board for one collective, different for concurrent groups.
int pod_tag(const PodReduceRequest& request);

class PodCollectives {
 public:
  explicit PodCollectives(RowExchange& exchange) : exchange_(exchange) {}
  // Registers ".pod" in `functions`.
  void serve(HostFunctions& functions);
  bool busy() const { return !pending_.empty(); }
  // Progresses the pending calls and answers the finished ones. A call not finished by its deadline is
  // answered DEADLINE_EXCEEDED naming the tasks it waited for (and broken() turns true: its MPI
  // requests can no longer be finished cleanly).
  void pump();
  bool broken() const { return broken_; }

 private:
  struct Pending {
    PodReduceRequest request;
    HostFunctions::Reply reply;
    std::chrono::steady_clock::time_point deadline;
  };
  void start(HostCallRequest call, HostFunctions::Reply reply);

  RowExchange& exchange_;
  std::map<int, Pending> pending_;  // by exchange id
  bool broken_ = false;
};

}  // namespace tpu
