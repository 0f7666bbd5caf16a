// CLI11 validators shared by the tpu commands (host-tools/tpu/command_line.cpp and the app
// commands): the checks CLI11 does not have, with errors that name the bad value.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <string>

namespace tpu {

// A time limit in seconds: any positive number, including inf (no limit; deadlines saturate).
inline CLI::Validator positive_seconds() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || !(value > 0))
          return "takes a positive number of seconds (inf: no limit), got '" + text + "'";
        return "";
      },
      "SECONDS");
}

// A name or path that must not be empty ("" would mean the current folder, or nothing at all).
inline CLI::Validator non_empty() {
  return CLI::Validator([](std::string& text) -> std::string { return text.empty() ? "must not be empty" : ""; }, "");
}

}  // namespace tpu
