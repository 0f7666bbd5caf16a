# raspi3b targets for a real board, included by the Makefile (BUILD, BOOT_IMAGE are set by then).
#   make sdcard BOARD=raspi3b [APP=..]        <the app's build>/sdcard/ (build/raspi3b/<app>/sdcard/ here, <app>/build/
#                                             raspi3b/sdcard/ for an app folder elsewhere): kernel8.img = the app,
#                                             config.txt, README.txt
#   make sdcard BOARD=raspi3b CHAINLOADER=1   build/raspi3b/chainloader/sdcard/: the same with the UART chainloader
#   make chainboot BOARD=raspi3b [APP=..] SERIAL=/dev/ttyUSB0
#                                             send the app to the chainloader, then show the console
#   make chainboot BOARD=raspi3b SERIAL=qemu  the same path end to end in QEMU (loader, TCP link)
RASPI3B_LOADER_BUILD := $(BUILD_ROOT)/raspi3b/chainloader
RASPI3B_SDCARD := $(if $(CHAINLOADER),$(RASPI3B_LOADER_BUILD),$(BUILD))/sdcard
RASPI3B_LOADER_ELF := $(RASPI3B_LOADER_BUILD)/chainloader.elf
RASPI3B_LOADER_IMAGE := $(RASPI3B_LOADER_BUILD)/kernel8.img
RASPI3B_LOADER_SRCS := boards/raspi3b/chainloader/start.S boards/raspi3b/chainloader/main.cpp \
  hal/drivers/mini_uart.cpp hal/drivers/pl011.cpp hal/drivers/bcm2835_gpio.cpp runtime/link/transport/crc32.cpp
# MMU and caches stay off in the loader: every access is Device memory, so no unaligned accesses,
# and no libc (its string functions assume Normal memory).
RASPI3B_LOADER_FLAGS := $(CXXSTD) -O2 -g $(WARNINGS) $(BOARD_CPU_FLAGS) -mstrict-align -mgeneral-regs-only \
  -ffreestanding -nostdinc++ -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-asynchronous-unwind-tables \
  -fno-stack-protector -fno-tree-loop-distribute-patterns -fno-pie -fno-pic -I. -Ihal/include \
  -specs=$(BOARD_PICOLIBC)/picolibcpp.specs -DBOARD_RAM_MB=$(BOARD_RAM_MB) -DBOARD_LINK_WINDOW_MB=$(BOARD_LINK_WINDOW_MB)
RASPI3B_BAUD ?= 115200

.PHONY: chainloader
chainloader: $(RASPI3B_LOADER_IMAGE)

$(RASPI3B_LOADER_ELF): $(RASPI3B_LOADER_SRCS) $(wildcard boards/raspi3b/*.hpp hal/drivers/*.hpp) \
    boards/raspi3b/chainloader/linker.ld | setup-board
	@mkdir -p $(dir $@)
	$(BOARD_CROSS)g++ $(RASPI3B_LOADER_FLAGS) -nostdlib -nostartfiles -static -no-pie \
	  -T boards/raspi3b/chainloader/linker.ld -Wl,--gc-sections -Wl,--no-warn-rwx-segments \
	  -o $@.$$$$ $(RASPI3B_LOADER_SRCS) -lgcc $(into_place)

$(RASPI3B_LOADER_IMAGE): $(RASPI3B_LOADER_ELF)
	$(BOARD_CROSS)objcopy -O binary $< $@.$$$$ $(into_place)

sdcard: $(if $(CHAINLOADER),$(RASPI3B_LOADER_IMAGE),$(BOOT_IMAGE))
	rm -rf $(RASPI3B_SDCARD)
	mkdir -p $(RASPI3B_SDCARD)
	cp $< $(RASPI3B_SDCARD)/kernel8.img
	cp boards/raspi3b/sdcard/config.txt boards/raspi3b/sdcard/README.txt $(RASPI3B_SDCARD)/
	@echo "$(RASPI3B_SDCARD)/: kernel8.img ($(if $(CHAINLOADER),the UART chainloader,app $(APP))), config.txt, README.txt"
	@echo "add bootcode.bin, start.elf and fixup.dat from the Raspberry Pi firmware (see README.txt), then copy the folder to a FAT32 SD card"

# SERIAL=qemu runs one TCG thread: under multi-threaded TCG the cores waiting in the spin table spin
# and starve QEMU's main loop, which moves the image into the mini UART a byte at a time (hello's
# 95 KB: about 2 s against 10 s, and 30-50 s beside another such QEMU).
chainboot: $(BOOT_IMAGE) $(if $(filter qemu,$(SERIAL)),$(RASPI3B_LOADER_IMAGE))
ifeq ($(SERIAL),)
	@echo "make chainboot needs SERIAL=<device> (e.g. /dev/ttyUSB0), or SERIAL=qemu to try it in QEMU" >&2; exit 1
else ifeq ($(SERIAL),qemu)
	python3 host-tools/chainboot/chainboot.py $(BOOT_IMAGE) --qemu "$(RASPI3B_QEMU) -accel tcg,thread=single -smp $(CORES)" \
	  --loader $(RASPI3B_LOADER_IMAGE)
else
	python3 host-tools/chainboot/chainboot.py $(BOOT_IMAGE) --serial $(SERIAL) --baud $(RASPI3B_BAUD)
endif
