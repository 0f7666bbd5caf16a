/* RISC-V semihosting trap: the magic uncompressed sequence slli/ebreak/srai marks the EBREAK as a
 * semihosting call. a0 = operation, a1 = parameter block; result in a0. */
    .section .text.semihosting, "ax"
    .option push
    .option norvc
    .balign 16
    .global semihosting_trap
semihosting_trap:
    slli    zero, zero, 0x1f
    ebreak
    srai    zero, zero, 7
    ret
    .option pop
