/* AArch64 exception vectors. Every exception is fatal in this runtime (interrupts stay masked;
 * doorbells are polled after WFI), so each vector saves the full register state on the exception
 * stack (SP_EL1) and calls aarch64_exception(frame, vector_index), which reports and exits. */

    .macro vector_entry index
    .balign 0x80
    sub     sp, sp, #(34 * 8)
    stp     x0, x1, [sp, #0]
    mov     x0, #\index
    b       save_and_report
    .endm

    .section .text.vectors, "ax"
    .balign 0x800
    .global aarch64_vectors
aarch64_vectors:
    vector_entry 0    /* current EL, SP_EL0: synchronous (the normal case here) */
    vector_entry 1    /* current EL, SP_EL0: IRQ */
    vector_entry 2    /* current EL, SP_EL0: FIQ */
    vector_entry 3    /* current EL, SP_EL0: SError */
    vector_entry 4    /* current EL, SP_ELx: synchronous (fault inside a fault handler) */
    vector_entry 5
    vector_entry 6
    vector_entry 7
    vector_entry 8    /* lower EL AArch64 (never used) */
    vector_entry 9
    vector_entry 10
    vector_entry 11
    vector_entry 12   /* lower EL AArch32 (never used) */
    vector_entry 13
    vector_entry 14
    vector_entry 15

save_and_report:
    /* x0 = vector index, original x0/x1 already at [sp]; frame: x0..x30, sp_el0, elr, spsr. */
    stp     x2, x3, [sp, #16]
    stp     x4, x5, [sp, #32]
    stp     x6, x7, [sp, #48]
    stp     x8, x9, [sp, #64]
    stp     x10, x11, [sp, #80]
    stp     x12, x13, [sp, #96]
    stp     x14, x15, [sp, #112]
    stp     x16, x17, [sp, #128]
    stp     x18, x19, [sp, #144]
    stp     x20, x21, [sp, #160]
    stp     x22, x23, [sp, #176]
    stp     x24, x25, [sp, #192]
    stp     x26, x27, [sp, #208]
    stp     x28, x29, [sp, #224]
    mrs     x2, sp_el0
    stp     x30, x2, [sp, #240]
    mrs     x2, elr_el1
    mrs     x3, spsr_el1
    stp     x2, x3, [sp, #256]
    mov     x1, x0
    mov     x0, sp
    bl      aarch64_exception           /* never returns */
    b       .
