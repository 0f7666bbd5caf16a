// The firmware shell's commands (shell.hpp): each takes the rest of the line and prints its answer.
#pragma once
#include "hal/support/format.hpp"

namespace firmware {

enum class CommandOutcome { kContinue, kExit, kReboot };

// Runs one command line (trimmed, non-empty).
CommandOutcome run_shell_command(rt::StringView line);

// Writes text to the console as one block (under the console lock).
void shell_print(rt::StringView text);

template <class... Args>
void shell_printf(rt::StringView format, const Args&... args) {
  rt::FixedString<512> text;
  rt::format_to(text, format, args...);
  shell_print(text.view());
}

}  // namespace firmware
