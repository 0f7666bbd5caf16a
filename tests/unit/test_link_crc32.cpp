// CRC-32 (runtime/link/transport/crc32.cpp): the standard check value, incremental use, and agreement with
// Python's zlib.crc32 (the independent reference) on random data of many lengths.
#include <catch2/catch.hpp>

#include "numpy_bridge.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "runtime/link/transport/crc32.hpp"

namespace {

using Bytes = std::vector<uint8_t>;

rt::Span<const uint8_t> view(const Bytes& bytes) { return rt::Span<const uint8_t>(bytes.data(), bytes.size()); }

std::string python(const std::string& code) { return numpy_bridge::run_python("build/unit/crc32", code); }

}  // namespace

TEST_CASE("CRC-32 check value and edge cases", "[link][crc32]") {
  const std::string check = "123456789";
  CHECK(rt::link::crc32(rt::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(check.data()), check.size())) ==
        0xCBF43926u);
  CHECK(rt::link::crc32(rt::Span<const uint8_t>()) == 0u);
  CHECK(rt::link::crc32(view(Bytes{0x00})) == 0xD202EF8Du);
  CHECK(rt::link::crc32(view(Bytes(32, 0xFF))) == 0xFF6CAB0Bu);
}

TEST_CASE("CRC-32 incremental updates equal one pass", "[link][crc32]") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    Bytes data(rng() % 2000);
    for (uint8_t& byte : data) byte = static_cast<uint8_t>(rng());
    const size_t cut = data.empty() ? 0 : rng() % data.size();
    const uint32_t first = rt::link::crc32_update(0, rt::Span<const uint8_t>(data.data(), cut));
    const uint32_t both = rt::link::crc32_update(first, rt::Span<const uint8_t>(data.data() + cut, data.size() - cut));
    REQUIRE(both == rt::link::crc32(view(data)));
  }
}

TEST_CASE("CRC-32 agrees with Python's zlib.crc32 on random data", "[link][crc32]") {
  std::mt19937 rng(2024);
  std::vector<Bytes> blobs;
  for (size_t size : {0, 1, 2, 3, 4, 7, 8, 15, 16, 255, 256, 1000, 4112, 65537}) {
    Bytes blob(size);
    for (uint8_t& byte : blob) byte = static_cast<uint8_t>(rng());
    blobs.push_back(blob);
  }
  for (int extra = 0; extra < 40; ++extra) {
    Bytes blob(rng() % 5000);
    for (uint8_t& byte : blob) byte = static_cast<uint8_t>(rng() % 4 == 0 ? 0 : rng());
    blobs.push_back(blob);
  }
  // One file of length-prefixed blobs; Python prints one CRC per blob.
  char path[] = "/tmp/test_link_crc32_XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  FILE* file = fdopen(fd, "wb");
  REQUIRE(file != nullptr);
  for (const Bytes& blob : blobs) {
    const uint32_t size = static_cast<uint32_t>(blob.size());
    const uint8_t prefix[4] = {uint8_t(size), uint8_t(size >> 8), uint8_t(size >> 16), uint8_t(size >> 24)};
    fwrite(prefix, 1, 4, file);
    if (!blob.empty()) fwrite(blob.data(), 1, blob.size(), file);
  }
  fclose(file);
  const std::string output = python(
      "import zlib, struct\n"
      "data = open('" +
      std::string(path) +
      "', 'rb').read()\n"
      "at = 0\n"
      "while at < len(data):\n"
      "    n = struct.unpack_from('<I', data, at)[0]; at += 4\n"
      "    print(zlib.crc32(data[at:at + n])); at += n\n");
  unlink(path);
  std::istringstream lines(output);
  for (const Bytes& blob : blobs) {
    uint64_t expected = 0;
    REQUIRE(lines >> expected);
    INFO("blob of " << blob.size() << " bytes");
    CHECK(rt::link::crc32(view(blob)) == expected);
  }
}
