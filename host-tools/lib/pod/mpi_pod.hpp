// The ranks of a pod talking through Open MPI: start, wait for each other, exchange their records,
// agree on the pod's exit status, end. The only user of <mpi.h> is mpi_pod.cpp, so nothing else
// compiles against MPI. Every wait is an MPI request polled with short sleeps (never a blocking call
// that spins a CPU the boards need), bounded by a timeout and by Ctrl-C or mpirun's SIGTERM; a rank
// that gives up calls abort(), and Open MPI's mpirun then ends every rank of the job.
#pragma once
#include <csignal>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pod_environment.hpp"
#include "pod_records.hpp"
#include "row_exchange.hpp"

namespace tpu {

// The exit status of a pod whose ranks could not reach each other (Open MPI failed, a rank stuck).
inline constexpr int kExitPodFailed = 7;

class MpiPod final : public RowExchange {
 public:
  // MPI_Init_thread (only this thread calls MPI), errors returned rather than fatal. nullptr with
  // `error` if Open MPI cannot start; a watchdog ends the process if MPI_Init is stuck past
  // `timeout_s` (a rank that never started).
  static std::unique_ptr<MpiPod> start(const PodRank& rank, double timeout_s, std::string& error);
  ~MpiPod() override;  // MPI_Finalize unless finished or aborted
  MpiPod(const MpiPod&) = delete;
  MpiPod& operator=(const MpiPod&) = delete;

  const PodRank& rank() const { return rank_; }
  // Waits end early (an error saying so) once *flag is set (Ctrl-C, mpirun's SIGTERM).
  void stop_waiting_when(const volatile std::sig_atomic_t* flag) { interrupted_ = flag; }

  // Every rank has arrived; false with `error` (naming `what`) after `timeout_s`.
  bool barrier(const std::string& what, double timeout_s, std::string& error);
  // Every rank's record, in rank order.
  std::optional<std::vector<PodRankRecord>> exchange(const PodRankRecord& mine, double timeout_s, std::string& error);
  // The largest of every rank's `status` (the pod's exit status).
  std::optional<int> worst_status(int status, double timeout_s, std::string& error);

  // RowExchange over MPI_COMM_WORLD: MPI_Isend of this rank's row for every other rank, MPI_Irecv of
  // theirs, tested without blocking.
  unsigned my_rank() const override { return rank_.rank; }
  // A signature is a message of its own (the text's bytes; received into kMaxSignature zeroed bytes),
  // sent and received before the row under the same tag: MPI keeps the order of two messages between
  // the same ranks under one tag, so each signature meets its signature's receive.
  int start_exchange(const std::vector<unsigned>& ranks, int tag, const std::string& signature,
                     std::vector<std::span<const uint8_t>> out, std::vector<std::span<uint8_t>> into) override;
  std::optional<bool> exchange_done(int id, std::string& error) override;
  std::optional<Disagreement> disagreement(int id) override;
  std::vector<unsigned> silent_ranks(int id) const override;
  void end_exchange(int id) override;
  void cancel_exchange(int id) override;

  // A rank whose board failed tells every other rank at once (on a communicator of its own, so it
  // never meets the collectives' messages); the others' run loops see it through failure_of_another()
  // and stop their boards instead of waiting out their timeouts for a board that is gone.
  void announce_failure(int status);
  // Which rank announced a failure, and its status; nothing while none did.
  std::optional<std::pair<unsigned, int>> failure_of_another();

  // MPI_Finalize (or, with exchanges still in flight, which MPI cannot end cleanly, MPI_Abort with
  // `status_if_stuck`); afterwards no call above may be made.
  void finish(int status_if_stuck = 7);
  // MPI_Abort of the whole job with `status` (mpirun ends the other ranks).
  [[noreturn]] void abort(int status);

 private:
  explicit MpiPod(PodRank rank);
  // Polls the pending request until done; false with `error` on timeout, interruption or MPI error.
  bool wait(void* request, const std::string& what, double timeout_s, std::string& error);

  struct Exchanges;  // the MPI requests of the exchanges in flight (mpi_pod.cpp)

  PodRank rank_;
  std::unique_ptr<Exchanges> exchanges_;
  struct Control;  // the failure announcements' communicator and pending receive (mpi_pod.cpp)
  std::unique_ptr<Control> control_;
  const volatile std::sig_atomic_t* interrupted_ = nullptr;
  std::optional<unsigned> failed_rank_;  // the rank whose failure was announced (failure_of_another)
  bool finished_ = false;
};

}  // namespace tpu
