// The tpu command line with CLI11 (command_line.hpp).
#include "command_line.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>

#include "app_tool.hpp"
#include "console.hpp"
#include "host-tools/lib/cli/app_commands.hpp"
#include "host-tools/lib/cli/cli_checks.hpp"
#include "host-tools/lib/board/make_driver.hpp"
#include "host-tools/lib/text/closest_name.hpp"
#include "new_app.hpp"
#include "run.hpp"

namespace tpu {
namespace {

constexpr int kExitUsage = 2;

// Commands an app's host half provides (app_commands.hpp): a program without them hands the run
// to that app's tool.
struct DelegatedCommand {
  const char* name;
  const char* app;
  const char* summary;
};
constexpr DelegatedCommand kDelegatedCommands[] = {
    {"exec", "exec", "run one op on a board, result as .npy (tpu exec --help)"},
};

// The repository's boards (boards/<name>/board.mk), for --board's check and help.
std::string board_help(const std::vector<std::string>& boards) {
  return "the board (boards/: " + boards_text(boards) + "); default qemu-virt-a53 for apps; for an IMAGE, from its ELF";
}

// The long options `app` itself takes, its option groups' included (CLI11 keeps a group as a
// sub-App; its commands' options are theirs).
std::vector<std::string> long_options(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options())
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
  for (const CLI::App* sub : app.get_subcommands({}))
    if (const auto* group = dynamic_cast<const CLI::Option_group*>(sub))
      for (std::string& name : long_options(*group)) names.push_back(std::move(name));
  return names;
}

bool has_commands(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands({}))
    if (dynamic_cast<const CLI::Option_group*>(sub) == nullptr) return true;
  return false;
}

// An unknown long option, named with its command's nearest one, found before CLI11 parses: CLI11
// would take the option's value for a positional and report that instead (`tpu run --core 2 hello`:
// "arguments were not expected: hello --core"; `tpu exec --replica 2 matmul ...`: "OP: 2 not in
// {...}"). Gives "tpu run: unknown option '--core' (did you mean '--cores'?)", or empty when every
// long option is known. Commands that hand their arguments on (delegated ones) are left to the tool
// that takes them, commands with commands of their own to CLI11; nothing after a bare `--` is an option.
std::string unknown_option_text(const CLI::App& tpu, int argc, char** argv) {
  const CLI::App* command = &tpu;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument == "--") break;
    if (command == &tpu && !argument.empty() && argument[0] != '-') {  // the command's name
      for (const CLI::App* sub : tpu.get_subcommands({}))
        if (sub->get_name() == argument) command = sub;
      if (command == &tpu || command->get_prefix_command() || has_commands(*command)) return "";
      continue;
    }
    if (argument.rfind("--", 0) != 0) continue;
    const std::string given = argument.substr(0, argument.find('='));
    const std::vector<std::string> names = long_options(*command);
    if (std::find(names.begin(), names.end(), given) != names.end()) continue;
    const std::string prefix = command == &tpu ? "tpu" : "tpu " + command->get_name();
    const std::string hint = did_you_mean(given, names);
    return prefix + ": unknown option '" + given + "' (" + (hint.empty() ? prefix + " --help lists the options" : hint) + ")";
  }
  return "";
}

std::optional<std::filesystem::path> repository_root(const char* command) {
  std::optional<std::filesystem::path> root = find_repository_root();
  if (!root) std::cerr << "tpu " << command << ": cannot find the tpu-pod repository (its Makefile and boards/)" << std::endl;
  return root;
}

void add_board_options(CLI::App& command, std::optional<std::string>& board, unsigned& cores, AttachTarget& attach,
                       bool pod_of_kinds = false) {
  const std::vector<std::string> boards = known_boards();
  CLI::Option* option = command.add_option(
      "--board", board,
      board_help(boards) + (pod_of_kinds ? "; with --boards, one per board for a pod of different kinds (a,b)" : ""));
  option->check(pod_of_kinds ? known_boards_list(boards) : known_board(boards));
  command.add_option("--cores", cores, "cores to boot, 1..16 (default 8; raspi3b has 4)")
      ->check(count_in(1, 16, pod_of_kinds ? " (in a pod, every board boots the same count)" : ""));
  CLI::Option* serial = command.add_option("--serial", attach.serial, "attach to a running board on this UART device instead of launching one")
      ->check(non_empty());
  CLI::Option* socket = command.add_option("--socket", attach.socket, "attach to QEMU's -serial unix:PATH,server socket instead")
      ->check(non_empty());
  serial->excludes(socket);
  command.add_option("--baud", attach.baud, "the serial line's baud rate (default 115200)")->check(CLI::PositiveNumber);
}

void add_run_options(CLI::App& run, RunOptions& options, bool pod = false) {
  add_board_options(run, options.board, options.cores, options.attach, pod);
  run.add_option("TARGET", options.target, "an app's name (make help lists them), an app folder anywhere, or an ELF image")
      ->check(non_empty());
  run.add_flag("--chainboot", options.chainboot,
               "with --serial or --socket on a raspi3b sitting in its UART chainloader (make sdcard CHAINLOADER=1): "
               "send it the image built for the run first (in a pod, every rank its own board)");
  run.add_option("--timeout", options.timeout_s,
                 "give up after S seconds of the whole run (default 120; inf: no limit), exit status 4")
      ->check(positive_seconds())
      ->each([&options](const std::string&) { options.timeout_given = true; });
  run.add_option("--host-call-deadline", options.host_call_deadline_s,
                 "end the run if one of the app's host functions has not returned after S seconds (default 20; "
                 "a function may declare its own), exit status 6")
      ->check(positive_seconds());
  run.add_option_function<std::string>("--link", [&options](const std::string& text) {
    options.link = *parse_link_choice(text);
  }, "how frames travel: shm (shared memory, the default of the QEMU boards and the host board) or uart "
     "(the serial line; the host board's stdio)")
      ->check(CLI::IsMember({"auto", "shm", "uart"}));
  run.add_option("--outfeed-dir", options.outfeed_dir,
                 "save outfeed tuples as DIR/c<core>_q<queue>_t<tuple>_e<element>.npy and summary_csv rows in DIR/summary.csv "
                 "(in a pod, each task's in DIR/task-<t>/)")
      ->check(non_empty());
  run.add_option_function<std::vector<std::string>>("--infeed", [&options](const std::vector<std::string>& values) {
    for (const std::string& value : values)
      if (const std::string problem = add_infeed_option(options, value); !problem.empty())
        throw CLI::ValidationError("--infeed", problem);
  }, "Q=F.npy[,F2.npy...]: stream infeed queue Q, one file per tuple element, the first dimension indexes "
     "steps (host function infeed_steps(\"Q\") gives the step count); repeat for more queues")
      ->allow_extra_args(false)->take_all();
}

void add_run_command(CLI::App& tpu, RunOptions& options, const CommandActions& actions) {
  CLI::App* run = tpu.add_subcommand("run", "build an app (or take an image), boot it, serve its link, exit with its status");
  run->footer(
      "Builds the app for the board (make image) or takes an ELF image, boots it as `make run` would (QEMU,\n"
      "or the host board's process), prints its console, serves its host calls (the built-ins format,\n"
      "to_number, print, summary_csv, infeed_steps, and the app's own host functions), streams its infeed,\n"
      "writes its outfeed, and exits with the board's status.\n"
      "Hang triage: when the run times out (or Ctrl-C stops it), tpu reads every core's status record from\n"
      "board memory and prints what each core was doing (the collective it waits in and its number, the\n"
      "peer it waits for, the host call in flight, the infeed tuple it needs, its last trace events; a\n"
      "core running no wait: its pc, function and source line) and one line following the wait chain;\n"
      "--watch shows the same live. Board memory is read through the\n"
      "shared-memory link (the QEMU boards and the host board); on the UART (--link uart, a real Pi) tpu\n"
      "says it cannot.");
  add_run_options(*run, options, true);
  run->add_option("--boards", options.boards,
                  "a pod of K such boards on this machine, 2..16, one Open MPI rank each (mpirun); each board is "
                  "one TF task (README: A pod of boards)")
      ->check(count_in(2, 16, " (boards in the pod)"));
  run->add_option("--pod-network", options.pod_network,
                  "how Open MPI carries a pod's traffic: shm (shared memory, default) or tcp (over loopback, the "
                  "path a real network takes)")
      ->check(CLI::IsMember({"shm", "tcp"}));
  run->add_option("--trace", options.trace_file, "write the cores' timeline as Chrome trace JSON (ui.perfetto.dev) and print utilisation (a pod: "
                  "one file per board, FILE with .task-<t> before its extension)")
      ->check(non_empty());
  run->add_option("--bind-to", options.bind_to,
                  "core: bind the host board's cores to CPUs of their own (a pod's boards on one machine take "
                  "consecutive CPUs), as mpirun --bind-to core; none (default): the OS places them")
      ->check(CLI::IsMember({"core", "none"}));
  run->add_flag("--watch", options.watch,
                "show what every core is doing, live (read from board memory once a second; shared-memory link only)");
  run->callback([&options, &actions] {
    if (options.target.empty() && !options.attach.any()) throw CLI::RequiredError("TARGET (an app, an app folder or an image)");
    set_command_status(actions.run(options));
  });
}

void add_trace_command(CLI::App& tpu, RunOptions& options, const CommandActions& actions) {
  CLI::App* trace = tpu.add_subcommand("trace", "tpu run with --trace FILE (default trace.json)");
  add_run_options(*trace, options);
  trace->add_option("-o,--output", options.trace_file, "the Chrome trace JSON file (default trace.json)")->check(non_empty());
  trace->callback([&options, &actions] {
    if (!options.trace_file) options.trace_file = "trace.json";
    if (options.target.empty() && !options.attach.any()) throw CLI::RequiredError("TARGET (an app, an app folder or an image)");
    set_command_status(actions.run(options));
  });
}

void add_console_command(CLI::App& tpu, ConsoleOptions& options, std::optional<std::string>& board,
                         const CommandActions& actions) {
  CLI::App* console = tpu.add_subcommand("console", "a terminal to a board's console (by default the firmware shell)");
  console->footer(
      "By default boots the `shell` app (help, cores, mem, stats, bench, trace on|off, reboot, exit).\n"
      "On a terminal: raw keys, Ctrl-] quits. With piped input: waits for the first prompt, sends the\n"
      "input, ends with the board (or after 2 s of silence).");
  options.target.cores = 4;
  add_board_options(*console, board, options.target.cores, options.attach);
  console->add_option("--app", options.target.app, "the app to boot (default shell)")->check(non_empty());
  console->add_option("--timeout", options.timeout_s, "end the session after S seconds (default 3600)")->check(positive_seconds());
  console->callback([&options, &board, &actions] {
    if (board) options.target.board = *board;
    set_command_status(actions.console(options));
  });
}

void add_new_command(CLI::App& tpu, std::string& folder, const CommandActions& actions) {
  CLI::App* command = tpu.add_subcommand("new", "create an app folder: device half, host half and a test, ready to run");
  command->add_option("FOLDER", folder, "the new app's folder (its last component is the app's name)")
      ->required()
      ->check(non_empty());
  command->callback([&folder, &actions] { set_command_status(actions.new_app(folder)); });
}

// `tpu test FOLDER`: the repository's test harness on that app's app.toml.
void add_test_command(CLI::App& tpu, std::vector<std::string>& folders, const CommandActions& actions) {
  CLI::App* command = tpu.add_subcommand("test", "run the tests an app's app.toml declares, on every board");
  command->add_option("FOLDER", folders, "app folders")->required()->check(CLI::ExistingDirectory);
  command->callback([&folders, &actions] { set_command_status(actions.test(folders)); });
}

// `tpu test`'s action: replaces this process with the harness.
int run_app_tests(const std::vector<std::string>& folders) {
  const std::optional<std::filesystem::path> root = repository_root("test");
  if (!root) return kExitUsage;
  std::vector<std::string> words = {"python3", (*root / "tests" / "harness.py").string()};
  for (const std::string& folder : folders) {
    words.push_back("--app");
    words.push_back(std::filesystem::absolute(folder).string());
  }
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  execvp("python3", argv.data());
  std::cerr << "tpu test: cannot start python3: " << std::strerror(errno) << std::endl;
  return kExitUsage;
}

// A delegated command's action: hands the whole command line to the app's tool.
int delegate_to_app(const std::string& command, const std::string& app, const std::vector<std::string>& argv) {
  const std::optional<std::filesystem::path> root = repository_root(command.c_str());
  if (!root) return kExitUsage;
  const std::optional<int> status = hand_over_to_app_tool(*root, app, argv);
  if (!status) std::cerr << "tpu " << command << ": the " << app << " app's tool does not provide it" << std::endl;
  return status.value_or(kExitUsage);
}

// A command of an app this program does not contain: everything after its name goes, with the
// whole command line, to the app's own tool.
void add_delegated_command(CLI::App& tpu, const DelegatedCommand& command, int argc, char** argv,
                           const CommandActions& actions) {
  CLI::App* placeholder = tpu.add_subcommand(command.name, command.summary);
  placeholder->prefix_command();
  placeholder->set_help_flag();  // --help goes to the app's program too
  placeholder->callback([&command, argc, argv, &actions] {
    set_command_status(actions.delegate(command.name, command.app, std::vector<std::string>(argv, argv + argc)));
  });
}

}  // namespace

CommandActions board_actions() {
  CommandActions actions;
  actions.run = run_board;
  actions.console = console_run;
  actions.new_app = [](const std::filesystem::path& folder) {
    const std::optional<std::filesystem::path> root = repository_root("new");
    return root ? new_app(*root, std::filesystem::absolute(folder)) : kExitUsage;
  };
  actions.test = run_app_tests;
  actions.delegate = delegate_to_app;
  return actions;
}

int run_command_line(int argc, char** argv, const CommandActions& actions) {
  set_command_status(0);
  CLI::App tpu("tpu: the host tool for tpu-pod boards: build, boot, feed and serve a board, and collect its results.", "tpu");
  tpu.require_subcommand(1);
  tpu.fallthrough(false);
  RunOptions run_options, trace_options;
  run_options.argv = trace_options.argv = std::vector<std::string>(argv, argv + argc);
  ConsoleOptions console_options;
  std::optional<std::string> console_board;
  std::string new_folder;
  std::vector<std::string> test_folders;
  add_run_command(tpu, run_options, actions);
  add_trace_command(tpu, trace_options, actions);
  install_app_commands(tpu);
  for (const DelegatedCommand& command : kDelegatedCommands)
    if (!has_app_command(command.name)) add_delegated_command(tpu, command, argc, argv, actions);
  add_console_command(tpu, console_options, console_board, actions);
  add_new_command(tpu, new_folder, actions);
  add_test_command(tpu, test_folders, actions);
  std::string names;
  bool known = false;
  for (const CLI::App* command : tpu.get_subcommands({})) {
    names += (names.empty() ? "" : ", ") + command->get_name();
    known = known || (argc > 1 && command->get_name() == argv[1]);
  }
  if (argc > 1 && argv[1][0] != '-' && !known) {
    std::cerr << "tpu: unknown command '" << argv[1] << "' (commands: " << names << "; tpu --help)" << std::endl;
    return kExitUsage;
  }
  if (const std::string unknown = unknown_option_text(tpu, argc, argv); !unknown.empty()) {
    std::cerr << unknown << std::endl;
    return kExitUsage;
  }
  try {
    tpu.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return tpu.exit(help);
  } catch (const CLI::CallForAllHelp& help) {
    return tpu.exit(help);
  } catch (const CLI::ParseError& error) {
    std::cerr << "tpu: " << error.what() << "\n(tpu --help, tpu <command> --help)" << std::endl;
    return kExitUsage;
  }
  return command_status();
}

}  // namespace tpu
