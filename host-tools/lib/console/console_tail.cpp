// Console tail bookkeeping (see console_tail.hpp).
#include "console_tail.hpp"

#include <cstdio>

namespace tpu {
namespace {

constexpr size_t kMaxLineBytes = 1000;

}  // namespace

void ConsoleTail::add(std::string_view text) {
  for (const char c : text) {
    if (c == '\n') {
      lines_.push_back(std::move(current_));
      current_.clear();
      if (lines_.size() > max_lines_) lines_.pop_front();
    } else if (c == '\r') {
      continue;
    } else if (current_.size() < kMaxLineBytes) {
      const unsigned char byte = static_cast<unsigned char>(c);
      if (byte < 0x20 && c != '\t') {
        char escaped[8];
        std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
        current_ += escaped;
      } else {
        current_ += c;
      }
    }
  }
}

std::vector<std::string> ConsoleTail::lines() const {
  std::vector<std::string> all(lines_.begin(), lines_.end());
  if (!current_.empty()) all.push_back(current_);
  if (all.size() > max_lines_) all.erase(all.begin(), all.end() - static_cast<long>(max_lines_));
  return all;
}

}  // namespace tpu
