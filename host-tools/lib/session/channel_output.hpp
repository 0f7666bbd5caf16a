// A link session's output onto a board channel: console text to a callback (printed by `tpu run`,
// kept quiet by `tpu exec`), frames to the board through the channel's frame transport (shared
// memory) when it has one, else COBS-encoded on its byte stream.
#pragma once
#include <functional>
#include <string_view>

#include "host-tools/lib/board/board_channel.hpp"
#include "link_session.hpp"

namespace tpu {

class ChannelOutput final : public SessionOutput {
 public:
  using Console = std::function<void(std::string_view text)>;
  ChannelOutput(BoardChannel& channel, Console console) : channel_(channel), console_(std::move(console)) {}

  void console(std::string_view text) override {
    if (console_) console_(text);
  }
  void send_to_board(std::span<const uint8_t> bytes) override { channel_.send(bytes); }
  bool send_frame(const rt::link::FrameHeader& header, rt::Span<const uint8_t> payload) override {
    return channel_.send_frame(header, payload);
  }
  size_t max_frame_payload() const override { return channel_.max_frame_payload(); }
  std::optional<std::vector<uint8_t>> read_board_memory(uint64_t address, uint64_t bytes) override {
    return channel_.read_board_memory(address, bytes);
  }
  std::optional<std::span<const uint8_t>> view_board_memory(uint64_t address, uint64_t bytes) override {
    return channel_.view_board_memory(address, bytes);
  }
  std::vector<bool> place_results(unsigned core, uint32_t id, const std::vector<size_t>& sizes,
                                  const ResultWriter& write) override {
    return channel_.place_results(core, id, sizes, write);
  }

 private:
  BoardChannel& channel_;
  Console console_;
};

}  // namespace tpu
