// ConsolePrinter (host-tools/lib/console/console_printer.hpp): console text reaches the output a whole line
// at a time, whatever chunks it arrives in; a partial line is held until its newline or until it
// has waited kHoldFor; flush() prints what is held; nothing is lost or reordered.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "host-tools/lib/console/console_printer.hpp"

namespace {

using tpu::ConsolePrinter;
using Clock = ConsolePrinter::Clock;

// What has been written to `file` so far.
std::string written(std::FILE* file) {
  std::fflush(file);
  const long end = std::ftell(file);
  std::string text(static_cast<size_t>(end), '\0');
  std::rewind(file);
  if (end > 0 && std::fread(text.data(), 1, text.size(), file) != text.size()) return "<read error>";
  std::fseek(file, 0, SEEK_END);
  return text;
}

TEST_CASE("console printer: whole lines only, partial lines held", "[console_printer]") {
  std::FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  ConsolePrinter printer(file);
  const Clock::time_point start = Clock::now();
  printer.add("[c0 I] link round trips ok: format/to_num", start);
  CHECK(written(file).empty());
  std::fputs("[host c1] hello\n", file);  // what a host function prints meanwhile
  printer.add("ber gave 13\n[c2 I] PA", start);
  CHECK(written(file) == "[host c1] hello\n[c0 I] link round trips ok: format/to_number gave 13\n");
  printer.flush_stale(start + ConsolePrinter::kHoldFor / 2);
  CHECK(written(file) == "[host c1] hello\n[c0 I] link round trips ok: format/to_number gave 13\n");
  printer.flush_stale(start + ConsolePrinter::kHoldFor);  // a prompt that never ends is shown
  CHECK(written(file) == "[host c1] hello\n[c0 I] link round trips ok: format/to_number gave 13\n[c2 I] PA");
  printer.add("SS\n", start);
  printer.add("tail without newline", start);
  printer.flush();
  CHECK(written(file) ==
        "[host c1] hello\n[c0 I] link round trips ok: format/to_number gave 13\n[c2 I] PASS\ntail without newline");
  std::fclose(file);
}

TEST_CASE("console printer: byte-by-byte input comes out unchanged", "[console_printer]") {
  std::FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  ConsolePrinter printer(file);
  const std::string text = "one\ntwo\n\nthree";
  for (char c : text) printer.add(std::string_view(&c, 1));
  CHECK(written(file) == "one\ntwo\n\n");
  printer.flush();
  CHECK(written(file) == text);
  std::fclose(file);
}

TEST_CASE("console printer: an annotator's line follows the whole line it was asked about", "[console_printer]") {
  std::FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  ConsolePrinter printer(file);
  printer.set_line_prefix("[task 1] ");
  std::string asked;
  printer.set_annotator([&](std::string_view line) -> std::optional<std::string> {
    asked += "<" + std::string(line) + ">";
    if (line.find("pc") == std::string_view::npos) return std::nullopt;
    return "tpu: named";
  });
  const Clock::time_point start = Clock::now();
  printer.add("*** core 1 p", start);
  printer.flush_stale(start + ConsolePrinter::kHoldFor);  // half a line printed: not asked yet
  printer.add("c 0x10\nnext\npartial", start);
  printer.flush();
  CHECK(asked == "<*** core 1 pc 0x10><next>");
  CHECK(written(file) == "[task 1] *** core 1 pc 0x10\n[task 1] tpu: named\n[task 1] next\n[task 1] partial");
  std::fclose(file);
}

}  // namespace
