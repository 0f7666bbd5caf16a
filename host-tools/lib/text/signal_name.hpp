// A signal's name as people write it: "SIGTERM", "SIGINT" ("signal N" for a number glibc has no name for).
#pragma once
#include <cstring>
#include <string>

namespace tpu {

inline std::string signal_name(int signal_number) {
  const char* abbreviation = sigabbrev_np(signal_number);
  return abbreviation ? "SIG" + std::string(abbreviation) : "signal " + std::to_string(signal_number);
}

}  // namespace tpu
