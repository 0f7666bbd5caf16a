// The host side of infeed (host-tools/lib/infeed_*): the --infeed option, datasets from .npy bytes
// (corrupted, truncated or oversized files are errors, never crashes), the sender honouring credits,
// garbage credits from a board, and a whole stream from the sender through a LinkSession into a board
// Endpoint's InfeedBuffer and back as credits (in memory, single threaded).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "host-tools/lib/feeds/infeed_host_function.hpp"
#include "host-tools/lib/feeds/infeed_sender.hpp"
#include "host-tools/lib/session/link_session.hpp"
#include "runtime/link/protocol/endpoint.hpp"
#include "runtime/tensor/npy.hpp"
#include "scratch_directory.hpp"

namespace {

using Bytes = std::vector<uint8_t>;
using rt::link::MessageKind;

Bytes npy_bytes(rt::DType dtype, std::vector<int64_t> dims, const void* data) {
  const rt::Shape shape = *rt::Shape::make(rt::Span<const int64_t>(dims.data(), dims.size()));
  Bytes bytes(512);
  const size_t header = *rt::npy_write_header(dtype, shape, rt::Span<uint8_t>(bytes.data(), bytes.size()));
  bytes.resize(header);
  const size_t size = static_cast<size_t>(shape.num_elements()) * rt::dtype_size(dtype);
  bytes.insert(bytes.end(), static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + size);
  return bytes;
}

// x float32 [steps, 8, 3] = step * 100 + i, labels int32 [steps, 8] = step * 10 + i.
std::vector<Bytes> dataset_files(int steps) {
  std::vector<float> x(static_cast<size_t>(steps) * 24);
  std::vector<int32_t> labels(static_cast<size_t>(steps) * 8);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i / 24 * 100 + i % 24);
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<int32_t>(i / 8 * 10 + i % 8);
  return {npy_bytes(rt::DType::kF32, {steps, 8, 3}, x.data()), npy_bytes(rt::DType::kI32, {steps, 8}, labels.data())};
}

tpu::InfeedDataset dataset(int steps, uint16_t queue = 0) {
  std::string error;
  std::optional<tpu::InfeedDataset> loaded = tpu::InfeedDataset::from_npy_bytes(queue, dataset_files(steps), error);
  INFO(error);
  REQUIRE(loaded);
  return std::move(*loaded);
}

// Records the frames a sender emits, decoded.
struct SentFrames {
  std::vector<rt::link::QueueData> chunks;
  std::vector<Bytes> payloads;  // keep the chunk data alive
  tpu::InfeedSender::SendFrame sink() {
    return [this](MessageKind kind, uint16_t channel, rt::Span<const uint8_t> payload) {
      REQUIRE(kind == MessageKind::kInfeedData);
      REQUIRE(channel == 0);
      payloads.emplace_back(payload.begin(), payload.end());
      rt::Result<rt::link::QueueData> data =
          rt::link::parse_queue_data(rt::Span<const uint8_t>(payloads.back().data(), payloads.back().size()));
      REQUIRE(data.is_ok());
      chunks.push_back(*data);
    };
  }
};

// A sender of one dataset of `steps` tuples, its frames and its notes kept.
struct SenderUnderTest {
  explicit SenderUnderTest(int steps) : sender(one_dataset(steps), sent.sink(), notes) {}
  static std::vector<tpu::InfeedDataset> one_dataset(int steps) {
    std::vector<tpu::InfeedDataset> datasets;
    datasets.push_back(dataset(steps));
    return datasets;
  }
  SentFrames sent;
  std::ostringstream notes;
  tpu::InfeedSender sender;
};

rt::link::InfeedCredits credits(uint16_t queue, uint32_t tuples, uint64_t bytes) {
  rt::link::InfeedCredits c;
  c.queue = queue;
  c.granted_tuples = tuples;
  c.granted_bytes = bytes;
  return c;
}

}  // namespace

TEST_CASE("--infeed values", "[infeed-host]") {
  std::string error;
  std::optional<tpu::InfeedFiles> spec = tpu::parse_infeed_files("3=x.npy,dir/y.npy", error);
  REQUIRE(spec);
  CHECK(spec->queue == 3);
  CHECK(spec->files == std::vector<std::filesystem::path>{"x.npy", "dir/y.npy"});
  for (const char* bad : {"x.npy", "=x.npy", "q=x.npy", "70000=x.npy", "0=", "0=a.npy,,b.npy", "0=1,2,3,4,5,6,7,8,9"}) {
    INFO(bad);
    CHECK_FALSE(tpu::parse_infeed_files(bad, error));
    CHECK_FALSE(error.empty());
  }
}

TEST_CASE("datasets check their files", "[infeed-host]") {
  tpu::InfeedDataset good = dataset(5, 2);
  CHECK(good.steps() == 5);
  CHECK(good.tuple_bytes() == 128);
  CHECK(good.describe() == "float32[8, 3], int32[8]");
  float step_3[24];
  std::string read_error;
  REQUIRE(good.read_step(3, 0, std::span<uint8_t>(reinterpret_cast<uint8_t*>(step_3), sizeof step_3), read_error));
  CHECK(step_3[1] == 301.0f);
  CHECK_FALSE(good.read_step(5, 0, std::span<uint8_t>(reinterpret_cast<uint8_t*>(step_3), sizeof step_3), read_error));

  std::string error;
  std::vector<Bytes> files = dataset_files(5);
  files[1] = dataset_files(4)[1];
  CHECK_FALSE(tpu::InfeedDataset::from_npy_bytes(0, files, error));
  CHECK(error == "queue 0: element 0 has 5 steps but element 1 has 4 (the first dimension indexes steps and must agree)");
  const float scalar = 1;
  CHECK_FALSE(tpu::InfeedDataset::from_npy_bytes(0, {npy_bytes(rt::DType::kF32, {}, &scalar)}, error));
  CHECK(error == "element 0: a scalar has no step dimension (the first dimension indexes steps)");
  CHECK_FALSE(tpu::InfeedDataset::load({0, {"/nonexistent/x.npy"}}, error));
  CHECK(error.starts_with("cannot read /nonexistent/x.npy"));
}

TEST_CASE("a dataset file stays on disk: each step is read when asked, a file that shrank is an error", "[infeed-host]") {
  const ScratchDirectory scratch("infeed-test");
  const std::filesystem::path path = scratch / "x.npy";
  const Bytes bytes = dataset_files(5)[0];
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  std::string error;
  std::optional<tpu::InfeedDataset> loaded = tpu::InfeedDataset::load({0, {path}}, error);
  INFO(error);
  REQUIRE(loaded);
  CHECK(loaded->steps() == 5);
  float step_4[24] = {};
  CHECK(loaded->read_step(4, 0, std::span<uint8_t>(reinterpret_cast<uint8_t*>(step_4), sizeof step_4), error));
  CHECK(step_4[0] == 400.0f);  // step 4, element 0 (dataset_files: step * 100 + index in the step)
  std::filesystem::resize_file(path, bytes.size() - 96);  // the last step loses its tail
  CHECK(loaded->read_step(2, 0, std::span<uint8_t>(reinterpret_cast<uint8_t*>(step_4), sizeof step_4), error));
  CHECK_FALSE(loaded->read_step(4, 0, std::span<uint8_t>(reinterpret_cast<uint8_t*>(step_4), sizeof step_4), error));
  CHECK(error.find("shrank") != std::string::npos);
}

TEST_CASE("a pod's board streams its own rows of every step (TPU per-host input)", "[infeed-host][pod]") {
  tpu::InfeedDataset split = dataset(3);
  std::string error;
  REQUIRE(split.split_for_board(1, 4, error));  // rows 2..3 of the 8 of every step, board 1 of 4
  CHECK(split.steps() == 3);
  CHECK(split.describe() == "float32[2, 3], int32[2]");
  CHECK(split.tuple_bytes() == 2 * 3 * 4 + 2 * 4);
  float x[6] = {};
  int32_t labels_of_step[2] = {};
  REQUIRE(split.read_step(2, 0, std::span<uint8_t>(reinterpret_cast<uint8_t*>(x), sizeof x), error));
  REQUIRE(split.read_step(2, 1, std::span<uint8_t>(reinterpret_cast<uint8_t*>(labels_of_step), sizeof labels_of_step), error));
  const float first_x = x[0];
  CHECK(first_x == 2 * 100 + 2 * 3);  // step 2, row 2, column 0
  CHECK(labels_of_step[0] == 2 * 10 + 2);
  CHECK(labels_of_step[1] == 2 * 10 + 3);
  tpu::InfeedDataset uneven = dataset(1);
  CHECK_FALSE(uneven.split_for_board(0, 3, error));
  CHECK(error == "element 0: a step of float32[8, 3] does not split its first dimension over 3 boards (each board "
                 "streams its own part: TPU per-host input)");
}

TEST_CASE("a pod's board streams its block of each element's cut dimension, strided within a step", "[infeed-host][pod]") {
  // x [8, 3] cut along dimension 1 over 3 boards: board 2 streams column 2 of every row; the labels
  // [8] along dimension 0 over 3 do not split (8 rows), over 2 they do.
  tpu::InfeedDataset columns = dataset(3);
  std::string error;
  CHECK_FALSE(columns.split_for_board(2, 3, error, {1, 0}));
  CHECK(error == "element 1: a step of int32[8] does not split its first dimension over 3 boards (each board "
                 "streams its own part: TPU per-host input)");
  tpu::InfeedDataset x_only = *tpu::InfeedDataset::from_npy_bytes(0, {dataset_files(3)[0]}, error);
  x_only.set_pod_part(2, 3);
  REQUIRE(x_only.pod_part());
  REQUIRE(x_only.split_for_board(2, 3, error, {1}));
  CHECK_FALSE(x_only.pod_part());  // split once
  CHECK(x_only.describe() == "float32[8, 1]");
  CHECK(x_only.tuple_bytes() == 8 * 4);
  float column[8] = {};
  REQUIRE(x_only.read_step(1, 0, std::span<uint8_t>(reinterpret_cast<uint8_t*>(column), sizeof column), error));
  for (int row = 0; row < 8; ++row) CHECK(column[row] == 1 * 100 + row * 3 + 2);  // step 1, row r, column 2
  tpu::InfeedDataset rows_of_two = dataset(3);  // x along dimension 1 does not split over 2 (3 columns)
  CHECK_FALSE(rows_of_two.split_for_board(0, 2, error, {1, 0}));
  CHECK(error == "element 0: a step of float32[8, 3] does not split its dimension 1 over 2 boards (each board "
                 "streams its own part: TPU per-host input)");
  CHECK_FALSE(rows_of_two.split_for_board(0, 2, error, {2, 0}));  // no such dimension
  // A step empty before the board's cut dimension ([0, 8] cut along dimension 1): an error, not a division by 0.
  const float none = 0;
  tpu::InfeedDataset empty_rows =
      *tpu::InfeedDataset::from_npy_bytes(0, {npy_bytes(rt::DType::kF32, {2, 0, 8}, &none)}, error);
  CHECK_FALSE(empty_rows.split_for_board(0, 2, error, {1}));
  CHECK(error == "element 0: a step of float32[0, 8] is empty before dimension 1, which the board cuts over 2 boards");
}

TEST_CASE("corrupted, truncated and oversized .npy files are errors, not crashes", "[infeed-host][fuzz]") {
  std::mt19937 random(11);
  const Bytes original = dataset_files(3)[0];
  for (int round = 0; round < 3000; ++round) {
    Bytes bytes = original;
    switch (round % 3) {
      case 0: bytes.resize(random() % bytes.size()); break;
      case 1:
        for (int i = 0; i < 1 + static_cast<int>(random() % 4); ++i) bytes[random() % 128] = static_cast<uint8_t>(random());
        break;
      default: {  // a header claiming a huge shape over a tiny body
        const std::string claim = "'shape': (" + std::to_string(random() % 1000000000000ull) + ", 8, 3)";
        std::string header(bytes.begin(), bytes.begin() + 64);
        const size_t at = header.find("'shape'");
        if (at != std::string::npos) {
          const size_t end = header.find(')', at);
          const std::string replaced = header.substr(0, at) + claim + header.substr(end + 1);
          bytes.assign(replaced.begin(), replaced.end());
        }
      }
    }
    std::string error;
    std::optional<tpu::InfeedDataset> loaded = tpu::InfeedDataset::from_npy_bytes(0, {bytes}, error);
    if (loaded) {  // whatever survived must be self-consistent
      std::vector<uint8_t> step_bytes(loaded->tuple_bytes());
      for (uint64_t step = 0; step < loaded->steps(); ++step) REQUIRE(loaded->read_step(step, 0, step_bytes, error));
      REQUIRE(loaded->elements()[0].data_offset + loaded->steps() * loaded->tuple_bytes() <= loaded->elements()[0].source->size());
    } else {
      REQUIRE_FALSE(error.empty());
    }
  }
}

TEST_CASE("the sender sends only what the credits allow, in order", "[infeed-host]") {
  SenderUnderTest test(5);
  tpu::InfeedSender& sender = test.sender;
  const SentFrames& sent = test.sent;
  const std::ostringstream& notes = test.notes;
  CHECK(sender.pump() == 0);  // no credits yet
  sender.on_credits(0, credits(0, 2, 256));
  CHECK(sender.pump() == 256);
  CHECK(sender.tuples_sent(0) == 2);
  CHECK(sender.pump() == 0);
  sender.on_credits(0, credits(0, 1, 128));  // stale: ignored
  sender.on_credits(0, credits(0, 3, 384));
  sender.on_credits(0, credits(0, 3, 384));  // repeated: harmless
  CHECK(sender.pump() == 128);
  sender.on_credits(0, credits(0, 100, 100 * 128));
  CHECK(sender.pump() == 256);  // the dataset's end
  CHECK(sender.tuples_sent(0) == 5);
  REQUIRE(sent.chunks.size() == 10);
  for (size_t i = 0; i < sent.chunks.size(); ++i) {
    const rt::link::QueueData& chunk = sent.chunks[i];
    CHECK(chunk.element_index == i % 2);
    CHECK(chunk.element_count == 2);
    CHECK(chunk.chunk.offset == 0);
  }
  float first;
  std::memcpy(&first, sent.chunks[8].chunk.data.data(), 4);
  CHECK(first == 400.0f);
  sender.report();
  CHECK(notes.str().find("tpu: infeed queue 0 (float32[8, 3], int32[8]): 5 of 5 tuples sent, 5 consumed") != std::string::npos);
  CHECK(notes.str().find("MB/s") != std::string::npos);
}

TEST_CASE("a board that never closed its queue gets no consumption figures it did not report", "[infeed-host]") {
  SenderUnderTest test(5);
  test.sender.on_credits(0, credits(0, 3, 384));
  CHECK(test.sender.pump() == 3 * 128);
  test.sender.report();  // the board failed: no more credits, no close
  CHECK(test.notes.str().find("3 of 5 tuples sent, 0 consumed as far as the board reported (it never closed the "
                              "queue)\n") != std::string::npos);
  CHECK(test.notes.str().find("MB/s") == std::string::npos);
}

TEST_CASE("a queue's final credits count its last consumption and end the sending", "[infeed-host]") {
  SenderUnderTest test(10);
  tpu::InfeedSender& sender = test.sender;
  const std::ostringstream& notes = test.notes;
  sender.on_credits(0, credits(0, 4, 4 * 128));  // the board's 4 slots
  CHECK(sender.pump() == 4 * 128);
  sender.on_credits(0, credits(0, 8, 8 * 128));  // 4 consumed (a batch)
  CHECK(sender.pump() == 4 * 128);
  CHECK(sender.tuples_consumed(0) == 4);
  // The program closed the queue after 6 tuples: its final totals would allow 2 more, but none go.
  rt::link::InfeedCredits closing = credits(0, 10, 10 * 128);
  closing.closed = 1;
  sender.on_credits(0, closing);
  CHECK(sender.pump() == 0);
  CHECK(sender.tuples_sent(0) == 8);
  CHECK(sender.tuples_consumed(0) == 6);
  sender.report();
  CHECK(notes.str().find("tpu: infeed queue 0 (float32[8, 3], int32[8]): 8 of 10 tuples sent, 6 consumed") !=
        std::string::npos);
}

TEST_CASE("a progress line only when the counts moved since the last one", "[infeed-host]") {
  SenderUnderTest test(10);
  tpu::InfeedSender& sender = test.sender;
  const std::ostringstream& notes = test.notes;
  const auto lines = [&] {
    const std::string text = notes.str();
    return std::count(text.begin(), text.end(), '\n');
  };
  const auto later = [](int seconds) { return tpu::InfeedSender::Clock::now() + std::chrono::seconds(seconds); };
  sender.on_credits(0, credits(0, 4, 4 * 128));  // the board's 4 slots
  CHECK(sender.pump() == 4 * 128);
  sender.progress(later(2));
  CHECK(lines() == 1);
  CHECK(notes.str().find("tpu: infeed queue 0: 4 of 10 tuples sent, 0 consumed") != std::string::npos);
  sender.progress(later(4));  // a stalled board: nothing moved, nothing printed
  sender.progress(later(6));
  CHECK(lines() == 1);
  sender.on_credits(0, credits(0, 6, 6 * 128));  // 2 consumed
  sender.progress(later(8));
  CHECK(lines() == 2);
  CHECK(notes.str().find("4 of 10 tuples sent, 2 consumed") != std::string::npos);
}

TEST_CASE("garbage credits never crash the sender or make it send beyond its dataset", "[infeed-host][fuzz]") {
  std::mt19937_64 random(3);
  for (int round = 0; round < 200; ++round) {
    SentFrames sent;
    std::ostringstream notes;
    std::vector<tpu::InfeedDataset> datasets;
    datasets.push_back(dataset(4, 0));
    datasets.push_back(dataset(3, 7));
    tpu::InfeedSender sender(std::move(datasets), sent.sink(), notes);
    for (int i = 0; i < 30; ++i) {
      const uint16_t queue = random() % 3 == 0 ? static_cast<uint16_t>(random()) : static_cast<uint16_t>(random() % 2 * 7);
      sender.on_credits(static_cast<unsigned>(random() % 4 == 0 ? random() % 20 : 0),
                        credits(queue, static_cast<uint32_t>(random()), random()));
      sender.pump(random() % 1000);
      sender.progress(tpu::InfeedSender::Clock::now(), std::chrono::seconds(0));
    }
    REQUIRE(sender.tuples_sent(0) <= 4);
    REQUIRE(sender.tuples_sent(7) <= 3);
    REQUIRE(sent.chunks.size() == 2 * (sender.tuples_sent(0) + sender.tuples_sent(7)));
    sender.report();
  }
}

TEST_CASE("infeed_steps tells the board the dataset's length", "[infeed-host]") {
  SentFrames sent;
  std::ostringstream notes;
  std::vector<tpu::InfeedDataset> datasets;
  datasets.push_back(dataset(6, 1));
  tpu::InfeedSender sender(std::move(datasets), sent.sink(), notes);
  tpu::HostFunctions functions(tpu::HostEnvironment{});
  tpu::add_infeed_functions(functions, sender);
  tpu::HostCallOutcome steps = functions.call({0, 1, "infeed_steps", "1", {}});
  REQUIRE(steps.code == rt::StatusCode::kOk);
  REQUIRE(steps.results.size() == 1);
  CHECK(steps.results[0].dtype == rt::DType::kI64);
  int64_t value;
  std::memcpy(&value, steps.results[0].bytes.data(), 8);
  CHECK(value == 6);
  CHECK(functions.call({0, 1, "infeed_steps", "2", {}}).code == rt::StatusCode::kNotFound);
  CHECK(functions.call({0, 1, "infeed_steps", "x", {}}).code == rt::StatusCode::kInvalidArgument);
}

namespace {

// Host session + sender on one side, a board Endpoint with an InfeedBuffer on the other, in memory.
class InfeedLoopback final : public tpu::SessionOutput, public rt::link::LinkPort {
 public:
  explicit InfeedLoopback(std::vector<tpu::InfeedDataset> datasets)
      : functions_(tpu::HostEnvironment{}),
        outfeed_(std::nullopt, notes),
        session(*this, functions_, outfeed_, notes),
        sender(std::move(datasets),
               [this](MessageKind kind, uint16_t channel, rt::Span<const uint8_t> payload) {
                 session.send_message(kind, channel, payload);
               },
               notes) {
    rt::link::BoardIdentity identity;
    identity.cores = 2;
    identity.mesh_shape[3] = 2;
    endpoint = std::make_unique<rt::link::Endpoint>(*this, identity);
    session.set_credit_listener(
        [this](unsigned channel, const rt::link::InfeedCredits& c) { sender.on_credits(channel, c); });
    session.send_hello();
  }

  void console(std::string_view) override {}
  void send_to_board(std::span<const uint8_t> bytes) override { to_board.insert(to_board.end(), bytes.begin(), bytes.end()); }
  void lock_output() override {}
  void unlock_output() override {}
  void write(rt::Span<const uint8_t> bytes) override { from_board.insert(from_board.end(), bytes.begin(), bytes.end()); }
  int read_byte() override { return read_at < to_board.size() ? to_board[read_at++] : -1; }
  unsigned core() override { return 0; }
  uint64_t now_ns() override { return clock; }
  void idle() override {
    clock += 1000000;
    session.feed(from_board);
    from_board.clear();
    sender.pump();
  }
  void wake_all() override {}

  std::ostringstream notes;
  Bytes to_board, from_board;
  size_t read_at = 0;
  uint64_t clock = 1;

 private:
  tpu::HostFunctions functions_;
  tpu::OutfeedSink outfeed_;

 public:
  tpu::LinkSession session;
  tpu::InfeedSender sender;
  std::unique_ptr<rt::link::Endpoint> endpoint;
};

}  // namespace

TEST_CASE("a dataset streams from the sender into a board's infeed buffer against its credits", "[infeed-host][link]") {
  std::vector<tpu::InfeedDataset> datasets;
  datasets.push_back(dataset(9));
  InfeedLoopback loop(std::move(datasets));
  REQUIRE(loop.endpoint->wait_for_host(100 * 1000000ull, "test").is_ok());
  const rt::link::InfeedElementSpec specs[] = {{rt::DType::kF32, *rt::Shape::make({8, 3})},
                                               {rt::DType::kI32, *rt::Shape::make({8})}};
  std::vector<uint8_t> storage(4096 + 64);
  uint8_t* aligned = storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64;
  rt::link::InfeedBuffer buffer;
  REQUIRE(buffer.init(0, "q", specs, 2, 2, rt::Span<uint8_t>(aligned, 4096)).is_ok());
  REQUIRE(loop.endpoint->attach_infeed(buffer).is_ok());
  for (uint64_t step = 0; step < 9; ++step) {
    REQUIRE(loop.endpoint->wait_for_infeed(buffer, step, 1000 * 1000000ull).is_ok());
    CHECK(loop.sender.tuples_sent(0) <= step + 2);  // never more than the two slots ahead
    float value;
    std::memcpy(&value, buffer.element(step, 0).data + 8, 4);
    CHECK(value == static_cast<float>(step * 100 + 2));
    buffer.release(0);
    buffer.release(1);
    REQUIRE(loop.endpoint->grant_infeed_credits(buffer).is_ok());
  }
  loop.idle();
  CHECK(loop.sender.tuples_consumed(0) == 9);
  CHECK(loop.endpoint->counters().rejected == 0);
  CHECK(loop.session.counters().rejected == 0);
  CHECK(loop.endpoint->counters().sequence_gaps == 0);
}

TEST_CASE("credit frames with random payloads never crash the host session", "[infeed-host][fuzz]") {
  std::mt19937 random(9);
  struct Output final : tpu::SessionOutput {
    void console(std::string_view) override {}
    void send_to_board(std::span<const uint8_t>) override {}
  } output;
  std::ostringstream notes;
  tpu::HostFunctions functions(tpu::HostEnvironment{});
  tpu::OutfeedSink outfeed(std::nullopt, notes);
  tpu::LinkSession session(output, functions, outfeed, notes);
  SentFrames sent;
  std::vector<tpu::InfeedDataset> datasets;
  datasets.push_back(dataset(3));
  tpu::InfeedSender sender(std::move(datasets), sent.sink(), notes);
  session.set_credit_listener([&](unsigned channel, const rt::link::InfeedCredits& c) { sender.on_credits(channel, c); });
  for (int i = 0; i < 2000; ++i) {
    Bytes payload(random() % 24);
    for (uint8_t& byte : payload) byte = static_cast<uint8_t>(random() % 3 == 0 ? 0 : random());
    Bytes wire(rt::link::max_wire_frame_size(payload.size()));
    auto size = rt::link::encode_frame(rt::link::message_header(MessageKind::kInfeedCredits, static_cast<uint16_t>(random() % 3), static_cast<uint32_t>(i)),
                                       rt::Span<const uint8_t>(payload.data(), payload.size()),
                                       rt::Span<uint8_t>(wire.data(), wire.size()));
    REQUIRE(size.is_ok());
    session.feed(std::span<const uint8_t>(wire.data(), *size));
    sender.pump();
  }
  CHECK(sender.tuples_sent(0) <= 3);
}
