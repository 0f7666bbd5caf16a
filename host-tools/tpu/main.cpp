// tpu: the host tool for tpu-pod boards.
//   tpu run [--board B] [--cores N] [--timeout S] [--link shm|uart] [--outfeed-dir DIR] [--infeed Q=F.npy,...] APP|IMAGE
// Hand-written argument parsing (one subcommand, four options) rather than a library dependency.
#include <charconv>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "run.hpp"
#include "subcommands.hpp"

namespace {

constexpr int kUsageError = 2;

constexpr const char* kUsage =
    "usage: tpu run [--board B] [--cores N] [--timeout S] [--link shm|uart] [--outfeed-dir DIR] APP|IMAGE\n"
    "\n"
    "  Builds APP for board B (make image) or takes an ELF IMAGE, boots it as `make run` would (QEMU, or\n"
    "  the host board's process), prints its console, serves its host calls (format, to_number, print,\n"
    "  summary_csv), writes its outfeed as .npy files into DIR, and exits with the board's status.\n"
    "\n"
    "  --board B        qemu-virt-a53 (default for apps), qemu-virt-rv64, host; for an IMAGE, from its ELF\n"
    "  --cores N        cores to boot, 1..16 (default 8)\n"
    "  --timeout S      give up after S seconds (default 120), exit status 4\n"
    "  --outfeed-dir D  save outfeed tuples as D/c<core>_q<queue>_t<tuple>_e<element>.npy and\n"
    "                   summary_csv rows in D/summary.csv (default: only describe them)\n"
    "  --infeed Q=F.npy[,F2.npy...]  stream infeed queue Q: one file per tuple element, the first\n"
    "                   dimension indexes steps (one full tuple per step, as the board's credits allow;\n"
    "                   host function infeed_steps(\"Q\") gives the step count); repeat for more queues\n"
    "  --link L         how frames travel: shm (shared memory: the guest RAM is a file tpu maps; the\n"
    "                   default on the QEMU boards), uart (the serial line: the host board, a real Pi)\n"
    "  --trace F        write the cores' timeline as Chrome trace JSON to F (ui.perfetto.dev) and print\n"
    "                   a per-core utilisation table at the end\n"
    "  --serial DEV [--baud B] | --socket PATH   attach to a running board (a UART device, or QEMU's\n"
    "                   -serial unix:PATH,server) instead of launching one; APP|IMAGE is then optional\n";

int usage_error(const std::string& problem) {
  std::cerr << "tpu: " << problem << "\n" << kUsage;
  return kUsageError;
}

template <class T>
bool parse_number(std::string_view text, T& value) {
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  return result.ec == std::errc() && result.ptr == text.data() + text.size();
}

// Splits "--name=value" or takes the next argument as the value.
bool option_value(const std::vector<std::string>& args, size_t& i, const std::string& name, std::string& value) {
  const std::string& arg = args[i];
  if (arg == name) {
    if (i + 1 >= args.size()) return false;
    value = args[++i];
    return true;
  }
  if (arg.rfind(name + "=", 0) == 0) {
    value = arg.substr(name.size() + 1);
    return true;
  }
  return false;
}

int parse_run(const std::vector<std::string>& args, tpu::RunOptions& options) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    std::string value;
    if (option_value(args, i, "--board", value)) {
      options.board = value;
    } else if (option_value(args, i, "--cores", value)) {
      if (!parse_number(value, options.cores) || options.cores < 1 || options.cores > 16)
        return usage_error("--cores takes 1..16, got '" + value + "'");
    } else if (option_value(args, i, "--timeout", value)) {
      if (!parse_number(value, options.timeout_s) || !(options.timeout_s > 0))
        return usage_error("--timeout takes a positive number of seconds, got '" + value + "'");
    } else if (option_value(args, i, "--infeed", value)) {
      if (const std::string problem = tpu::add_infeed_option(options, value); !problem.empty()) return usage_error(problem);
    } else if (option_value(args, i, "--trace", value)) {
      options.trace_file = value;
    } else if (option_value(args, i, "--link", value)) {
      const std::optional<tpu::LinkChoice> link = tpu::parse_link_choice(value);
      if (!link) return usage_error("--link takes shm, uart or auto, got '" + value + "'");
      options.link = *link;
    } else if (option_value(args, i, "--serial", value)) {
      options.attach.serial = value;
    } else if (option_value(args, i, "--socket", value)) {
      options.attach.socket = value;
    } else if (option_value(args, i, "--baud", value)) {
      if (!parse_number(value, options.attach.baud)) return usage_error("--baud takes a number, got '" + value + "'");
    } else if (option_value(args, i, "--outfeed-dir", value)) {
      options.outfeed_dir = value;
    } else if (arg.rfind("--", 0) == 0) {
      return usage_error("unknown or incomplete option '" + arg + "'");
    } else if (options.target.empty()) {
      options.target = arg;
    } else {
      return usage_error("more than one APP|IMAGE given ('" + options.target + "', '" + arg + "')");
    }
  }
  if (options.target.empty() && !options.attach.any()) return usage_error("run needs an APP name or an IMAGE path");
  if (options.attach.serial && options.attach.socket) return usage_error("--serial and --socket exclude each other");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage << tpu::kSubcommandUsage;
    return args.empty() ? kUsageError : 0;
  }
  if (const std::optional<int> status = tpu::run_subcommand(args)) return *status;
  if (args[0] != "run") return usage_error("unknown command '" + args[0] + "' (commands: " + tpu::kSubcommandNames + ")");
  tpu::RunOptions options;
  if (const int problem = parse_run(std::vector<std::string>(args.begin() + 1, args.end()), options)) return problem;
  return tpu::run_board(options);
}
