// splitmix64: the deterministic source of test inputs in the device test apps, identical on every
// board (integer arithmetic only).
#pragma once
#include <stdint.h>

namespace firmware {

inline uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace firmware
