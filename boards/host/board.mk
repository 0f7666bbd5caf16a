# host: the firmware as a native process, POSIX threads as cores (what Catch2 tests and quick
# iteration use). Same firmware and runtime sources as the QEMU boards.
BOARD_ARCH := host
# The MXU's numerics are one fused multiply-add per step on every board; x86 needs FMA3 for that.
BOARD_CPU_FLAGS := -mavx2 -mfma
# Stack probes: a frame larger than a page touches each page as it grows, so a core thread's overflow
# lands in its stack's guard page (reported as a stack overflow) instead of stepping over it.
BOARD_STACK_FLAGS := -fstack-clash-protection
BOARD_DRIVERS :=
BOARD_CORES_VALID := 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16
BOARD_MXU_TILE := 128
BOARD_PACKAGES := g++
# The shared-memory link (tpu run's default): tpu makes a RAM file of BOARD_LINK_RAM_MB, the board
# maps it (--link-ram), the top BOARD_LINK_WINDOW_MB carries the link's rings and the rest is the
# board's tensor memory, where tpu places infeed tuples and host-call results (hal/arch/host/link_ram.hpp).
BOARD_LINK_RAM_MB := 4112
BOARD_LINK_WINDOW_MB := 16
