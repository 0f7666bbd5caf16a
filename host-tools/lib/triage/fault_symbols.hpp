// Where a fault happened, in the program's own terms: the board's fault report gives the pc
// ("*** core N pc 0x... syndrome 0x...", hal/common/fault.cpp; a relocated image, the host board's
// PIE, adds " (image+0x...)", the address addr2line takes), and tpu adds a line naming the function
// and source line, with the functions it was inlined into:
//   tpu: core 3 faulted in run(...)::{lambda()#1}::operator()() at tests/faults/fault-null/device/fault_null.cpp:12
//        (inlined into fault_on_core<...> at tests/faults/fault_on_core.hpp:16)
// from the board's own addr2line (make print-fault-symbolizer) run on the ELF the board runs. A pc
// addr2line cannot place (no line tables, another image) adds nothing.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace tpu {

struct FaultPc {
  unsigned core;
  uint64_t address;  // as addr2line takes it: the image offset when the report gives one, else the pc
};

// The pc of a fault report's pc line, or nothing for any other line.
std::optional<FaultPc> fault_pc_of(std::string_view console_line);

// addr2line's answer for `address` in `elf` as one text ("FUNCTION at FILE:LINE (inlined into ...)"),
// source paths under `root` made relative to it; "" if it does not know the address or cannot run.
std::string where_in_program(const std::string& addr2line, const std::filesystem::path& elf, uint64_t address,
                             const std::filesystem::path& root);

// The line to print after `console_line` if it is a fault report's pc line `where` can place
// (where(address): addr2line's answer, "" if it has none): "tpu: core N faulted in ...".
std::optional<std::string> explain_fault(std::string_view console_line,
                                         const std::function<std::string(uint64_t address)>& where);

}  // namespace tpu
