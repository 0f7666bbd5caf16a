// Open MPI under a pod's ranks (mpi_pod.hpp): the only file that includes <mpi.h>.
#define OMPI_SKIP_MPICXX 1
#include "mpi_pod.hpp"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "host-tools/lib/text/numbered_list.hpp"

namespace tpu {
namespace {

constexpr auto kPollSleep = std::chrono::milliseconds(2);

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<size_t>(length));
}

// Ends the process if `phase` has not finished within `timeout_s`: a blocking MPI call that never
// returns (MPI_Init while another rank never started) cannot be given up any other way.
class Watchdog {
 public:
  Watchdog(std::string phase, double timeout_s) : thread_([this, phase = std::move(phase), timeout_s] {
      std::unique_lock<std::mutex> lock(mutex_);
      if (done_changed_.wait_for(lock, std::chrono::duration<double>(timeout_s), [this] { return done_; })) return;
      std::fprintf(stderr, "tpu: stuck for %.0f s in %s; ending this rank (mpirun then ends the pod)\n", timeout_s,
                   phase.c_str());
      std::fflush(stderr);
      _exit(kExitPodFailed);
    }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    done_changed_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_changed_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace

struct MpiPod::Exchanges {
  struct Exchange {
    // The rows' receives (`receives`), the signatures' receives (one per entry of receive_ranks, when
    // signed), then every send. MPI_Testsome over all the receives sets each that arrived to
    // MPI_REQUEST_NULL, so arrivals are known without another MPI call.
    std::vector<MPI_Request> requests;
    size_t receives = 0;
    std::vector<unsigned> receive_ranks;  // whose part each receive is
    std::vector<int> arrived;             // MPI_Testsome's output, sized once (exchange_done is polled)
    std::vector<char> signature;          // this rank's, padded to kMaxSignature (empty: none)
    std::vector<std::vector<char>> signatures;  // the other ranks' (receive_ranks order)
    std::vector<bool> agreed;                   // which of them arrived and were found equal to this one's
    size_t all_receives() const { return receives + signatures.size(); }
    // The ranks whose rows have not arrived, from what exchange_done last saw (no MPI call).
    void add_silent_ranks(std::set<unsigned>& silent) const {
      for (size_t i = 0; i < receives; ++i)
        if (requests[i] != MPI_REQUEST_NULL) silent.insert(receive_ranks[i]);
    }
    // A signature's receive from `rank` (into a zeroed buffer of its own) and this rank's to `rank`.
    MPI_Request receive_signature(unsigned rank, int tag) {
      signatures.emplace_back(kMaxSignature, '\0');
      MPI_Request receive = MPI_REQUEST_NULL;
      MPI_Irecv(signatures.back().data(), static_cast<int>(kMaxSignature), MPI_CHAR, static_cast<int>(rank), tag,
                MPI_COMM_WORLD, &receive);
      return receive;
    }
    MPI_Request send_signature(unsigned rank, int tag, size_t bytes) {
      MPI_Request send = MPI_REQUEST_NULL;
      MPI_Isend(signature.data(), static_cast<int>(bytes), MPI_CHAR, static_cast<int>(rank), tag, MPI_COMM_WORLD, &send);
      return send;
    }
  };
  // The ranks whose parts have not arrived yet, over every exchange in flight (ascending, once each).
  std::set<unsigned> ranks_not_heard_from();
  std::map<int, Exchange> in_flight;
  // The signatures of exchanges given up: a send let go may still be read by MPI.
  std::vector<std::vector<char>> signatures_let_go;
  int next_id = 0;
};

struct MpiPod::Control {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Request incoming = MPI_REQUEST_NULL;
  int announced[2] = {0, 0};  // rank, status
  std::vector<MPI_Request> outgoing;
  std::vector<int> sent;
};

// From what exchange_done last saw (no MPI call: when the pod ends, the buffers of abandoned receives
// may be gone, and MPI must not complete a receive into them now).
std::set<unsigned> MpiPod::Exchanges::ranks_not_heard_from() {
  std::set<unsigned> silent;
  for (const auto& [id, exchange] : in_flight) exchange.add_silent_ranks(silent);
  return silent;
}

MpiPod::MpiPod(PodRank rank)
    : rank_(std::move(rank)), exchanges_(std::make_unique<Exchanges>()), control_(std::make_unique<Control>()) {}

void MpiPod::announce_failure(int status) {
  if (control_->comm == MPI_COMM_NULL) return;
  control_->sent = {static_cast<int>(rank_.rank), status};
  for (unsigned other = 0; other < rank_.size; ++other) {
    if (other == rank_.rank) continue;
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Isend(control_->sent.data(), 2, MPI_INT, static_cast<int>(other), 0, control_->comm, &request);
    control_->outgoing.push_back(request);
  }
}

std::optional<std::pair<unsigned, int>> MpiPod::failure_of_another() {
  if (control_->incoming == MPI_REQUEST_NULL) return std::nullopt;
  int done = 0;
  if (MPI_Test(&control_->incoming, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || !done) return std::nullopt;
  control_->incoming = MPI_REQUEST_NULL;  // one announcement is enough
  failed_rank_ = static_cast<unsigned>(control_->announced[0]);
  return std::make_pair(*failed_rank_, control_->announced[1]);
}

int MpiPod::start_exchange(const std::vector<unsigned>& ranks, int tag, const std::string& signature,
                           std::vector<std::span<const uint8_t>> out, std::vector<std::span<uint8_t>> into) {
  const int id = exchanges_->next_id++;
  Exchanges::Exchange& exchange = exchanges_->in_flight[id];
  const bool signed_rows = !signature.empty();
  const size_t signature_bytes = std::min(signature.size(), kMaxSignature);  // what is sent: the text alone
  if (signed_rows) {
    exchange.signature.assign(kMaxSignature, '\0');  // compared with what arrived in zeroed buffers
    std::copy_n(signature.begin(), signature_bytes, exchange.signature.begin());
  }
  // Each rank's signature receive is posted before its row's: MPI matches them in order.
  std::vector<MPI_Request> signature_receives;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] == rank_.rank) continue;
    if (signed_rows) signature_receives.push_back(exchange.receive_signature(ranks[i], tag));
    MPI_Request receive = MPI_REQUEST_NULL;
    MPI_Irecv(into[i].data(), static_cast<int>(into[i].size()), MPI_BYTE, static_cast<int>(ranks[i]), tag,
              MPI_COMM_WORLD, &receive);
    exchange.requests.push_back(receive);
    exchange.receive_ranks.push_back(ranks[i]);
  }
  exchange.receives = exchange.requests.size();
  exchange.requests.insert(exchange.requests.end(), signature_receives.begin(), signature_receives.end());
  exchange.agreed.assign(exchange.signatures.size(), false);
  exchange.arrived.resize(exchange.all_receives());
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] == rank_.rank) continue;
    if (signed_rows) exchange.requests.push_back(exchange.send_signature(ranks[i], tag, signature_bytes));
    MPI_Request send = MPI_REQUEST_NULL;
    MPI_Isend(out[i].data(), static_cast<int>(out[i].size()), MPI_BYTE, static_cast<int>(ranks[i]), tag, MPI_COMM_WORLD,
              &send);
    exchange.requests.push_back(send);
  }
  return id;
}

std::optional<bool> MpiPod::exchange_done(int id, std::string& error) {
  const auto found = exchanges_->in_flight.find(id);
  if (found == exchanges_->in_flight.end()) {
    error = "no exchange " + std::to_string(id);
    return std::nullopt;
  }
  Exchanges::Exchange& exchange = found->second;
  std::vector<MPI_Request>& requests = exchange.requests;
  // The receives that arrived first (MPI_Testsome sets them to MPI_REQUEST_NULL): what
  // ranks_not_heard_from reads if the exchange never finishes. Then the whole exchange.
  int arrived = 0;
  int code = exchange.all_receives() == 0 ? MPI_SUCCESS
                                          : MPI_Testsome(static_cast<int>(exchange.all_receives()), requests.data(),
                                                         &arrived, exchange.arrived.data(), MPI_STATUSES_IGNORE);
  int done = 0;
  if (code == MPI_SUCCESS)
    code = MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
  if (code != MPI_SUCCESS) {
    error = mpi_error_text(code);
    return std::nullopt;
  }
  return done != 0;
}

// From what exchange_done last saw: an arrived signature's receive is MPI_REQUEST_NULL.
std::optional<RowExchange::Disagreement> MpiPod::disagreement(int id) {
  const auto found = exchanges_->in_flight.find(id);
  if (found == exchanges_->in_flight.end()) return std::nullopt;
  Exchanges::Exchange& exchange = found->second;
  for (size_t i = 0; i < exchange.signatures.size(); ++i) {
    if (exchange.agreed[i] || exchange.requests[exchange.receives + i] != MPI_REQUEST_NULL) continue;
    const std::vector<char>& theirs = exchange.signatures[i];
    exchange.agreed[i] = theirs == exchange.signature;
    if (!exchange.agreed[i])
      return Disagreement{exchange.receive_ranks[i], std::string(theirs.data(), strnlen(theirs.data(), theirs.size()))};
  }
  return std::nullopt;
}

std::vector<unsigned> MpiPod::silent_ranks(int id) const {
  const auto found = exchanges_->in_flight.find(id);
  if (found == exchanges_->in_flight.end()) return {};
  std::set<unsigned> silent;
  found->second.add_silent_ranks(silent);
  return std::vector<unsigned>(silent.begin(), silent.end());
}

void MpiPod::end_exchange(int id) { exchanges_->in_flight.erase(id); }

void MpiPod::cancel_exchange(int id) {
  const auto found = exchanges_->in_flight.find(id);
  if (found == exchanges_->in_flight.end()) return;
  Exchanges::Exchange& exchange = found->second;
  for (size_t i = 0; i < exchange.requests.size(); ++i) {
    MPI_Request& request = exchange.requests[i];
    if (request == MPI_REQUEST_NULL) continue;
    if (i < exchange.all_receives()) {  // a cancelled receive completes at once, having written nothing
      MPI_Cancel(&request);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
    } else {
      MPI_Request_free(&request);  // a send may wait for a receiver that never comes: let it go
    }
  }
  if (!exchange.signature.empty()) exchanges_->signatures_let_go.push_back(std::move(exchange.signature));
  exchanges_->in_flight.erase(found);
}

std::unique_ptr<MpiPod> MpiPod::start(const PodRank& rank, double timeout_s, std::string& error) {
  int provided = 0;
  int code = MPI_SUCCESS;
  {
    Watchdog watchdog("MPI_Init (waiting for every rank of the pod to start)", timeout_s);
    code = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  }
  if (code != MPI_SUCCESS) {
    error = "Open MPI could not start (MPI_Init_thread): " + mpi_error_text(code);
    return nullptr;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int size = 0, world_rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  std::unique_ptr<MpiPod> pod(new MpiPod(rank));
  if (MPI_Comm_dup(MPI_COMM_WORLD, &pod->control_->comm) == MPI_SUCCESS)
    MPI_Irecv(pod->control_->announced, 2, MPI_INT, MPI_ANY_SOURCE, 0, pod->control_->comm, &pod->control_->incoming);
  if (static_cast<unsigned>(size) != rank.size || static_cast<unsigned>(world_rank) != rank.rank) {
    error = "MPI's world (rank " + std::to_string(world_rank) + " of " + std::to_string(size) +
            ") is not what mpirun's variables said (rank " + std::to_string(rank.rank) + " of " +
            std::to_string(rank.size) + ")";
    return nullptr;
  }
  return pod;
}

MpiPod::~MpiPod() { finish(); }

void MpiPod::finish(int status_if_stuck) {
  if (finished_) return;
  finished_ = true;
  if (!exchanges_->in_flight.empty()) {  // MPI cannot end requests that will never complete
    // Open MPI's banner then names this rank as the one that called MPI_Abort: say why first.
    const std::set<unsigned> silent = exchanges_->ranks_not_heard_from();
    const size_t stuck = exchanges_->in_flight.size();
    std::cerr << "tpu: " << stuck << (stuck == 1 ? " exchange" : " exchanges") << " with other boards can never finish"
              << (failed_rank_ ? " (task " + std::to_string(*failed_rank_) + " failed)" : std::string())
              << (silent.empty() ? "" : "; no part came from " + numbered_list("task", silent))
              << "; task " << rank_.rank << " ends the pod with MPI_Abort, which Open MPI reports as rank "
              << rank_.rank << "'s: the failure is the one above" << std::endl;
    abort(status_if_stuck);
  }
  if (control_->incoming != MPI_REQUEST_NULL) {  // no announcement came: withdraw the receive
    MPI_Cancel(&control_->incoming);
    MPI_Wait(&control_->incoming, MPI_STATUS_IGNORE);
  }
  for (MPI_Request& request : control_->outgoing)  // 8 bytes go out eagerly; a rank that already heard of
    MPI_Request_free(&request);                     // another failure never receives them, so never wait
  if (control_->comm != MPI_COMM_NULL) MPI_Comm_free(&control_->comm);
  MPI_Finalize();
}

void MpiPod::abort(int status) {
  std::fflush(stdout);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, status);
  _exit(status);  // MPI_Abort does not return; if it did, the rank still ends
}

bool MpiPod::wait(void* pending, const std::string& what, double timeout_s, std::string& error) {
  MPI_Request& request = *static_cast<MPI_Request*>(pending);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    int done = 0;
    const int code = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (code != MPI_SUCCESS) {
      error = "MPI failed in " + what + ": " + mpi_error_text(code);
      return false;
    }
    if (done) return true;
    if (interrupted_ != nullptr && *interrupted_) {
      error = "interrupted while waiting in " + what;
      return false;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      error = "timed out after " + std::to_string(static_cast<long>(timeout_s)) + " s waiting for the other ranks in " +
              what;
      return false;
    }
    std::this_thread::sleep_for(kPollSleep);
  }
}

bool MpiPod::barrier(const std::string& what, double timeout_s, std::string& error) {
  MPI_Request request = MPI_REQUEST_NULL;
  if (const int code = MPI_Ibarrier(MPI_COMM_WORLD, &request); code != MPI_SUCCESS) {
    error = "MPI_Ibarrier failed (" + what + "): " + mpi_error_text(code);
    return false;
  }
  return wait(&request, what, timeout_s, error);
}

std::optional<std::vector<PodRankRecord>> MpiPod::exchange(const PodRankRecord& mine, double timeout_s,
                                                           std::string& error) {
  std::vector<PodRankRecord> records(rank_.size);
  MPI_Request request = MPI_REQUEST_NULL;
  const int code = MPI_Iallgather(&mine, sizeof mine, MPI_BYTE, records.data(), sizeof mine, MPI_BYTE, MPI_COMM_WORLD,
                                  &request);
  if (code != MPI_SUCCESS) {
    error = "MPI_Iallgather of the ranks' records failed: " + mpi_error_text(code);
    return std::nullopt;
  }
  if (!wait(&request, "the exchange of the ranks' records", timeout_s, error)) return std::nullopt;
  return records;
}

std::optional<int> MpiPod::worst_status(int status, double timeout_s, std::string& error) {
  int worst = 0;
  MPI_Request request = MPI_REQUEST_NULL;
  if (const int code = MPI_Iallreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &request);
      code != MPI_SUCCESS) {
    error = "MPI_Iallreduce of the exit statuses failed: " + mpi_error_text(code);
    return std::nullopt;
  }
  if (!wait(&request, "the agreement on the pod's exit status (every rank's run must end)", timeout_s, error))
    return std::nullopt;
  return worst;
}

}  // namespace tpu
