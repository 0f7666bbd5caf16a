// Tests of the host side of the link (host-tools/lib) and of the board endpoint talking to it:
//   - the built-in host functions (format, to_number, summary rows);
//   - a board Endpoint (runtime/link/protocol/endpoint.hpp) wired to a LinkSession in memory, single
//     threaded: the fake port's idle() carries bytes both ways and advances a fake clock, so host
//     calls, errors, outfeed (.npy read back), results and the timeouts are exact and fast;
//   - robustness: random byte streams, frames with valid CRCs and random payloads of every kind,
//     and corrupted transcripts of a real session are fed to a LinkSession in random chunks. It
//     must never crash or throw, and every byte it sends back must decode as a good frame.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <sstream>

#include "host-tools/lib/functions/host_functions.hpp"
#include "host-tools/lib/session/link_session.hpp"
#include "runtime/link/protocol/endpoint.hpp"
#include "runtime/tensor/npy.hpp"
#include "scratch_directory.hpp"

namespace {

using Bytes = std::vector<uint8_t>;
using rt::link::HostResult;

constexpr uint64_t kMilli = 1000000;

std::string str(rt::StringView text) { return std::string(text.data(), text.size()); }

tpu::HostCallRequest request(std::string function, std::string text, std::vector<tpu::HostTensor> tensors = {}) {
  return tpu::HostCallRequest{0, 1, std::move(function), std::move(text), std::move(tensors)};
}

tpu::HostTensor int32_scalar(int32_t value) {
  tpu::HostTensor tensor;
  tensor.dtype = rt::DType::kI32;
  tensor.bytes.resize(4);
  std::memcpy(tensor.bytes.data(), &value, 4);
  return tensor;
}

// The host half plus a board Endpoint, connected in memory (see the file comment).
class Loopback final : public tpu::SessionOutput, public rt::link::LinkPort {
 public:
  explicit Loopback(std::optional<std::filesystem::path> directory = std::nullopt)
      : functions_(tpu::HostEnvironment{directory, &printed}),
        outfeed_(directory, notes),
        session(*this, functions_, outfeed_, notes) {
    rt::link::BoardIdentity identity;
    identity.board = "loopback";
    identity.app = "test";
    identity.cores = 4;
    identity.mesh_shape[3] = 4;
    endpoint = std::make_unique<rt::link::Endpoint>(*this, identity);
    session.send_hello();
  }

  // SessionOutput
  void console(std::string_view text) override { console_text += text; }
  void send_to_board(std::span<const uint8_t> bytes) override { to_board.insert(to_board.end(), bytes.begin(), bytes.end()); }

  // LinkPort
  void lock_output() override {}
  void unlock_output() override {}
  void write(rt::Span<const uint8_t> bytes) override {
    from_board.insert(from_board.end(), bytes.begin(), bytes.end());
    transcript.insert(transcript.end(), bytes.begin(), bytes.end());
  }
  int read_byte() override { return read_at < to_board.size() ? to_board[read_at++] : -1; }
  unsigned core() override { return calling_core; }
  uint64_t now_ns() override { return clock; }
  void idle() override {
    clock += kMilli;
    if (host_alive) deliver();
  }
  void wake_all() override {}

  void deliver() {
    session.feed(from_board);
    from_board.clear();
  }

  std::ostringstream notes, printed;
  std::string console_text;
  Bytes to_board, from_board, transcript;
  size_t read_at = 0;
  bool host_alive = true;
  uint64_t clock = 0;
  unsigned calling_core = 0;

 private:
  tpu::HostFunctions functions_;
  tpu::OutfeedSink outfeed_;

 public:
  tpu::LinkSession session;
  std::unique_ptr<rt::link::Endpoint> endpoint;
  tpu::HostFunctions& functions() { return functions_; }
};

rt::Tensor scalar_tensor(float& value) { return rt::Tensor::contiguous(rt::DType::kF32, rt::Shape(), &value); }

// Decodes what the host sent; the host must only ever send good frames.
class FrameCounter : public rt::link::FrameSink {
 public:
  void on_text(rt::Span<const uint8_t> text) override { text_bytes += text.size(); }
  void on_frame(const rt::link::FrameView&) override { ++frames; }
  void on_bad_frame(rt::link::FrameError) override { ++bad; }
  size_t text_bytes = 0, frames = 0, bad = 0;
};

void require_well_formed(const Bytes& host_output) {
  FrameCounter counter;
  rt::link::Decoder decoder(counter, rt::link::kMessageKinds);
  decoder.feed(rt::Span<const uint8_t>(host_output.data(), host_output.size()));
  decoder.end_of_stream();
  REQUIRE(counter.bad == 0);
  REQUIRE(counter.text_bytes == 0);
}

// A LinkSession on its own, recording what it sends.
struct HostOnly final : tpu::SessionOutput {
  void console(std::string_view text) override { console_bytes += text.size(); }
  void send_to_board(std::span<const uint8_t> bytes) override { sent.insert(sent.end(), bytes.begin(), bytes.end()); }
  std::ostringstream notes, printed;
  tpu::HostFunctions functions{tpu::HostEnvironment{std::nullopt, &printed}};
  tpu::OutfeedSink outfeed{std::nullopt, notes};
  tpu::LinkSession session{*this, functions, outfeed, notes};
  Bytes sent;
  size_t console_bytes = 0;
};

void feed_in_random_chunks(tpu::LinkSession& session, const Bytes& stream, std::mt19937& random) {
  size_t at = 0;
  while (at < stream.size()) {
    const size_t size = std::min<size_t>(stream.size() - at, 1 + random() % 300);
    session.feed(std::span<const uint8_t>(stream.data() + at, size));
    at += size;
  }
  session.end_of_stream();
}

Bytes frame_bytes(rt::link::MessageKind kind, uint16_t channel, uint32_t sequence, const Bytes& payload) {
  Bytes wire(rt::link::max_wire_frame_size(payload.size()));
  auto size = rt::link::encode_frame(rt::link::message_header(kind, channel, sequence), rt::Span<const uint8_t>(payload.data(), payload.size()),
                                     rt::Span<uint8_t>(wire.data(), wire.size()));
  REQUIRE(size.is_ok());
  wire.resize(*size);
  return wire;
}

}  // namespace

// ---------------------------------------------------------------- host functions

TEST_CASE("format substitutes tensor values Python-style", "[host-functions]") {
  const tpu::HostEnvironment environment;
  auto formatted = tpu::host_format(request("format", "1{}", {int32_scalar(1)}), environment);
  REQUIRE(formatted.code == rt::StatusCode::kOk);
  CHECK(formatted.results.at(0).as_text() == "11");
  CHECK(formatted.results.at(0).is_text());
  CHECK(tpu::host_format(request("format", "1{}", {tpu::HostTensor::scalar_f32(1.0f)}), environment).results.at(0).as_text() == "11");
  CHECK(tpu::host_format(request("format", "{} {{}}", {tpu::HostTensor::scalar_f32(0.5f)}), environment).results.at(0).as_text() == "0.5 {}");
  tpu::HostTensor matrix;
  matrix.dtype = rt::DType::kI32;
  matrix.dims = {2, 2};
  for (int32_t v : {1, 2, 3, 4}) matrix.bytes.insert(matrix.bytes.end(), reinterpret_cast<uint8_t*>(&v), reinterpret_cast<uint8_t*>(&v) + 4);
  CHECK(tpu::host_format(request("format", "m={}", {matrix}), environment).results.at(0).as_text() == "m=[[1 2] [3 4]]");
  auto mismatch = tpu::host_format(request("format", "{} {}", {int32_scalar(1)}), environment);
  CHECK(mismatch.code == rt::StatusCode::kInvalidArgument);
  CHECK(mismatch.message == "num placeholders in template and length of inputs must match: 2 vs. 1");
}

TEST_CASE("to_number parses like tf.strings.to_number", "[host-functions]") {
  const tpu::HostEnvironment environment;
  auto number = tpu::host_to_number(request("to_number", " 12.5 "), environment);
  REQUIRE(number.code == rt::StatusCode::kOk);
  CHECK(number.results.at(0).element(0) == 12.5);
  CHECK(number.results.at(0).dtype == rt::DType::kF32);
  CHECK(number.results.at(0).dims.empty());
  auto bad = tpu::host_to_number(request("to_number", "12abc"), environment);
  CHECK(bad.code == rt::StatusCode::kInvalidArgument);
  CHECK(bad.message == "StringToNumberOp could not correctly convert string: 12abc");
  CHECK(tpu::host_to_number(request("to_number", ""), environment).code == rt::StatusCode::kInvalidArgument);
}

TEST_CASE("unknown host functions are NOT_FOUND naming them", "[host-functions]") {
  tpu::HostFunctions functions{tpu::HostEnvironment{}};
  auto outcome = functions.call(request("nope", ""));
  CHECK(outcome.code == rt::StatusCode::kNotFound);
  CHECK(outcome.message == "no host function named 'nope' (known: format, print, summary_csv, to_number)");
}

TEST_CASE("summary_csv appends rows to summary.csv", "[host-functions]") {
  const ScratchDirectory scratch("test-summary");
  const std::filesystem::path& directory = scratch.path();
  const tpu::HostEnvironment environment{directory, nullptr};
  auto row = request("summary_csv", "loss", {tpu::HostTensor::scalar_f32(0.25f), int32_scalar(3)});
  row.core = 2;
  REQUIRE(tpu::host_summary_csv(row, environment).code == rt::StatusCode::kOk);
  REQUIRE(tpu::host_summary_csv(row, environment).code == rt::StatusCode::kOk);
  std::ifstream file(directory / "summary.csv");
  const std::string content((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  CHECK(content == "core,tag,values\n2,loss,0.25,3\n2,loss,0.25,3\n");
  CHECK(tpu::host_summary_csv(request("summary_csv", "a,b"), environment).code == rt::StatusCode::kInvalidArgument);
}

// ---------------------------------------------------------------- board endpoint <-> host session

TEST_CASE("a host hello lost on a serial line is said again until the board answers, and the board's answers make one note",
          "[link-session]") {
  Loopback link;
  link.to_board.clear();  // the constructor's hello never reached the board (a board booting later)
  const auto said = std::chrono::steady_clock::now();
  const auto interval = std::chrono::milliseconds(250);
  link.session.say_hello_again_if_unanswered(said, interval);
  REQUIRE(link.to_board.empty());  // not before the interval
  link.session.say_hello_again_if_unanswered(said + std::chrono::milliseconds(300), interval);
  REQUIRE_FALSE(link.to_board.empty());
  require_well_formed(link.to_board);
  link.endpoint->poll();
  REQUIRE(link.endpoint->host_connected());
  link.deliver();
  REQUIRE(link.session.board());
  REQUIRE(link.session.board()->board == "loopback");
  link.session.say_hello_again_if_unanswered(said + std::chrono::seconds(5), interval);
  REQUIRE(link.to_board.size() > link.read_at);  // the board has not said its place in the pod yet
  link.endpoint->fix_pod_place({0, 1});  // as the firmware does once it booted
  link.endpoint->poll();
  link.deliver();
  REQUIRE(link.session.board_pod_place());
  REQUIRE_FALSE(link.session.pod_place_mismatch());

  const size_t sent = link.to_board.size();
  link.session.say_hello_again_if_unanswered(said + std::chrono::seconds(10), interval);
  REQUIRE(link.to_board.size() == sent);  // answered: said no more

  link.session.send_hello();  // a repeat that crossed the board's answer: the board answers again
  link.endpoint->poll();
  link.deliver();
  const std::string notes = link.notes.str();
  REQUIRE(notes.find("tpu: link up: board loopback") != std::string::npos);
  REQUIRE(notes.find("tpu: link up") == notes.rfind("tpu: link up"));
}

TEST_CASE("a board that restarts and says hello from the start is greeted again, its pod place asked anew",
          "[link-session]") {
  Loopback link;
  link.endpoint->poll();
  link.endpoint->fix_pod_place({0, 1});
  link.deliver();
  REQUIRE(link.session.board_pod_place());
  rt::link::BoardIdentity identity;  // the same board, restarted: its frames count from 0 again
  identity.board = "loopback";
  identity.app = "test";
  identity.cores = 4;
  identity.mesh_shape[3] = 4;
  link.endpoint = std::make_unique<rt::link::Endpoint>(link, identity);
  link.session.send_hello();  // a hello the restarted board hears
  link.endpoint->poll();
  const size_t sent_before = link.to_board.size();
  link.deliver();  // its hello, frame 0
  CHECK(link.notes.str().find("it restarted") != std::string::npos);
  CHECK_FALSE(link.session.board_pod_place());  // to be said again
  CHECK(link.to_board.size() > sent_before);    // greeted again: hello and kPod
}

TEST_CASE("a board that booted as a single board tells a pod's tpu so, and the session names the mismatch",
          "[link-session]") {
  Loopback link;
  link.endpoint->fix_pod_place({0, 1});  // booted before tpu spoke: no host, task 0 of 1
  link.to_board.clear();
  link.session.set_pod(1, 2);
  link.session.send_hello();  // tpu attaches: hello and kPod {1, 2}, answered with the place it took
  link.endpoint->poll();
  link.deliver();
  REQUIRE(link.session.board_pod_place());
  CHECK(link.session.board_pod_place()->task == 0);
  CHECK(link.session.board_pod_place()->num_tasks == 1);
  const std::optional<std::string> mismatch = link.session.pod_place_mismatch();
  REQUIRE(mismatch);
  CHECK(mismatch->find("the board is task 0 of 1") != std::string::npos);
  CHECK(mismatch->find("not task 1 of 2") != std::string::npos);
}

TEST_CASE("host calls round-trip between a board endpoint and the host session", "[link-session]") {
  Loopback link;
  for (unsigned core = 0; core < 4; ++core) {
    link.calling_core = core;
    float x = static_cast<float>(core + 1);
    const rt::Tensor arguments[] = {scalar_tensor(x)};
    rt::FixedString<32> text;
    const HostResult text_result[] = {HostResult::text(text)};
    REQUIRE(link.endpoint->host_call("format", "1{}", arguments, text_result, 1000 * kMilli).is_ok());
    CHECK(str(text.view()) == "1" + std::to_string(core + 1));

    float number = 0;
    const HostResult number_result[] = {HostResult::tensor(scalar_tensor(number))};
    const rt::Status status = link.endpoint->host_call("to_number", text.view(), {}, number_result, 1000 * kMilli);
    REQUIRE(status.is_ok());
    CHECK(number == static_cast<float>(11 + core));
  }
  REQUIRE(link.session.board());
  CHECK(link.session.board()->cores == 4);
  CHECK(link.session.counters().host_calls == 8);
  CHECK(link.session.counters().decoder.bad_frames() == 0);
  CHECK(link.session.counters().sequence_gaps == 0);
  CHECK(link.endpoint->counters().decoder.bad_frames() == 0);
}

TEST_CASE("a result written where it goes reaches the board in frames on a byte link", "[link-session]") {
  // The pod's collectives answer with a writer (HostCallOutcome::written); where the link cannot place
  // it in board memory, tpu has it written into a buffer and sends that in chunks (12000 bytes: three).
  Loopback link;
  link.functions().add_deferred(".fill", [](tpu::HostCallRequest request, tpu::HostFunctions::Reply reply) {
    const float scale = request.tensors.at(0).values<float>()[0];
    tpu::HostTensor shape;
    shape.dims = {3000};
    reply(tpu::HostCallOutcome::written({shape}, [scale](size_t, std::span<uint8_t> destination) {
      REQUIRE(destination.size() == 12000);
      for (size_t i = 0; i < 3000; ++i) {
        const float value = scale * static_cast<float>(i);
        std::memcpy(destination.data() + 4 * i, &value, 4);
      }
    }));
  }, tpu::HostFunctions::ArgumentsIn::kBoardMemory);
  float scale = 0.5f;
  const rt::Tensor arguments[] = {scalar_tensor(scale)};
  std::vector<float> out(3000, -1);
  const int64_t n = 3000;
  const rt::Tensor out_tensor = rt::Tensor::contiguous(rt::DType::kF32, *rt::Shape::make(rt::Span<const int64_t>(&n, 1)), out.data());
  const HostResult results[] = {HostResult::tensor(out_tensor)};
  REQUIRE(link.endpoint->host_call(".fill", "", arguments, results, 1000 * kMilli).is_ok());
  for (size_t i = 0; i < 3000; i += 499) CHECK(out[i] == 0.5f * static_cast<float>(i));
  CHECK(out[2999] == 1499.5f);
  CHECK(link.session.counters().rejected == 0);
}

TEST_CASE("detached calls: four in flight per core, the oldest awaited for a fifth, errors surface once answered",
          "[link-session]") {
  Loopback link;
  std::vector<std::pair<std::string, tpu::HostFunctions::Reply>> unanswered;  // the host holds the replies back
  link.functions().add_deferred(".slow", [&unanswered](tpu::HostCallRequest request, tpu::HostFunctions::Reply reply) {
    unanswered.emplace_back(request.text, std::move(reply));
  });
  auto answer = [&unanswered](const std::string& text, tpu::HostCallOutcome outcome) {
    for (auto& [call, reply] : unanswered)
      if (call == text && reply) {
        reply(std::move(outcome));
        reply = nullptr;
        return;
      }
    FAIL("no unanswered call " << text);
  };
  for (const char* call : {"a", "b", "c", "d"})  // none waits: the core goes on at once
    REQUIRE(link.endpoint->host_call_detached(".slow", call, {}, 1000 * kMilli).is_ok());
  link.deliver();
  REQUIRE(unanswered.size() == 4);
  answer("a", tpu::HostCallOutcome::error(rt::StatusCode::kOutOfRange, "a failed"));
  answer("b", tpu::HostCallOutcome::ok());
  // A fifth finds every slot in flight and waits for the oldest, a, whose error fails it (e is not sent).
  const rt::Status fifth = link.endpoint->host_call_detached(".slow", "e", {}, 1000 * kMilli);
  CHECK(fifth.code() == rt::StatusCode::kOutOfRange);
  CHECK(str(fifth.message()).find("'.slow' (sent without waiting for it): a failed") != std::string::npos);
  // b's reply came in meanwhile: settled on the way, it frees a slot for f.
  REQUIRE(link.endpoint->host_call_detached(".slow", "f", {}, 1000 * kMilli).is_ok());
  link.deliver();
  CHECK(unanswered.size() == 5);
  CHECK(unanswered.back().first == "f");
  for (const char* call : {"c", "d", "f"}) answer(call, tpu::HostCallOutcome::ok());
  CHECK(link.endpoint->settle_detached_call().is_ok());  // every call answered: nothing left in flight
  CHECK(link.endpoint->settle_detached_call().is_ok());
  CHECK(link.endpoint->counters().stale_replies == 0);
}

TEST_CASE("host-call errors come back as the host's status", "[link-session]") {
  Loopback link;
  float x = 1;
  const rt::Tensor arguments[] = {scalar_tensor(x)};
  rt::FixedString<32> text;
  const HostResult text_result[] = {HostResult::text(text)};
  const rt::Status unknown = link.endpoint->host_call("no_such_function", "", arguments, text_result, 1000 * kMilli);
  CHECK(unknown.code() == rt::StatusCode::kNotFound);
  CHECK(str(unknown.message()).find("'no_such_function'") != std::string::npos);

  const rt::Status mismatch = link.endpoint->host_call("format", "{}{}", arguments, text_result, 1000 * kMilli);
  CHECK(mismatch.code() == rt::StatusCode::kInvalidArgument);

  float wrong_type = 0;  // to_number returns a float32 scalar; ask for an int32 [2]
  int32_t pair[2];
  const int64_t dims[] = {2};
  const HostResult wrong[] = {HostResult::tensor(rt::Tensor::contiguous(rt::DType::kI32, *rt::Shape::make(dims), pair))};
  const rt::Status shape = link.endpoint->host_call("to_number", "3", {}, wrong, 1000 * kMilli);
  CHECK(shape.code() == rt::StatusCode::kInvalidArgument);
  CHECK(str(shape.message()).find("should be int32[2], the host sent float32[]") != std::string::npos);
  (void)wrong_type;

  // A core that fails with an error a host function answered is told where it came from: the latest
  // such answer (format's, to core 0, call 2), found by code and message; another message is not.
  const tpu::HostFunctionError* origin =
      link.session.host_error_behind({mismatch.code(), "FAIL test: " + str(mismatch.message())});
  REQUIRE(origin != nullptr);
  CHECK(origin->function == "format");
  CHECK(origin->core == 0);
  CHECK(origin->call == 2);
  CHECK(link.session.host_error_behind({mismatch.code(), "something else"}) == nullptr);
  CHECK(link.session.host_error_behind({rt::StatusCode::kInternal, str(mismatch.message())}) == nullptr);
  // The board keeps a shorter status than the host may send: the message's start is enough.
  const std::string start = str(mismatch.message()).substr(0, 80);
  CHECK(link.session.host_error_behind({mismatch.code(), "FAIL test: " + start}) == origin);

  // The link still works afterwards.
  REQUIRE(link.endpoint->host_call("format", "1{}", arguments, text_result, 1000 * kMilli).is_ok());
  CHECK(str(text.view()) == "11");
}

TEST_CASE("a silent host makes host calls time out with a message naming core and call", "[link-session]") {
  Loopback link;
  link.host_alive = false;  // nothing the board writes reaches the host; the host hello is still queued
  link.to_board.clear();
  link.calling_core = 3;
  float x = 1;
  const rt::Tensor arguments[] = {scalar_tensor(x)};
  rt::FixedString<32> text;
  const HostResult text_result[] = {HostResult::text(text)};
  const rt::Status never = link.endpoint->host_call("format", "1{}", arguments, text_result, 50 * kMilli);
  CHECK(never.code() == rt::StatusCode::kDeadlineExceeded);
  CHECK(str(never.message()) ==
        "core 3 timed out after 50 ms waiting for a host on the link to call 'format' (no host hello arrived: is the "
        "board run by `tpu run`?)");

  Loopback connected;
  connected.endpoint->poll();  // reads the host's hello
  REQUIRE(connected.endpoint->host_connected());
  connected.host_alive = false;
  const rt::Status silent = connected.endpoint->host_call("format", "1{}", arguments, text_result, 50 * kMilli);
  CHECK(silent.code() == rt::StatusCode::kDeadlineExceeded);
  CHECK(str(silent.message()) == "core 0 timed out after 50 ms waiting for the host's reply to host call 1 'format'");
  // The host wakes up late: its reply to the cancelled call is dropped, the next call works.
  connected.host_alive = true;
  connected.deliver();
  REQUIRE(connected.endpoint->host_call("format", "2{}", arguments, text_result, 1000 * kMilli).is_ok());
  CHECK(str(text.view()) == "21");
  CHECK(connected.endpoint->counters().stale_replies == 1);
}

TEST_CASE("outfeed tuples arrive as .npy files and results are recorded", "[link-session]") {
  const ScratchDirectory scratch("test-outfeed");
  const std::filesystem::path& directory = scratch.path();
  Loopback link(directory);
  link.calling_core = 1;
  std::vector<float> values(3000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.25f;
  const int64_t dims[] = {1000, 3};
  const rt::Tensor tuple[] = {rt::Tensor::contiguous(rt::DType::kF32, *rt::Shape::make(dims), values.data())};
  REQUIRE(link.endpoint->outfeed(7, tuple, 1000 * kMilli).is_ok());
  REQUIRE(link.endpoint->send_result(1, rt::invalid_argument("bad {}", 42)).is_ok());
  link.deliver();

  std::ifstream file(directory / "c1_q7_t0_e0.npy", std::ios::binary);
  const Bytes content((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  auto parsed = rt::npy_parse(rt::Span<const uint8_t>(content.data(), content.size()));
  REQUIRE(parsed.is_ok());
  CHECK(parsed->dtype == rt::DType::kF32);
  CHECK(parsed->shape.rank == 2);
  CHECK(parsed->shape.dims[0] == 1000);
  REQUIRE(parsed->data.size() == values.size() * 4);
  CHECK(std::memcmp(parsed->data.data(), values.data(), parsed->data.size()) == 0);

  REQUIRE(link.session.results().count(1));
  CHECK(link.session.results().at(1).code == rt::StatusCode::kInvalidArgument);
  CHECK(link.session.results().at(1).message == "bad 42");
}

// ---------------------------------------------------------------- robustness

TEST_CASE("random byte streams never crash the host session", "[link-session][fuzz]") {
  std::mt19937 random(1234);
  const uint8_t favourites[] = {0x00, 0xFA, 0x01, 0x04, 0xFF, '\n', 0x02};
  for (int round = 0; round < 3000; ++round) {
    HostOnly host;
    Bytes stream(random() % 3000);
    for (uint8_t& byte : stream)
      byte = random() % 3 == 0 ? favourites[random() % sizeof favourites] : static_cast<uint8_t>(random());
    feed_in_random_chunks(host.session, stream, random);
    require_well_formed(host.sent);
  }
}

TEST_CASE("valid frames with random payloads never crash the host session", "[link-session][fuzz]") {
  std::mt19937 random(99);
  HostOnly host;
  // Good payloads to mutate: a request with a tensor, queue data, a hello, a result.
  uint8_t buffer[rt::link::kMaxPayload];
  std::vector<Bytes> seeds;
  {
    float value = 3;
    rt::link::CallMessage call;
    call.id = 5;
    call.text = rt::StringView("format\0x{}", 10);
    call.tensor_count = 1;
    call.chunk.dtype = rt::DType::kF32;
    call.chunk.data = rt::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(&value), 4);
    seeds.emplace_back(buffer, buffer + *rt::link::encode_call(rt::link::MessageKind::kHostCallRequest, call, buffer));
    rt::link::QueueData data;
    data.chunk = call.chunk;
    seeds.emplace_back(buffer, buffer + *rt::link::encode_queue_data(data, buffer));
    rt::link::Hello hello;
    hello.role = rt::link::PeerRole::kBoard;
    hello.core_count = 2;
    hello.mesh_shape[0] = hello.mesh_shape[1] = hello.mesh_shape[2] = 1;
    hello.mesh_shape[3] = 2;
    seeds.emplace_back(buffer, buffer + *rt::link::encode_hello(hello, buffer));
  }
  Bytes stream;
  for (uint32_t sequence = 0; sequence < 30000; ++sequence) {
    const auto kind = static_cast<rt::link::MessageKind>(1 + random() % rt::link::kLastMessageKind);
    Bytes payload;
    if (random() % 2) {
      payload = seeds[random() % seeds.size()];
      for (int flips = 1 + random() % 4; flips > 0 && !payload.empty(); --flips)
        payload[random() % payload.size()] = static_cast<uint8_t>(random());
      if (random() % 4 == 0) payload.resize(random() % (payload.size() + 8));
    } else {
      payload.resize(random() % 64);
      for (uint8_t& byte : payload) byte = static_cast<uint8_t>(random());
    }
    const Bytes frame = frame_bytes(kind, static_cast<uint16_t>(random() % 20), sequence, payload);
    stream.insert(stream.end(), frame.begin(), frame.end());
  }
  feed_in_random_chunks(host.session, stream, random);
  require_well_formed(host.sent);
  CHECK(host.session.counters().decoder.frames_ok == 30000);
}

TEST_CASE("corrupted transcripts of a real session never crash the host session", "[link-session][fuzz]") {
  Loopback link;
  float x = 1;
  const rt::Tensor arguments[] = {scalar_tensor(x)};
  rt::FixedString<32> text;
  const HostResult text_result[] = {HostResult::text(text)};
  std::vector<int32_t> big(3000, 7);
  const int64_t dims[] = {3000};
  const rt::Tensor tuple[] = {rt::Tensor::contiguous(rt::DType::kI32, *rt::Shape::make(dims), big.data()),
                              scalar_tensor(x)};
  for (unsigned core = 0; core < 4; ++core) {
    link.calling_core = core;
    REQUIRE(link.endpoint->host_call("format", "1{}", arguments, text_result, 1000 * kMilli).is_ok());
    REQUIRE(link.endpoint->outfeed(0, tuple, 1000 * kMilli).is_ok());
    REQUIRE(link.endpoint->send_result(core, rt::Status::ok()).is_ok());
  }
  const Bytes transcript = link.transcript;
  std::mt19937 random(7);
  for (int round = 0; round < 300; ++round) {
    Bytes stream = transcript;
    for (int edits = 1 + random() % 20; edits > 0; --edits) {
      const size_t at = random() % stream.size();
      switch (random() % 4) {
        case 0: stream[at] ^= static_cast<uint8_t>(1u << (random() % 8)); break;
        case 1: stream.erase(stream.begin() + static_cast<long>(at)); break;
        case 2: stream.insert(stream.begin() + static_cast<long>(at), static_cast<uint8_t>(random())); break;
        case 3: stream.insert(stream.begin() + static_cast<long>(at), 0x00); break;
      }
    }
    HostOnly host;
    feed_in_random_chunks(host.session, stream, random);
    require_well_formed(host.sent);
  }
}
