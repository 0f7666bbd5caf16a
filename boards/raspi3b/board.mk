# raspi3b: Raspberry Pi 3 Model B (BCM2837, 4 Cortex-A53), in QEMU (-M raspi3b) or real. Boots a raw
# kernel8.img at 0x80000 at EL2; secondaries start through the spin table; BCM2836 local mailboxes
# for doorbells; PL011 console (QEMU's first -serial), mini UART link (second -serial; the header's
# GPIO 14/15 on a real board). `make sdcard` and `make chainboot`: boards/raspi3b/rules.mk.
BOARD_ARCH := aarch64
BOARD_CROSS := aarch64-linux-gnu-
BOARD_CPU_FLAGS := -mcpu=cortex-a53 -mno-outline-atomics
# Stack probes: a frame larger than a page touches each page as it grows, so an overflow always lands
# in the core's 4 KiB guard page (2^12; hal/arch/aarch64/stack_guard.h) and faults, even from a
# frame holding per-replica tables (10.5 KiB each at kMaxPodDevices = 64) that would otherwise step over it.
BOARD_STACK_FLAGS := -fstack-clash-protection --param stack-clash-protection-guard-size=12
BOARD_PICOLIBC := /usr/lib/picolibc/aarch64-linux-gnu
BOARD_DRIVERS := pl011 mini_uart bcm2835_gpio bcm2836_local semihosting
BOARD_CORES_VALID := 4
BOARD_CORES_DEFAULT := 4
BOARD_MXU_TILE := 128
# ARM RAM below the VideoCore's share (config.txt gpu_mem=64 of the 1 GiB).
BOARD_RAM_MB := 960
# The top 16 MiB of ARM RAM are the shared-memory link window under QEMU (hal/link_window.hpp); QEMU's
# raspi3b machine has 1024 MiB of RAM in all (the RAM file tpu creates has that size).
BOARD_LINK_WINDOW_MB := 16
BOARD_QEMU_RAM_MB := 1024
# QEMU and the Pi firmware both take a raw binary (the Makefile builds it from the ELF).
BOARD_BOOT_IMAGE := kernel8.img
# First -serial: the PL011 console; second: the mini UART link (RASPI3B_LINK_SERIAL, e.g. pty).
RASPI3B_QEMU := qemu-system-aarch64 -M raspi3b -display none -monitor none \
  -semihosting-config enable=on,target=native -serial stdio
RASPI3B_LINK_SERIAL ?= null
BOARD_QEMU := $(RASPI3B_QEMU) -serial $(RASPI3B_LINK_SERIAL)
BOARD_GDB_ARCH := aarch64
BOARD_PACKAGES := gcc-aarch64-linux-gnu g++-aarch64-linux-gnu picolibc-aarch64-linux-gnu qemu-system-arm
