// The host-function worker's fault pc, recorded in a shared page and named by tpu (worker_crash_site.hpp).
#include "worker_crash_site.hpp"

#include <link.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>

#include "app_host.hpp"
#include "host-tools/lib/triage/fault_symbols.hpp"

namespace tpu {

struct WorkerCrashSite::Record {
  std::atomic<uint64_t> pc{0};
  std::atomic<int> signal{0};
};

namespace {

constexpr int kFaults[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};
constexpr size_t kHandlerStackBytes = 64 * 1024;

WorkerCrashSite::Record* recording = nullptr;  // the worker's: where its handler writes
pid_t worker_pid = 0;  // the worker's own pid (a process it forks inherits the handler, not the right to record)

uint64_t pc_of(const void* context) {
  const auto* user = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
  return static_cast<uint64_t>(user->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<uint64_t>(user->uc_mcontext.pc);
#else
  (void)user;
  return 0;
#endif
}

// Records the pc of a fault the kernel raised for an instruction of the worker's (si_code > 0: not
// kill(), raise() or sigqueue()), then dies of the signal (the handler was reset to the default on
// entry).
void on_fault(int signal, siginfo_t* info, void* context) {
  if (recording != nullptr && info != nullptr && info->si_code > 0 && getpid() == worker_pid) {
    recording->pc.store(pc_of(context));
    recording->signal.store(signal);
  }
  raise(signal);
}

// The load bias of this executable (a position-independent one is loaded at an offset; addr2line
// takes addresses without it).
uint64_t executable_bias() {
  uint64_t bias = 0;
  dl_iterate_phdr([](dl_phdr_info* info, size_t, void* out) {
    *static_cast<uint64_t*>(out) = info->dlpi_addr;
    return 1;  // the first object is the executable
  }, &bias);
  return bias;
}

}  // namespace

WorkerCrashSite::WorkerCrashSite() {
  void* page = mmap(nullptr, sizeof(Record), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page != MAP_FAILED) record_ = new (page) Record();
}

WorkerCrashSite::~WorkerCrashSite() {
  if (record_ != nullptr) munmap(record_, sizeof(Record));
}

void WorkerCrashSite::record_faults_in_worker() {
  if (record_ == nullptr) return;
  recording = record_;
  worker_pid = getpid();
  stack_t handler_stack{};
  handler_stack.ss_sp = mmap(nullptr, kHandlerStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  handler_stack.ss_size = kHandlerStackBytes;
  const bool own_stack = handler_stack.ss_sp != MAP_FAILED && sigaltstack(&handler_stack, nullptr) == 0;
  struct sigaction action {};
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER | (own_stack ? SA_ONSTACK : 0);
  sigemptyset(&action.sa_mask);
  for (const int fault : kFaults) sigaction(fault, &action, nullptr);
}

std::string WorkerCrashSite::describe(int signal) const {
  if (record_ == nullptr || record_->signal.load() != signal || record_->pc.load() == 0) return "";
  std::error_code error;
  const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return "";
  const uint64_t address = record_->pc.load() - executable_bias();
  std::string where = where_in_program("addr2line", executable, address, std::filesystem::current_path(error));
  // The name the app gave the function, not the one TPU_HOST_FUNCTION generated.
  for (size_t at; (at = where.find(kHostFunctionSymbolPrefix)) != std::string::npos;)
    where.erase(at, kHostFunctionSymbolPrefix.size());
  return where;
}

}  // namespace tpu
