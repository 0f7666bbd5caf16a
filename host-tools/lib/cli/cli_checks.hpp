// CLI11 validators shared by the tpu commands (host-tools/tpu/command_line.cpp and the app
// commands): the checks CLI11 does not have, with errors that name the bad value.
#pragma once
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "host-tools/lib/board/make_driver.hpp"
#include "host-tools/lib/text/closest_name.hpp"

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

// A whole number from `lowest` to `highest`, said in words ("--cores 2,4": "takes one whole number from
// 1 to 16 ..., got '2,4'") where CLI11's Range says "Value 2,4 not in range". `what` follows the range.
inline CLI::Validator count_in(unsigned lowest, unsigned highest, const std::string& what) {
  return CLI::Validator(
      [lowest, highest, what](std::string& text) -> std::string {
        const bool digits = !text.empty() && text.size() <= 9 && text.find_first_not_of("0123456789") == std::string::npos;
        const unsigned long value = digits ? std::stoul(text) : 0;
        if (digits && value >= lowest && value <= highest) return "";
        return "takes one whole number from " + std::to_string(lowest) + " to " + std::to_string(highest) + what +
               ", got '" + text + "'";
      },
      "");
}

// A name or path that must not be empty ("" would mean the current folder, or nothing at all).
inline CLI::Validator non_empty() {
  return CLI::Validator([](std::string& text) -> std::string { return text.empty() ? "must not be empty" : ""; }, "");
}

// A board of the repository (boards/<name>/board.mk; make_driver.hpp's repository_boards). Outside
// a repository nothing is checked here: make names the valid boards when it cannot find one.
// One board, or (`tpu run` of a pod of different kinds) a comma-separated list of boards.
// "unknown board 'qemu-virt-a35' (boards: ...; did you mean 'qemu-virt-a53'?)".
inline std::string unknown_board(const std::string& board, const std::vector<std::string>& boards) {
  const std::string hint = did_you_mean(board, boards);
  return "unknown board '" + board + "' (boards: " + boards_text(boards) + (hint.empty() ? "" : "; " + hint) + ")";
}

inline CLI::Validator known_boards_list(std::vector<std::string> boards) {
  return CLI::Validator(
      [boards](std::string& text) -> std::string {
        for (const std::string& board : boards_of_list(text))
          if (!boards.empty() && std::find(boards.begin(), boards.end(), board) == boards.end())
            return unknown_board(board, boards);
        return "";
      },
      "BOARD[,BOARD...]");
}

inline CLI::Validator known_board(std::vector<std::string> boards) {
  return CLI::Validator(
      [boards](std::string& text) -> std::string {
        if (boards.empty() || std::find(boards.begin(), boards.end(), text) != boards.end()) return "";
        return unknown_board(text, boards);
      },
      "BOARD");
}

}  // namespace tpu
