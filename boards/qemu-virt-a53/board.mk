# qemu-virt-a53: QEMU "virt" machine, Cortex-A53 cores, GICv3, PSCI over HVC, PL011 UART.
BOARD_ARCH := aarch64
BOARD_CROSS := aarch64-linux-gnu-
BOARD_CPU_FLAGS := -mcpu=cortex-a53 -mno-outline-atomics
# Stack probes: a frame larger than a page touches each page as it grows, so an overflow always lands
# in the core's 4 KiB guard page (2^12; hal/arch/aarch64/stack_guard.h) and faults, even from a
# frame holding per-replica tables (10.5 KiB each at kMaxPodDevices = 64) that would otherwise step over it.
BOARD_STACK_FLAGS := -fstack-clash-protection --param stack-clash-protection-guard-size=12
BOARD_PICOLIBC := /usr/lib/picolibc/aarch64-linux-gnu
BOARD_DRIVERS := pl011 gicv3 psci semihosting
BOARD_CORES_VALID := 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16
BOARD_MXU_TILE := 128
BOARD_RAM_MB := 512
# The top 16 MiB of RAM are the shared-memory link window (hal/link_window.hpp).
BOARD_LINK_WINDOW_MB := 16
BOARD_QEMU := qemu-system-aarch64 -M virt,gic-version=3 -cpu cortex-a53 -m $(BOARD_RAM_MB)M \
  -display none -monitor none -serial stdio -semihosting-config enable=on,target=native
BOARD_GDB_ARCH := aarch64
BOARD_PACKAGES := gcc-aarch64-linux-gnu g++-aarch64-linux-gnu picolibc-aarch64-linux-gnu qemu-system-arm
