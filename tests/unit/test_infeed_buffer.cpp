// The board side of infeed: InfeedBuffer (runtime/link/protocol/infeed_buffer.hpp: stream checks, slots,
// credits), the shard copy and InfeedDequeue (runtime/tpu/infeed/infeed_dequeue.hpp) over a link Endpoint
// whose port is memory and a fake clock (single threaded: the "host" bytes are queued up front).
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "runtime/link/transport/decoder.hpp"
#include "runtime/link/protocol/endpoint.hpp"
#include "runtime/tpu/infeed/infeed_dequeue.hpp"

namespace {

using Bytes = std::vector<uint8_t>;
using rt::DType;
using rt::Shape;
using rt::link::InfeedBuffer;
using rt::link::InfeedElementSpec;
using rt::link::QueueData;

constexpr uint64_t kMilli = 1000000;

Shape shape(std::initializer_list<int64_t> dims) { return *Shape::make(rt::Span<const int64_t>(dims.begin(), dims.size())); }
std::string message(const rt::Status& status) { return std::string(status.message().data(), status.message().size()); }

// x float32 [8, 3] and labels int32 [8].
const InfeedElementSpec kSpecs[] = {{DType::kF32, shape({8, 3})}, {DType::kI32, shape({8})}};

struct Tuple {
  float x[24];
  int32_t labels[8];
};

Tuple make_tuple(int step) {
  Tuple tuple;
  for (int i = 0; i < 24; ++i) tuple.x[i] = static_cast<float>(step * 100 + i);
  for (int i = 0; i < 8; ++i) tuple.labels[i] = step * 10 + i;
  return tuple;
}

QueueData chunk(unsigned element, const void* bytes, uint64_t offset, size_t size, uint8_t count = 2) {
  QueueData data;
  data.queue = 0;
  data.element_count = count;
  data.element_index = static_cast<uint8_t>(element);
  data.chunk.dtype = kSpecs[element].dtype;
  data.chunk.shape = kSpecs[element].shape;
  data.chunk.offset = offset;
  data.chunk.data = rt::Span<const uint8_t>(static_cast<const uint8_t*>(bytes) + offset, size);
  return data;
}

// Feeds a whole tuple, x in chunks of `piece` bytes.
rt::Status feed_tuple(InfeedBuffer& buffer, const Tuple& tuple, size_t piece = 40) {
  for (size_t offset = 0; offset < sizeof tuple.x; offset += piece)
    RT_RETURN_IF_ERROR(buffer.accept(chunk(0, tuple.x, offset, std::min(piece, sizeof tuple.x - offset))));
  return buffer.accept(chunk(1, tuple.labels, 0, sizeof tuple.labels));
}

struct Storage {
  explicit Storage(unsigned slots) : bytes(*InfeedBuffer::storage_bytes(kSpecs, slots) + 128, 0xEE) {}
  rt::Span<uint8_t> span() {
    uint8_t* aligned = bytes.data() + (64 - reinterpret_cast<uintptr_t>(bytes.data()) % 64) % 64;
    return rt::Span<uint8_t>(aligned, bytes.size() - 128);
  }
  std::vector<uint8_t> bytes;
};

// The board endpoint's port: bytes "from the host" queued up front, a fake clock that idle() advances.
class MemoryPort final : public rt::link::LinkPort {
 public:
  void lock_output() override {}
  void unlock_output() override {}
  void write(rt::Span<const uint8_t> bytes) override { written.insert(written.end(), bytes.begin(), bytes.end()); }
  int read_byte() override { return read_at < from_host.size() ? from_host[read_at++] : -1; }
  unsigned core() override { return calling_core; }
  uint64_t now_ns() override { return clock; }
  void idle() override { clock += kMilli; }
  void wake_all() override {}

  void send(rt::link::MessageKind kind, uint16_t channel, const Bytes& payload) {
    Bytes wire(rt::link::max_wire_frame_size(payload.size()));
    auto size = rt::link::encode_frame(rt::link::message_header(kind, channel, sequence++), rt::Span<const uint8_t>(payload.data(), payload.size()),
                                       rt::Span<uint8_t>(wire.data(), wire.size()));
    REQUIRE(size.is_ok());
    from_host.insert(from_host.end(), wire.begin(), wire.begin() + static_cast<long>(*size));
  }
  void send_hello() {
    Bytes payload(rt::link::kMaxPayload);
    auto size = rt::link::encode_hello(rt::link::Hello{}, rt::Span<uint8_t>(payload.data(), payload.size()));
    payload.resize(*size);
    send(rt::link::MessageKind::kHello, 0, payload);
  }
  void send_chunk(const QueueData& data, uint16_t channel = 0) {
    Bytes payload(rt::link::kMaxPayload);
    auto size = rt::link::encode_queue_data(data, rt::Span<uint8_t>(payload.data(), payload.size()));
    REQUIRE(size.is_ok());
    payload.resize(*size);
    send(rt::link::MessageKind::kInfeedData, channel, payload);
  }
  void send_tuple(const Tuple& tuple) {
    send_chunk(chunk(0, tuple.x, 0, sizeof tuple.x));
    send_chunk(chunk(1, tuple.labels, 0, sizeof tuple.labels));
  }

  Bytes from_host, written;
  size_t read_at = 0;
  uint32_t sequence = 0;
  uint64_t clock = 1;
  unsigned calling_core = 0;
};

// What the board wrote: credit totals (the last one) and error texts.
struct BoardOutput final : rt::link::FrameSink {
  void on_text(rt::Span<const uint8_t>) override {}
  void on_frame(const rt::link::FrameView& frame) override {
    if (rt::link::message_kind(frame.header) == rt::link::MessageKind::kInfeedCredits) {
      auto credits = rt::link::parse_infeed_credits(frame.payload);
      REQUIRE(credits.is_ok());
      last_credits = *credits;
      ++credit_frames;
    } else if (rt::link::message_kind(frame.header) == rt::link::MessageKind::kError) {
      auto error = rt::link::parse_error(frame.payload);
      REQUIRE(error.is_ok());
      errors.push_back(std::string(error->message.data(), error->message.size()));
    }
  }
  rt::link::InfeedCredits last_credits;
  int credit_frames = 0;
  std::vector<std::string> errors;
};

BoardOutput decode(const Bytes& written) {
  BoardOutput output;
  rt::link::Decoder decoder(output, rt::link::kMessageKinds);
  decoder.feed(rt::Span<const uint8_t>(written.data(), written.size()));
  decoder.end_of_stream();
  return output;
}

}  // namespace

TEST_CASE("an infeed buffer assembles tuples and grants credits as consumers release them", "[infeed][buffer]") {
  Storage storage(2);
  InfeedBuffer buffer;
  REQUIRE(buffer.init(0, "q", kSpecs, 2, 2, storage.span()).is_ok());
  CHECK(buffer.tuple_bytes() == 96 + 32);
  CHECK(buffer.credits().granted_tuples == 2);
  CHECK(buffer.credits().granted_bytes == 2 * 128);
  const Tuple t0 = make_tuple(0), t1 = make_tuple(1);
  REQUIRE(buffer.accept(chunk(0, t0.x, 0, 40)).is_ok());
  CHECK(buffer.complete_tuples() == 0);
  CHECK(buffer.partial_bytes() == 40);
  REQUIRE(buffer.accept(chunk(0, t0.x, 40, 56)).is_ok());
  REQUIRE(buffer.accept(chunk(1, t0.labels, 0, 32)).is_ok());
  CHECK(buffer.complete_tuples() == 1);
  REQUIRE(feed_tuple(buffer, t1).is_ok());
  CHECK(buffer.complete_tuples() == 2);
  CHECK(std::memcmp(buffer.element(0, 0).data, t0.x, sizeof t0.x) == 0);
  CHECK(std::memcmp(buffer.element(1, 1).data, t1.labels, sizeof t1.labels) == 0);
  CHECK(reinterpret_cast<uintptr_t>(buffer.element(1, 1).data) % 64 == 0);

  // A third tuple needs slot 0, which consumer 1 still holds.
  buffer.release(0);
  CHECK(buffer.credits().granted_tuples == 2);
  const rt::Status beyond = buffer.accept(chunk(0, t0.x, 0, 96));
  CHECK(beyond.code() == rt::StatusCode::kResourceExhausted);
  CHECK(message(beyond) == "infeed queue 'q' (link queue 0): the host sent tuple 2 beyond its credits (2 tuples granted)");
  CHECK(buffer.failed());
  CHECK(message(buffer.failure()) == message(beyond));
}

// A host with shared memory writes a tuple straight into its slot (storage + (t % slots) * slot_bytes,
// each element at its offset) and then names the tuple: the buffer takes it only as the next tuple,
// not after a partial one, and within the credits.
TEST_CASE("tuples placed straight into their slots are taken in order and within the credits", "[infeed][buffer]") {
  Storage storage(2);
  InfeedBuffer buffer;
  REQUIRE(buffer.init(0, "q", kSpecs, 2, 1, storage.span()).is_ok());
  // x takes 96 bytes; labels start at the next 64-byte boundary (128) and take 32; slots are 64-aligned.
  CHECK(buffer.element_offset(1) == 128);
  CHECK(buffer.slot_bytes() == 192);
  const Tuple t0 = make_tuple(0), t1 = make_tuple(1), t2 = make_tuple(2);
  auto place = [&](uint64_t tuple, const Tuple& data) {  // what the host does, from the published layout
    uint8_t* slot = const_cast<uint8_t*>(buffer.storage()) + (tuple % 2) * buffer.slot_bytes();
    std::memcpy(slot + buffer.element_offset(0), data.x, sizeof data.x);
    std::memcpy(slot + buffer.element_offset(1), data.labels, sizeof data.labels);
  };
  place(0, t0);
  REQUIRE(buffer.accept_in_place(0).is_ok());
  REQUIRE(feed_tuple(buffer, t1).is_ok());  // frames and in-place tuples mix
  CHECK(buffer.complete_tuples() == 2);
  CHECK(std::memcmp(buffer.element(0, 0).data, t0.x, sizeof t0.x) == 0);
  CHECK(std::memcmp(buffer.element(0, 1).data, t0.labels, sizeof t0.labels) == 0);
  // Tuple 2 needs slot 0, still held by the consumer: beyond the credits.
  const rt::Status beyond = buffer.accept_in_place(2);
  CHECK(beyond.code() == rt::StatusCode::kResourceExhausted);
  CHECK(message(beyond) == "infeed queue 'q' (link queue 0): the host placed tuple 2 beyond its credits (2 tuples granted)");
  CHECK(buffer.failed());

  InfeedBuffer again;
  REQUIRE(again.init(0, "q", kSpecs, 2, 1, storage.span()).is_ok());
  const rt::Status skipped = again.accept_in_place(1);
  CHECK(skipped.code() == rt::StatusCode::kAborted);
  CHECK(message(skipped) == "infeed queue 'q' (link queue 0): the host placed tuple 1, expected tuple 0 (element 0 at byte 0)");
  REQUIRE(again.init(0, "q", kSpecs, 2, 1, storage.span()).is_ok());
  REQUIRE(again.accept(chunk(0, t2.x, 0, 40)).is_ok());
  CHECK(again.accept_in_place(0).code() == rt::StatusCode::kAborted);  // tuple 0 was begun by chunks
}

TEST_CASE("what the host says it places in memory is checked as chunks are", "[infeed][buffer]") {
  Storage storage(2);
  InfeedBuffer buffer;
  REQUIRE(buffer.init(0, "q", kSpecs, 2, 1, storage.span()).is_ok());
  const int64_t x_dims[] = {8, 3}, flat[] = {24};
  rt::link::InfeedSpec x{0, 2, 0, DType::kF32, *rt::Shape::make(x_dims)};
  REQUIRE(buffer.accept_spec(x).is_ok());
  x.dtype = DType::kI32;  // the same bytes, read as floats if it were let through
  const rt::Status dtype = buffer.accept_spec(x);
  CHECK(dtype.code() == rt::StatusCode::kInvalidArgument);
  CHECK(message(dtype) == "infeed queue 'q' (link queue 0): element 0 is float32[8, 3], the host sent int32[8, 3]");
  CHECK(buffer.failed());
  CHECK(buffer.accept_in_place(0).code() == rt::StatusCode::kInvalidArgument);  // the queue stays failed

  InfeedBuffer again;
  REQUIRE(again.init(0, "q", kSpecs, 2, 1, storage.span()).is_ok());
  CHECK(message(again.accept_spec({0, 2, 0, DType::kF32, *rt::Shape::make(flat)})) ==
        "infeed queue 'q' (link queue 0): element 0 is float32[8, 3], the host sent float32[24]");
  InfeedBuffer third;
  REQUIRE(third.init(0, "q", kSpecs, 2, 1, storage.span()).is_ok());
  CHECK(message(third.accept_spec({0, 3, 2, DType::kF32, *rt::Shape::make(x_dims)})) ==
        "infeed queue 'q' (link queue 0): the host sent a tuple of 3 elements, the queue has 2");
}

TEST_CASE("credits follow the slowest consumer", "[infeed][buffer]") {
  Storage storage(1);
  InfeedBuffer buffer;
  REQUIRE(buffer.init(3, "q", kSpecs, 1, 3, storage.span()).is_ok());
  for (int step = 0; step < 5; ++step) {
    CHECK(buffer.credits().granted_tuples == static_cast<uint32_t>(step + 1));
    REQUIRE(feed_tuple(buffer, make_tuple(step), 96).is_ok());
    CHECK(std::memcmp(buffer.element(step, 0).data, make_tuple(step).x, 96) == 0);
    for (unsigned consumer : {2u, 0u, 1u}) {
      CHECK(buffer.credits().granted_tuples == static_cast<uint32_t>(step + 1));
      buffer.release(consumer);
    }
  }
  CHECK(buffer.credits().queue == 3);
  CHECK(buffer.credits().granted_bytes == 6 * 128);
  CHECK(buffer.credits().cut_dimensions == 0);  // one board: nothing cut
  CHECK(buffer.claim_credits(6));
  CHECK_FALSE(buffer.claim_credits(6));
  CHECK_FALSE(buffer.claim_credits(5));
}

TEST_CASE("a pod's board names each element's cut dimension in its credits", "[infeed][buffer]") {
  InfeedElementSpec specs[] = {{DType::kF32, shape({8, 3})}, {DType::kI32, shape({2, 4, 2})}};
  specs[0].pod_cut_dimension = 1;
  specs[1].pod_cut_dimension = 2;
  Storage storage(1);
  InfeedBuffer buffer;
  REQUIRE(buffer.init(0, "q", specs, 1, 1, storage.span()).is_ok());
  const uint32_t cut = buffer.credits().cut_dimensions;
  CHECK(cut == 0x21);
  CHECK(rt::link::infeed_cut_dimension(cut, 0) == 1);
  CHECK(rt::link::infeed_cut_dimension(cut, 1) == 2);
}

TEST_CASE("a broken infeed stream fails the queue with a clear reason", "[infeed][buffer]") {
  Storage storage(2);
  const Tuple t = make_tuple(0);
  InfeedBuffer buffer;

  REQUIRE(buffer.init(0, "q", kSpecs, 2, 1, storage.span()).is_ok());
  CHECK(message(buffer.accept(chunk(0, t.x, 0, 96, 3))) ==
        "infeed queue 'q' (link queue 0): the host sent a tuple of 3 elements, the queue has 2");

  REQUIRE(buffer.init(0, "q", kSpecs, 2, 1, storage.span()).is_ok());
  REQUIRE(buffer.accept(chunk(0, t.x, 0, 40)).is_ok());
  const rt::Status lost = buffer.accept(chunk(0, t.x, 80, 16));
  CHECK(lost.code() == rt::StatusCode::kAborted);
  CHECK(message(lost) == "infeed queue 'q' (link queue 0), tuple 0: a chunk of element 0 at byte 80 arrived, expected "
                         "element 0 at byte 40 (a frame from the host was lost)");
  CHECK(message(buffer.accept(chunk(0, t.x, 40, 56))) == message(lost));  // sticky

  REQUIRE(buffer.init(0, "q", kSpecs, 2, 1, storage.span()).is_ok());
  QueueData wrong = chunk(0, t.x, 0, 96);
  wrong.chunk.shape = shape({4, 6});
  CHECK(message(buffer.accept(wrong)) == "infeed queue 'q' (link queue 0): element 0 is float32[8, 3], the host sent float32[4, 6]");

  REQUIRE(buffer.init(0, "q", kSpecs, 2, 1, storage.span()).is_ok());
  CHECK(!buffer.failed());
  REQUIRE(feed_tuple(buffer, t).is_ok());

  InfeedBuffer small;
  CHECK(message(small.init(0, "q", kSpecs, 2, 1, rt::Span<uint8_t>(storage.span().data(), 100)))
            .starts_with("infeed queue 'q' needs 384 bytes of 64-byte aligned storage, got 100 at 0x"));
  CHECK(small.init(0, "q", kSpecs, 0, 1, storage.span()).code() == rt::StatusCode::kInvalidArgument);
  CHECK(small.init(0, "q", kSpecs, 2, 17, storage.span()).code() == rt::StatusCode::kInvalidArgument);
}

TEST_CASE("random infeed chunks never write outside the buffer", "[infeed][buffer][fuzz]") {
  std::mt19937 random(5);
  Storage storage(3);
  const size_t used = storage.span().size();
  uint8_t source[4096];
  for (uint8_t& byte : source) byte = static_cast<uint8_t>(random());
  for (int round = 0; round < 300; ++round) {
    InfeedBuffer buffer;
    REQUIRE(buffer.init(0, "q", kSpecs, 3, 2, storage.span()).is_ok());
    for (int i = 0; i < 40; ++i) {
      QueueData data;
      data.element_count = static_cast<uint8_t>(1 + random() % 3);
      data.element_index = static_cast<uint8_t>(random() % 3);
      data.chunk.dtype = random() % 2 ? DType::kF32 : DType::kI32;
      data.chunk.shape = random() % 2 ? shape({8, 3}) : shape({8});
      const uint64_t total = *rt::link::tensor_byte_size(data.chunk.dtype, data.chunk.shape);
      data.chunk.offset = random() % (total + 1);
      const size_t size = random() % (total - data.chunk.offset + 1);
      data.chunk.data = rt::Span<const uint8_t>(source, size);
      (void)buffer.accept(data);
      if (random() % 4 == 0) buffer.release(random() % 2);
    }
  }
  const uint8_t* guard = storage.span().data() + used;
  for (const uint8_t* p = guard; p < storage.bytes.data() + storage.bytes.size(); ++p) REQUIRE(*p == 0xEE);
}

TEST_CASE("shards are row blocks of the full tensor", "[infeed][dequeue]") {
  float full[24];
  for (int i = 0; i < 24; ++i) full[i] = static_cast<float>(i);
  const rt::Tensor source = rt::Tensor::contiguous(DType::kF32, shape({8, 3}), full);
  float out[6] = {};
  const rt::Tensor shard = rt::Tensor::contiguous(DType::kF32, shape({2, 3}), out);
  REQUIRE(rt::tpu::copy_infeed_shard(source, 0, 4, 3, shard).is_ok());
  CHECK(std::vector<float>(out, out + 6) == std::vector<float>{18, 19, 20, 21, 22, 23});

  float columns[8] = {};
  const rt::Tensor column_shard = rt::Tensor::contiguous(DType::kF32, shape({8, 1}), columns);
  REQUIRE(rt::tpu::copy_infeed_shard(source, 1, 3, 2, column_shard).is_ok());
  CHECK(std::vector<float>(columns, columns + 8) == std::vector<float>{2, 5, 8, 11, 14, 17, 20, 23});
}

TEST_CASE("replicas dequeue their shards of tuples the host streamed over the link", "[infeed][dequeue]") {
  MemoryPort port;
  rt::link::BoardIdentity identity;
  identity.board = "memory";
  identity.app = "infeed";
  identity.cores = 4;
  identity.mesh_shape[3] = 4;
  rt::link::Endpoint endpoint(port, identity);
  port.send_hello();
  REQUIRE(endpoint.wait_for_host(10 * kMilli, "test").is_ok());

  const rt::DType types[] = {DType::kF32, DType::kI32};
  const Shape shapes[] = {shape({8, 3}), shape({8})};
  rt::tpu::InfeedQueueArgs args;
  args.tuple_types = types;
  args.tuple_shapes = shapes;
  rt::tpu::InfeedQueue queue = *rt::tpu::InfeedQueue::create(args);
  REQUIRE(queue.set_number_of_shards(4).is_ok());
  std::vector<uint8_t> memory(1 << 16);
  rt::Arena arena(0, memory.data(), memory.size());
  rt::tpu::InfeedDequeue infeed;
  REQUIRE(infeed.open(queue, arena, {.link_queue = 0, .slots = 2, .timeout_ns = 50 * kMilli, .endpoint = &endpoint}).is_ok());
  CHECK(infeed.binding().number_of_tuple_elements == 2);
  CHECK(decode(port.written).last_credits.granted_tuples == 2);

  port.send_tuple(make_tuple(0));
  port.send_tuple(make_tuple(1));
  for (int step = 0; step < 2; ++step)
    for (unsigned replica = 0; replica < 4; ++replica) {
      port.calling_core = replica;
      rt::Tensor tuple[2];
      REQUIRE(infeed.binding().dequeue(replica, tuple, arena).is_ok());
      REQUIRE(tuple[0].shape.dims[0] == 2);
      REQUIRE(tuple[1].shape.dims[0] == 2);
      const Tuple expected = make_tuple(step);
      CHECK(std::memcmp(tuple[0].data, expected.x + replica * 6, 24) == 0);
      CHECK(std::memcmp(tuple[1].data, expected.labels + replica * 2, 8) == 0);
    }
  const BoardOutput output = decode(port.written);
  CHECK(output.last_credits.granted_tuples == 4);
  CHECK(output.last_credits.granted_bytes == 4 * 128);
  CHECK(output.errors.empty());

  // Nothing more was sent: the next dequeue times out naming the core and the queue.
  port.calling_core = 2;
  rt::Tensor tuple[2];
  const rt::Status waited = infeed.dequeue(2, tuple, arena);
  CHECK(waited.code() == rt::StatusCode::kDeadlineExceeded);
  CHECK(message(waited) == "core 2 timed out after 50 ms waiting for tuple 2 of infeed queue 'InfeedQueue' (link queue "
                           "0): 2 tuples and 0 bytes of the next arrived (is `tpu run --infeed` feeding this queue?)");
  CHECK(decode(port.written).credit_frames > 3);  // re-sent while waiting
  CHECK(message(infeed.dequeue(4, tuple, arena)) ==
        "replica 4 dequeues from infeed queue 'InfeedQueue', which is sharded 4 ways (set its number of shards to the "
        "number of replicas)");
  CHECK(message(queue.generate_dequeue_op().status()) == "Can't generate two dequeue Ops from the same queue");

  // Closing the queue sends its final credits: 2 slots + the 2 tuples consumed, marked closed.
  CHECK(decode(port.written).last_credits.closed == 0);
  infeed.close();
  const BoardOutput closed = decode(port.written);
  CHECK(closed.last_credits.closed == 1);
  CHECK(closed.last_credits.granted_tuples == 4);
  CHECK(closed.last_credits.granted_bytes == 4 * 128);
}

TEST_CASE("a bad infeed frame reaches the host as an error and the replicas as the failure", "[infeed][dequeue]") {
  MemoryPort port;
  rt::link::BoardIdentity identity;
  identity.cores = 2;
  identity.mesh_shape[3] = 2;
  rt::link::Endpoint endpoint(port, identity);
  port.send_hello();
  Storage storage(2);
  InfeedBuffer buffer;
  REQUIRE(buffer.init(1, "labels", kSpecs, 2, 1, storage.span()).is_ok());
  REQUIRE(endpoint.wait_for_host(10 * kMilli, "test").is_ok());
  REQUIRE(endpoint.attach_infeed(buffer).is_ok());
  InfeedBuffer other;
  REQUIRE(other.init(1, "other", kSpecs, 2, 1, storage.span()).is_ok());
  CHECK(message(endpoint.attach_infeed(other)) == "link queue 1 is already attached to infeed queue 'labels'");

  const Tuple t = make_tuple(0);
  QueueData unknown = chunk(0, t.x, 0, 96);
  unknown.queue = 9;
  port.send_chunk(unknown);
  QueueData mine = chunk(0, t.x, 0, 96);
  mine.queue = 1;
  port.send_chunk(mine, 3);     // wrong channel
  QueueData wrong = chunk(1, t.labels, 0, 32);
  wrong.queue = 1;
  port.send_chunk(wrong);       // element 1 before element 0
  port.send_chunk(mine);        // dropped: the queue failed
  const rt::Status status = endpoint.wait_for_infeed(buffer, 0, 20 * kMilli);
  CHECK(status.code() == rt::StatusCode::kAborted);
  const BoardOutput output = decode(port.written);
  REQUIRE(output.errors.size() == 3);
  CHECK(output.errors[0] == "infeed queue 9 is not open on the board (no credits were granted for it)");
  CHECK(output.errors[1] == "infeed data goes to channel 0 (the pod), not channel 3");
  CHECK(output.errors[2] == message(status));
  CHECK(endpoint.counters().infeed_dropped == 1);
  endpoint.detach_infeed(buffer);
  REQUIRE(endpoint.attach_infeed(other).is_ok());
}
