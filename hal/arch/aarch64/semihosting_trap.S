/* AArch64 semihosting trap: x0 = operation, x1 = parameter block; result in x0. */
    .section .text.semihosting, "ax"
    .global semihosting_trap
semihosting_trap:
    hlt     #0xf000
    ret
