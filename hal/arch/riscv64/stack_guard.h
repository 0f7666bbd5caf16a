/* The stack guard below each core's main stack on RISC-V (stack_layout.h): 16 KiB, one PMP NAPOT
 * region without permissions (pmp.cpp). RISC-V's GCC 12 has no -fstack-clash-protection; its
 * generic stack checking (BOARD_STACK_FLAGS: -fstack-check) makes every non-leaf function store
 * about 4.6 KiB below its stack pointer (4 KiB + 592 bytes with the firmware's flags: no exception
 * tables), and a large frame, leaf or not, store every 4 KiB from at most about 8.6 KiB below the
 * stack pointer to past the frame's bottom (read off the generated code). Stores at most 4 KiB apart
 * that start within 8.6 KiB of the stack pointer always put one in a 16 KiB guard, whatever the
 * frame's size or where it starts, so no frame steps over it; the price is that a core faults when
 * its stack comes within about 4.6 KiB of the guard. */
#pragma once

#define STACK_GUARD_SIZE 0x4000
