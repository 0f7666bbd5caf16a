// The executor: how core 0 (the program) makes the other cores run replicas. Every core has a
// launch slot in shared memory; core 0 fills a core's slot and rings it (publish_launch), the core
// serving launches (serve) runs it and publishes a Status and the replica's outputs, and core 0
// collects them (await_completion). Wake-ups use the mailbox's sleep/notify handshake (a doorbell
// for a sleeping core, none for a busy one); the slots do not use the mailbox rings, so launches never
// mix with the collectives' messages.
//
// Slot protocol (sequence numbers, so a late completion is never mistaken for a new one):
//   core 0: wait until completed == requested (the core is idle) and the core serves; fill launch;
//           requested += 1 (release); notify.
//   worker: wait until requested != completed (acquire) or a stop request; run; write status and
//           outputs; completed = requested (release); notify core 0.
// A replica that does not complete in time makes await_completion fail naming the core and replica;
// the core may still finish later, and acquire_launch waits for that before reusing its slot.
// Every wait is bounded and its error names the waiting core and what it waited for.
#pragma once
#include "replica_launch.hpp"

namespace rt::tpu {

// How long a serving core waits for its next launch or the stop request before giving up.
inline constexpr uint64_t kDefaultServeIdleTimeoutNs = 120000 * hal::kNanosPerMilli;

// Waits (up to timeout_ns) until `core` serves launches and has finished any earlier one, then returns
// its slot's Launch for the caller (core 0) to fill. Core 0's own slot is always available: core 0
// runs its own replicas with run_launch.
Result<Launch*> acquire_launch(unsigned core, uint64_t timeout_ns);
// Hands the filled launch to `core` (not 0) and wakes it.
void publish_launch(unsigned core);
// Waits until `core` completes its published launch or deadline_ns passes; copies its outputs and
// returns the replica's status (or the timeout).
Status await_completion(unsigned core, ReplicaOutputs& outputs, uint64_t deadline_ns, uint64_t timeout_ns);
// True when `core` runs no launch (its memory may be reclaimed).
bool core_idle(unsigned core);

// A worker core's loop: runs launches until core 0 asks it to stop, or nothing arrives within
// idle_timeout_ns (an error naming the core). Stopped after a program that succeeded: OK; after one
// that failed: CANCELLED, kStoppedAfterFailedProgram (a worker's verdict is its program's: a replica's
// error reaches core 0 through replicate, and a worker must not read PASS after it).
Status serve(uint64_t idle_timeout_ns = kDefaultServeIdleTimeoutNs);
inline constexpr const char* kStoppedAfterFailedProgram = "stopped: the program on core 0 failed";
// Core 0, when its program is done: waits (up to timeout_ns each) for cores 1..cores-1 to finish
// their launches, then asks them to stop serving, telling them whether the program failed.
Status stop_serving(unsigned cores, uint64_t timeout_ns, bool program_failed = false);

}  // namespace rt::tpu
