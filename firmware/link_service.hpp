// The firmware's host-link service: the board's one link endpoint (runtime/link/protocol/endpoint.hpp) over
// the HAL's link byte stream, registered for rt::link::host_call/outfeed. The boot core starts it
// (the board's hello goes out as soon as the host's hello is seen), each core reports its app
// outcome as a run result, and the boot core finishes it before the exit. Without a host (make run,
// the test harness) nothing but console text is ever written.
#pragma once
#include "hal/support/status.hpp"

namespace firmware {

// Boot core, once all cores are up: creates and registers the endpoint, reads any waiting host hello.
void link_service_start(const char* app_name);
// Every core after its app returned: the outcome of its host function called without waiting, if one
// is still in flight (rt::tpu::host_function_no_wait).
rt::Status link_service_settle();
// Every core after its app returned: a run-result frame with the core's outcome (if a host is there).
void link_service_report(unsigned core, const rt::Status& outcome);
// Boot core, before the exit: reads what the host sent last, warns about bad frames from the host.
void link_service_finish();

}  // namespace firmware
