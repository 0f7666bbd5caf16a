// Thread-as-core bookkeeping and fault signals: a fault on any thread prints the same report as an
// exception on a bare-metal board (core, signal, address) from an alternate signal stack, then exits.
#include "thread_core.hpp"

#include <pthread.h>
#include <sys/prctl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

#include "hal/core.hpp"
#include "hal/fault.hpp"

extern "C" const char __executable_start[];  // the linker's: the image's first byte, wherever it loaded

namespace hal::host {
namespace {

constexpr size_t kSignalStackSize = 64 * 1024;
constexpr uint64_t kGuardSlack = 64 * 1024;  // below the stack's lowest address, counted as guard

thread_local unsigned this_core = 0;
thread_local uint64_t stack_low = 0;
thread_local uint64_t guard_size = 0;
alignas(16) uint8_t signal_stacks[kMaxCores][kSignalStackSize];

const char* signal_name(int signal) {
  switch (signal) {
    case SIGSEGV: return "SIGSEGV (invalid memory access)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGILL: return "SIGILL (illegal instruction)";
    case SIGFPE: return "SIGFPE (arithmetic fault)";
    default: return "signal";
  }
}

uint64_t faulting_pc(void* context) {
  const auto* user_context = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
  return static_cast<uint64_t>(user_context->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return user_context->uc_mcontext.pc;
#else
  (void)user_context;
  return 0;
#endif
}

void on_fault(int signal, siginfo_t* info, void* context) {
  const uint64_t address = reinterpret_cast<uintptr_t>(info->si_addr);
  FaultReport report{};
  report.core = this_core;
  report.exception = signal_name(signal);
  report.detail = "";
  report.address = address;
  report.pc = faulting_pc(context);
  report.syndrome = static_cast<uint64_t>(info->si_code);
  report.stack_guard_owner = signal == SIGSEGV && in_stack_guard(address) ? static_cast<int>(this_core) : -1;
  report.image_base = reinterpret_cast<uintptr_t>(&__executable_start);  // the PIE's load address
  report_fault(report);
}

}  // namespace

void become_core(unsigned core) {
  this_core = core;
  // Core N > 0 is the thread "core N" (core 0 is the main thread, which keeps the program's name):
  // what tpu's hang triage looks for to read a running core's pc, and what top -H and perf show.
  if (core != 0) {
    char name[16];
    snprintf(name, sizeof name, "core %u", core);
    pthread_setname_np(pthread_self(), name);
  }
  // A core's short sleeps (waiting for the host or a peer, hal/doorbell.hpp) are meant as given:
  // Linux adds up to 50 us of timer slack to a thread's timed waits by default, and on this VM a
  // 5 us wait then took 94 us (28 us without the slack). (tpu keeps the default for its own polls:
  // there the extra wake-ups cost a 2-board pod more than they saved, measured.)
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  pthread_attr_t attributes;
  if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
    void* low = nullptr;
    size_t size = 0;
    size_t guard = 0;
    pthread_attr_getstack(&attributes, &low, &size);
    pthread_attr_getguardsize(&attributes, &guard);
    stack_low = reinterpret_cast<uintptr_t>(low);
    guard_size = guard;
    pthread_attr_destroy(&attributes);
  }
  stack_t alternate{};
  alternate.ss_sp = signal_stacks[core];
  alternate.ss_size = kSignalStackSize;
  sigaltstack(&alternate, nullptr);
}

unsigned current_core() { return this_core; }

bool in_stack_guard(uint64_t address) {
  const uint64_t below = guard_size > kGuardSlack ? guard_size : kGuardSlack;
  return stack_low != 0 && address < stack_low + 4096 && address + below >= stack_low;
}

void install_fault_handlers() {
  struct sigaction action;
  memset(&action, 0, sizeof(action));
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  const int fault_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};
  for (int signal : fault_signals) sigaction(signal, &action, nullptr);
}

}  // namespace hal::host
