/* The stack guard below each core's main stack on RISC-V (stack_layout.h): 16 KiB, one PMP NAPOT
 * region without permissions (pmp.cpp). RISC-V's GCC 12 has no -fstack-clash-protection; its
 * generic stack checking (BOARD_STACK_FLAGS: -fstack-check) makes every non-leaf function store to
 * the address 12 KiB below its stack pointer (GCC's STACK_CHECK_PROTECT) and a large frame store
 * every 4 KiB from there to 12 KiB below its bottom. A guard of 12 KiB + 4 KiB therefore holds one
 * of those stores whatever the frame's size or where it starts, so no frame steps over it; the price
 * is that a core faults when its stack comes within 12 KiB of the guard. */
#pragma once

#define STACK_GUARD_SIZE 0x4000
