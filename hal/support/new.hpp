// Placement new: the standard <new> when the toolchain has one, else an own declaration.
#pragma once
#include "types.hpp"

#if __has_include(<new>) && !defined(RT_FREESTANDING_NO_STD)
#include <new>
#else
inline void* operator new(size_t, void* where) noexcept { return where; }
inline void* operator new[](size_t, void* where) noexcept { return where; }
#endif
