/* Per-core stack layout, shared by assembly start code and C++ (so only #defines here).
 * Each core owns one CORE_STACKS_SIZE slot in the .stacks section, lowest address first:
 *   [guard page, never mapped / no access] [main stack, grows down] [exception stack]
 * A main-stack overflow hits the guard and faults; the fault handler runs on the exception stack,
 * so it can still report. Sizes are multiples of the 4 KiB page so guards can be unmapped. */
#pragma once

#define STACK_GUARD_SIZE 0x1000
#define STACK_MAIN_SIZE 0x10000
#define STACK_EXCEPTION_SIZE 0x2000
#define CORE_STACKS_SIZE (STACK_GUARD_SIZE + STACK_MAIN_SIZE + STACK_EXCEPTION_SIZE)
#define STACK_MAIN_TOP_OFFSET (STACK_GUARD_SIZE + STACK_MAIN_SIZE)
#define STACK_EXCEPTION_TOP_OFFSET CORE_STACKS_SIZE
