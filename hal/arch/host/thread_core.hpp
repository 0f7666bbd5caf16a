// Host "cores" are threads: each knows its logical core id and its stack bounds (for telling a
// stack overflow apart from other faults), and gets an alternate signal stack for fault reports.
#pragma once
#include <stdint.h>

namespace hal::host {

// Binds the calling thread to logical core `core`: id, stack bounds, signal stack.
void become_core(unsigned core);
// The core the calling thread plays, or 0 for a thread that never called become_core.
unsigned current_core();
// Whether `address` lies just below the calling thread's stack (its guard area).
bool in_stack_guard(uint64_t address);
// Installs the fault signal handlers (SIGSEGV, SIGBUS, SIGILL, SIGFPE) for the whole process.
void install_fault_handlers();
// Whether the board's cores outnumber the CPUs the process may use (as first seen, before any core
// bound itself: affinity.cpp), so that some core always waits for a CPU.
bool cores_outnumber_cpus();

}  // namespace hal::host
