// Fuzz target: the host's end of a link session (host-tools/lib/session/link_session.hpp), fed frames that
// pass every transport check (right COBS, right CRC-32, known kind) but carry fuzzed payloads, the
// way a buggy or hostile board would send them. The decoder and CRC are fuzzed on their own
// (frame_decoder.cpp); here the bytes must get past them to reach the message parsers, the host-call
// and outfeed reassembly, the built-in host functions and the error replies.
//
// Input: a series of records
//   u8 route | u8 kind | u16 channel | u16 length | length payload bytes
// route bit 0: through the byte stream (COBS, chunked by route bits 4-7) or as a frame body (the
//   shared-memory path, LinkSession::feed_frame_body);
// route bit 1: a sequence number out of order (the session must count it, not trust it);
// route bit 2: console text ("tpu-pod$ ") before the frame.
// Checked: feed never throws; everything the session sends back decodes as good frames and never
// as text; a recorded core result has a valid status code.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <sstream>
#include <vector>

#include "host-tools/lib/functions/host_functions.hpp"
#include "host-tools/lib/session/link_session.hpp"
#include "runtime/link/transport/decoder.hpp"

namespace {

[[noreturn]] void broken(const char* promise) {
  std::fprintf(stderr, "link_session: broken promise: %s\n", promise);
  std::abort();
}

// Checks every byte the session sends to the board.
class ReplyChecker final : public rt::link::FrameSink {
 public:
  void on_text(rt::Span<const uint8_t>) override { broken("the host sends frames only, never text"); }
  void on_frame(const rt::link::FrameView&) override {}
  void on_bad_frame(rt::link::FrameError) override { broken("every frame the host sends is good"); }
};

// Board memory for in-place arguments: 64 KiB at 0x40000000 with a fixed pattern.
constexpr uint64_t kMemoryBase = 0x40000000;
constexpr uint64_t kMemoryBytes = 65536;

class Output final : public tpu::SessionOutput {
 public:
  Output() : decoder_(checker_, rt::link::kMessageKinds) {}
  void console(std::string_view) override {}
  void send_to_board(std::span<const uint8_t> bytes) override { decoder_.feed(rt::Span<const uint8_t>(bytes.data(), bytes.size())); }
  std::optional<std::vector<uint8_t>> read_board_memory(uint64_t address, uint64_t bytes) override {
    if (address < kMemoryBase || bytes > kMemoryBytes || address - kMemoryBase > kMemoryBytes - bytes) return std::nullopt;
    std::vector<uint8_t> copy(bytes);
    for (uint64_t i = 0; i < bytes; ++i) copy[i] = static_cast<uint8_t>((address + i) * 131);
    return copy;
  }
  void finish() { decoder_.end_of_stream(); }

 private:
  ReplyChecker checker_;
  rt::link::Decoder decoder_;
};

struct Record {
  uint8_t route = 0;
  rt::link::FrameHeader header;
  rt::Span<const uint8_t> payload;
};

// The next record, or false at the end of the input.
bool next_record(const uint8_t*& data, size_t& size, Record& record) {
  if (size < 6) return false;
  uint16_t length;
  std::memcpy(&length, data + 4, 2);
  record.route = data[0];
  record.header.kind = static_cast<uint8_t>(1 + data[1] % rt::link::kLastMessageKind);
  std::memcpy(&record.header.channel, data + 2, 2);
  data += 6, size -= 6;
  const size_t take = length < size ? length : size;
  record.payload = rt::Span<const uint8_t>(data, take < rt::link::kMaxRecordPayload ? take : rt::link::kMaxRecordPayload);
  data += take, size -= take;
  return true;
}

void feed_stream(tpu::LinkSession& session, const Record& record) {
  std::vector<uint8_t> wire(rt::link::max_wire_frame_size(record.payload.size()));
  const rt::Result<size_t> written = rt::link::encode_frame(record.header, record.payload, rt::Span<uint8_t>(wire.data(), wire.size()));
  if (!written.is_ok()) return;  // a payload over the UART's 4 KiB: no board can send it that way
  const size_t chunk = 1 + (record.route >> 4) * 37;
  for (size_t at = 0; at < written.value(); at += chunk)
    session.feed(std::span<const uint8_t>(wire.data() + at, std::min(chunk, written.value() - at)));
}

void feed_body(tpu::LinkSession& session, const Record& record) {
  std::vector<uint8_t> body(rt::link::kFrameHeaderBytes + record.payload.size() + rt::link::kFrameCrcBytes);
  const rt::Status made = rt::link::frame_body_parts(
      record.header, record.payload, rt::Span<uint8_t>(body.data(), rt::link::kFrameHeaderBytes),
      rt::Span<uint8_t>(body.data() + body.size() - rt::link::kFrameCrcBytes, rt::link::kFrameCrcBytes), rt::link::kMaxRecordPayload);
  if (!made.is_ok()) return;
  std::memcpy(body.data() + rt::link::kFrameHeaderBytes, record.payload.data(), record.payload.size());
  session.feed_frame_body(body);
}

void serve(const uint8_t* data, size_t size) {
  std::ostringstream printed, notes;
  tpu::HostFunctions functions(tpu::HostEnvironment{std::nullopt, &printed});
  functions.add("echo", [](const tpu::HostCallRequest& request, const tpu::HostEnvironment&) {
    return tpu::HostCallOutcome::ok(request.tensors);
  });
  tpu::OutfeedSink outfeed(std::nullopt, notes);
  Output output;
  tpu::LinkSession session(output, functions, outfeed, notes);
  session.send_hello();
  uint32_t sequence = 0;
  Record record;
  while (next_record(data, size, record)) {
    record.header.sequence = (record.route & 2) ? sequence + 7 : sequence;
    sequence = record.header.sequence + 1;
    if (record.route & 4) {
      static const uint8_t kPrompt[] = "tpu-pod$ ";
      session.feed(std::span<const uint8_t>(kPrompt, sizeof kPrompt - 1));
    }
    if (record.route & 1) feed_body(session, record);
    else feed_stream(session, record);
  }
  session.end_of_stream();
  output.finish();
  for (const auto& entry : session.results()) {
    const rt::Result<rt::StatusCode> code = rt::link::status_from_wire_code(rt::link::status_wire_code(entry.second.code));
    if (!code.is_ok() || code.value() != entry.second.code) broken("core results carry status codes the link knows");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    serve(data, size);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "link_session: an exception escaped the session: %s\n", error.what());
    std::abort();
  }
  return 0;
}
