// Whole console lines on stdout (console_printer.hpp).
#include "console_printer.hpp"

namespace tpu {

void ConsolePrinter::write(std::string_view text) {
  while (!text.empty()) {
    if (at_line_start_) std::fwrite(line_prefix_.data(), 1, line_prefix_.size(), out_);
    const size_t newline = text.find('\n');
    const size_t length = newline == std::string_view::npos ? text.size() : newline + 1;
    std::fwrite(text.data(), 1, length, out_);
    at_line_start_ = newline != std::string_view::npos;
    if (annotator_) line_.append(text.substr(0, at_line_start_ ? length - 1 : length));
    if (annotator_ && at_line_start_) {
      if (const std::optional<std::string> note = annotator_(line_))
        std::fprintf(out_, "%s%s\n", line_prefix_.c_str(), note->c_str());
      line_.clear();
    }
    text.remove_prefix(length);
  }
  std::fflush(out_);
}

void ConsolePrinter::add(std::string_view text, Clock::time_point now) {
  const size_t newline = text.rfind('\n');
  if (newline == std::string_view::npos) {
    if (held_.empty()) held_since_ = now;
    held_.append(text);
    return;
  }
  held_.append(text.substr(0, newline + 1));
  write(held_);
  held_.assign(text.substr(newline + 1));
  held_since_ = now;
}

void ConsolePrinter::flush_stale(Clock::time_point now) {
  if (!held_.empty() && now - held_since_ >= kHoldFor) flush();
}

void ConsolePrinter::flush() {
  if (held_.empty()) return;
  write(held_);
  held_.clear();
}

}  // namespace tpu
