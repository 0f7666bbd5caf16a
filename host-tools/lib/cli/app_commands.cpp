// The registry of app-defined subcommands (app_commands.hpp).
#include "app_commands.hpp"

#include <vector>

namespace tpu {
namespace {

struct Registered {
  std::string name;
  CommandInstaller installer;
};

std::vector<Registered>& registry() {
  static std::vector<Registered> commands;
  return commands;
}

int status = 0;

}  // namespace

AppCommandRegistration::AppCommandRegistration(const char* name, CommandInstaller installer) {
  registry().push_back({name, installer});
}

void install_app_commands(CLI::App& tpu) {
  for (const Registered& command : registry()) command.installer(tpu);
}

bool has_app_command(const std::string& name) {
  for (const Registered& command : registry())
    if (command.name == name) return true;
  return false;
}

void set_command_status(int value) { status = value; }
int command_status() { return status; }

}  // namespace tpu
