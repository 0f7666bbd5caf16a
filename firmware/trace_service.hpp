// Uploading the cores' trace rings (runtime/trace/core_trace.hpp) to the host at the end of a run.
// The boot core, once every core's verdict is in, asks the host whether it wants the trace (host
// call "trace.wanted": text "1" = yes; an older host answers NOT_FOUND, which means no) and then
// sends it in batches as host calls "trace.events", each with one int8 vector argument holding a
// kTrace message payload (runtime/link/protocol/message.hpp): per core its events as 'X' (complete) events
// (timestamp = begin in board ns, arg = duration ns, name = the trace point), then its exact
// per-category totals as 'C' counter events named "total:<category>" (arg = ns) and
// "dropped" (events the ring overwrote). Nothing is sent without a host.
#pragma once

namespace firmware {

void trace_service_upload(unsigned cores);

}  // namespace firmware
