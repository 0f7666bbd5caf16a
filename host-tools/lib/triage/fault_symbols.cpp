// A fault report's pc named by function and source line (see fault_symbols.hpp).
#include "fault_symbols.hpp"

#include <regex>
#include <sstream>
#include <vector>

#include "host-tools/lib/board/make_driver.hpp"

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

// addr2line -f -i prints FUNCTION, then FILE:LINE, per frame, innermost first.
std::vector<std::pair<std::string, std::string>> frames_of(const std::string& output) {
  std::istringstream lines(output);
  std::vector<std::pair<std::string, std::string>> frames;
  for (std::string function, location; std::getline(lines, function) && std::getline(lines, location);)
    frames.emplace_back(function, location);
  return frames;
}

}  // namespace

std::optional<FaultPc> fault_pc_of(std::string_view console_line) {
  static const std::regex pc_line(R"(\*\*\* core (\d+) pc 0x([0-9a-f]+) syndrome 0x[0-9a-f]+(?: \(image\+0x([0-9a-f]+)\))?)");
  std::match_results<std::string_view::const_iterator> found;
  if (!std::regex_search(console_line.begin(), console_line.end(), found, pc_line)) return std::nullopt;
  const std::string address = found[3].matched ? found[3].str() : found[2].str();
  return FaultPc{static_cast<unsigned>(std::stoul(found[1].str())), std::stoull(address, nullptr, 16)};
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

std::optional<std::string> FaultSymbolizer::explain(std::string_view console_line) const {
  const std::optional<FaultPc> pc = fault_pc_of(console_line);
  if (!pc) return std::nullopt;
  const std::string where = where_in_program(addr2line_, elf_, pc->address, root_);
  if (where.empty()) return std::nullopt;
  return "tpu: core " + std::to_string(pc->core) + " faulted in " + where;
}

}  // namespace tpu
