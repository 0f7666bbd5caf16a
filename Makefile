# tpu-pod: a freestanding C++ runtime that turns a multicore board into a miniature TPU pod.
#
#   make run  [BOARD=qemu-virt-a53|qemu-virt-rv64|host|raspi3b] [CORES=1..16] [APP=hello|path/to/app]
#   make test          every test on every board; ends with "N passed, N failed"
#   make debug         QEMU halted at reset with gdb-multiarch attached (each core a gdb thread)
#   make image         just build the firmware image for BOARD/APP
#   make app-tool  (APP with a host/ folder) the app's own tpu: the host tool plus its host functions
#   make runtime       just build the board's runtime library (every app links it; built once per board)
#   make tpu           build the host tool build/host-tools/tpu (tpu run APP: boot, serve, collect)
#   make tpu-tests     build and run the host tool's Catch2 tests
#   make bench         benchmarks: one JSON line each, also in build/bench/results.jsonl
#   make multi-host-check   a pod across this host and a second one emulated with Linux namespaces (root)
#   make sdcard / make chainboot   (BOARD=raspi3b) SD-card boot folder / send an image over the UART
#   SANITIZE=thread    (BOARD=host) build with ThreadSanitizer; also address, undefined
#   make setup         install the Debian packages the build needs (run automatically)
#   make clean
#   V=1                print full command lines (quiet "CXX file" lines by default)
#
# APP is an app of this repository by name, or the path of an app folder anywhere (absolute, or relative
# to this directory): device/*.cpp is the device half, host/*.cpp the optional host half (host
# functions), app.toml how `make test` runs it and which device libraries it links ([build]
# libraries). Out-of-tree apps build into <app>/build/. The repository's apps, by purpose:
#   firmware/examples/   what a user reads first (hello, readme-examples, infeed, ... train-digits)
#   tests/device/        on-device test suites      tests/faults/   images that fail on purpose
#   tests/bench/         benchmark images           host-tools/images/   the images of tpu's commands
#
# Board specifics (toolchain, QEMU command line, valid core counts, drivers) live in
# boards/<board>/board.mk; nothing board-specific belongs in this file.

# No built-in rules: every rule is written here, and make's search of its built-in ones for each of
# the hundreds of headers the dependency files name was half of its start-up time.
MAKEFLAGS += --no-builtin-rules
.SUFFIXES:
comma := ,
BOARDS := $(sort $(notdir $(patsubst %/board.mk,%,$(wildcard boards/*/board.mk))))
# The repository's apps: every folder with an app.toml under these roots (names are unique).
APP_ROOTS := firmware/examples tests/device tests/faults tests/bench host-tools/images
APP_FOLDERS := $(sort $(patsubst %/app.toml,%,$(wildcard $(APP_ROOTS:%=%/*/app.toml))))
APPS := $(sort $(notdir $(APP_FOLDERS)))
ifneq ($(words $(APPS)),$(words $(APP_FOLDERS)))
$(error two apps of this repository share a name: $(APP_FOLDERS))
endif

BOARD ?= qemu-virt-a53
APP ?= hello

ifeq ($(filter $(BOARD),$(BOARDS)),)
$(error unknown BOARD '$(BOARD)'; valid boards: $(BOARDS))
endif

# The app's folder: the repository's app of that name, else APP itself as a path.
APP_DIR := $(patsubst %/,%,$(if $(filter $(APP),$(APPS)),$(filter %/$(APP),$(APP_FOLDERS)),$(APP)))
APP_DEVICE_SRCS := $(sort $(wildcard $(APP_DIR)/device/*.cpp))
# Device libraries the app declares in app.toml (`libraries = ["../folder", ...]` under [build],
# relative to the app): each folder's *.cpp are compiled into the app, like its own device half.
APP_LIBRARIES := $(shell sed -n 's/^libraries *= *\[\(.*\)\]/\1/p' $(APP_DIR)/app.toml 2>/dev/null | tr -d '",')
APP_LIBRARY_DIRS := $(foreach library,$(APP_LIBRARIES),$(patsubst $(CURDIR)/%,%,$(abspath $(APP_DIR)/$(library))))
$(foreach library,$(APP_LIBRARY_DIRS),$(if $(wildcard $(library)/*.cpp),,$(error app $(APP): library '$(library)' (app.toml [build] libraries) has no *.cpp)))
APP_HOST_SRCS := $(sort $(wildcard $(APP_DIR)/host/*.cpp))
ifeq ($(APP_DEVICE_SRCS),)
$(error unknown APP '$(APP)': neither an app of this repository nor a folder with device/*.cpp; valid apps: $(APPS) or a path to an app folder)
endif
APP_NAME := $(notdir $(APP_DIR))
APP_IN_TREE := $(filter $(APP_FOLDERS),$(APP_DIR))

include boards/$(BOARD)/board.mk
# Default core count: 8, or the board's own (BOARD_CORES_DEFAULT) where 8 is not valid (raspi3b: 4).
CORES ?= $(or $(BOARD_CORES_DEFAULT),8)

ifeq ($(filter $(CORES),$(BOARD_CORES_VALID)),)
$(error invalid CORES '$(CORES)' for BOARD $(BOARD); valid: $(BOARD_CORES_VALID))
endif

# SANITIZE=thread|address|undefined builds the host board with that sanitizer (own build folder).
SANITIZE ?=
ifneq ($(SANITIZE),)
ifneq ($(BOARD),host)
$(error SANITIZE works on BOARD=host only)
endif
endif

BUILD_ROOT := build

# The compilers' dependency files (.d: the headers each object read) are most of make's start-up
# (about 300 files: 0.15 s of a 0.18 s query), and tpu asks make several things per run; so make
# reads only the groups of .d files its goals can build: none for a query (print-*, help, setup).
GOALS := $(or $(MAKECMDGOALS),all)
QUERY_GOALS := print-% help clean setup setup-% examples-check
HOST_TOOLS_GOALS := tpu tpu-tests app-tool app-tool-link unit-tests fuzz-replay $(BUILD_ROOT)/host-tools%
FUZZ_GOALS := fuzz fuzz-targets $(BUILD_ROOT)/fuzz/%
READ_BOARD_DEPS := $(filter-out $(QUERY_GOALS) $(HOST_TOOLS_GOALS) $(FUZZ_GOALS),$(GOALS))
READ_HOST_TOOLS_DEPS := $(filter $(HOST_TOOLS_GOALS),$(GOALS))
READ_FUZZ_DEPS := $(filter $(FUZZ_GOALS),$(GOALS))
BOARD_BUILD := $(BOARD)$(if $(SANITIZE),-$(SANITIZE))
# The runtime library of this board (runtime/, firmware/*.cpp, hal/, boards/<board>): built once per
# board, linked whole into every app.
LIB_BUILD := $(BUILD_ROOT)/$(BOARD_BUILD)/lib
RUNTIME_LIB := $(LIB_BUILD)/libtpu-runtime.a
# The app's own objects and image: build/<board>/<app> in this repository, <app>/build/<board> outside.
BUILD := $(if $(APP_IN_TREE),$(BUILD_ROOT)/$(BOARD_BUILD)/$(APP_NAME),$(APP_DIR)/build/$(BOARD_BUILD))
APP_IMAGE := $(BUILD)/firmware.elf
# What the board boots: the ELF, or its raw binary where board.mk names one (BOARD_BOOT_IMAGE,
# e.g. raspi3b's kernel8.img, which QEMU and the Pi firmware load at 0x80000).
APP_BOOT_IMAGE := $(if $(BOARD_BOOT_IMAGE),$(BUILD)/$(BOARD_BOOT_IMAGE),$(APP_IMAGE))
# IMAGE=<elf> on the command line runs that ELF instead of the app's (make print-run-command, tpu run
# IMAGE): it is an input, never rebuilt; its boot image is made from it, next to it (make boot-image).
ifeq ($(origin IMAGE),command line)
BOOT_IMAGE := $(if $(BOARD_BOOT_IMAGE),$(basename $(IMAGE)).$(BOARD_BOOT_IMAGE),$(IMAGE))
else
IMAGE := $(APP_IMAGE)
BOOT_IMAGE := $(APP_BOOT_IMAGE)
endif

# ---------------------------------------------------------------- flags
CXXSTD := -std=c++20
WARNINGS := -Wall -Wextra -Wno-missing-field-initializers
# -ffp-contract=off: no fused multiply-add contraction, so float results are the same bits on every
# target (GCC contracts a*b+c by default on AArch64 and RISC-V, not on x86 without -mfma).
# A sanitized host board (SANITIZE=thread in make test) is for checking only: -O1 with line tables,
# what ThreadSanitizer's reports need, in two thirds of the CPU time of -O2 -g (the runtime: 48
# against 75 s here); the same float semantics, so the same bits.
OPT := $(if $(SANITIZE),-O1 -g1,-O2 -g) -ftree-vectorize -fvect-cost-model=dynamic -ffp-contract=off
INCLUDES := -I. -Ihal/include -Ihal/common/baremetal -Ihal/arch/$(BOARD_ARCH) -Iboards/$(BOARD)
# Everything under runtime/, firmware/ and hal/common is freestanding on every target.
FREESTANDING := -ffreestanding -nostdinc++ -fno-exceptions -fno-rtti -fno-threadsafe-statics \
  -fno-asynchronous-unwind-tables -ffunction-sections -fdata-sections -fno-stack-protector
DEFINES := -DBOARD_RAM_MB=$(or $(BOARD_RAM_MB),0) -DBOARD_LINK_WINDOW_MB=$(or $(BOARD_LINK_WINDOW_MB),0) -DBOARD_NAME=\"$(BOARD)\" -DBOARD_MXU_TILE=$(or $(BOARD_MXU_TILE),128)

ifeq ($(BOARD_ARCH),host)
  CXX_TARGET := g++
  # TSan does not model standalone fences (-Wtsan); the handshake they order is argued in mailbox.hpp.
  SANITIZER_FLAGS := $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-omit-frame-pointer) $(if $(filter thread,$(SANITIZE)),-Wno-tsan)
  TARGET_FLAGS := -pthread $(BOARD_CPU_FLAGS) $(BOARD_STACK_FLAGS) $(SANITIZER_FLAGS)
  HOSTED_CXXFLAGS := $(CXXSTD) $(OPT) $(WARNINGS) $(INCLUDES) $(DEFINES) -pthread $(BOARD_CPU_FLAGS) $(BOARD_STACK_FLAGS) $(SANITIZER_FLAGS)
else
  CXX_TARGET := $(BOARD_CROSS)g++
  # picolibc's release build (headers and libc.a): Debian's default build prefers size over speed,
  # so its memcpy and memset move one byte at a time (a 38 KB gradient copy took 140 us on a
  # qemu-virt-a53 core, 10 us with the release build's ldp/stp memcpy).
  PICOLIBC_BUILD := --picolibc-buildtype=release
  # BOARD_STACK_FLAGS (board.mk): the compiler's stack probes, which the guard below each core's
  # stack must match (hal/arch/<arch>/stack_guard.h); the host board's are in TARGET_FLAGS above.
  # -fno-unwind-tables: the cross compilers default to unwind tables in .eh_frame, which the linker
  # script drops (nothing unwinds at run time); without them GCC writes the same CFI to .debug_frame,
  # which stays in the ELF for gdb (backtraces end at the core's entry instead of looping forever).
  TARGET_FLAGS := $(BOARD_CPU_FLAGS) $(BOARD_STACK_FLAGS) $(PICOLIBC_BUILD) -specs=$(BOARD_PICOLIBC)/picolibcpp.specs -fno-pie -fno-pic \
    -fno-unwind-tables
endif
CXXFLAGS_NO_DEPS := $(CXXSTD) $(OPT) $(WARNINGS) $(FREESTANDING) $(TARGET_FLAGS) $(INCLUDES) $(DEFINES)
CXXFLAGS := $(CXXFLAGS_NO_DEPS) -MMD -MP
ASFLAGS := $(BOARD_CPU_FLAGS) $(INCLUDES) -g -MMD -MP

# ---------------------------------------------------------------- sources
RUNTIME_SRCS := $(shell find runtime -name '*.cpp' | sort)
FIRMWARE_SRCS := $(wildcard firmware/*.cpp)
# The ground library every layer stands on (Status, format, Span, Atomic...; hal/support): depends on nothing.
SUPPORT_SRCS := $(wildcard hal/support/*.cpp)
HAL_COMMON_SRCS := $(wildcard hal/common/*.cpp)
ifneq ($(BOARD_ARCH),host)
  HAL_COMMON_SRCS += $(wildcard hal/common/baremetal/*.cpp)
endif
HAL_DRIVER_SRCS := $(BOARD_DRIVERS:%=hal/drivers/%.cpp)
# Arch and board code: hosted C++ on the host board, freestanding elsewhere.
PLATFORM_SRCS := $(wildcard hal/arch/$(BOARD_ARCH)/*.cpp hal/arch/$(BOARD_ARCH)/*.S boards/$(BOARD)/*.cpp)

LIB_FREESTANDING_OBJS := $(patsubst %,$(LIB_BUILD)/%.o,$(SUPPORT_SRCS) $(RUNTIME_SRCS) $(FIRMWARE_SRCS) $(HAL_COMMON_SRCS) $(HAL_DRIVER_SRCS))
LIB_PLATFORM_OBJS := $(patsubst %,$(LIB_BUILD)/%.o,$(PLATFORM_SRCS))
LIB_OBJS := $(LIB_FREESTANDING_OBJS) $(LIB_PLATFORM_OBJS)
# A library's objects: build/.../obj/lib/<library folder's name>/.
library_objects = $(patsubst $(1)/%,$(BUILD)/obj/lib/$(notdir $(1))/%.o,$(sort $(wildcard $(1)/*.cpp)))
APP_LIBRARY_OBJS := $(foreach library,$(APP_LIBRARY_DIRS),$(call library_objects,$(library)))
APP_OBJS := $(patsubst $(APP_DIR)/%,$(BUILD)/obj/%.o,$(APP_DEVICE_SRCS)) $(APP_LIBRARY_OBJS)
OBJS := $(LIB_OBJS) $(APP_OBJS)
# The whole library goes in (its objects register nothing by reference; --gc-sections drops the unused).
# A thin archive: it names the objects in place (several share a file name, which a plain one would merge).
LINK_INPUTS := -Wl,--whole-archive $(RUNTIME_LIB) -Wl,--no-whole-archive $(APP_OBJS)

# Objects depend on a stamp holding the flags, so changing a flag rebuilds what it affects.
FLAGS_TEXT := $(CXX_TARGET) $(CXXFLAGS) $(ASFLAGS) $(HOSTED_CXXFLAGS)
LIB_FLAGS_STAMP := $(LIB_BUILD)/.flags
FLAGS_STAMP := $(BUILD)/.flags
ifneq ($(READ_BOARD_DEPS),)
$(shell for stamp in $(LIB_FLAGS_STAMP) $(FLAGS_STAMP); do mkdir -p $$(dirname $$stamp) && \
  (printf '%s\n' '$(FLAGS_TEXT)' | cmp -s - $$stamp || printf '%s\n' '$(FLAGS_TEXT)' > $$stamp); done)
endif

# Quiet build lines ("  CXX  file") unless V=1, which prints the full command lines instead.
ifeq ($(V),1)
  say :=
else
  say = @printf '  %-4s %s\n' '$(1)' '$(2)';
endif
# Ends a recipe that wrote its target under a temporary name ($@.$$$$, unique by the shell's PID):
# renames it into place, or removes it if the step failed. Whoever reads the target (a link, QEMU,
# a run executing a program) sees the old file or the new one, never half of one.
into_place = && mv -f $@.$$$$ $@ || { rm -f $@.$$$$; false; }

# ---------------------------------------------------------------- build rules
.PHONY: all image boot-image runtime app-tool app-tool-link device-half run print-run-command print-app-folders print-link-layout print-board-cores print-boot-image print-fault-symbolizer debug test freestanding-check bench \
  setup setup-board setup-host-tools setup-debug setup-all clean help tpu tpu-tests print-app-tool
all: image
image: $(APP_IMAGE) $(APP_BOOT_IMAGE)
# The boot image of IMAGE (the ELF itself, or e.g. raspi3b's kernel8.img made from it).
boot-image: $(BOOT_IMAGE)
runtime: $(RUNTIME_LIB)

$(LIB_FREESTANDING_OBJS): $(LIB_BUILD)/%.cpp.o: %.cpp $(LIB_FLAGS_STAMP) | setup-board
	@mkdir -p $(dir $@)
	$(call say,CXX,$<)$(CXX_TARGET) $(CXXFLAGS) -c $< -o $@

$(filter-out $(APP_LIBRARY_OBJS),$(APP_OBJS)): $(BUILD)/obj/%.cpp.o: $(APP_DIR)/%.cpp $(FLAGS_STAMP) | setup-board
	@mkdir -p $(dir $@)
	$(call say,CXX,$<)$(CXX_TARGET) $(CXXFLAGS) -c $< -o $@

define library_rule
$(call library_objects,$(1)): $(BUILD)/obj/lib/$(notdir $(1))/%.cpp.o: $(1)/%.cpp $(FLAGS_STAMP) | setup-board
	@mkdir -p $$(dir $$@)
	$$(call say,CXX,$$<)$$(CXX_TARGET) $$(CXXFLAGS) -c $$< -o $$@
endef
$(foreach library,$(APP_LIBRARY_DIRS),$(eval $(call library_rule,$(library))))

# Archives, images and programs are written under a temporary name (into_place). A thin archive
# names its objects, which are compiled in place; concurrent tpu builds take turns instead
# (host-tools/lib/board/build_lock.hpp).
$(RUNTIME_LIB): $(LIB_OBJS)
	$(call say,AR,$@)rm -f $@.$$$$ && $(if $(filter host,$(BOARD_ARCH)),ar,$(BOARD_CROSS)ar) rcsT $@.$$$$ $^ $(into_place)

ifeq ($(BOARD_ARCH),host)
$(filter %.cpp.o,$(LIB_PLATFORM_OBJS)): $(LIB_BUILD)/%.cpp.o: %.cpp $(LIB_FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(call say,CXX,$<)g++ $(HOSTED_CXXFLAGS) -MMD -MP -c $< -o $@

$(APP_IMAGE): $(RUNTIME_LIB) $(APP_OBJS)
	$(call say,LD,$@)g++ -pthread $(SANITIZER_FLAGS) -o $@.$$$$ $(LINK_INPUTS) $(into_place)
else
$(filter %.cpp.o,$(LIB_PLATFORM_OBJS)): $(LIB_BUILD)/%.cpp.o: %.cpp $(LIB_FLAGS_STAMP) | setup-board
	@mkdir -p $(dir $@)
	$(call say,CXX,$<)$(CXX_TARGET) $(CXXFLAGS) -c $< -o $@

$(filter %.S.o,$(LIB_PLATFORM_OBJS)): $(LIB_BUILD)/%.S.o: %.S $(LIB_FLAGS_STAMP) | setup-board
	@mkdir -p $(dir $@)
	$(call say,AS,$<)$(BOARD_CROSS)gcc $(ASFLAGS) -c $< -o $@

$(APP_IMAGE): $(RUNTIME_LIB) $(APP_OBJS) boards/$(BOARD)/linker.ld hal/common/baremetal/sections.ld
	$(call say,LD,$@)$(BOARD_CROSS)gcc $(BOARD_CPU_FLAGS) $(PICOLIBC_BUILD) -specs=$(BOARD_PICOLIBC)/picolibc.specs -nostartfiles -static -no-pie \
	  -T boards/$(BOARD)/linker.ld -L hal/common/baremetal -Wl,--gc-sections -Wl,--no-warn-rwx-segments -Wl,-Map=$(BUILD)/firmware.map \
	  -o $@.$$$$ $(LINK_INPUTS) $(into_place)

ifneq ($(BOARD_BOOT_IMAGE),)
$(APP_BOOT_IMAGE): $(APP_IMAGE)
	$(call say,BIN,$@)$(BOARD_CROSS)objcopy -O binary $< $@.$$$$ $(into_place)
ifeq ($(origin IMAGE),command line)
$(BOOT_IMAGE): $(IMAGE)
	$(call say,BIN,$@)$(BOARD_CROSS)objcopy -O binary $< $@.$$$$ $(into_place)
endif
endif
endif

ifneq ($(READ_BOARD_DEPS),)
-include $(OBJS:.o=.d)
endif

# ---------------------------------------------------------------- run / debug
ifeq ($(BOARD_ARCH),host)
RUN_COMMAND := $(IMAGE) --cores $(CORES)
# LINK_SHM=<file>: the board's RAM and link window are that file (hal/arch/host/link_ram.hpp).
ifneq ($(LINK_SHM),)
RUN_COMMAND += --link-ram $(LINK_SHM)
endif
else
RUN_COMMAND := $(BOARD_QEMU) -smp $(CORES) -kernel $(BOOT_IMAGE)
# LINK_SHM=<file>: the guest RAM lives in that file, shared with the host tool that maps it (the
# shared-memory link, runtime/link/transport/shm_ring.hpp). tpu sets it; make run leaves it out.
QEMU_RAM_MB := $(or $(BOARD_QEMU_RAM_MB),$(BOARD_RAM_MB))
ifneq ($(LINK_SHM),)
RUN_COMMAND += -object memory-backend-file,id=ram,size=$(QEMU_RAM_MB)M,mem-path=$(LINK_SHM),share=on \
  -machine memory-backend=ram
endif
endif

run: $(BOOT_IMAGE)
	$(RUN_COMMAND)

# Prints the repository's app folders (tests/app_tests.py asks; APP_ROOTS is the one list of them).
print-app-folders:
	@echo $(APP_FOLDERS)

# Prints the board's valid core counts (tpu checks --cores against them before building).
print-board-cores:
	@echo $(BOARD_CORES_VALID)

# Prints the command `make run` would execute (the test harness uses it).
print-run-command:
	@echo $(RUN_COMMAND)

# Prints the addr2line of the board's toolchain and the ELF it would run: tpu names the function and
# line of a fault report's pc with them.
print-fault-symbolizer:
	@echo $(if $(filter host,$(BOARD_ARCH)),addr2line,$(BOARD_CROSS)addr2line) $(abspath $(IMAGE))

# Prints the file the board boots (raspi3b: kernel8.img; the ELF elsewhere): what `tpu run
# --chainboot` sends to the raspi3b chainloader.
print-boot-image:
	@echo $(BOOT_IMAGE)

# Prints what tpu needs to set up the shared-memory link: the RAM file's size, the window's offset
# in it and the window's size, in bytes (0 0 0 for a board without a window), and "process" for a
# board that is a process of this machine (its memory outside the file is the process's).
# The RAM file is QEMU's guest RAM (the host board: BOARD_LINK_RAM_MB); the window is the top of the
# board's RAM.
LINK_WINDOW_MB := $(or $(BOARD_LINK_WINDOW_MB),0)
LINK_RAM_MB := $(or $(BOARD_LINK_RAM_MB),$(BOARD_QEMU_RAM_MB),$(BOARD_RAM_MB))
LINK_RAM_TOP_MB := $(or $(BOARD_RAM_MB),$(BOARD_LINK_RAM_MB))
print-link-layout:
	@if [ $(LINK_WINDOW_MB) = 0 ]; then echo 0 0 0; else \
	  echo $$(( $(LINK_RAM_MB) << 20 )) $$(( ($(LINK_RAM_TOP_MB) - $(LINK_WINDOW_MB)) << 20 )) $$(( $(LINK_WINDOW_MB) << 20 )) $(if $(filter host,$(BOARD_ARCH)),process); fi

GDB_PORT ?= 1234
GDB_ARGS ?=
debug: $(IMAGE) $(BOOT_IMAGE) | setup-debug
ifeq ($(BOARD_ARCH),host)
	gdb $(GDB_ARGS) --args $(RUN_COMMAND)
else
	@echo "QEMU halted at reset, gdb stub on :$(GDB_PORT); each core is a gdb thread (info threads)"
	$(RUN_COMMAND) -S -gdb tcp::$(GDB_PORT) & qemu=$$!; \
	gdb-multiarch -q -ex "set architecture $(BOARD_GDB_ARCH)" -ex "file $(IMAGE)" -ex "set tcp connect-timeout 15" \
	  -ex "target remote :$(GDB_PORT)" $(GDB_ARGS); status=$$?; kill $$qemu 2>/dev/null; wait $$qemu 2>/dev/null; exit $$status
endif

# ---------------------------------------------------------------- freestanding check
# Every runtime/ and hal/support/ source and header must compile for this board with -nostdinc++ (no
# libstdc++), and the check itself must be able to fail: a standard C++ header has to be rejected.
RUNTIME_HEADERS = $(shell find runtime hal/support -name '*.hpp' | sort)
freestanding-check: $(patsubst %,$(LIB_BUILD)/%.o,$(SUPPORT_SRCS) $(RUNTIME_SRCS))
	@for header in $(RUNTIME_HEADERS); do \
	  echo '#include "'$$header'"' | $(CXX_TARGET) $(CXXFLAGS_NO_DEPS) -x c++ -fsyntax-only - || { echo "not freestanding: $$header" >&2; exit 1; }; \
	done
	@if echo '#include <vector>' | $(CXX_TARGET) $(CXXFLAGS_NO_DEPS) -x c++ -fsyntax-only - 2>/dev/null; then \
	  echo "freestanding check is broken: <vector> compiled with -nostdinc++" >&2; exit 1; fi
	@echo "runtime/ and hal/support/ are freestanding for $(BOARD): $(words $(SUPPORT_SRCS) $(RUNTIME_SRCS)) sources, $(words $(RUNTIME_HEADERS)) headers"

# ---------------------------------------------------------------- examples check
# The examples (firmware/examples/*/device) are what a user reads first: they program against the
# umbrella header alone. A device source including a runtime/, hal/ or firmware/ header other than
# firmware/tpu_pod.hpp fails (its own headers and system headers are fine), and the check itself must
# be able to fail: a probe including a runtime/ header has to be flagged, one including only the
# umbrella header must pass.
EXAMPLE_DEVICE_SOURCES := $(wildcard firmware/examples/*/device/*.cpp firmware/examples/*/device/*.hpp)
# The includes of $(1) other than the umbrella header (the check's one rule, applied to the probes too).
examples_beyond_umbrella = grep -EHn '^[[:space:]]*\#[[:space:]]*include[[:space:]]*["<](runtime|hal|firmware)/' $(1) \
  | grep -v '"firmware/tpu_pod.hpp"'
.PHONY: examples-check
examples-check:
	@probe=$$(mktemp -d) && trap 'rm -rf "$$probe"' EXIT && \
	printf '#include "firmware/tpu_pod.hpp"\n#include "runtime/link/protocol/host_call.hpp"\n' > "$$probe/bad.cpp" && \
	printf '#include <errno.h>\n#include "firmware/tpu_pod.hpp"\n#include "model.hpp"\n' > "$$probe/good.cpp" && \
	if ! $(call examples_beyond_umbrella,"$$probe/bad.cpp") >/dev/null; then \
	  echo "examples check is broken: it let an example include runtime/link" >&2; exit 1; fi && \
	if $(call examples_beyond_umbrella,"$$probe/good.cpp") >&2; then \
	  echo "examples check is broken: it refused an example including only firmware/tpu_pod.hpp" >&2; exit 1; fi
	@if $(call examples_beyond_umbrella,$(EXAMPLE_DEVICE_SOURCES)) >&2; then \
	  echo "examples-check: an example's device code includes runtime/, hal/ or firmware/ headers beyond firmware/tpu_pod.hpp" >&2; \
	  exit 1; fi
	@echo "examples include only firmware/tpu_pod.hpp: $(words $(EXAMPLE_DEVICE_SOURCES)) device sources"

# ---------------------------------------------------------------- host tools
# Hosted C++20 (the standard library is fine here), linked with the runtime's link protocol,
# tensor/.npy and support code compiled for the host: the host library (build/host-tools/
# libtpu-host.a), which the tpu tool and every app's own tool link.
# HOST_SANITIZE=address,undefined builds the host tools with those sanitizers, in their own folder
# (build/host-tools-address-undefined): make test runs the tool's tests and command line under them.
# That build is for checking only: -Og (-O1 less what hampers debugging; the sanitizers' checks that
# need an optimiser still work) and line tables (-g1, what a report needs) compile it in a third of
# the CPU time of -O2 -g (CLI11's command line: 22 s instead of 64 s). The plain build is -O2 with
# line tables too (-g1: backtraces, perf and gdb's breakpoints by line; not local variables): full
# -g cost the tool 29% more CPU time to build (142 against 101 s here), in every `make test`. For a
# debugging session: make tpu HOST_DEBUG_FLAGS=-g (in a clean build/host-tools).
HOST_DEBUG_FLAGS ?= -g1
HOST_SANITIZE ?= $(UNIT_SANITIZE)
HOST_TOOLS_BUILD := $(BUILD_ROOT)/host-tools$(if $(HOST_SANITIZE),-$(subst $(comma),-,$(HOST_SANITIZE)))
HOST_SANITIZER_FLAGS := $(if $(HOST_SANITIZE),-fsanitize=$(HOST_SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all)
HOST_TOOLS_BASE_FLAGS := $(CXXSTD) $(WARNINGS) -ffp-contract=off -I$(CURDIR) -I$(CURDIR)/hal/include -MMD -MP
HOST_TOOLS_CXXFLAGS := $(HOST_TOOLS_BASE_FLAGS) $(if $(HOST_SANITIZE),-Og -g1,-O2 $(HOST_DEBUG_FLAGS)) $(HOST_SANITIZER_FLAGS)
# The board's reduction kernels too: a reduction across boards done by tpu (host-tools/lib/pod) runs
# the very code, order and rounding one board runs.
HOST_LIB_SRCS := $(wildcard hal/support/*.cpp runtime/dtype/*.cpp runtime/link/*/*.cpp) \
  runtime/tensor/shape.cpp runtime/tensor/tensor.cpp runtime/tensor/npy.cpp \
  runtime/collectives/reduce.cpp runtime/collectives/cross_board.cpp $(wildcard host-tools/lib/*/*.cpp)
HOST_LIB_OBJS := $(patsubst %,$(HOST_TOOLS_BUILD)/obj/%.o,$(HOST_LIB_SRCS))
HOST_LIB := $(HOST_TOOLS_BUILD)/libtpu-host.a
TPU_OBJS := $(patsubst %,$(HOST_TOOLS_BUILD)/obj/%.o,$(wildcard host-tools/tpu/*.cpp))
# The tool's tests also test the host halves of this repository's apps (e.g. exec's job handling).
# Catch2's main (tests/unit/main.cpp, the costliest file of the tests to compile) is compiled once,
# without sanitizers or optimisation, and every Catch2 program links it: the tool's tests and the unit
# tests, plain and sanitized. It is written under a temporary name and renamed into place, so two
# builds that both need it never see half a file.
CATCH2_MAIN := $(BUILD_ROOT)/catch2/main.cpp.o
$(CATCH2_MAIN): tests/unit/main.cpp hal/support/panic.hpp | setup-host-tools
	@mkdir -p $(dir $@)
	$(call say,CXX,$<)g++ $(CXXSTD) $(WARNINGS) -I. -Ihal/include -O0 -c $< -o $@.$$$$ $(into_place)
TPU_TEST_OBJS := $(patsubst %,$(HOST_TOOLS_BUILD)/obj/%.o,$(wildcard host-tools/tests/*.cpp $(APP_FOLDERS:%=%/host/*.cpp))) \
  $(CATCH2_MAIN)
# The repository the tools belong to, so an app's tool (built anywhere) finds the Makefile.
$(filter %/make_driver.cpp.o,$(HOST_LIB_OBJS)): HOST_TOOLS_CXXFLAGS += -DTPU_REPOSITORY_ROOT=\"$(CURDIR)\"
# Open MPI, between the boards of a pod (host-tools/lib/pod): only mpi_pod.cpp includes <mpi.h>; every
# program linked with the host library links libmpi (a single board never starts MPI). The flags come
# from Open MPI's compiler wrapper, asked when a rule needs them (make installs openmpi-bin first).
MPI_CXXFLAGS = $(shell mpicc --showme:compile)
MPI_LIBS = $(shell mpicc --showme:link)
$(filter %/mpi_pod.cpp.o,$(HOST_LIB_OBJS)): HOST_TOOLS_CXXFLAGS += $(MPI_CXXFLAGS)

$(HOST_TOOLS_BUILD)/obj/%.cpp.o: %.cpp | setup-host-tools
	@mkdir -p $(dir $@)
	$(call say,CXX,$<)g++ $(HOST_TOOLS_CXXFLAGS) -c $< -o $@

# The standard headers of host-tools/lib/std_headers.hpp, precompiled with the tools' flags into
# <build>/pch/ and included first (-include) by every host-tools source but the Catch2 tests (they
# take Catch2's own precompiled header): a quarter to a third less compile time per file.
HOST_STD_PCH := $(HOST_TOOLS_BUILD)/pch/std_headers.hpp.gch
HOST_STD_PCH_USERS = $(filter $(HOST_TOOLS_BUILD)/obj/host-tools/% $(APP_FOLDERS:%=$(HOST_TOOLS_BUILD)/obj/%/host/%),\
  $(filter-out $(TPU_TEST_CATCH2_OBJS),$(HOST_LIB_OBJS) $(TPU_OBJS) $(TPU_TEST_OBJS) $(APP_HOST_OBJS)))
$(HOST_STD_PCH): host-tools/lib/std_headers.hpp | setup-host-tools
	@mkdir -p $(dir $@) && cp $< $(basename $@)
	$(call say,PCH,$@)g++ $(filter-out -MMD -MP,$(HOST_TOOLS_CXXFLAGS)) -x c++-header $(basename $@) -o $@.$$$$ $(into_place)

# Catch2's header (17,000 lines), precompiled once per set of test flags into <build>/pch/catch2/
# catch.hpp.gch, which GCC takes instead of the header through -I<build>/pch where a test file
# includes it first; elsewhere (or if the flags differ) GCC parses the header itself, linked beside
# it. Each test file so compiles in less than half the CPU time. The .gch is made from a one-line
# header that includes Catch2's, so its `#pragma GCC system_header` holds (no warnings from its code).
# The header's path is fixed (Debian's catch2): a prerequisite only where it exists when make reads
# this file, since on a fresh machine setup-all installs it during the same run.
CATCH2_INSTALLED_HEADER := /usr/include/catch2/catch.hpp
CATCH2_HEADER := $(wildcard $(CATCH2_INSTALLED_HEADER))
# $(1): the folder of the build; writes $(1)/pch/catch2/catch.hpp.gch with the flags $(2)
catch2_pch = mkdir -p $(1)/pch/catch2 && ln -sf $(CATCH2_INSTALLED_HEADER) $(1)/pch/catch2/catch.hpp && \
  echo '\#include <catch2/catch.hpp>' > $(1)/pch/catch2-include.hpp && \
  g++ $(filter-out -MMD -MP -I$(1)/pch,$(2)) -x c++-header $(1)/pch/catch2-include.hpp -o $@.$$$$ $(into_place)
# The test files themselves are test-only code: -O1 without -g (a failing check names its file and
# line), -Og -g1 under the sanitizers; the code they test is the tool's, built as for the tool.
TPU_TEST_CXXFLAGS := $(HOST_TOOLS_BASE_FLAGS) $(if $(HOST_SANITIZE),-Og -g1,-O1) $(HOST_SANITIZER_FLAGS)
TPU_TEST_PCH := $(HOST_TOOLS_BUILD)/pch/catch2/catch.hpp.gch
TPU_TEST_CATCH2_OBJS := $(patsubst %,$(HOST_TOOLS_BUILD)/obj/%.o,$(wildcard host-tools/tests/*.cpp))
$(TPU_TEST_CATCH2_OBJS): private HOST_TOOLS_CXXFLAGS = $(TPU_TEST_CXXFLAGS) -I$(HOST_TOOLS_BUILD)/pch
$(TPU_TEST_CATCH2_OBJS): $(TPU_TEST_PCH)
$(HOST_STD_PCH_USERS): HOST_TOOLS_CXXFLAGS += -include $(HOST_TOOLS_BUILD)/pch/std_headers.hpp
$(HOST_STD_PCH_USERS): $(HOST_STD_PCH)
$(TPU_TEST_PCH): $(CATCH2_HEADER) | setup-all
	$(call say,PCH,$@)$(call catch2_pch,$(HOST_TOOLS_BUILD),$(TPU_TEST_CXXFLAGS))

$(HOST_LIB): $(HOST_LIB_OBJS)
	$(call say,AR,$@)rm -f $@.$$$$ && ar rcsT $@.$$$$ $^ $(into_place)

tpu: $(HOST_TOOLS_BUILD)/tpu
$(HOST_TOOLS_BUILD)/tpu: $(TPU_OBJS) $(HOST_LIB)
	$(call say,LD,$@)g++ $(HOST_SANITIZER_FLAGS) -o $@.$$$$ $(TPU_OBJS) $(HOST_LIB) $(MPI_LIBS) $(into_place)

# Programs are linked under a temporary name and renamed into place (into_place): a run that is
# executing the old one keeps it ("Text file busy" otherwise, when two runs of one app build at once).
# The app's own tool: the tpu tool plus the host functions of <app>/host/*.cpp
# (host-tools/lib/functions/app_host.hpp). `tpu run <app>` builds and runs it when the app has a host half.
# The host half of an app of this repository compiles to the objects the tool's tests link too
# (build/host-tools/obj/<app folder>/host/), so it is compiled once for both.
APP_HOST_BUILD := $(if $(APP_IN_TREE),$(HOST_TOOLS_BUILD)/apps/$(APP_NAME),$(APP_DIR)/build/host-tools)
APP_HOST_OBJS := $(if $(APP_IN_TREE),$(patsubst %,$(HOST_TOOLS_BUILD)/obj/%.o,$(APP_HOST_SRCS)),\
  $(patsubst $(APP_DIR)/%,$(APP_HOST_BUILD)/obj/%.o,$(APP_HOST_SRCS)))
APP_TOOL := $(APP_HOST_BUILD)/tpu
# An app has its own tool when it has a host half or its device code has outside_compilation
# clusters (lambdas that run on the PC: the tool holds them).
APP_NEEDS_TOOL := $(or $(APP_HOST_SRCS),$(shell grep -lw outside_compilation $(APP_DEVICE_SRCS) 2>/dev/null))
# The tool also links the app's device half built for the host board: outside_compilation clusters
# (captureless lambdas) of its device code run there, on the PC (runtime/tpu/replicate/outside_cluster.hpp);
# --gc-sections keeps what their entries reach. Three steps: the device half (BOARD=host), then the tool.
APP_TOOL_DEVICE_BUILD := $(if $(APP_IN_TREE),$(BUILD_ROOT)/host/$(APP_NAME),$(APP_DIR)/build/host)
APP_TOOL_DEVICE_OBJS := $(patsubst $(APP_DIR)/%,$(APP_TOOL_DEVICE_BUILD)/obj/%.o,$(APP_DEVICE_SRCS)) \
  $(foreach library,$(APP_LIBRARY_DIRS),$(patsubst $(library)/%,$(APP_TOOL_DEVICE_BUILD)/obj/lib/$(notdir $(library))/%.o,$(sort $(wildcard $(library)/*.cpp))))
APP_TOOL_DEVICE_LIB := $(BUILD_ROOT)/host/lib/libtpu-runtime.a
app-tool:
	+@$(MAKE) --no-print-directory -s BOARD=host APP=$(APP) device-half
	+@$(MAKE) --no-print-directory -s APP=$(APP) app-tool-link
app-tool-link: $(APP_TOOL)
# This board's runtime library and the app's objects, without linking an image.
device-half: $(RUNTIME_LIB) $(APP_OBJS)
ifeq ($(APP_IN_TREE),)
$(APP_HOST_OBJS): $(APP_HOST_BUILD)/obj/%.cpp.o: $(APP_DIR)/%.cpp | setup-host-tools
	@mkdir -p $(dir $@)
	$(call say,CXX,$<)g++ $(HOST_TOOLS_CXXFLAGS) -c $< -o $@
endif
$(APP_TOOL): $(TPU_OBJS) $(APP_HOST_OBJS) $(HOST_LIB) $(APP_TOOL_DEVICE_OBJS) $(APP_TOOL_DEVICE_LIB)
	$(if $(APP_NEEDS_TOOL),,$(error APP $(APP) needs no tool of its own: no $(APP_DIR)/host/*.cpp and no outside_compilation in its device code))
	@mkdir -p $(dir $@)
	$(call say,LD,$@)g++ $(HOST_SANITIZER_FLAGS) -pthread -Wl,--gc-sections -o $@.$$$$ $(TPU_OBJS) $(APP_HOST_OBJS) \
	  $(APP_TOOL_DEVICE_OBJS) -Wl,--start-group $(HOST_LIB) $(APP_TOOL_DEVICE_LIB) -Wl,--end-group $(MPI_LIBS) $(into_place)

# Where `make app-tool` puts the app's tool ("" if the app needs none).
print-app-tool:
	@echo $(if $(APP_NEEDS_TOOL),$(APP_TOOL))

# The fuzz targets without libFuzzer (tests/fuzz/replay/main.cpp feeds each its seed corpus and
# deterministic mutants of it): compiled with the host tools' compiler and flags and linked with the
# tool's objects, so `make test` (HOST_SANITIZE=address,undefined) replays every corpus under ASan and
# UBSan without a clang-built copy of the host code. `make fuzz` builds the libFuzzer versions.
FUZZ_REPLAY_PROGRAMS := $(patsubst tests/fuzz/%.cpp,$(HOST_TOOLS_BUILD)/fuzz-replay/%,$(wildcard tests/fuzz/*.cpp))
FUZZ_REPLAY_OBJS := $(patsubst %,$(HOST_TOOLS_BUILD)/obj/%.o,$(wildcard tests/fuzz/*.cpp) tests/fuzz/replay/main.cpp)
.PHONY: fuzz-replay
fuzz-replay: $(FUZZ_REPLAY_PROGRAMS)
# FuzzedDataProvider, a header of libclang-rt-dev (installed with the test packages), reached through
# a folder holding only it (clang's own include folder would shadow GCC's stddef.h).
FUZZ_PROVIDER_HEADER = $(firstword $(wildcard /usr/lib/llvm-*/lib/clang/*/include/fuzzer/FuzzedDataProvider.h))
FUZZ_PROVIDER_LINK := $(HOST_TOOLS_BUILD)/fuzz-include/fuzzer/FuzzedDataProvider.h
$(FUZZ_PROVIDER_LINK): | setup-all
	@mkdir -p $(dir $@) && ln -sf $(FUZZ_PROVIDER_HEADER) $@
$(filter-out %/replay/main.cpp.o,$(FUZZ_REPLAY_OBJS)): HOST_TOOLS_CXXFLAGS += -isystem $(HOST_TOOLS_BUILD)/fuzz-include
$(filter-out %/replay/main.cpp.o,$(FUZZ_REPLAY_OBJS)): | $(FUZZ_PROVIDER_LINK)
$(HOST_TOOLS_BUILD)/fuzz-replay/%: $(HOST_TOOLS_BUILD)/obj/tests/fuzz/%.cpp.o $(HOST_TOOLS_BUILD)/obj/tests/fuzz/replay/main.cpp.o \
    $(filter-out %/host-tools/tpu/main.cpp.o,$(TPU_OBJS)) $(HOST_LIB)
	@mkdir -p $(dir $@)
	$(call say,LD,$@)g++ $(HOST_SANITIZER_FLAGS) -o $@.$$$$ $^ $(MPI_LIBS) $(into_place)

tpu-tests: $(HOST_TOOLS_BUILD)/tpu-tests
	$(HOST_TOOLS_BUILD)/tpu-tests
$(HOST_TOOLS_BUILD)/tpu-tests: $(TPU_TEST_OBJS) $(HOST_LIB) | setup-all
	$(call say,LD,$@)g++ $(HOST_SANITIZER_FLAGS) -o $@ $(TPU_TEST_OBJS) $(HOST_LIB) $(MPI_LIBS)

ifneq ($(READ_HOST_TOOLS_DEPS),)
-include $(HOST_LIB_OBJS:.o=.d) $(TPU_OBJS:.o=.d) $(TPU_TEST_OBJS:.o=.d) $(APP_HOST_OBJS:.o=.d) $(FUZZ_REPLAY_OBJS:.o=.d)
endif

# ---------------------------------------------------------------- unit tests
# The runtime's host unit tests (tests/unit/*.cpp, Catch2), compiled for this machine with the runtime
# sources they test: `make unit-tests` builds build/unit/unit-tests (make test runs each test file's
# cases from it). The runtime sources: every source in the folders that need no HAL (new files there
# are picked up), except the implementations that do need it: runtime/tpu/<concept>/uses_hal/*.cpp
# (per-core state, timers, doorbells) and the two named here; plus two files from elsewhere.
# UNIT_SANITIZE=address,undefined builds the test files UNIT_TESTS names (default: all; make test
# names the link, ring and .npy tests) with those sanitizers (build/unit-address-undefined/), linked
# with the host library built with the same sanitizers (HOST_SANITIZE, libtpu-host.a: the link
# protocol, .npy and support code those tests test), so that code is not compiled a second time.
# Catch2's main (tests/unit/main.cpp) is compiled once, without sanitizers, and linked into both.
# Test-only builds: -O1 without -g (a failing check prints its file and line itself); with the
# sanitizers -Og -g1, as the sanitized host tools.
UNIT_PURE_DIRS := hal/support runtime/dtype runtime/tensor runtime/mxu runtime/ops runtime/link runtime/tpu
UNIT_NEEDS_HAL := runtime/tensor/hbm.cpp runtime/mxu/core_mxu.cpp $(wildcard runtime/tpu/*/uses_hal/*.cpp)
UNIT_EXTRA_SRCS := runtime/collectives/groups.cpp hal/common/fdt.cpp
UNIT_TESTS ?= $(filter-out tests/unit/main.cpp,$(wildcard tests/unit/*.cpp))
UNIT_SANITIZE ?=
UNIT_BUILD := $(BUILD_ROOT)/unit$(if $(UNIT_SANITIZE),-$(subst $(comma),-,$(UNIT_SANITIZE)))
UNIT_BASE_FLAGS := $(CXXSTD) -Wall -Wextra -ffp-contract=off -mavx2 -mfma -I. -Ihal/include -MMD -MP
UNIT_SANITIZER_FLAGS := $(if $(UNIT_SANITIZE),-fsanitize=$(UNIT_SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all)
UNIT_CXXFLAGS := $(UNIT_BASE_FLAGS) $(if $(UNIT_SANITIZE),-Og -g1,-O1) $(UNIT_SANITIZER_FLAGS) -I$(UNIT_BUILD)/pch
UNIT_MAIN := $(CATCH2_MAIN)
ifneq ($(filter unit-tests $(UNIT_BUILD)/%,$(MAKECMDGOALS)),)
UNIT_RUNTIME_SRCS := $(if $(UNIT_SANITIZE),,$(filter-out $(UNIT_NEEDS_HAL),$(shell find $(UNIT_PURE_DIRS) -name '*.cpp' | sort)) $(UNIT_EXTRA_SRCS))
endif
UNIT_OBJS := $(patsubst %,$(UNIT_BUILD)/obj/%.o,$(UNIT_TESTS) $(UNIT_RUNTIME_SRCS))
UNIT_LIBS := $(if $(UNIT_SANITIZE),$(HOST_LIB))
UNIT_FLAGS_STAMP := $(UNIT_BUILD)/.flags
.PHONY: unit-tests
unit-tests: $(UNIT_BUILD)/unit-tests
$(UNIT_FLAGS_STAMP): FORCE
	@mkdir -p $(dir $@) && printf '%s\n' '$(UNIT_CXXFLAGS)' | cmp -s - $@ || printf '%s\n' '$(UNIT_CXXFLAGS)' > $@
$(UNIT_OBJS): $(UNIT_BUILD)/obj/%.cpp.o: %.cpp $(UNIT_FLAGS_STAMP) | setup-host-tools
	@mkdir -p $(dir $@)
	$(call say,CXX,$<)g++ $(UNIT_CXXFLAGS) -c $< -o $@
UNIT_PCH := $(UNIT_BUILD)/pch/catch2/catch.hpp.gch
$(patsubst %,$(UNIT_BUILD)/obj/%.o,$(UNIT_TESTS)): $(UNIT_PCH)
$(UNIT_PCH): $(CATCH2_HEADER) $(UNIT_FLAGS_STAMP) | setup-all
	$(call say,PCH,$@)$(call catch2_pch,$(UNIT_BUILD),$(UNIT_CXXFLAGS))
$(UNIT_BUILD)/unit-tests: $(UNIT_MAIN) $(UNIT_OBJS) $(UNIT_LIBS)
	$(call say,LD,$@)g++ $(UNIT_SANITIZER_FLAGS) -o $@.$$$$ $^ -pthread $(into_place)
.PHONY: FORCE
FORCE:
ifneq ($(filter unit-tests $(UNIT_BUILD)/%,$(GOALS)),)
-include $(UNIT_OBJS:.o=.d)
endif

# ---------------------------------------------------------------- fuzzing
# Coverage-guided fuzz targets (tests/fuzz/*.cpp, libFuzzer), built with clang, ASan and UBSan into
# build/fuzz/ together with the host library's sources and the tpu command line compiled the same
# way. `make fuzz` runs each target for FUZZ_SECONDS (or FUZZ_RUNS inputs) from its checked-in seed
# corpus (tests/fuzz/corpus/<target>/) with its dictionary (tests/fuzz/<target>.dict) and reports
# executions and crashes per target (build/fuzz/report.jsonl; crashing inputs in build/fuzz/crashes/).
# `make test` runs each target for a short fixed number of inputs. FUZZ_TARGET=name runs one.
FUZZ_PACKAGES := clang libclang-rt-dev
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?=
FUZZ_TARGET ?=
FUZZ_BUILD := $(BUILD_ROOT)/fuzz
FUZZ_SANITIZERS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CXXFLAGS := $(CXXSTD) -O1 -g $(WARNINGS) -ffp-contract=off -I$(CURDIR) -I$(CURDIR)/hal/include -MMD -MP \
  -fsanitize=fuzzer-no-link $(FUZZ_SANITIZERS)
FUZZ_LIB_SRCS := $(HOST_LIB_SRCS) $(filter-out host-tools/tpu/main.cpp,$(wildcard host-tools/tpu/*.cpp))
FUZZ_LIB_OBJS := $(patsubst %,$(FUZZ_BUILD)/obj/%.o,$(FUZZ_LIB_SRCS))
FUZZ_NAMES := $(basename $(notdir $(wildcard tests/fuzz/*.cpp)))
FUZZ_PROGRAMS := $(FUZZ_NAMES:%=$(FUZZ_BUILD)/%)
.PHONY: fuzz fuzz-targets setup-fuzz
$(filter %/make_driver.cpp.o,$(FUZZ_LIB_OBJS)): FUZZ_CXXFLAGS += -DTPU_REPOSITORY_ROOT=\"$(CURDIR)\"
$(FUZZ_BUILD)/obj/%.cpp.o: %.cpp | setup-fuzz
	@mkdir -p $(dir $@)
	$(call say,CXX,$<)clang++ $(FUZZ_CXXFLAGS) $(if $(filter %/mpi_pod.cpp.o,$@),$(MPI_CXXFLAGS)) -c $< -o $@
$(FUZZ_BUILD)/libfuzz-host.a: $(FUZZ_LIB_OBJS)
	@rm -f $@
	$(call say,AR,$@)ar rcs $@ $^
$(FUZZ_BUILD)/%: $(FUZZ_BUILD)/obj/tests/fuzz/%.cpp.o $(FUZZ_BUILD)/libfuzz-host.a
	$(call say,LD,$@)clang++ -fsanitize=fuzzer $(FUZZ_SANITIZERS) -o $@ $^ $(MPI_LIBS)
fuzz-targets: $(FUZZ_PROGRAMS)
fuzz: fuzz-targets
	python3 tests/fuzz/run_fuzzers.py $(if $(FUZZ_RUNS),--runs $(FUZZ_RUNS),--seconds $(FUZZ_SECONDS)) $(FUZZ_TARGET)
setup-fuzz:
	$(call install_missing,$(FUZZ_PACKAGES))
ifneq ($(READ_FUZZ_DEPS),)
-include $(FUZZ_LIB_OBJS:.o=.d) $(FUZZ_NAMES:%=$(FUZZ_BUILD)/obj/tests/fuzz/%.cpp.d)
endif

# ---------------------------------------------------------------- tests
test: setup-all
	python3 tests/harness.py

# The soak (not in make test): the soak app many times on 16 cores under multi-threaded TCG on both
# QEMU boards and under ThreadSanitizer on the host board; reports runs, failures and hangs
# (tests/soak.py; build/soak/report.jsonl). SOAK_RUNS=120 by default.
SOAK_RUNS ?= 120
.PHONY: soak
soak: setup-all
	/usr/bin/python3 tests/soak.py --runs $(SOAK_RUNS)

# A pod across two hosts (not in make test: it needs root for Linux namespaces and a veth pair): the
# second host emulated by namespaces of its own (name, network, IPC, /tmp, /dev/shm), reached by
# mpirun --host through an rsh agent, Open MPI over TCP between them (tests/multi_host_check.py).
MULTI_HOST_PACKAGES := iproute2 util-linux
.PHONY: multi-host-check
multi-host-check: setup-all tpu
	$(call install_missing,$(MULTI_HOST_PACKAGES))
	/usr/bin/python3 tests/multi_host_check.py

# Benchmarks: one JSON object per line, also written to build/bench/results.jsonl.
# python3-torch: the training benchmark's PyTorch baseline (tests/bench/train_baselines.py), nothing else.
BENCH_PACKAGES := openmpi-bin libopenmpi-dev libopenblas-dev libdnnl-dev python3-torch
bench: setup-all
	$(call install_missing,$(BENCH_PACKAGES))
	/usr/bin/python3 tests/bench/benchmarks.py

# ---------------------------------------------------------------- real boards
# `make sdcard` (boot folder for the SD card) and `make chainboot` (send the image to the board's
# UART chainloader) come from boards/<board>/rules.mk where a board has them.
.PHONY: sdcard chainboot
ifneq ($(wildcard boards/$(BOARD)/rules.mk),)
include boards/$(BOARD)/rules.mk
else
sdcard chainboot:
	@echo "BOARD $(BOARD) has no SD card image or chainloader (boards that do: raspi3b)" >&2; exit 1
endif

# ---------------------------------------------------------------- setup
# Installs missing Debian packages (apt-get update first, as a fresh machine needs).
HOST_TOOLS_PACKAGES := g++ libcli11-dev openmpi-bin libopenmpi-dev
TEST_PACKAGES := make python3 python3-numpy python3-sklearn python3-matplotlib catch2 gdb-multiarch $(HOST_TOOLS_PACKAGES) \
  $(FUZZ_PACKAGES)
ALL_PACKAGES = $(sort $(TEST_PACKAGES) $(foreach b,$(BOARDS),$(shell sed -n 's/^BOARD_PACKAGES *:= *//p' boards/$(b)/board.mk)))

define install_missing
	@missing=""; for p in $(1); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null \
	    || { echo "package installation failed:$$missing" >&2; exit 1; }; \
	fi
endef

setup-board:
	$(call install_missing,$(BOARD_PACKAGES))
setup-host-tools:
	$(call install_missing,$(HOST_TOOLS_PACKAGES))
setup-debug:
	$(call install_missing,gdb-multiarch)
setup-all:
	$(call install_missing,$(ALL_PACKAGES))
setup: setup-all

clean:
	rm -rf $(BUILD_ROOT)

help:
	@sed -n '2,/^$$/p' Makefile | sed 's/^# \{0,1\}//'
	@echo "boards: $(BOARDS)   (boards/<name>/board.mk)"
	@echo "apps, by purpose (APP=<name>):"
	@$(foreach root,$(APP_ROOTS),echo "  $(root)/: $(notdir $(filter $(root)/%,$(APP_FOLDERS)))";)
