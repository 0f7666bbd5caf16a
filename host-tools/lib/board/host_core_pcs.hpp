// Where each core of a running host board executes, for the hang triage. The board is a process
// tpu started (a parent may trace its child); its core 0 is the main thread and core N the thread
// named "core N" (boards/host/board.cpp). Each asked-for core's thread is stopped for a moment with
// ptrace, its pc read, and the thread let go. The pcs are given as offsets into the board's image
// (a position-independent executable), the address addr2line takes.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

namespace tpu {

// core -> pc as an offset into the board's executable, for `cores` (a core whose thread cannot be
// found, stopped or read is left out).
std::map<unsigned, uint64_t> host_core_pcs(pid_t board, const std::vector<unsigned>& cores);

// The core a host-board thread serves, from its name ("core 3" -> 3), or nothing.
std::optional<unsigned> core_of_thread_name(std::string_view name);

}  // namespace tpu
