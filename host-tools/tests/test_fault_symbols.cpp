// A fault report's pc named by function and line (host-tools/lib/triage/fault_symbols.hpp): which
// console lines are pc lines and which address addr2line is given. That tpu prints the named line
// for a real fault is the harness's tpu-input/fault-named-on-host and image-runs-on-its-board.
#include <catch2/catch.hpp>

#include "host-tools/lib/triage/fault_symbols.hpp"

TEST_CASE("a fault report's pc line gives the core and the pc", "[fault-symbols]") {
  const std::optional<tpu::FaultPc> bare = tpu::fault_pc_of("*** core 3 pc 0x0000000040112414 syndrome 0x96000046");
  REQUIRE(bare);
  CHECK(bare->core == 3);
  CHECK(bare->address == 0x40112414u);
}

TEST_CASE("a relocated image's pc line gives its offset in the image, what addr2line takes", "[fault-symbols]") {
  const std::optional<tpu::FaultPc> pie =
      tpu::fault_pc_of("[task 1] *** core 12 pc 0x000055ec1dfeaf90 syndrome 0x1 (image+0xe9f90)");
  REQUIRE(pie);
  CHECK(pie->core == 12);
  CHECK(pie->address == 0xe9f90u);
}

TEST_CASE("other console lines are no pc lines", "[fault-symbols]") {
  CHECK_FALSE(tpu::fault_pc_of("*** FAULT on core 3: SIGSEGV (invalid memory access) at address 0x0000000000000000"));
  CHECK_FALSE(tpu::fault_pc_of("[c0 I] core 3 pc 0x10 is what I print"));
  CHECK_FALSE(tpu::fault_pc_of("*** core 1: stack overflow (address is in core 1's stack guard page)"));
  CHECK_FALSE(tpu::fault_pc_of(""));
}

TEST_CASE("a garbled pc line from the board is no pc line, and never a crash", "[fault-symbols]") {
  CHECK_FALSE(tpu::fault_pc_of("*** core 3 pc 0x syndrome 0x1"));
  CHECK_FALSE(tpu::fault_pc_of("*** core pc 0x10 syndrome 0x1"));
  CHECK_FALSE(tpu::fault_pc_of("*** core 3 pc 0x10 syndrome 0x1 (image+0x20"));
  CHECK_FALSE(tpu::fault_pc_of("*** core 3 pc 0x10"));
  const std::optional<tpu::FaultPc> long_pc = tpu::fault_pc_of("*** core 1 pc 0x00000000000000001234 syndrome 0x0");
  CHECK_FALSE(long_pc);  // 20 hex digits: the pc stops at 16 and " syndrome" does not follow
  std::string bytes;
  for (int i = 0; i < 4096; ++i) {
    bytes.push_back(static_cast<char>((i * 131 + 7) % 256));
    (void)tpu::fault_pc_of(bytes);
    (void)tpu::fault_pc_of("*** core " + bytes.substr(bytes.size() > 40 ? bytes.size() - 40 : 0));
  }
}

TEST_CASE("an address addr2line cannot place, or no addr2line, names nothing", "[fault-symbols]") {
  CHECK(tpu::where_in_program("addr2line", "/nonexistent/firmware.elf", 0x1000, "/").empty());
  CHECK(tpu::where_in_program("/nonexistent/addr2line", "/bin/sh", 0x1000, "/").empty());
  const auto no_addr2line = [](uint64_t address) { return tpu::where_in_program("/nonexistent/addr2line", "/bin/sh", address, "/"); };
  CHECK_FALSE(tpu::explain_fault("*** core 0 pc 0x0000000000001000 syndrome 0x0", no_addr2line));
}
