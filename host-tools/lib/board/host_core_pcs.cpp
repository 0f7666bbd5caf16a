// Where a host board's cores execute, read with ptrace (host_core_pcs.hpp).
#include "host_core_pcs.hpp"

#include <elf.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace tpu {
namespace {

// The board's threads by the core they serve: the main thread (tid = pid) is core 0.
std::map<unsigned, pid_t> core_threads(pid_t board) {
  std::map<unsigned, pid_t> threads{{0, board}};
  std::error_code error;
  const std::filesystem::path tasks = "/proc/" + std::to_string(board) + "/task";
  for (const std::filesystem::directory_entry& task : std::filesystem::directory_iterator(tasks, error)) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    std::getline(comm, name);
    if (const std::optional<unsigned> core = core_of_thread_name(name))
      threads[*core] = static_cast<pid_t>(std::stol(task.path().filename().string()));
  }
  return threads;
}

// Where the board's executable is loaded: the start of its mapping at file offset 0.
std::optional<uint64_t> image_base(pid_t board) {
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/" + std::to_string(board) + "/exe", error);
  if (error) return std::nullopt;
  std::ifstream maps("/proc/" + std::to_string(board) + "/maps");
  for (std::string line; std::getline(maps, line);) {  // "start-end perms offset dev inode path"
    if (!line.ends_with(" " + exe.string())) continue;
    const size_t dash = line.find('-');
    const size_t offset_at = line.find(' ', line.find(' ') + 1) + 1;
    if (dash == std::string::npos || line.compare(offset_at, 9, "00000000 ") != 0) continue;
    return std::stoull(line.substr(0, dash), nullptr, 16);
  }
  return std::nullopt;
}

// One thread's pc: stopped (PTRACE_SEIZE + PTRACE_INTERRUPT: no signal reaches the board), read,
// let go.
std::optional<uint64_t> thread_pc(pid_t thread) {
  if (ptrace(PTRACE_SEIZE, thread, nullptr, nullptr) != 0) return std::nullopt;
  std::optional<uint64_t> pc;
  int status = 0;
  if (ptrace(PTRACE_INTERRUPT, thread, nullptr, nullptr) == 0 && waitpid(thread, &status, __WALL) == thread &&
      WIFSTOPPED(status)) {
    user_regs_struct registers{};
    iovec into{&registers, sizeof registers};
    if (ptrace(PTRACE_GETREGSET, thread, reinterpret_cast<void*>(NT_PRSTATUS), &into) == 0) {
#if defined(__x86_64__)
      pc = registers.rip;
#elif defined(__aarch64__)
      pc = registers.pc;
#endif
    }
  }
  ptrace(PTRACE_DETACH, thread, nullptr, nullptr);
  return pc;
}

}  // namespace

std::optional<unsigned> core_of_thread_name(std::string_view name) {
  if (!name.starts_with("core ") || name.size() == 5 || name.size() > 8) return std::nullopt;
  unsigned core = 0;
  for (const char c : name.substr(5)) {
    if (c < '0' || c > '9') return std::nullopt;
    core = core * 10 + static_cast<unsigned>(c - '0');
  }
  return core;
}

std::map<unsigned, uint64_t> host_core_pcs(pid_t board, const std::vector<unsigned>& cores) {
  std::map<unsigned, uint64_t> pcs;
  const std::optional<uint64_t> base = image_base(board);
  if (!base) return pcs;
  const std::map<unsigned, pid_t> threads = core_threads(board);
  for (const unsigned core : cores) {
    const auto thread = threads.find(core);
    if (thread == threads.end()) continue;
    const std::optional<uint64_t> pc = thread_pc(thread->second);
    if (pc && *pc >= *base) pcs[core] = *pc - *base;
  }
  return pcs;
}

}  // namespace tpu
