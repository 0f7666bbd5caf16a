// How a board's process ended, in words, for every tpu command that launches one (tpu run, tpu exec):
// a process the OS killed with a signal is named as such ("was killed by signal 9 (Killed)") and
// gets its own exit status, never passed on as 128 + signal (which would look like tpu crashing).
#pragma once
#include <string>

namespace tpu {

// tpu's exit status when the board's process was killed by a signal.
inline constexpr int kExitBoardKilled = 5;

// True for a status the process table gave as 128 + a signal number (board_process.cpp).
bool killed_by_signal(int exit_code);

// "exited with status 3", or "was killed by signal 9 (Killed)".
std::string how_it_ended(int exit_code);

}  // namespace tpu
