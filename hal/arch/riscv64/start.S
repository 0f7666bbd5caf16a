/* RISC-V (M-mode) entry. Every hart enters here with a0 = hart id and a1 = device tree address
 * (QEMU virt with -bios none). Each hart gets its stacks (stack_layout.h); the trap stack pointer
 * lives in mscratch so a stack overflow can still be reported. Hart 0 zeroes .bss and runs C++;
 * the others park in WFI until the board releases them (riscv_hart_release[hart] set + MSIP). */
#include "stack_layout.h"

#define MAX_HARTS 16

    .section .text.boot, "ax"
    .global _start
_start:
    csrw    mie, zero
    csrw    mip, zero
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
    mv      s0, a0                      /* hart id == logical core id on this board */
    mv      s1, a1                      /* device tree */
    li      t0, MAX_HARTS
    bgeu    s0, t0, unsupported_hart

    la      t0, core_stacks
    li      t1, CORE_STACKS_SIZE
    mul     t1, s0, t1
    add     t0, t0, t1
    li      t1, STACK_EXCEPTION_TOP_OFFSET
    add     t2, t0, t1
    csrw    mscratch, t2                /* trap stack */
    li      t1, STACK_MAIN_TOP_OFFSET
    add     sp, t0, t1
    la      t0, riscv_trap_entry
    csrw    mtvec, t0
    li      t0, (1 << 13)               /* mstatus.FS = initial: FP usable */
    csrs    mstatus, t0
    fscsr   zero

    bnez    s0, park
    la      t0, __bss_start
    la      t1, __bss_end
1:  bgeu    t0, t1, 2f
    sd      zero, 0(t0)
    addi    t0, t0, 8
    j       1b
2:  mv      a0, s1
    call    riscv_boot_core_main        /* never returns */
    j       .

park:
    li      t0, (1 << 3)                /* mie.MSIE: a software interrupt wakes WFI (never taken: mstatus.MIE = 0) */
    csrw    mie, t0
    la      t0, riscv_hart_release
    slli    t1, s0, 3
    add     t0, t0, t1
3:  ld      t1, 0(t0)
    bnez    t1, 4f
    wfi
    j       3b
4:  fence   r, rw                       /* acquire: see everything written before the release */
    mv      a0, s0
    call    riscv_secondary_core_main   /* never returns */
    j       .

unsupported_hart:
    wfi
    j       unsupported_hart

    .section .data
    .balign 8
    .global riscv_hart_release
riscv_hart_release:                     /* in .data, not .bss: read before hart 0 zeroes .bss */
    .fill   MAX_HARTS, 8, 0
