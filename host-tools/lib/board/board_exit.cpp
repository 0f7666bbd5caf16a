// How a board's process ended (board_exit.hpp).
#include "board_exit.hpp"

#include <cstring>

namespace tpu {

bool killed_by_signal(int exit_code) { return exit_code > 128 && exit_code < 128 + 65; }

std::string how_it_ended(int exit_code) {
  if (killed_by_signal(exit_code))
    return "was killed by signal " + std::to_string(exit_code - 128) + " (" + strsignal(exit_code - 128) + ")";
  return "exited with status " + std::to_string(exit_code);
}

}  // namespace tpu
