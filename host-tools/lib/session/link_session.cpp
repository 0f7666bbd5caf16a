// The host's link session (see link_session.hpp): frame dispatch, host-call serving, outfeed.
#include "link_session.hpp"

#include <charconv>

#include <algorithm>
#include <exception>
#include <vector>

#include "runtime/link/protocol/call_text.hpp"
#include "runtime/link/protocol/endpoint.hpp"

namespace tpu {
namespace {

using rt::StatusCode;
using rt::link::FrameView;
using rt::link::MessageKind;

constexpr size_t kMaxReplyMessage = 2000;  // error texts sent back are cut to this many bytes

std::string to_string(rt::StringView text) { return std::string(text.data(), text.size()); }
std::string to_string(const rt::Status& status) { return to_string(status.message()); }

rt::StringView view(const std::string& text) { return rt::StringView(text.data(), text.size()); }

// The shapes and byte sizes of a successful outcome's results; "" or what makes one unsendable.
std::string result_sizes(const HostCallOutcome& outcome, std::vector<rt::Shape>& shapes, std::vector<size_t>& sizes) {
  if (outcome.results.size() > 255) return "host function returned an unsendable result";
  for (const HostTensor& result : outcome.results) {
    rt::Result<rt::Shape> shape = rt::Shape::make(rt::Span<const int64_t>(result.dims.data(), result.dims.size()));
    if (!shape) return "host function returned an unsendable result";
    const rt::Result<uint64_t> bytes = rt::link::tensor_byte_size(result.dtype, *shape);
    if (!bytes || (outcome.write ? !result.bytes.empty() || *bytes > kMaxHostTensorBytes : *bytes != result.bytes.size()))
      return "host function returned " + std::to_string(result.bytes.size()) + " bytes for a " + result.describe() +
             " result";
    shapes.push_back(*shape);
    sizes.push_back(*bytes);
  }
  return "";
}

}  // namespace

LinkSession::LinkSession(SessionOutput& output, const HostFunctions& functions, OutfeedSink& outfeed,
                         std::ostream& notes)
    : output_(output), functions_(functions), outfeed_(outfeed), notes_(notes), decoder_(*this, rt::link::kMessageKinds) {}

SessionCounters LinkSession::counters() const {
  SessionCounters counters = counters_;
  counters.decoder = decoder_.counters();
  counters.decoder.add(record_counters_);
  return counters;
}

// ---------------------------------------------------------------- output

void LinkSession::send_frame(MessageKind kind, uint16_t channel, rt::Span<const uint8_t> payload) {
  const rt::link::FrameHeader header = rt::link::message_header(kind, channel, send_sequence_);
  if (output_.send_frame(header, payload)) {
    ++send_sequence_;
    return;
  }
  std::vector<uint8_t> wire(rt::link::max_wire_frame_size(payload.size()));
  rt::Result<size_t> size = rt::link::encode_frame(header, payload, rt::Span<uint8_t>(wire.data(), wire.size()),
                                                   rt::link::kMessageKinds);
  if (!size) {
    notes_ << "tpu: internal error: cannot encode a " << rt::link::message_kind_name(kind)
           << " frame: " << to_string(size.status()) << std::endl;
    return;
  }
  ++send_sequence_;
  output_.send_to_board(std::span<const uint8_t>(wire.data(), *size));
}

void LinkSession::feed_frame_body(std::span<const uint8_t> body) {
  const rt::link::FrameCheck check =
      rt::link::check_frame(rt::Span<const uint8_t>(body.data(), body.size()), rt::link::kMessageKinds,
                            rt::link::kMaxRecordPayload);
  if (check.error == rt::link::FrameError::kNone) {
    ++record_counters_.frames_ok;
    on_frame(check.frame);
    return;
  }
  record_counters_.count(check.error);
  if (!record_failure_)
    record_failure_ = "a frame from the board in shared memory failed its check (" +
                      std::string(rt::link::frame_error_name(check.error)) + ", " + std::to_string(body.size()) +
                      " bytes): the board's link ring is corrupt";
}

void LinkSession::send_hello() {
  rt::link::Hello hello;  // role host, no cores, mesh zeros
  uint8_t payload[rt::link::kMaxPayload];
  rt::Result<size_t> size = rt::link::encode_hello(hello, payload);
  if (size) send_frame(MessageKind::kHello, 0, rt::Span<const uint8_t>(payload, *size));
  size = rt::link::encode_pod_info(pod_, payload);
  if (size) send_frame(MessageKind::kPod, 0, rt::Span<const uint8_t>(payload, *size));
  hello_sent_at_ = std::chrono::steady_clock::now();
}

void LinkSession::say_hello_again_if_unanswered(std::chrono::steady_clock::time_point now,
                                                std::chrono::milliseconds interval) {
  if ((!board_ || !board_pod_place_) && now - hello_sent_at_ >= interval) send_hello();
}

std::optional<std::string> LinkSession::pod_place_mismatch() const {
  if (!board_pod_place_ || (board_pod_place_->task == pod_.task && board_pod_place_->num_tasks == pod_.num_tasks))
    return std::nullopt;
  const auto place = [](const rt::link::PodInfo& pod) {
    return "task " + std::to_string(pod.task) + " of " + std::to_string(pod.num_tasks);
  };
  return "the board is " + place(*board_pod_place_) + " (the place it took as it booted), not " + place(pod_) +
         " as tpu told it: it was running before tpu spoke; a board learns its place in a pod only as it boots, so "
         "start tpu first and then reset the board (or let tpu launch it)";
}

void LinkSession::send_error(StatusCode code, const FrameView& related, const std::string& message) {
  ++counters_.rejected;
  rt::link::ErrorMessage error;
  error.code = code == StatusCode::kOk ? StatusCode::kInternal : code;
  error.related_kind = related.header.kind;
  error.related_sequence = related.header.sequence;
  const std::string text = message.substr(0, kMaxReplyMessage);
  error.message = view(text);
  uint8_t payload[rt::link::kMaxPayload];
  rt::Result<size_t> size = rt::link::encode_error(error, payload);
  if (size) send_frame(MessageKind::kError, related.header.channel, rt::Span<const uint8_t>(payload, *size));
}

void LinkSession::print_console(std::string_view text) {
  tail_.add(text);
  output_.console(text);
}

// ---------------------------------------------------------------- input

void LinkSession::on_text(rt::Span<const uint8_t> text) {
  print_console(std::string_view(reinterpret_cast<const char*>(text.data()), text.size()));
}

void LinkSession::on_frame(const FrameView& frame) {
  if (expected_board_sequence_ && frame.header.sequence != *expected_board_sequence_) ++counters_.sequence_gaps;
  expected_board_sequence_ = frame.header.sequence + 1;
  switch (rt::link::message_kind(frame.header)) {
    case MessageKind::kHello: return on_hello(frame);
    case MessageKind::kPod: return on_pod_place(frame);
    case MessageKind::kLog: return on_log(frame);
    case MessageKind::kHostCallRequest: return on_request(frame);
    case MessageKind::kHostCallArgumentInPlace: return on_request_in_place(frame);
    case MessageKind::kOutfeedData: return on_outfeed(frame);
    case MessageKind::kResult: return on_result(frame);
    case MessageKind::kError: return on_board_error(frame);
    case MessageKind::kTrace: ++counters_.trace_frames; return;
    case MessageKind::kInfeedCredits: return on_credits(frame);
    default:
      send_error(StatusCode::kInvalidArgument, frame,
                 std::string("the host does not accept ") + rt::link::message_kind_name(rt::link::message_kind(frame.header)) + " messages");
  }
}

bool LinkSession::channel_ok(const FrameView& frame) {
  const unsigned cores = board_ ? board_->cores : rt::link::kMaxLinkCores;
  if (frame.header.channel < cores) return true;
  send_error(StatusCode::kInvalidArgument, frame,
             "channel " + std::to_string(frame.header.channel) + " names no core (the board has " +
                 std::to_string(cores) + ")");
  return false;
}

void LinkSession::on_hello(const FrameView& frame) {
  rt::Result<rt::link::Hello> hello = rt::link::parse_hello(frame.payload);
  if (!hello) return send_error(hello.status().code(), frame, to_string(hello.status()));
  if (hello->role != rt::link::PeerRole::kBoard) return send_error(StatusCode::kInvalidArgument, frame, "a host hello sent to the host");
  BoardInfo info{to_string(hello->board), to_string(hello->app), hello->core_count, {}, hello->max_payload};
  for (unsigned i = 0; i < 4; ++i) info.mesh_shape[i] = hello->mesh_shape[i];
  if (board_ && frame.header.sequence == 0) {  // a board's first frame: it restarted, and must hear us again
    notes_ << "tpu: the board said hello from the start again (it restarted); saying hello to it again" << std::endl;
    board_pod_place_.reset();
    send_hello();
  } else if (board_ == info) {
    return;  // its answer to a hello said again (say_hello_again_if_unanswered)
  }
  notes_ << "tpu: link up: board " << info.board << ", app " << info.app << ", " << info.cores << " cores, mesh ["
         << info.mesh_shape[0] << ", " << info.mesh_shape[1] << ", " << info.mesh_shape[2] << ", " << info.mesh_shape[3]
         << "]" << std::endl;
  board_ = std::move(info);
}

void LinkSession::on_pod_place(const FrameView& frame) {
  rt::Result<rt::link::PodInfo> place = rt::link::parse_pod_info(frame.payload);
  if (!place) return send_error(place.status().code(), frame, to_string(place.status()));
  board_pod_place_ = *place;
}

void LinkSession::on_log(const FrameView& frame) {
  rt::Result<rt::link::LogMessage> log = rt::link::parse_log(frame.payload);
  if (!log) return send_error(log.status().code(), frame, to_string(log.status()));
  print_console("[c" + std::to_string(frame.header.channel) + " " + log->level + "] " + to_string(log->text) + "\n");
}

void LinkSession::on_result(const FrameView& frame) {
  rt::Result<rt::link::CallMessage> result = rt::link::parse_call(MessageKind::kResult, frame.payload);
  if (!result) return send_error(result.status().code(), frame, to_string(result.status()));
  if (!channel_ok(frame)) return;
  results_[frame.header.channel] = CoreResult{result->status, to_string(result->text)};
}

void LinkSession::on_board_error(const FrameView& frame) {
  ++counters_.board_errors;
  rt::Result<rt::link::ErrorMessage> error = rt::link::parse_error(frame.payload);
  if (!error) {
    notes_ << "tpu: the board sent an unreadable error frame: " << to_string(error.status()) << std::endl;
    return;  // never answer an error with an error
  }
  const rt::link::MessageKind about = static_cast<MessageKind>(error->related_kind);
  notes_ << "tpu: the board reports on channel " << frame.header.channel << ": " << rt::status_code_name(error->code)
         << ": " << to_string(error->message);
  if (error->related_kind != 0)
    notes_ << " (about our " << rt::link::message_kind_name(about) << " frame #" << error->related_sequence << ")";
  notes_ << std::endl;
}

void LinkSession::on_credits(const FrameView& frame) {
  rt::Result<rt::link::InfeedCredits> credits = rt::link::parse_infeed_credits(frame.payload);
  if (!credits) return send_error(credits.status().code(), frame, to_string(credits.status()));
  if (credit_listener_) credit_listener_(frame.header.channel, *credits);
}

// ---------------------------------------------------------------- host calls

void LinkSession::on_request(const FrameView& frame) {
  rt::Result<rt::link::CallMessage> request = rt::link::parse_call(MessageKind::kHostCallRequest, frame.payload);
  if (!request) return send_error(request.status().code(), frame, to_string(request.status()));
  if (!channel_ok(frame)) return;
  accept_request(frame.header.channel, *request);
}

// An argument the board left in its memory (shared memory; the board keeps it until the reply): a
// function that reads board memory gets it where it lies; for any other, read it now and take it as
// the argument's one chunk.
void LinkSession::on_request_in_place(const FrameView& frame) {
  rt::Result<rt::link::InPlaceArgument> argument = rt::link::parse_in_place_argument(frame.payload);
  if (!argument) return send_error(argument.status().code(), frame, to_string(argument.status()));
  if (!channel_ok(frame)) return;
  const rt::Result<uint64_t> size = rt::link::tensor_byte_size(argument->dtype, argument->shape);
  const bool view = functions_.reads_board_memory(to_string(rt::link::split_call_text(argument->text).function));
  std::optional<std::span<const uint8_t>> in_board;
  std::optional<std::vector<uint8_t>> bytes;
  if (size && view) {
    in_board = output_.view_board_memory(argument->address, *size);
    if (in_board) bytes.emplace();
  } else if (size) {
    bytes = output_.read_board_memory(argument->address, *size);
  }
  if (!bytes) {
    requests_.erase(frame.header.channel);
    const std::string argument_name =
        "argument " + std::to_string(argument->tensor_index) + " of host call " + std::to_string(argument->id);
    return send_reply(frame.header.channel, argument->id,
                      size ? HostCallOutcome::error(StatusCode::kInvalidArgument,
                                                    argument_name + " is not in board memory the host can read")
                           : HostCallOutcome::error(size.status().code(),
                                                    argument_name + ": " + to_string(size.status())));
  }
  rt::link::CallMessage request;
  request.id = argument->id;
  request.replica = argument->replica;
  request.tensor_count = argument->tensor_count;
  request.tensor_index = argument->tensor_index;
  request.text = argument->text;
  request.chunk.dtype = argument->dtype;
  request.chunk.shape = argument->shape;
  request.chunk.offset = 0;
  request.chunk.data = rt::Span<const uint8_t>(bytes->data(), bytes->size());
  accept_request(frame.header.channel, request, in_board);
}

void LinkSession::accept_request(unsigned core, const rt::link::CallMessage& request,
                                 std::optional<std::span<const uint8_t>> in_board) {
  if (request.tensor_count == 0) return serve(core, request.id, request.replica, to_string(request.text), {});

  const bool starts_call = request.tensor_index == 0 && request.chunk.offset == 0;
  auto pending = requests_.find(core);
  if (starts_call) {
    if (pending != requests_.end())
      notes_ << "tpu: core " << core << " started host call " << request.id << " before call " << pending->second.id
             << " was complete (a frame was lost); the older call is dropped" << std::endl;
    pending = requests_.insert_or_assign(core, PendingRequest{request.id, request.replica, to_string(request.text),
                                                              ChunkAssembler(request.tensor_count)}).first;
  } else if (pending == requests_.end() || pending->second.id != request.id ||
             pending->second.arguments.tensor_count() != request.tensor_count) {
    return send_reply(core, request.id,
                      HostCallOutcome::error(StatusCode::kAborted, "a chunk of host call " + std::to_string(request.id) +
                                                                       " arrived without the start of the call (a frame was lost)"));
  }
  const std::string problem = in_board ? pending->second.arguments.add_described(request.tensor_index, request.chunk)
                                       : pending->second.arguments.add(request.tensor_index, request.chunk);
  if (in_board && problem.empty()) {
    pending->second.in_board.resize(request.tensor_count);
    pending->second.in_board[request.tensor_index] = *in_board;
  }
  if (!problem.empty()) {
    requests_.erase(pending);
    return send_reply(core, request.id,
                      HostCallOutcome::error(StatusCode::kAborted, "host call " + std::to_string(request.id) +
                                                                       " argument: " + problem));
  }
  if (!pending->second.arguments.complete()) return;
  PendingRequest done = std::move(pending->second);
  requests_.erase(pending);
  serve(core, done.id, done.replica, done.text, done.arguments.take(), std::move(done.in_board));
}

void LinkSession::serve(unsigned core, uint32_t id, uint16_t replica, const std::string& text,
                        std::vector<HostTensor> arguments, std::vector<std::span<const uint8_t>> in_board) {
  const rt::link::CallText split = rt::link::split_call_text(view(text));
  if (to_string(split.function) == rt::link::kOutfeedFunction) return serve_outfeed(core, id, to_string(split.argument), arguments);
  ++counters_.host_calls;
  HostCallRequest request{core, id, to_string(split.function), to_string(split.argument), std::move(arguments)};
  if (replica != rt::link::kNoReplica) request.replica = replica;
  request.in_board = std::move(in_board);
  const std::string function = request.function;
  const std::optional<unsigned> caller = request.replica;
  try {  // the reply comes now, or later for a function the host-function worker runs
    functions_.call(std::move(request), [this, core, id, function, caller](const HostCallOutcome& outcome) {
      if (outcome.code != StatusCode::kOk && !function.starts_with('.'))  // not tpu's own (".pod", ...)
        remember_host_error({function, core, caller, id, outcome.code, outcome.message});
      send_reply(core, id, outcome);
    });
  } catch (const std::exception& error) {
    send_reply(core, id, HostCallOutcome::error(StatusCode::kInternal, "host function '" + function + "' failed: " + error.what()));
  }
}

void LinkSession::remember_host_error(HostFunctionError error) {
  constexpr size_t kKeptHostErrors = 8;
  error.message = error.message.substr(0, kMaxReplyMessage);  // what the board was sent
  if (host_errors_.size() == kKeptHostErrors) host_errors_.erase(host_errors_.begin());
  host_errors_.push_back(std::move(error));
}

// Matched by code and the message's start: the board keeps a shorter status than a host may send, and
// an app may put words of its own before it.
const HostFunctionError* LinkSession::host_error_behind(const CoreResult& failure) const {
  constexpr size_t kMatchedCharacters = 80;
  for (auto error = host_errors_.rbegin(); error != host_errors_.rend(); ++error)
    if (error->code == failure.code && !error->message.empty() &&
        failure.message.find(error->message.substr(0, kMatchedCharacters)) != std::string::npos)
      return &*error;
  return nullptr;
}

size_t LinkSession::max_send_payload() const {
  const size_t board = board_ ? board_->max_payload : rt::link::kMaxPayload;
  return std::min(board, output_.max_frame_payload());
}

// A result tpu could not encode: the board gets an error reply at once (not a timeout), and the user
// a note.
void LinkSession::send_unsendable(unsigned core, uint32_t id, size_t result, const rt::Status& why) {
  const std::string reason = "tpu cannot send result " + std::to_string(result) + " of host call " + std::to_string(id) +
                             ": " + to_string(why);
  notes_ << "tpu: " << reason << std::endl;
  send_reply(core, id, HostCallOutcome::error(StatusCode::kInternal, reason));
}

void LinkSession::send_reply(unsigned core, uint32_t id, const HostCallOutcome& outcome) {
  std::vector<uint8_t> payload_buffer(max_send_payload());
  const rt::Span<uint8_t> payload(payload_buffer.data(), payload_buffer.size());
  rt::link::CallMessage reply;
  reply.id = id;
  reply.status = outcome.code;
  const std::string message = outcome.message.substr(0, kMaxReplyMessage);
  if (outcome.code != StatusCode::kOk || outcome.results.empty()) {
    reply.text = view(message);
    rt::Result<size_t> size = rt::link::encode_call(MessageKind::kHostCallReply, reply, payload);
    if (size) send_frame(MessageKind::kHostCallReply, static_cast<uint16_t>(core), payload.subspan(0, *size));
    return;
  }
  std::vector<rt::Shape> shapes;
  std::vector<size_t> sizes;
  if (const std::string unsendable = result_sizes(outcome, shapes, sizes); !unsendable.empty())
    return send_reply(core, id, HostCallOutcome::error(StatusCode::kInternal, unsendable));
  reply.tensor_count = static_cast<uint8_t>(outcome.results.size());
  const std::vector<bool> placed =
      output_.place_results(core, id, sizes, [&outcome](size_t i, std::span<uint8_t> destination) {
        if (outcome.write) return outcome.write(i, destination);
        if (!destination.empty()) std::memcpy(destination.data(), outcome.results[i].bytes.data(), destination.size());
      });
  std::vector<uint8_t> written;  // a result `write` fills that has no place in board memory: sent in frames
  for (size_t i = 0; i < outcome.results.size(); ++i) {
    const HostTensor& result = outcome.results[i];
    std::span<const uint8_t> result_bytes(result.bytes.data(), result.bytes.size());
    reply.tensor_index = static_cast<uint8_t>(i);
    reply.chunk.dtype = result.dtype;
    reply.chunk.shape = shapes[i];
    if (i < placed.size() && placed[i]) {  // the bytes are in place: say so
      const rt::link::InPlaceResult in_place{id, reply.tensor_count, reply.tensor_index, result.dtype, shapes[i]};
      rt::Result<size_t> encoded = rt::link::encode_in_place_result(in_place, payload);
      if (!encoded) return send_unsendable(core, id, i, encoded.status());
      send_frame(MessageKind::kHostCallReplyInPlace, static_cast<uint16_t>(core), payload.subspan(0, *encoded));
      continue;
    }
    if (outcome.write) {
      written.assign(sizes[i], 0);
      outcome.write(i, std::span<uint8_t>(written.data(), written.size()));
      result_bytes = std::span<const uint8_t>(written.data(), written.size());
    }
    const rt::Span<const uint8_t> bytes(result_bytes.data(), result_bytes.size());
    const size_t step = rt::link::max_chunk_data(reply, payload.size());
    const rt::Status sent = rt::link::for_each_chunk(bytes, step, reply.chunk, [&]() -> rt::Status {
      rt::Result<size_t> encoded = rt::link::encode_call(MessageKind::kHostCallReply, reply, payload);
      if (!encoded) return encoded.status();
      send_frame(MessageKind::kHostCallReply, static_cast<uint16_t>(core), payload.subspan(0, *encoded));
      return rt::Status::ok();
    });
    if (!sent.is_ok()) return send_unsendable(core, id, i, sent);
  }
}

// ---------------------------------------------------------------- outfeed

// An outfeed tuple the board left in place (message.hpp, "Outfeed in place"): deliver it, then
// acknowledge so the board may reuse the tensors.
void LinkSession::serve_outfeed(unsigned core, uint32_t id, const std::string& queue_text, const std::vector<HostTensor>& tuple) {
  uint16_t queue = 0;
  const auto parsed = std::from_chars(queue_text.data(), queue_text.data() + queue_text.size(), queue);
  if (parsed.ec != std::errc() || parsed.ptr != queue_text.data() + queue_text.size())
    return send_reply(core, id, HostCallOutcome::error(StatusCode::kInvalidArgument,
                                                       "outfeed in place needs a queue number, got '" + queue_text + "'"));
  outfeed_.deliver(core, queue, tuple);
  send_reply(core, id, HostCallOutcome::ok());
}

void LinkSession::on_outfeed(const FrameView& frame) {
  rt::Result<rt::link::QueueData> data = rt::link::parse_queue_data(frame.payload);
  if (!data) return send_error(data.status().code(), frame, to_string(data.status()));
  if (!channel_ok(frame)) return;
  const unsigned core = frame.header.channel;
  const std::pair<unsigned, uint16_t> key{core, data->queue};
  const std::string where = "tpu: outfeed core " + std::to_string(core) + " queue " + std::to_string(data->queue) + ": ";
  auto pending = tuples_.find(key);
  if (data->element_index == 0 && data->chunk.offset == 0) {
    if (pending != tuples_.end()) {
      ++counters_.outfeed_dropped;
      notes_ << where << "a new tuple began before the last one was complete (a frame was lost); it is dropped" << std::endl;
    }
    pending = tuples_.insert_or_assign(key, PendingTuple{data->element_count, ChunkAssembler(data->element_count)}).first;
  } else if (pending == tuples_.end() || pending->second.element_count != data->element_count) {
    ++counters_.outfeed_dropped;
    notes_ << where << "a chunk arrived without the start of its tuple (a frame was lost); dropped" << std::endl;
    return;
  }
  const std::string problem = pending->second.elements.add(data->element_index, data->chunk);
  if (!problem.empty()) {
    ++counters_.outfeed_dropped;
    notes_ << where << problem << "; the tuple is dropped" << std::endl;
    tuples_.erase(pending);
    return;
  }
  if (!pending->second.elements.complete()) return;
  std::vector<HostTensor> tuple = pending->second.elements.take();
  tuples_.erase(pending);
  outfeed_.deliver(core, data->queue, tuple);
}

}  // namespace tpu
