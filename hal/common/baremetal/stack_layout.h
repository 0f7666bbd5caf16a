/* Per-core stack layout, shared by assembly start code and C++ (so only #defines here).
 * Each core owns one CORE_STACKS_SIZE slot in the .stacks section, lowest address first:
 *   [guard, never mapped / no access] [main stack, grows down] [exception stack]
 * A main-stack overflow hits the guard and faults; the fault handler runs on the exception stack,
 * so it can still report. The guard's size is the architecture's (hal/arch/<arch>/stack_guard.h:
 * what its stack probes need); the slot is a whole number of guards, so every guard is aligned to
 * its size (the RISC-V PMP's NAPOT regions need it) and lies on whole pages. */
#pragma once

#include "stack_guard.h"
/* Main stack: 256 KiB. The runtime keeps per-replica values inline: a DistributedValue has room for
 * one 168-byte Tensor per replica of the pod, kMaxPodDevices = 64 of them (10.5 KiB), and the
 * strategy's cross-replica calls keep a few such tables in their frames. Measured with -fstack-usage
 * and -fcallgraph-info (qemu-virt-a53, the strategy suite): the deepest static chain was 61 KiB of the
 * former 64 KiB at 16 devices and is 182 KiB at 64 (batch_reduce_cases' own 95 KiB frame of nine
 * values, then reduce_to, broadcast, replicate); the runtime's own deepest is ~85 KiB, and a replica
 * function reached through replicate adds up to ~55 KiB (merge_call). Trade-off: 16 cores x 268 KiB
 * = 4.2 MiB of stacks per board instead of 1.2 MiB (of 512 or 960 MiB), against holding the values
 * out of line, which would give DistributedValue, a value type apps copy and return, an owner and a
 * lifetime. Stack that is reserved costs no time: a value touches only its own components
 * (distributed_value.hpp). An overflow still faults in the guard page below: on AArch64 every frame
 * larger than a page probes each page as it grows (BOARD_STACK_FLAGS, -fstack-clash-protection), so a
 * 10 KiB frame cannot step over the 4 KiB guard (at 64 KiB, train-digits on qemu-virt-a53 did so and
 * hung; with the probes it stops with "stack overflow"); RISC-V probes the same way with GCC's generic
 * stack checking and a 16 KiB guard (hal/arch/riscv64/stack_guard.h). tests/faults/stack-leap checks
 * it on every board with 48 KiB frames. */
#define STACK_MAIN_SIZE 0x40000
#define STACK_EXCEPTION_MIN_SIZE 0x2000
/* Rounded up to a whole number of guards; the rounding goes to the exception stack. */
#define CORE_STACKS_SIZE \
  ((STACK_GUARD_SIZE + STACK_MAIN_SIZE + STACK_EXCEPTION_MIN_SIZE + STACK_GUARD_SIZE - 1) / STACK_GUARD_SIZE * STACK_GUARD_SIZE)
#define STACK_EXCEPTION_SIZE (CORE_STACKS_SIZE - STACK_GUARD_SIZE - STACK_MAIN_SIZE)
#define STACK_MAIN_TOP_OFFSET (STACK_GUARD_SIZE + STACK_MAIN_SIZE)
#define STACK_EXCEPTION_TOP_OFFSET CORE_STACKS_SIZE
