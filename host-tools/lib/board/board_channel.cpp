// A launched board process as a BoardChannel (board_channel.hpp).
#include "board_channel.hpp"

#include <algorithm>

#include "host_core_pcs.hpp"

namespace tpu {
namespace {

class LaunchedBoard final : public BoardChannel {
 public:
  LaunchedBoard(BoardProcess process, std::string program, std::optional<QemuMonitor> monitor)
      : process_(std::move(process)), program_(std::move(program)), monitor_(std::move(monitor)) {}
  void send(std::span<const uint8_t> bytes) override { process_.send(bytes); }
  bool pump(std::chrono::milliseconds timeout, std::vector<uint8_t>& out) override { return process_.pump(timeout, out); }
  std::optional<int> wait_for_exit(std::chrono::milliseconds timeout) override { return process_.wait_for_exit(timeout); }
  void kill() override { process_.kill(); }
  bool launched() const override { return true; }
  std::string name() const override { return program_; }
  std::optional<std::vector<uint8_t>> read_process_memory(uint64_t address, uint64_t bytes) const override {
    return process_.read_memory(address, bytes);
  }
  std::map<unsigned, uint64_t> core_program_counters(const std::vector<unsigned>& cores) override {
    if (!monitor_) return host_core_pcs(process_.pid(), cores);
    std::map<unsigned, uint64_t> pcs = monitor_->vcpu_pcs();
    std::erase_if(pcs, [&cores](const auto& entry) { return std::find(cores.begin(), cores.end(), entry.first) == cores.end(); });
    return pcs;
  }

 private:
  BoardProcess process_;
  std::string program_;
  std::optional<QemuMonitor> monitor_;
};

}  // namespace

std::unique_ptr<BoardChannel> launched_board(BoardProcess process, std::string program,
                                             std::optional<QemuMonitor> monitor) {
  return std::make_unique<LaunchedBoard>(std::move(process), std::move(program), std::move(monitor));
}

}  // namespace tpu
