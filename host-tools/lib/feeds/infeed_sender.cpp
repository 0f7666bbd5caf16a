// Streaming infeed datasets against the board's credits (see infeed_sender.hpp).
#include "infeed_sender.hpp"

#include <algorithm>
#include <cstdio>

namespace tpu {
namespace {

using rt::link::MessageKind;

double seconds_between(InfeedSender::Clock::time_point from, InfeedSender::Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

std::string rate_text(uint64_t tuples, uint64_t bytes, double seconds) {
  char text[96];
  if (seconds <= 0) seconds = 1e-9;
  std::snprintf(text, sizeof text, "%.1f tuples/s, %.3f MB/s", tuples / seconds, bytes / seconds / 1e6);
  return text;
}

}  // namespace

InfeedSender::InfeedSender(std::vector<InfeedDataset> datasets, SendFrame send, std::ostream& notes)
    : send_(std::move(send)), notes_(notes) {
  for (InfeedDataset& dataset : datasets) {
    Queue queue;
    queue.dataset = std::move(dataset);
    queues_.push_back(std::move(queue));
  }
}

uint64_t InfeedSender::Queue::consumed() const {
  return granted && granted_tuples > first_grant ? granted_tuples - first_grant : 0;
}

InfeedSender::Queue* InfeedSender::find(uint16_t queue) {
  for (Queue& q : queues_)
    if (q.dataset.queue() == queue) return &q;
  return nullptr;
}

const InfeedDataset* InfeedSender::dataset(uint16_t queue) const {
  for (const Queue& q : queues_)
    if (q.dataset.queue() == queue) return &q.dataset;
  return nullptr;
}

uint64_t InfeedSender::tuples_sent(uint16_t queue) const {
  for (const Queue& q : queues_)
    if (q.dataset.queue() == queue) return q.sent_tuples;
  return 0;
}

uint64_t InfeedSender::tuples_consumed(uint16_t queue) const {
  for (const Queue& q : queues_)
    if (q.dataset.queue() == queue) return q.consumed();
  return 0;
}

void InfeedSender::note_once(unsigned& count, const std::string& text) {
  ++ignored_credits_;
  if (count++ == 0) notes_ << "tpu: infeed: " << text << " (ignored; further ones are not shown)" << std::endl;
}

// ---------------------------------------------------------------- credits

void InfeedSender::on_credits(unsigned channel, const rt::link::InfeedCredits& credits) {
  if (channel != 0)
    return note_once(wrong_channel_notes_, "infeed credits arrived on channel " + std::to_string(channel) +
                                               ", they belong on channel 0");
  Queue* queue = find(credits.queue);
  if (queue == nullptr)
    return note_once(unknown_queue_notes_, "the board grants credits for infeed queue " + std::to_string(credits.queue) +
                                               ", which has no --infeed dataset");
  if (!queue->granted) {
    queue->granted = true;
    queue->first_grant = credits.granted_tuples;
    if (const std::optional<InfeedDataset::PodPart> part = queue->dataset.pod_part()) {
      std::vector<unsigned> cut;
      for (size_t e = 0; e < queue->dataset.elements().size(); ++e)
        cut.push_back(rt::link::infeed_cut_dimension(credits.cut_dimensions, static_cast<unsigned>(e)));
      std::string error;
      if (!queue->dataset.split_for_board(part->board, part->boards, error, cut)) {
        queue->failed = true;
        if (!fatal_error_) fatal_error_ = "infeed queue " + std::to_string(credits.queue) + ": " + error;
        return;
      }
    }
    const uint64_t tuple = queue->dataset.tuple_bytes();
    if (credits.granted_tuples != 0 && credits.granted_bytes != credits.granted_tuples * tuple)
      notes_ << "tpu: infeed queue " << credits.queue << ": the board's credits (" << credits.granted_tuples
             << " tuples, " << credits.granted_bytes << " bytes) do not match the dataset's tuples of " << tuple
             << " bytes (" << queue->dataset.describe() << "); the first tuple is sent anyway so the board can say why"
             << std::endl;
  } else if (credits.granted_tuples < queue->granted_tuples || credits.granted_bytes < queue->granted_bytes) {
    ++ignored_credits_;  // late or reordered: totals only grow
  }
  queue->granted_tuples = std::max<uint64_t>(queue->granted_tuples, credits.granted_tuples);
  queue->granted_bytes = std::max<uint64_t>(queue->granted_bytes, credits.granted_bytes);
  if (credits.closed != 0) queue->closed = true;
  if (!queue->all_consumed && queue->sent_tuples == queue->dataset.steps() && queue->consumed() >= queue->dataset.steps())
    queue->all_consumed = Clock::now();
}

// ---------------------------------------------------------------- sending

// A step that cannot be read any more (or sent) ends the queue: nothing more is sent, and the board,
// waiting for the tuple, times out naming the queue.
void InfeedSender::fail(Queue& queue, const std::string& error) {
  queue.failed = true;
  notes_ << "tpu: infeed queue " << queue.dataset.queue() << ": " << error << "; the queue sends nothing more"
         << std::endl;
}

bool InfeedSender::may_send(const Queue& queue) const {
  if (queue.failed || queue.closed || !queue.granted || queue.sent_tuples >= queue.dataset.steps() || queue.sent_tuples >= queue.granted_tuples)
    return false;
  const uint64_t tuple = queue.dataset.tuple_bytes();
  return queue.sent_tuples == 0 || queue.sent_bytes + tuple <= queue.granted_bytes;
}

std::string InfeedSender::send_element(const Queue& queue, size_t element, rt::Span<const uint8_t> data) {
  const InfeedElement& spec = queue.dataset.elements()[element];
  rt::link::QueueData message;
  message.queue = queue.dataset.queue();
  message.element_count = static_cast<uint8_t>(queue.dataset.elements().size());
  message.element_index = static_cast<uint8_t>(element);
  message.chunk.dtype = spec.dtype;
  message.chunk.shape = spec.shape;
  std::vector<uint8_t> payload(payload_limit_ ? payload_limit_() : rt::link::kMaxPayload);
  const rt::Span<uint8_t> out(payload.data(), payload.size());
  const rt::Status sent = rt::link::for_each_chunk(
      data, rt::link::max_chunk_data(message, payload.size()), message.chunk, [&]() -> rt::Status {
        rt::Result<size_t> encoded = rt::link::encode_queue_data(message, out);
        if (!encoded) return encoded.status();
        send_(MessageKind::kInfeedData, 0, rt::Span<const uint8_t>(payload.data(), *encoded));
        return rt::Status::ok();
      });
  return sent.is_ok() ? "" : std::string("cannot encode a chunk: ") + sent.c_str();
}

bool InfeedSender::place_tuple(Queue& queue, uint64_t step) {
  if (!placer_) return false;
  std::vector<uint64_t> element_bytes;
  for (const InfeedElement& element : queue.dataset.elements()) element_bytes.push_back(element.step_bytes);
  std::string error;
  const auto fill = [&](size_t element, std::span<uint8_t> destination) {
    return queue.dataset.read_step(step, element, destination, error);
  };
  if (!placer_(queue.dataset.queue(), step, element_bytes, fill)) return false;
  if (!error.empty()) {
    fail(queue, error);
    return true;
  }
  if (!queue.spec_sent) send_spec(queue);
  uint8_t payload[32];
  rt::Result<size_t> encoded = rt::link::encode_infeed_in_place({queue.dataset.queue(), step}, payload);
  if (!encoded) {
    notes_ << "tpu: infeed queue " << queue.dataset.queue() << ": " << encoded.status().c_str() << std::endl;
    return true;  // its bytes are in place; the board will time out waiting for the tuple and say so
  }
  send_(MessageKind::kInfeedInPlace, 0, rt::Span<const uint8_t>(payload, *encoded));
  return true;
}

// Placed bytes carry no dtype: the board is told what each element of the file is before the first
// tuple, and checks it as it checks a chunk (a file of int32[8, 3] for float32[8, 3] is refused
// there, not read as floats).
void InfeedSender::send_spec(Queue& queue) {
  queue.spec_sent = true;
  const std::vector<InfeedElement>& elements = queue.dataset.elements();
  for (size_t element = 0; element < elements.size(); ++element) {
    rt::link::InfeedSpec spec;
    spec.queue = queue.dataset.queue();
    spec.element_count = static_cast<uint8_t>(elements.size());
    spec.element_index = static_cast<uint8_t>(element);
    spec.dtype = elements[element].dtype;
    spec.shape = elements[element].shape;
    uint8_t payload[256];
    const rt::Result<size_t> encoded = rt::link::encode_infeed_spec(spec, payload);
    if (!encoded) {
      notes_ << "tpu: infeed queue " << spec.queue << ": " << encoded.status().c_str() << std::endl;
      continue;
    }
    send_(MessageKind::kInfeedSpec, 0, rt::Span<const uint8_t>(payload, *encoded));
  }
}

void InfeedSender::send_tuple(Queue& queue) {
  const uint64_t step = queue.sent_tuples;
  if (!place_tuple(queue, step))
    for (size_t element = 0; element < queue.dataset.elements().size() && !queue.failed; ++element) {
      step_bytes_.resize(queue.dataset.elements()[element].step_bytes);
      std::string error;
      if (queue.dataset.read_step(step, element, step_bytes_, error))
        error = send_element(queue, element, rt::Span<const uint8_t>(step_bytes_.data(), step_bytes_.size()));
      if (!error.empty()) fail(queue, error);
    }
  if (queue.failed) return;
  const Clock::time_point now = Clock::now();
  if (!queue.started) queue.started = now;
  queue.last_sent = now;
  ++queue.sent_tuples;
  queue.sent_bytes += queue.dataset.tuple_bytes();
}

uint64_t InfeedSender::pump(uint64_t budget_bytes) {
  uint64_t sent = 0;
  for (bool progress = true; progress && sent < budget_bytes;) {
    progress = false;
    for (Queue& queue : queues_) {
      if (!may_send(queue) || sent >= budget_bytes) continue;
      send_tuple(queue);
      sent += queue.dataset.tuple_bytes();
      progress = true;
    }
  }
  return sent;
}

// ---------------------------------------------------------------- reporting

void InfeedSender::progress(Clock::time_point now, Clock::duration interval) {
  if (now - last_progress_ < interval) return;
  for (Queue& queue : queues_) {
    if (!queue.started || queue.all_consumed || queue.closed || now - *queue.started < interval) continue;
    const uint64_t consumed = std::min(queue.consumed(), queue.sent_tuples);
    if (queue.reported && queue.reported->first == queue.sent_tuples && queue.reported->second == consumed)
      continue;  // nothing moved since the last line (a stalled run: its triage says why)
    queue.reported = {queue.sent_tuples, consumed};
    notes_ << "tpu: infeed queue " << queue.dataset.queue() << ": " << queue.sent_tuples << " of "
           << queue.dataset.steps() << " tuples sent, " << consumed << " consumed, "
           << rate_text(consumed, consumed * queue.dataset.tuple_bytes(), seconds_between(*queue.started, now))
           << std::endl;
    last_progress_ = now;
  }
}

void InfeedSender::report() const {
  for (const Queue& queue : queues_) {
    const InfeedDataset& dataset = queue.dataset;
    notes_ << "tpu: infeed queue " << dataset.queue() << " (" << dataset.describe() << "): ";
    if (!queue.granted) {
      notes_ << "the board never opened it (no credits): 0 of " << dataset.steps() << " tuples sent" << std::endl;
      continue;
    }
    const uint64_t consumed = std::min(queue.consumed(), queue.sent_tuples);
    notes_ << queue.sent_tuples << " of " << dataset.steps() << " tuples sent, " << consumed << " consumed";
    // The board reports what it consumed with its credits, which it batches: a board that failed
    // or was stopped before it closed the queue may have consumed more than it said.
    if (!queue.closed && consumed < queue.sent_tuples) {
      notes_ << " as far as the board reported (it never closed the queue)" << std::endl;
      continue;
    }
    if (queue.started) {
      const Clock::time_point end = queue.all_consumed.value_or(*queue.last_sent);
      const double seconds = seconds_between(*queue.started, end);
      char elapsed[32];
      std::snprintf(elapsed, sizeof elapsed, "%.3f", seconds);
      notes_ << ", " << consumed * dataset.tuple_bytes() << " bytes in " << elapsed << " s: "
             << rate_text(consumed, consumed * dataset.tuple_bytes(), seconds);
    }
    notes_ << std::endl;
  }
}

}  // namespace tpu
