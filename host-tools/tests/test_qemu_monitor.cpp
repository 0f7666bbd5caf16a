// Locating a hung board's running cores (the hang triage): QMP's reply text
// (host-tools/lib/board/qemu_monitor.hpp), the vCPUs' pcs in QEMU's `info registers -a` as QEMU 7.2
// prints it for AArch64 and RISC-V (excerpts of real output, cut), and the host board's core
// thread names (host_core_pcs.hpp).
#include <catch2/catch.hpp>

#include "host-tools/lib/board/host_core_pcs.hpp"
#include "host-tools/lib/board/qemu_monitor.hpp"

namespace {

const char* const kAarch64Registers =
    "\r\nCPU#0\r\n PC=0000000040128280 X00=0000000077db4350 X01=00000000077dcc20\r\n"
    "X02=0000000007735940 X03=0000000000000002 X04=0000000000000000\r\n"
    "X29=0000000040a87cf0 X30=000000004012824c  SP=0000000040a87cf0\r\n"
    "PSTATE=800003c4 N--- EL1t     FPCR=00000000 FPSR=00000000\r\n"
    "CPU#1\r\n PC=0000000040128280 X00=000000004a361b00 X01=00000000085d0ccd\r\n"
    "CPU#3\r\n PC=0000000040128a88 X00=000000001ccb4cdc X01=0000000000000003\r\n";

const char* const kRiscv64Registers =
    "\r\nCPU#0\r\n V      =   0\r\n pc       0000000080054ab4\r\n mhartid  0000000000000000\r\n"
    " mepc     0000000000000000\r\n sepc     0000000000000000\r\n"
    "CPU#1\r\n V      =   0\r\n pc       0000000080054bca\r\n mhartid  0000000000000001\r\n";

}  // namespace

TEST_CASE("a QMP reply's return text is unescaped; anything else gives none", "[qemu-monitor]") {
  CHECK(tpu::qmp_return_text(R"({"return": "\r\nCPU#0\r\n PC=1 \"q\" \\ \u0041\u00e9"})") ==
        std::string("\r\nCPU#0\r\n PC=1 \"q\" \\ A\xC3\xA9"));
  CHECK(tpu::qmp_return_text(R"({"return": {}})") == std::nullopt);
  CHECK(tpu::qmp_return_text(R"({"error": {"class": "GenericError", "desc": "no"}})") == std::nullopt);
  CHECK(tpu::qmp_return_text(R"({"return": "no end)") == std::nullopt);
  CHECK(tpu::qmp_return_text(R"({"return": "bad \u12"})") == std::nullopt);
  CHECK(tpu::qmp_return_text(R"({"return": "\u12zz and more"})") == std::nullopt);  // \u takes four hex digits
  CHECK(tpu::qmp_return_text("") == std::nullopt);
}

TEST_CASE("each vCPU's pc is read from QEMU's registers, AArch64 and RISC-V", "[qemu-monitor]") {
  const std::map<unsigned, uint64_t> arm = tpu::vcpu_pcs_of_registers(kAarch64Registers);
  CHECK(arm == std::map<unsigned, uint64_t>{{0, 0x40128280}, {1, 0x40128280}, {3, 0x40128a88}});
  const std::map<unsigned, uint64_t> riscv = tpu::vcpu_pcs_of_registers(kRiscv64Registers);
  CHECK(riscv == std::map<unsigned, uint64_t>{{0, 0x80054ab4}, {1, 0x80054bca}});  // not mepc or sepc
}

TEST_CASE("registers without a CPU header or a pc give no pcs, and never a crash", "[qemu-monitor]") {
  CHECK(tpu::vcpu_pcs_of_registers("").empty());
  CHECK(tpu::vcpu_pcs_of_registers(" PC=0000000040128280\r\n").empty());  // no CPU#n before it
  CHECK(tpu::vcpu_pcs_of_registers("CPU#\r\n PC=12\r\n").empty());
  CHECK(tpu::vcpu_pcs_of_registers("CPU#2\r\n ELR_PC=zz SPC=12\r\n").empty());
  CHECK(tpu::vcpu_pcs_of_registers("CPU#99999999999\r\n PC=\r\n").empty());
}

TEST_CASE("a host-board thread's name gives its core", "[qemu-monitor]") {
  CHECK(tpu::core_of_thread_name("core 3") == 3u);
  CHECK(tpu::core_of_thread_name("core 15") == 15u);
  CHECK(tpu::core_of_thread_name("firmware.elf") == std::nullopt);
  CHECK(tpu::core_of_thread_name("core ") == std::nullopt);
  CHECK(tpu::core_of_thread_name("core x") == std::nullopt);
  CHECK(tpu::core_of_thread_name("core 1234") == std::nullopt);
}
