// mailbox: point-to-point streams between cores through the mailbox rings.
//   1. all pairs at once, polling API: every core streams a message (0 .. 3.5 ring sizes long) to
//      every other core while receiving from all of them, interleaving try_send/try_receive;
//      each received byte is checked against the sender's pattern, regenerated locally
//   2. timed/blocking API in pairs (0<->1, 2<->3, ...): even cores send then receive, odd cores
//      receive then send, 3 ring sizes each way
//   3. a receive nobody answers fails after its timeout with an error naming both cores
#include "firmware/app.hpp"
#include "hal/core.hpp"
#include "runtime/collectives/collectives.hpp"
#include "runtime/mailbox/mailbox.hpp"

namespace {

using rt::Status;

constexpr size_t kMaxMessage = rt::SpscRing::kCapacity * 7 / 2;

uint8_t pattern(unsigned from, unsigned to, size_t index) {
  return static_cast<uint8_t>((index * 31 + from * 7 + to * 13 + (index >> 8)) & 0xff);
}
size_t message_length(unsigned from, unsigned to) { return (from * 7919 + to * 104729) % (kMaxMessage + 1); }

struct Stream {
  size_t done = 0;
  size_t length = 0;
};

struct alignas(64) CoreState {
  uint8_t outgoing[hal::kMaxCores][kMaxMessage];
  uint8_t incoming[hal::kMaxCores][kMaxMessage];
};
CoreState states[hal::kMaxCores];

Status all_pairs_polling(const firmware::CoreContext& context) {
  CoreState& state = states[context.core];
  Stream sends[hal::kMaxCores];
  Stream receives[hal::kMaxCores];
  for (unsigned peer = 0; peer < context.cores; ++peer) {
    if (peer == context.core) continue;
    sends[peer].length = message_length(context.core, peer);
    receives[peer].length = message_length(peer, context.core);
    for (size_t i = 0; i < sends[peer].length; ++i) state.outgoing[peer][i] = pattern(context.core, peer, i);
  }
  const uint64_t deadline = hal::time_ns() + rt::kDefaultWaitTimeoutNs;
  for (bool pending = true; pending;) {
    pending = false;
    for (unsigned peer = 0; peer < context.cores; ++peer) {
      if (peer == context.core) continue;
      Stream& out = sends[peer];
      Stream& in = receives[peer];
      out.done += rt::mailbox::try_send(peer, state.outgoing[peer] + out.done, out.length - out.done);
      in.done += rt::mailbox::try_receive(peer, state.incoming[peer] + in.done, in.length - in.done);
      pending = pending || out.done < out.length || in.done < in.length;
    }
    if (hal::time_ns() > deadline) return rt::deadline_exceeded("core {}: all-pairs streams did not finish", context.core);
  }
  for (unsigned peer = 0; peer < context.cores; ++peer)
    for (size_t i = 0; peer != context.core && i < receives[peer].length; ++i)
      if (state.incoming[peer][i] != pattern(peer, context.core, i))
        return rt::internal_error("core {}: byte {} from core {} is {}, expected {}", context.core, i, peer,
                                  state.incoming[peer][i], pattern(peer, context.core, i));
  return Status::ok();
}

Status pairs_blocking(const firmware::CoreContext& context) {
  const unsigned partner = context.core ^ 1u;
  if (partner >= context.cores) return Status::ok();
  CoreState& state = states[context.core];
  const size_t length = rt::SpscRing::kCapacity * 3;
  for (size_t i = 0; i < length; ++i) state.outgoing[partner][i] = pattern(context.core, partner, i);
  if (context.core % 2 == 0) {
    RT_RETURN_IF_ERROR(rt::mailbox::send(partner, state.outgoing[partner], length));
    RT_RETURN_IF_ERROR(rt::mailbox::receive(partner, state.incoming[partner], length));
  } else {
    RT_RETURN_IF_ERROR(rt::mailbox::receive(partner, state.incoming[partner], length));
    RT_RETURN_IF_ERROR(rt::mailbox::send(partner, state.outgoing[partner], length));
  }
  for (size_t i = 0; i < length; ++i)
    if (state.incoming[partner][i] != pattern(partner, context.core, i))
      return rt::internal_error("core {}: blocking stream byte {} from core {} is wrong", context.core, i, partner);
  return Status::ok();
}

Status silent_peer_times_out(const firmware::CoreContext& context) {
  if (context.core != 0 || context.cores < 2) return Status::ok();
  uint64_t word = 0;
  const Status status = rt::mailbox::receive(1, &word, sizeof(word), 50 * hal::kNanosPerMilli);
  const rt::StringView expected = "core 0 timed out after 50 ms waiting to receive 8 bytes from core 1 (0 done)";
  if (status.is_ok() || !(status.message() == expected))
    return rt::internal_error("silent peer: got \"{}\", expected \"{}\"", status.message(), expected);
  return Status::ok();
}

Status run(const firmware::CoreContext& context) {
  rt::Collectives collectives(rt::ReplicaSet::one_per_core(context.cores), context.core);
  RT_RETURN_IF_ERROR(all_pairs_polling(context));
  RT_RETURN_IF_ERROR(pairs_blocking(context));
  RT_RETURN_IF_ERROR(collectives.barrier());
  return silent_peer_times_out(context);
}

}  // namespace

const firmware::App firmware::kApp = {"mailbox", "point-to-point mailbox streams: polling, blocking, timeouts", run};
