// AArch64 translation tables: 4 KiB granule, 39-bit VA (start at level 1), identity mapped.
// RAM is Normal write-back cacheable inner-shareable (exclusives and atomics need it on real
// hardware); device ranges are Device-nGnRnE and never executable. 2 MiB blocks everywhere except
// the blocks holding stacks, which are split into 4 KiB pages so each core's guard page can be left
// invalid, and the block holding address 0 where a board has RAM there (raspi3b): page 0 is never
// mapped, so null pointers fault on every board. This code runs before the MMU is on, when all
// memory is Device memory: it must not make unaligned accesses (strict-align) and must not call libc.
#pragma GCC target("strict-align")

#include "mmu.hpp"

#include <stdint.h>

#include "hal/fault.hpp"
#include "hal/memory_map.hpp"
#include "../../common/baremetal/stacks.hpp"
#include "sysreg.hpp"

namespace hal::arch {
namespace {

constexpr uint64_t kPage = 4096;
static_assert(STACK_GUARD_SIZE == kPage, "each core's stack guard is the one page unmapped below (stack_guard.h)");
constexpr uint64_t kL1Span = 1ull << 30;  // 1 GiB per level-1 entry
constexpr uint64_t kL2Span = 1ull << 21;  // 2 MiB per level-2 entry
constexpr unsigned kEntries = 512;

constexpr uint64_t kValid = 1ull << 0;
constexpr uint64_t kTableOrPage = 1ull << 1;  // table at L1/L2, page at L3
constexpr uint64_t kAccessFlag = 1ull << 10;
constexpr uint64_t kInnerShareable = 3ull << 8;
constexpr uint64_t kPrivilegedNoExecute = 1ull << 53;
constexpr uint64_t kUnprivilegedNoExecute = 1ull << 54;
constexpr uint64_t kAttrDevice = 0ull << 2;  // MAIR index 0
constexpr uint64_t kAttrNormal = 1ull << 2;  // MAIR index 1
constexpr uint64_t kMair = 0x00 | (0xffull << 8);
constexpr uint64_t kAddressMask = 0x0000fffffffff000ull;

constexpr unsigned kL2Tables = 4;  // covers 4 GiB of physical address space in 2 MiB blocks
// Level-3 tables: one per 2 MiB block holding a stack guard, + one for page 0. The stacks of all cores
// (kMaxCores * CORE_STACKS_SIZE, 4.2 MiB) touch at most one block more than they fill.
constexpr uint64_t kStackBytes = uint64_t{kMaxCores} * CORE_STACKS_SIZE;
constexpr unsigned kL3Tables = static_cast<unsigned>((kStackBytes + kL2Span - 1) / kL2Span) + 1 + 1;

struct alignas(kPage) Table {
  uint64_t entries[kEntries];
};

Table level1;
Table level2[kL2Tables];
Table level3[kL3Tables];
unsigned level3_used;

uint64_t leaf_attributes(MemoryKind kind) {
  if (kind == MemoryKind::kDevice)
    return kAttrDevice | kAccessFlag | kPrivilegedNoExecute | kUnprivilegedNoExecute;
  return kAttrNormal | kAccessFlag | kInnerShareable | kUnprivilegedNoExecute;
}

Table& level2_for(uint64_t address) {
  const uint64_t index = address / kL1Span;
  if (index >= kL2Tables) panic("memory map beyond the 4 GiB the MMU tables cover");
  level1.entries[index] = reinterpret_cast<uintptr_t>(&level2[index]) | kTableOrPage | kValid;
  return level2[index];
}

void map_region(const MemoryRegion& region) {
  if (region.base % kL2Span != 0 || region.size % kL2Span != 0)
    panic("memory map regions must be 2 MiB aligned");
  for (uint64_t address = region.base; address < region.base + region.size; address += kL2Span) {
    Table& table = level2_for(address);
    table.entries[(address / kL2Span) % kEntries] = address | leaf_attributes(region.kind) | kValid;
  }
}

// Replaces the 2 MiB block holding `address` by a level-3 table with the same attributes.
Table& split_block(uint64_t address) {
  Table& table = level2_for(address);
  uint64_t& entry = table.entries[(address / kL2Span) % kEntries];
  if ((entry & kTableOrPage) != 0) return *reinterpret_cast<Table*>(entry & kAddressMask);
  if ((entry & kValid) == 0) panic("stack guard inside an unmapped block");
  if (level3_used == kL3Tables) panic("out of level-3 tables for stack guards");
  Table& pages = level3[level3_used++];
  const uint64_t block_base = entry & kAddressMask & ~(kL2Span - 1);
  const uint64_t attributes = entry & ~kAddressMask & ~(kValid | kTableOrPage);
  for (unsigned i = 0; i < kEntries; ++i) pages.entries[i] = (block_base + i * kPage) | attributes | kTableOrPage | kValid;
  entry = reinterpret_cast<uintptr_t>(&pages) | kTableOrPage | kValid;
  return pages;
}

void unmap_page(uint64_t address) {
  Table& pages = split_block(address);
  pages.entries[(address / kPage) % kEntries] = 0;
}

bool block_is_mapped(uint64_t address) {
  const uint64_t index = address / kL1Span;
  if (index >= kL2Tables || (level1.entries[index] & kValid) == 0) return false;
  return (level2[index].entries[(address / kL2Span) % kEntries] & kValid) != 0;
}

// The level-3 entry of `address`, which must lie in a block already split into pages.
uint64_t& page_entry(uint64_t address) {
  const uint64_t index = address / kL1Span;
  if (index >= kL2Tables || (level1.entries[index] & kValid) == 0) panic("temporary page outside the MMU tables");
  const uint64_t block = level2[index].entries[(address / kL2Span) % kEntries];
  if ((block & (kValid | kTableOrPage)) != (kValid | kTableOrPage)) panic("temporary page in a block not split into pages");
  return reinterpret_cast<Table*>(block & kAddressMask)->entries[(address / kPage) % kEntries];
}

// Cleans and invalidates `bytes` at `start` to the point of coherency: tables written with the MMU
// off must not be shadowed by stale cache lines once walks and accesses become cacheable.
void clean_to_coherency(const void* start, uint64_t bytes) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(start) & ~uintptr_t{63};
  const uintptr_t end = reinterpret_cast<uintptr_t>(start) + bytes;
  for (uintptr_t line = begin; line < end; line += 64) asm volatile("dc civac, %0" ::"r"(line) : "memory");
  asm volatile("dsb sy" ::: "memory");
}

}  // namespace

void mmu_build_tables() {
  for (const MemoryRegion* region = board::memory_regions(); region->size != 0; ++region) map_region(*region);
  for (unsigned core = 0; core < kMaxCores; ++core) unmap_page(reinterpret_cast<uintptr_t>(core_stacks[core].guard));
  if (block_is_mapped(0)) unmap_page(0);  // null guard where RAM starts at 0
  clean_to_coherency(&level1, sizeof(level1));
  clean_to_coherency(level2, sizeof(level2));
  clean_to_coherency(level3, sizeof(level3));
}

void mmu_map_device_page(uint64_t address) {
  page_entry(address) = (address & ~(kPage - 1)) | leaf_attributes(MemoryKind::kDevice) | kTableOrPage | kValid;
  asm volatile("dsb ishst\n isb" ::: "memory");  // an invalid entry is never cached: no TLB maintenance
}

void mmu_unmap_device_page(uint64_t address) {
  page_entry(address) = 0;
  asm volatile("dsb ishst\n tlbi vaae1is, %0\n dsb ish\n isb" ::"r"(address >> 12) : "memory");
}

void mmu_enable() {
  write_sysreg(mair_el1, kMair);
  const uint64_t tcr = 25                 // T0SZ: 39-bit virtual addresses
                       | (1ull << 8)      // IRGN0: inner write-back write-allocate walks
                       | (1ull << 10)     // ORGN0: outer write-back write-allocate walks
                       | (3ull << 12)     // SH0: inner shareable
                       | (1ull << 23)     // EPD1: no TTBR1 walks
                       | (1ull << 32);    // IPS: 36-bit physical addresses
  write_sysreg(tcr_el1, tcr);
  write_sysreg(ttbr0_el1, reinterpret_cast<uintptr_t>(&level1));
  // Stale TLB entries and instruction cache lines from before reset (or from a boot loader) must not
  // survive into the new translation regime.
  asm volatile("dsb ish\n isb\n tlbi vmalle1\n ic iallu\n dsb ish\n isb" ::: "memory");
  const uint64_t sctlr = read_sysreg(sctlr_el1) | (1ull << 0)  // M: MMU on
                         | (1ull << 2)                           // C: data cache
                         | (1ull << 12);                         // I: instruction cache
  write_sysreg(sctlr_el1, sctlr);
  isb();
}

}  // namespace hal::arch
