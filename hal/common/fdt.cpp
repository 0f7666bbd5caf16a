// DTB structure-block walk (Devicetree Specification v0.4, chapter 5). Big-endian tokens:
// BEGIN_NODE name\0 (padded to 4), END_NODE, PROP len nameoff value, NOP, END.
#include "fdt.hpp"

namespace hal {
namespace {

constexpr uint32_t kMagic = 0xd00dfeed;
constexpr uint32_t kBeginNode = 1, kEndNode = 2, kProp = 3, kNop = 4, kEnd = 9;

uint32_t be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

bool name_is(const uint8_t* name, uint32_t available, const char* expected, bool prefix_only) {
  uint32_t i = 0;
  for (; expected[i] != '\0'; ++i)
    if (i >= available || name[i] != static_cast<uint8_t>(expected[i])) return false;
  return prefix_only || (i < available && name[i] == '\0');
}

}  // namespace

unsigned fdt_count_cpus(const void* blob, uint32_t max_size) {
  const auto* base = static_cast<const uint8_t*>(blob);
  if (base == nullptr || max_size < 40 || be32(base) != kMagic) return 0;
  uint32_t total = be32(base + 4);
  if (total > max_size) total = max_size;
  const uint32_t structure = be32(base + 8);
  const uint32_t structure_size = be32(base + 36);
  if (structure >= total || structure_size > total - structure) return 0;
  const uint8_t* p = base + structure;
  const uint8_t* end = p + structure_size;
  int depth = 0;
  bool in_cpus = false;
  unsigned cpus = 0;
  while (p + 4 <= end) {
    const uint32_t token = be32(p);
    p += 4;
    if (token == kBeginNode) {
      const uint32_t available = static_cast<uint32_t>(end - p);
      ++depth;
      if (depth == 2) in_cpus = name_is(p, available, "cpus", false);
      if (depth == 3 && in_cpus && name_is(p, available, "cpu@", true)) ++cpus;
      uint32_t length = 0;
      while (length < available && p[length] != '\0') ++length;
      if (length == available) return 0;  // unterminated name
      p += (length + 1 + 3) & ~3u;
    } else if (token == kEndNode) {
      if (depth == 2) in_cpus = false;
      if (--depth < 0) return 0;
    } else if (token == kProp) {
      if (p + 8 > end) return 0;
      const uint32_t length = be32(p);
      if (length > static_cast<uint32_t>(end - p) - 8) return 0;
      p += 8 + ((length + 3) & ~3u);
    } else if (token == kNop) {
      continue;
    } else if (token == kEnd) {
      return cpus;
    } else {
      return 0;
    }
  }
  return 0;
}

}  // namespace hal
