// The tpu command line (CLI11): the subcommands, their options and validation, and the exit status.
//   tpu run [options] APP|FOLDER|IMAGE   build, boot, serve the link, exit with the board's status
//   tpu trace [-o FILE] [run options] ... tpu run --trace FILE
//   tpu exec [options] OP INPUT.npy... -o OUT.npy   (the exec app's tool provides it)
//   tpu console [options]                 a terminal to the firmware shell
//   tpu new FOLDER                        a new app (device half, host half, test)
//   tpu test FOLDER                       the tests FOLDER/app.toml declares, on every board
// `tpu --help` and `tpu <command> --help` print the options; a bad value is an error naming the
// option and the value, exit status 2.
// The parser and the commands are apart: run_command_line(argc, argv, actions) parses and validates
// and then calls one action with the options it parsed, so a test or fuzzer can drive the whole
// parser without booting anything (tests/fuzz/command_line.cpp).
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "console.hpp"
#include "run.hpp"

namespace tpu {

// What each command does once its options are parsed and valid; each returns the exit status.
struct CommandActions {
  std::function<int(const RunOptions&)> run;  // tpu run, tpu trace
  std::function<int(const ConsoleOptions&)> console;
  std::function<int(const std::filesystem::path& folder)> new_app;  // the folder as given
  std::function<int(const std::vector<std::string>& folders)> test;
  // A command an app's tool provides (tpu exec): `app` is that app, argv the whole line.
  std::function<int(const std::string& command, const std::string& app, const std::vector<std::string>& argv)> delegate;
};

// The real commands: boot boards, create folders, exec the harness or the app's tool.
CommandActions board_actions();

int run_command_line(int argc, char** argv, const CommandActions& actions);
inline int run_command_line(int argc, char** argv) { return run_command_line(argc, argv, board_actions()); }

}  // namespace tpu
