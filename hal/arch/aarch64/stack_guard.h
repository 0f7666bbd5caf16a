/* The stack guard below each core's main stack on AArch64 (stack_layout.h): one 4 KiB page, left
 * unmapped by the MMU (mmu.cpp). Every frame larger than a page probes each page as it grows
 * (BOARD_STACK_FLAGS: -fstack-clash-protection with a 4 KiB guard), so no frame steps over it. */
#pragma once

#define STACK_GUARD_SIZE 0x1000
