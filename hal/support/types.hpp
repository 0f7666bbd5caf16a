// Fixed-width integer and size types for freestanding code (C headers come from picolibc or the host libc).
#pragma once
#include <stddef.h>
#include <stdint.h>
