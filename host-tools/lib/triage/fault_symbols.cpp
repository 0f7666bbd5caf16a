// A fault report's pc named by function and source line (see fault_symbols.hpp).
#include "fault_symbols.hpp"

#include <sstream>
#include <vector>

#include "host-tools/lib/board/make_driver.hpp"
#include "host-tools/lib/text/number_at_start.hpp"
#include "host-tools/lib/text/readable_function.hpp"

namespace tpu {
namespace {

// "/root/a/b.cpp:12" -> "a/b.cpp:12" for a file under root; "./" segments dropped.
std::string relative_location(std::string location, const std::filesystem::path& root) {
  const std::string prefix = root.string() + "/";
  if (location.starts_with(prefix)) location.erase(0, prefix.size());
  for (size_t at; (at = location.find("/./")) != std::string::npos;) location.erase(at, 2);
  if (location.starts_with("./")) location.erase(0, 2);
  return location;
}

// addr2line -f -i prints FUNCTION, then FILE:LINE, per frame, innermost first (a line's
// " (discriminator N)", which tells apart blocks of one source line, is left out; long template
// argument lists are shortened: readable_function.hpp).
std::vector<std::pair<std::string, std::string>> frames_of(const std::string& output) {
  std::istringstream lines(output);
  std::vector<std::pair<std::string, std::string>> frames;
  for (std::string function, location; std::getline(lines, function) && std::getline(lines, location);) {
    if (const size_t discriminator = location.find(" (discriminator "); discriminator != std::string::npos)
      location.erase(discriminator);
    frames.emplace_back(readable_function(function), location);
  }
  return frames;
}

// A hexadecimal number at the start of `text` after `prefix` (advancing past both), or nothing.
std::optional<uint64_t> take_hex(std::string_view& text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return std::nullopt;
  text.remove_prefix(prefix.size());
  return number_at_start<uint64_t>(text, 16, 16);  // a 64-bit pc
}

std::optional<unsigned> take_decimal(std::string_view& text) { return number_at_start<unsigned>(text, 10, 6); }

}  // namespace

// "*** core N pc 0xPC syndrome 0xS", then " (image+0xOFFSET)" for a relocated image.
std::optional<FaultPc> fault_pc_of(std::string_view console_line) {
  const size_t start = console_line.find("*** core ");
  if (start == std::string_view::npos) return std::nullopt;
  std::string_view text = console_line.substr(start + 9);
  const std::optional<unsigned> core = take_decimal(text);
  if (!core) return std::nullopt;
  const std::optional<uint64_t> pc = take_hex(text, " pc 0x");
  if (!pc || !take_hex(text, " syndrome 0x")) return std::nullopt;
  const std::optional<uint64_t> offset = take_hex(text, " (image+0x");
  if (offset && !text.starts_with(")")) return std::nullopt;
  return FaultPc{*core, offset.value_or(*pc)};
}

std::string where_in_program(const std::string& addr2line, const std::filesystem::path& elf, uint64_t address,
                             const std::filesystem::path& root) {
  std::ostringstream hex;
  hex << "0x" << std::hex << address;
  const CommandOutput answer = run_and_collect({addr2line, "-f", "-C", "-i", "-e", elf.string(), hex.str()}, root);
  if (answer.exit_code != 0) return "";
  const std::vector<std::pair<std::string, std::string>> frames = frames_of(answer.output);
  if (frames.empty() || frames[0].first == "??" || frames[0].second.starts_with("??")) return "";
  std::string text = frames[0].first + " at " + relative_location(frames[0].second, root);
  for (size_t i = 1; i < frames.size(); ++i)
    text += " (inlined into " + frames[i].first + " at " + relative_location(frames[i].second, root) + ")";
  return text;
}

std::optional<std::string> explain_fault(std::string_view console_line,
                                         const std::function<std::string(uint64_t address)>& where) {
  const std::optional<FaultPc> pc = fault_pc_of(console_line);
  if (!pc) return std::nullopt;
  const std::string function = where(pc->address);
  if (function.empty()) return std::nullopt;
  return "tpu: core " + std::to_string(pc->core) + " faulted in " + function;
}

}  // namespace tpu
