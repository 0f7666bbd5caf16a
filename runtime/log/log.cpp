// Log line assembly and output through the HAL console.
#include "log.hpp"

#include "hal/console.hpp"
#include "hal/core.hpp"

namespace rt {

void log_line(LogLevel level, StringView text) {
  FixedString<448> line;
  format_to(line, "[c{} {}] {}\n", hal::core_id(), static_cast<char>(level), text);
  hal::ConsoleLock lock;
  hal::console_write(line.c_str(), line.length());
}

}  // namespace rt
