"""make itself: a bad BOARD, APP or CORES is refused with the valid values listed, `make debug`
attaches gdb with one thread per core, `make chainboot` sends an image to the raspi3b chainloader
(in QEMU), and `make freestanding-check` compiles runtime/ without the C++ standard library."""
from __future__ import annotations

import re
import shlex
import socket
from functools import partial

from qemu_runner import REPO_ROOT, describe_exit, make_command, run_image

from .case import BOARDS, COMPILE_TIMEOUT_S, DEBUG_TIMEOUT_S, MAKE_TIMEOUT_S, Case, Outcome
from .checks import check_command_succeeds

INJECTION_CORES = 4  # needs cores 1..3 (as fault-null, stack-overflow and dead-core do)


def check_bad_arguments(variables: dict[str, object], listed: str) -> Outcome:
    """`make run` with an invalid variable must refuse (non-zero) and list the valid values."""
    command = make_command("run", **variables)
    result = run_image(command, MAKE_TIMEOUT_S)
    log = f"$ {shlex.join(command)}\n{result.output}"
    if result.timed_out or result.exit_code == 0:
        return Outcome(False, f"expected make to refuse, got {describe_exit(result)}", log)
    if not re.search(rf"valid.*(?<![\w-]){re.escape(listed)}(?![\w-])", result.output):
        return Outcome(False, f"the error does not list the valid values (no '{listed}')", log)
    return Outcome(True, "", log)


def free_tcp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def check_debug(board: str, cores: int) -> Outcome:
    """`make debug` with gdb in batch mode: 'info threads' must list one thread per core."""
    command = make_command("debug", BOARD=board, CORES=cores, GDB_PORT=free_tcp_port(),
                           GDB_ARGS="-batch -ex 'info threads'")
    result = run_image(command, DEBUG_TIMEOUT_S)
    log = f"$ {shlex.join(command)}\n{result.output}"
    # gdb-multiarch 13 prints e.g. "* 1    Thread 1.1 (CPU#0 [running]) _start () at ..."
    threads = set(re.findall(r"^\*?\s+\d+\s+Thread (\d+\.\d+)\b", result.output, re.MULTILINE))
    if result.timed_out:
        return Outcome(False, describe_exit(result), log)
    if len(threads) != cores:
        hint = " (gdb printed 'No threads.': not connected yet?)" if "No threads." in result.output else ""
        return Outcome(False, f"gdb listed {len(threads)} threads, expected {cores}; {describe_exit(result)}{hint}", log)
    return Outcome(True, "", log)


def check_debug_backtrace(board: str) -> Outcome:
    """`make debug` of fault-null, stopped at the null store on core 3: gdb's backtrace must name that
    line and end at the core's entry within a few frames (without .debug_frame it looped forever)."""
    command = make_command("debug", BOARD=board, APP="fault-null", CORES=4, GDB_PORT=free_tcp_port(),
                           GDB_ARGS="-batch -ex 'break fault_null.cpp:12' -ex continue -ex 'bt 40'")
    result = run_image(command, DEBUG_TIMEOUT_S)
    log = f"$ {shlex.join(command)}\n{result.output}"
    frames = re.findall(r"^#(\d+)\s", result.output, re.MULTILINE)
    if result.timed_out:
        return Outcome(False, describe_exit(result), log)
    if not re.search(r"^#0 .* at tests/faults/fault-null/device/fault_null\.cpp:12$", result.output, re.MULTILINE):
        return Outcome(False, "the backtrace does not start at fault_null.cpp:12", log)
    if not frames or len(frames) >= 40 or not re.search(r"^#\d+ .* at hal/arch/\w+/start\.S:\d+$", result.output, re.MULTILINE):
        return Outcome(False, f"the backtrace has {len(frames)} frames and does not end at the core's entry (start.S)", log)
    return Outcome(True, "", log)


def check_sdcard() -> Outcome:
    """`make sdcard BOARD=raspi3b APP=hello` fills the app's own build folder (build/raspi3b/hello/sdcard/,
    not one folder shared by every app): kernel8.img byte for byte the app's boot image, config.txt
    and README.txt as boards/raspi3b/sdcard/ has them."""
    command = make_command("sdcard", BOARD="raspi3b", APP="hello")
    result = run_image(command, COMPILE_TIMEOUT_S)
    log = f"$ {shlex.join(command)}\n{result.output}"
    if result.timed_out or result.exit_code != 0:
        return Outcome(False, describe_exit(result), log)
    folder, source = REPO_ROOT / "build" / "raspi3b" / "hello" / "sdcard", REPO_ROOT / "boards" / "raspi3b" / "sdcard"
    expected = {"kernel8.img": REPO_ROOT / "build" / "raspi3b" / "hello" / "kernel8.img",
                "config.txt": source / "config.txt", "README.txt": source / "README.txt"}
    for name, origin in expected.items():
        if not (folder / name).is_file() or (folder / name).read_bytes() != origin.read_bytes():
            return Outcome(False, f"{folder / name} is missing or differs from {origin}", log)
    return Outcome(True, "", log)


def freestanding_cases() -> list[Case]:
    return [Case(f"freestanding/{board}", partial(check_command_succeeds, make_command("freestanding-check", BOARD=board),
                                                  COMPILE_TIMEOUT_S), images=((board, "runtime"),), estimate_s=15)
            for board in BOARDS] + [
        # The examples program against the umbrella header alone (make examples-check proves it can fail).
        Case("examples-check", partial(check_command_succeeds, make_command("examples-check"), COMPILE_TIMEOUT_S))]


def make_cases() -> list[Case]:
    n = INJECTION_CORES
    return [
        Case("bad-arguments/board", partial(check_bad_arguments, {"BOARD": "nosuchboard"}, "qemu-virt-a53")),
        Case("bad-arguments/app", partial(check_bad_arguments, {"APP": "nosuchapp"}, "hello")),
        Case("bad-arguments/cores-17", partial(check_bad_arguments, {"BOARD": "qemu-virt-a53", "CORES": 17}, "16")),
        Case("bad-arguments/cores-0", partial(check_bad_arguments, {"BOARD": "qemu-virt-a53", "CORES": 0}, "16")),
        Case(f"debug-smoke/qemu-virt-a53/{n}", partial(check_debug, "qemu-virt-a53", n),
             images=(("qemu-virt-a53", "hello"),), estimate_s=3),
        Case(f"debug-smoke/raspi3b/{n}", partial(check_debug, "raspi3b", n),
             images=(("raspi3b", "hello"),), estimate_s=3),
        *(Case(f"debug-backtrace/{board}", partial(check_debug_backtrace, board), images=((board, "fault-null"),),
               estimate_s=3) for board in ("qemu-virt-a53", "qemu-virt-rv64")),
        Case("sdcard/raspi3b/hello", check_sdcard, images=(("raspi3b", "hello"),)),
        Case("chainboot/raspi3b/qemu", partial(check_command_succeeds,
                                                make_command("chainboot", BOARD="raspi3b", APP="hello", SERIAL="qemu"),
                                                COMPILE_TIMEOUT_S), images=(("raspi3b", "hello"),), estimate_s=15),
    ]
