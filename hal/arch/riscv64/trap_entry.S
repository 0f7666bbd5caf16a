/* RISC-V trap entry. Every trap is fatal in this runtime (interrupts only wake WFI, they are never
 * taken), so it switches to the trap stack in mscratch, saves all registers and calls
 * riscv_trap(mcause, mepc, mtval, frame), which reports and exits. */
    .section .text.vectors, "ax"
    .balign 4
    .global riscv_trap_entry
riscv_trap_entry:
    csrrw   sp, mscratch, sp
    addi    sp, sp, -(32 * 8)
    .irp reg, 1,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    sd      x\reg, (\reg * 8)(sp)
    .endr
    csrr    t0, mscratch
    sd      t0, (2 * 8)(sp)             /* the interrupted sp */
    csrr    a0, mcause
    csrr    a1, mepc
    csrr    a2, mtval
    mv      a3, sp
    call    riscv_trap
    j       .
