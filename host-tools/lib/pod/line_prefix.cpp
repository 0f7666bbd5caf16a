// A stream buffer that puts a prefix before every line (line_prefix.hpp).
#include "line_prefix.hpp"

#include <iostream>
#include <streambuf>

namespace tpu {
namespace {

// Holds each line until its newline and then writes it whole, prefixed: a line tpu writes in pieces
// (std::cerr flushes after every <<) is never split by the board's console lines on the other stream.
class LinePrefixBuffer final : public std::streambuf {
 public:
  LinePrefixBuffer(std::streambuf* target, std::string prefix) : target_(target), prefix_(std::move(prefix)) {}
  ~LinePrefixBuffer() override {
    if (line_.size() > prefix_.size()) write_line();  // a last line without its newline
  }

 protected:
  int overflow(int character) override {
    if (character == traits_type::eof()) return traits_type::not_eof(character);
    if (line_.empty()) line_ = prefix_;
    line_.push_back(static_cast<char>(character));
    if (character == '\n' && !write_line()) return traits_type::eof();
    return character;
  }
  std::streamsize xsputn(const char* text, std::streamsize count) override {
    for (std::streamsize i = 0; i < count; ++i)
      if (overflow(static_cast<unsigned char>(text[i])) == traits_type::eof()) return i;
    return count;
  }
  int sync() override { return 0; }  // a partial line waits for its newline

 private:
  bool write_line() {
    const bool written = target_->sputn(line_.data(), std::streamsize(line_.size())) == std::streamsize(line_.size());
    line_.clear();
    return written && target_->pubsync() == 0;
  }

  std::streambuf* target_;
  std::string prefix_;
  std::string line_;  // the line so far, prefix first; empty at a line's start
};

}  // namespace

void prefix_output_lines(const std::string& prefix) {
  static LinePrefixBuffer out(std::cout.rdbuf(), prefix);
  static LinePrefixBuffer err(std::cerr.rdbuf(), prefix);
  std::cout.rdbuf(&out);
  std::cerr.rdbuf(&err);
}

}  // namespace tpu
