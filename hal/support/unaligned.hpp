// Loads and stores of a T at any address (element buffers may be misaligned). __builtin_memcpy,
// because -ffreestanding stops GCC from treating plain memcpy as the builtin it turns into one
// load or store instruction.
#pragma once

namespace rt {

template <class T>
inline T load_unaligned(const void* address) {
  T value;
  __builtin_memcpy(&value, address, sizeof(T));
  return value;
}

template <class T>
inline void store_unaligned(void* address, T value) {
  __builtin_memcpy(address, &value, sizeof(T));
}

}  // namespace rt
