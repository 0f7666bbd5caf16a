// The device-tree CPU counter (hal/common/fdt.cpp) against device trees QEMU itself generates for
// its virt boards at several core counts, and against corrupted and random blobs (it reads
// untrusted memory: it must return 0 or a plausible count, never read out of bounds).
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "hal/common/fdt.hpp"

namespace {

// Asks QEMU to write the device tree it would give a guest (-M ...,dumpdtb=FILE) and reads it.
std::vector<uint8_t> qemu_device_tree(const std::string& qemu, const std::string& machine, const std::string& extra,
                                      unsigned cpus) {
  const std::string path = "build/unit/" + qemu + "-" + std::to_string(cpus) + ".dtb";
  const std::string command = qemu + " -M " + machine + ",dumpdtb=" + path + " " + extra + " -smp " +
                              std::to_string(cpus) + " -display none -monitor none -serial none > /dev/null 2>&1";
  INFO(command);
  REQUIRE(std::system(command.c_str()) == 0);
  std::ifstream file(path, std::ios::binary);
  std::vector<uint8_t> blob((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  REQUIRE(blob.size() > 40);
  return blob;
}

}  // namespace

TEST_CASE("fdt_count_cpus counts the CPUs of QEMU's own device trees", "[fdt]") {
  for (unsigned cpus : {1u, 2u, 5u, 8u, 16u}) {
    INFO(cpus << " cpus");
    const auto rv64 = qemu_device_tree("qemu-system-riscv64", "virt", "-bios none", cpus);
    CHECK(hal::fdt_count_cpus(rv64.data(), static_cast<uint32_t>(rv64.size())) == cpus);
    const auto a53 = qemu_device_tree("qemu-system-aarch64", "virt,gic-version=3", "-cpu cortex-a53", cpus);
    CHECK(hal::fdt_count_cpus(a53.data(), static_cast<uint32_t>(a53.size())) == cpus);
  }
}

TEST_CASE("fdt_count_cpus rejects what is not a device tree", "[fdt]") {
  const uint8_t zeros[64] = {};
  CHECK(hal::fdt_count_cpus(nullptr, 1024) == 0);
  CHECK(hal::fdt_count_cpus(zeros, sizeof(zeros)) == 0);
  const auto blob = qemu_device_tree("qemu-system-riscv64", "virt", "-bios none", 4);
  CHECK(hal::fdt_count_cpus(blob.data(), 39) == 0);  // shorter than a header
}

TEST_CASE("fdt_count_cpus survives truncated, corrupted and random blobs", "[fdt]") {
  const auto original = qemu_device_tree("qemu-system-riscv64", "virt", "-bios none", 4);
  std::mt19937 random(12345);
  for (int round = 0; round < 3000; ++round) {
    std::vector<uint8_t> blob = original;
    const int flips = 1 + static_cast<int>(random() % 8);
    for (int i = 0; i < flips; ++i) blob[random() % blob.size()] = static_cast<uint8_t>(random());
    const uint32_t limit = static_cast<uint32_t>(random() % (blob.size() + 1));
    // Copy exactly `limit` bytes into their own allocation so that reading past it is detectable.
    std::vector<uint8_t> bounded(blob.begin(), blob.begin() + limit);
    const unsigned cpus = hal::fdt_count_cpus(bounded.empty() ? nullptr : bounded.data(), limit);
    REQUIRE(cpus <= 64);
  }
  for (int round = 0; round < 1000; ++round) {
    std::vector<uint8_t> noise(64 + random() % 512);
    for (auto& byte : noise) byte = static_cast<uint8_t>(random());
    noise[0] = 0xd0; noise[1] = 0x0d; noise[2] = 0xfe; noise[3] = 0xed;  // valid magic, garbage rest
    REQUIRE(hal::fdt_count_cpus(noise.data(), static_cast<uint32_t>(noise.size())) <= 64);
  }
}
