// A launched board with its link on shared memory (shm_board_channel.hpp).
#include "shm_board_channel.hpp"

#include <string>

namespace tpu {

ShmBoardChannel::~ShmBoardChannel() { link_->close(); }

std::string ShmBoardChannel::transport_summary() const {
  return "shared memory: " + std::to_string(link_->frames_sent()) + " frames to the board, " +
         std::to_string(link_->frames_received()) + " from it, " + std::to_string(link_->bytes_placed()) +
         " bytes placed straight into board memory, " +
         std::to_string(link_->bytes_read_in_place()) + " read straight from it";
}

bool ShmBoardChannel::send_frame(const rt::link::FrameHeader& header, rt::Span<const uint8_t> payload) {
  link_->send(header, payload);  // a frame the link refuses ends it: link_failure() says why
  last_activity_ = std::chrono::steady_clock::now();  // the board may answer at once (its next host call)
  return true;
}

size_t ShmBoardChannel::exchange() {
  size_t moved = link_->flush();
  if (receiver_) moved += link_->receive(receiver_);
  return moved;
}

bool ShmBoardChannel::pump(std::chrono::milliseconds timeout, std::vector<uint8_t>& out) {
  using Clock = std::chrono::steady_clock;
  const auto give_up = Clock::now() + timeout;
  // See the header: who wakes tpu. A caller that looks again sooner than kLongestSleep waits for
  // something no ring announces (a pod's exchange over MPI): it polls from kFirstSleep as before.
  const bool rung = !spin_ && board_rings_tpu_ && timeout >= kLongestSleep;
  auto sleep = rung ? kLongestSleep : kFirstSleep;
  for (;;) {
    const uint32_t rings = link_->board_rings();  // before looking: a ring after it ends the sleep below
    const size_t moved = exchange();
    const size_t console_before = out.size();
    const bool open = process_->pump(std::chrono::milliseconds(0), out);
    const auto now = Clock::now();
    if (!open) {
      exchange();  // the board's last frames
      return false;
    }
    if (moved != 0 || out.size() != console_before) last_activity_ = now;
    if (moved != 0 || out.size() != console_before || link_->failure() || now >= give_up) return true;
    if (spin_ && now - last_activity_ < kSpinFor) continue;
    link_->sleep_until_board_rings(rings, std::min<Clock::duration>(sleep, give_up - now));
    sleep = std::min(sleep * 2, kLongestSleep);
  }
}

std::optional<int> ShmBoardChannel::wait_for_exit(std::chrono::milliseconds timeout) {
  link_->close();
  return process_->wait_for_exit(timeout);
}

void ShmBoardChannel::kill() {
  link_->close();
  process_->kill();
}

}  // namespace tpu
