// Fuzz target: the tpu command line (host-tools/tpu/command_line.hpp, CLI11), with the commands
// replaced by checks of what the parser hands them, so nothing is built or booted. The input is the
// argument list, one argument per line (argv[0] is "tpu"). Checked besides "no crash, nothing
// thrown out of the parser": the exit status is 0 or the usage status 2, and every value that
// reaches a command is one the parser promised to check: 1..16 cores (0 = the board's default),
// a positive timeout (infinity allowed, never NaN), a known board, each infeed queue once, no empty
// folder or file name (`tpu new ""` once died of an uncaught filesystem_error: found by this target).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "host-tools/tpu/command_line.hpp"

namespace {

[[noreturn]] void broken(const char* promise) {
  std::fprintf(stderr, "command_line: broken promise: %s\n", promise);
  std::abort();
}

bool known_board(const std::string& board) {
  return board == "qemu-virt-a53" || board == "qemu-virt-rv64" || board == "host" || board == "raspi3b";
}

void check_timeout(double seconds) {
  if (std::isnan(seconds) || !(seconds > 0)) broken("timeouts are positive numbers");
}

int check_run(const tpu::RunOptions& options) {
  if (options.cores > 16) broken("--cores is 1..16");
  check_timeout(options.timeout_s);
  if (options.board && !known_board(*options.board)) broken("--board names a known board");
  if (options.target.empty() && !options.attach.any()) broken("a run has a target or a board to attach to");
  if ((options.outfeed_dir && options.outfeed_dir->empty()) || (options.trace_file && options.trace_file->empty()))
    broken("folders and files are not empty names");
  if ((options.attach.serial && options.attach.serial->empty()) || (options.attach.socket && options.attach.socket->empty()))
    broken("a board to attach to is named");
  std::set<unsigned> queues;
  for (const tpu::InfeedFiles& spec : options.infeed) {
    if (!queues.insert(spec.queue).second) broken("each infeed queue is given once");
    if (spec.files.empty()) broken("an infeed queue has files");
  }
  return 0;
}

int check_console(const tpu::ConsoleOptions& options) {
  if (options.target.cores < 1 || options.target.cores > 16) broken("--cores is 1..16");
  if (!known_board(options.target.board)) broken("--board names a known board");
  if (options.target.app.empty()) broken("--app names an app");
  check_timeout(options.timeout_s);
  return 0;
}

tpu::CommandActions checking_actions() {
  tpu::CommandActions actions;
  actions.run = check_run;
  actions.console = check_console;
  actions.new_app = [](const std::filesystem::path& folder) {
    if (folder.empty()) broken("tpu new has a folder");
    return 0;
  };
  actions.test = [](const std::vector<std::string>& folders) {
    if (folders.empty()) broken("tpu test has folders");
    return 0;
  };
  actions.delegate = [](const std::string& command, const std::string& app, const std::vector<std::string>&) {
    if (command != "exec" || app != "exec") broken("only exec is delegated, to the exec app");
    return 0;
  };
  return actions;
}

// Silences the parser's help and error texts while it runs (they would flood the fuzzer's log).
class Silence {
 public:
  Silence() : out_(std::cout.rdbuf(sink_.rdbuf())), err_(std::cerr.rdbuf(sink_.rdbuf())) {}
  ~Silence() {
    std::cout.rdbuf(out_);
    std::cerr.rdbuf(err_);
  }

 private:
  std::ostringstream sink_;
  std::streambuf* out_;
  std::streambuf* err_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> words = {"tpu"};
  std::string word;
  for (size_t i = 0; i < size && words.size() < 24; ++i) {
    if (data[i] == '\n') words.push_back(std::move(word)), word.clear();
    else if (data[i] != 0) word += static_cast<char>(data[i]);
  }
  if (!word.empty() && words.size() < 24) words.push_back(word);
  std::vector<char*> argv;
  for (std::string& each : words) argv.push_back(each.data());
  argv.push_back(nullptr);
  static const tpu::CommandActions actions = checking_actions();
  int status = 0;
  try {
    Silence silence;
    status = tpu::run_command_line(static_cast<int>(words.size()), argv.data(), actions);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "command_line: an exception escaped the parser: %s\n", error.what());
    std::abort();
  }
  if (status != 0 && status != 2) broken("the exit status is 0 or 2 (usage)");
  return 0;
}
