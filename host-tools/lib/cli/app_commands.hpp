// Subcommands an app's host half adds to its own tool's command line: the exec app's
// host half defines `tpu exec` this way, so the generic tool holds nothing of the exec app.
//
//   void add_exec_command(CLI::App& tpu) { CLI::App* exec = tpu.add_subcommand("exec", "..."); ... }
//   TPU_APP_COMMAND(exec, add_exec_command)
//
// The function adds its CLI11 subcommand (options, validation, a callback that sets the exit status
// through set_command_status). The generic tpu knows which app provides which such command
// (kDelegatedCommands in host-tools/tpu/command_line.cpp) and hands those runs to that app's program.
#pragma once
#include <string>

namespace CLI {
class App;
}

namespace tpu {

using CommandInstaller = void (*)(CLI::App& tpu);

struct AppCommandRegistration {
  AppCommandRegistration(const char* name, CommandInstaller installer);
};

// Adds every registered app command to `tpu`.
void install_app_commands(CLI::App& tpu);
bool has_app_command(const std::string& name);

// The exit status a subcommand's callback decided (CLI11 callbacks return nothing).
void set_command_status(int status);
int command_status();

}  // namespace tpu

#define TPU_APP_COMMAND(name, installer) \
  static const ::tpu::AppCommandRegistration tpu_app_command_##name(#name, installer);
