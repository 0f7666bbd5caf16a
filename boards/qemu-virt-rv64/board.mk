# qemu-virt-rv64: QEMU "virt" machine, RV64GC harts in M-mode (-bios none), CLINT, NS16550A UART.
BOARD_ARCH := riscv64
BOARD_CROSS := riscv64-unknown-elf-
BOARD_CPU_FLAGS := -march=rv64imafdc_zicsr_zifencei -mabi=lp64d -mcmodel=medany
BOARD_PICOLIBC := /usr/lib/picolibc/riscv64-unknown-elf
# Stack probes: RISC-V's GCC 12 has no -fstack-clash-protection, so GCC's generic stack checking:
# each non-leaf function stores about 4.6 KiB below its stack pointer and a large frame every 4 KiB,
# which the core's 16 KiB guard (hal/arch/riscv64/stack_guard.h) always catches. It costs a store
# per non-leaf call and per 4 KiB of a large frame (and a frame pointer there); the MXU's kernels
# are leaf loops.
BOARD_STACK_FLAGS := -fstack-check
BOARD_DRIVERS := ns16550 clint semihosting sifive_test
BOARD_CORES_VALID := 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16
BOARD_MXU_TILE := 64
BOARD_RAM_MB := 512
# The top 16 MiB of RAM are the shared-memory link window (hal/link_window.hpp).
BOARD_LINK_WINDOW_MB := 16
BOARD_QEMU := qemu-system-riscv64 -M virt -bios none -m $(BOARD_RAM_MB)M \
  -display none -monitor none -serial stdio -semihosting-config enable=on,target=native
BOARD_GDB_ARCH := riscv:rv64
BOARD_PACKAGES := gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc
