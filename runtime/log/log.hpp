// Console logging: one line per call, prefixed "[c<core> <level>] ", written atomically with
// respect to other cores.   log_info("core {} up", id)  ->  "[c3 I] core 3 up"
#pragma once
#include "hal/support/format.hpp"

namespace rt {

enum class LogLevel : char { kDebug = 'D', kInfo = 'I', kWarning = 'W', kError = 'E' };

// Writes one complete line (prefix + text + newline) under the console lock.
void log_line(LogLevel level, StringView text);

template <class... Args>
void log(LogLevel level, StringView format, const Args&... args) {
  FixedString<400> text;
  format_to(text, format, args...);
  log_line(level, text.view());
}

template <class... Args> void log_info(StringView format, const Args&... args) { log(LogLevel::kInfo, format, args...); }
template <class... Args> void log_warning(StringView format, const Args&... args) { log(LogLevel::kWarning, format, args...); }
template <class... Args> void log_error(StringView format, const Args&... args) { log(LogLevel::kError, format, args...); }

}  // namespace rt
