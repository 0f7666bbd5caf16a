#!/usr/bin/env python3
"""`make test`: every test case on every board, ending with the line "N passed, N failed".

  python3 tests/harness.py               run everything
  python3 tests/harness.py -k a53        only cases whose name contains "a53" (-k may repeat: any)
  python3 tests/harness.py --list        list the case names
  python3 tests/harness.py --app DIR     only the tests DIR/app.toml declares (an app anywhere)

The apps' own cases come from their app.toml files (tests/app_tests.py): every app of the
repository (firmware/examples, tests/device, tests/faults, ...) is discovered, none is listed here. The cases of the tools (tpu, make) are below.

First every firmware image the selected cases need is built, one (board, app) at a time with
`make -s image`; a case whose image did not build fails with the build output's tail. Then the cases
run in parallel on a small worker pool (2 by default: each QEMU is mostly one busy thread). Each
result is printed as it finishes, a failure followed by its console log (the last 200 lines),
indented. The exit status is 0 only if no case failed.

The cases are the table in all_cases(); how one image run is judged lives in qemu_runner.py.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import os
import random
import re
import shlex
import shutil
import signal
import socket
import struct
import textwrap
import subprocess
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
import app_tests  # noqa: E402  (sibling modules, found through the line above)
import boards  # noqa: E402
import qemu_runner as runner  # noqa: E402
from qemu_runner import REPO_ROOT, RunResult, describe_exit, format_log, make_command, run_image  # noqa: E402

BOARDS = boards.NAMES  # boards/<name>/board.mk (tests/boards.py reads them)
QEMU_BOARDS = boards.QEMU_NAMES
FIXED_CORE_BOARDS = boards.FIXED_CORES  # boards whose core count is fixed: every case runs with exactly that many
HELLO_CORES = (1, 2, 4, 8, 16)
COLLECTIVE_CORES = (1, 2, 3, 4, 8, 16)  # 3: groups and chunks that do not divide evenly
REPLICATE_CORES = (1, 2, 3, 8, 16)
INJECTION_CORES = 4  # fault-null, stack-overflow and dead-core need cores 1..3

IMAGE_TIMEOUT_S = 120
BUILD_TIMEOUT_S = 900  # a first build may install the board's packages
COMPILE_TIMEOUT_S = 600
MAKE_TIMEOUT_S = 60
DEBUG_TIMEOUT_S = 60
BUILD_JOBS = 2
BUILD_LOG_TAIL_LINES = 20

UNIT_BINARY = "build/unit/unit-tests"
UNIT_OBJECTS = "build/unit/obj"
UNIT_COMPILE = ["g++", "-std=c++20", "-O1", "-g", "-Wall", "-Wextra", "-ffp-contract=off", "-mavx2", "-mfma", "-I.",
                "-Ihal/include"]
# Runtime code the unit tests link: every source in the directories that do not need the HAL (new
# files there are picked up without touching this list), except the implementations that do need it:
# runtime/tpu/<concept>/board/*.cpp (per-core state, timers, doorbells) and the two named here; plus
# two files from elsewhere.
UNIT_PURE_DIRS = ["hal/support", "runtime/dtype", "runtime/tensor", "runtime/mxu", "runtime/ops",
                  "runtime/link", "runtime/tpu"]
UNIT_NEEDS_HAL = {"runtime/tensor/hbm.cpp", "runtime/mxu/core_mxu.cpp",
                  *(str(path.relative_to(REPO_ROOT)) for path in REPO_ROOT.glob("runtime/tpu/*/board/*.cpp"))}
UNIT_EXTRA_SOURCES = ["runtime/collectives/groups.cpp", "hal/common/fdt.cpp"]


def unit_support_sources() -> list[str]:
    found = [str(path.relative_to(REPO_ROOT)) for directory in UNIT_PURE_DIRS
             for path in sorted((REPO_ROOT / directory).glob("**/*.cpp"))]
    return [source for source in found if source not in UNIT_NEEDS_HAL] + UNIT_EXTRA_SOURCES

Image = tuple[str, ...]  # (board, app) or (board, app, sanitizer); app as make's APP= takes it


@dataclass
class Outcome:
    ok: bool
    reason: str = ""  # one line, shown after FAIL
    log: str = ""     # shown indented after a failure


@dataclass
class Case:
    name: str
    check: Callable[[], Outcome]
    images: tuple[Image, ...] = ()  # built before any case runs
    estimate_s: float = 1.0         # slow cases start first, so the pool finishes sooner


@dataclass
class Build:
    ok: bool
    summary: str
    output: str = ""


# ---------------------------------------------------------------- checks

def outcome_of(verdict: runner.Verdict, command: list[str], result: RunResult) -> Outcome:
    return Outcome(verdict.ok, verdict.reason, f"$ {shlex.join(command)}\n{result.output}")


def check_image(board: str, app: str, cores: int, judge: Callable[[RunResult], runner.Verdict],
                extra_args: tuple[str, ...] = (), timeout_s: float = IMAGE_TIMEOUT_S) -> Outcome:
    """Runs the (already built) image the way `make run` would, plus extra_args, and judges it."""
    command, made = runner.image_command(board, app, cores, MAKE_TIMEOUT_S)
    if command is None:
        return Outcome(False, f"make print-run-command: {describe_exit(made)}", made.output)
    command += extra_args
    result = run_image(command, timeout_s)
    return outcome_of(judge(result), command, result)


def check_sanitized(sanitizer: str, app: str, cores: int, name: str) -> Outcome:
    """Runs `app` built for the host board with a sanitizer (the image is built before the cases
    start): every core must pass and the sanitizer must report nothing (halt_on_error turns a report
    into a failing exit)."""
    listed = run_image(make_command("print-run-command", BOARD="host", APP=app, CORES=cores, SANITIZE=sanitizer),
                       MAKE_TIMEOUT_S)
    command = listed.output.split()
    env = runner.make_env()
    env["TSAN_OPTIONS"] = "halt_on_error=1"
    env["ASAN_OPTIONS"] = "halt_on_error=1"
    env["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1"
    result = run_image(command, IMAGE_TIMEOUT_S, env=env)
    verdict = runner.expect_pass(result, cores=cores, app=name)
    if verdict.ok and "Sanitizer" in result.output:
        verdict = runner.Verdict(False, "the sanitizer reported a problem")
    return outcome_of(verdict, command, result)


def check_same_hash(app: str, cores: int, marker: str) -> Outcome:
    """Runs `app` on every board and requires the same "<marker> <hex>" line from each: the
    boards' compilers and ISAs must produce bit-identical results."""
    hashes, logs = {}, []
    for board in BOARDS:
        command, made = runner.image_command(board, app, cores, MAKE_TIMEOUT_S)
        if command is None:
            return Outcome(False, f"{board}: make print-run-command: {describe_exit(made)}", made.output)
        result = run_image(command, IMAGE_TIMEOUT_S)
        logs.append(f"$ {shlex.join(command)}\n{result.output}")
        found = re.findall(rf"{marker} (0x[0-9a-f]+)", result.output)
        if result.exit_code != 0 or not found:
            return Outcome(False, f"{board}: {describe_exit(result)}, no {marker} line", "\n".join(logs))
        hashes[board] = found[-1]
    if len(set(hashes.values())) != 1:
        return Outcome(False, "results differ between boards: " + ", ".join(f"{b} {h}" for b, h in hashes.items()),
                       "\n".join(logs))
    return Outcome(True)


def check_command_succeeds(command: list[str], timeout_s: float) -> Outcome:
    result = run_image(command, timeout_s)
    ok = result.exit_code == 0 and not result.timed_out
    reason = "" if ok else "; ".join(filter(None, [describe_exit(result), runner.telling_line(result.output)]))
    return Outcome(ok, reason, f"$ {shlex.join(command)}\n{result.output}")


def catch2_summary(output: str) -> list[str]:
    """Catch2's "test cases: ..." total and where the first failure is, when present."""
    parts = [re.sub(r"\s+", " ", line) for line in re.findall(r"^test cases:.*$", output, re.MULTILINE)[-1:]]
    first = re.search(r"^(\S+:\d+): FAILED:", output, re.MULTILINE)
    if first:
        parts.append(f"first failure at {first.group(1)}")
    return parts


def unit_test_sources() -> list[str]:
    return sorted(str(path.relative_to(REPO_ROOT)) for path in (REPO_ROOT / "tests/unit").glob("*.cpp"))


def object_is_fresh(source: str, obj: Path) -> bool:
    """True when obj is newer than its source and every header its .d file lists."""
    deps = obj.with_suffix(".d")
    if not obj.exists() or not deps.exists():
        return False
    built = obj.stat().st_mtime
    names = deps.read_text().replace("\\\n", " ").split(":", 1)[-1].split()
    return all((REPO_ROOT / name).exists() and (REPO_ROOT / name).stat().st_mtime <= built for name in names + [source])


@dataclass(frozen=True)
class UnitVariant:
    """A build of the unit tests: plain, or with sanitizers in its own folder."""
    folder: str
    flags: tuple[str, ...] = ()

    @property
    def binary(self) -> str:
        return f"{self.folder}/unit-tests"


UNIT_PLAIN = UnitVariant("build/unit")
SANITIZERS = "address,undefined"
UNIT_SANITIZED = UnitVariant("build/unit-address-undefined",
                             (f"-fsanitize={SANITIZERS}", "-fno-omit-frame-pointer", "-fno-sanitize-recover=all"))
# The unit tests that also run under ASan+UBSan: the host link, the rings and .npy.
SANITIZED_UNIT_FILES = ("link", "shm", "npy")
SANITIZER_ENV = {"ASAN_OPTIONS": "halt_on_error=1:detect_leaks=1", "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1"}


def compile_unit_object(variant: UnitVariant, source: str) -> Outcome:
    obj = REPO_ROOT / variant.folder / "obj" / (source + ".o")
    if object_is_fresh(source, obj):
        return Outcome(True)
    obj.parent.mkdir(parents=True, exist_ok=True)
    return check_command_succeeds(UNIT_COMPILE + list(variant.flags) + ["-MMD", "-c", source, "-o", str(obj)],
                                  COMPILE_TIMEOUT_S)


_unit_build_lock = threading.Lock()
_unit_builds: dict[UnitVariant, Outcome] = {}


def build_unit_tests(variant: UnitVariant = UNIT_PLAIN) -> Outcome:
    """Compiles each unit-test and runtime source to its own object (BUILD_JOBS at a time, skipping
    fresh ones) and links the variant's unit-tests binary, once per harness run."""
    with _unit_build_lock:
        if variant in _unit_builds:
            return _unit_builds[variant]
        sources = unit_test_sources() + unit_support_sources()
        with concurrent.futures.ThreadPoolExecutor(max_workers=BUILD_JOBS) as pool:
            compiled = list(pool.map(partial(compile_unit_object, variant), sources))
        failed = [outcome for outcome in compiled if not outcome.ok]
        if failed:
            outcome = Outcome(False, f"compiling the unit tests failed: {failed[0].reason}", failed[0].log)
        else:
            objects = [str(REPO_ROOT / variant.folder / "obj" / (source + ".o")) for source in sources]
            linked = check_command_succeeds(["g++", *variant.flags, *objects, "-o", variant.binary, "-pthread"],
                                            COMPILE_TIMEOUT_S)
            outcome = linked if linked.ok else Outcome(False, f"linking the unit tests failed: {linked.reason}", linked.log)
        _unit_builds[variant] = outcome
        return outcome


def check_unit_tests(test_file: str, variant: UnitVariant = UNIT_PLAIN) -> Outcome:
    """Runs the Catch2 test cases of one tests/unit file (tagged [#file] by -#) from the variant's binary;
    under sanitizers any report fails the case."""
    built = build_unit_tests(variant)
    if not built.ok:
        return built
    command = [variant.binary, "-#", f"[#{Path(test_file).stem}]"]
    env = runner.make_env() | (SANITIZER_ENV if variant.flags else {})
    ran = run_image(command, IMAGE_TIMEOUT_S * (4 if variant.flags else 1), env=env)
    ok = ran.exit_code == 0 and not ran.timed_out and "Sanitizer" not in ran.output
    reason = "" if ok else "; ".join([describe_exit(ran)] + catch2_summary(ran.output))
    return Outcome(ok, reason, f"$ {shlex.join(command)}\n{ran.output}")


TPU_BINARY = "build/host-tools/tpu"
TPU_RUN_BOARDS = BOARDS  # every board (raspi3b: QEMU stdio is the PL011, which carries the link bytes too)
TPU_TIMEOUT_S = 180


def link_transports(board: str) -> tuple[str, ...]:
    """The host link transports a board has under tpu: shared memory and the UART on the QEMU boards,
    the byte stream (stdio) alone on the host board."""
    return ("uart",) if board == "host" else ("shm", "uart")
_tpu_build_lock = threading.Lock()
_tpu_build: list[Outcome] = []

def build_tpu_tool() -> Outcome:
    """`make tpu` once per harness run (cases share the binary)."""
    with _tpu_build_lock:
        if not _tpu_build:
            _tpu_build.append(check_command_succeeds(make_command("tpu"), COMPILE_TIMEOUT_S))
        return _tpu_build[0]


def judge_exit_and_output(result: RunResult, log: str, expect_exit: int, patterns: list[str]) -> Outcome:
    """A tool run passes with exit status `expect_exit` and every regex of `patterns` in its output."""
    if result.timed_out or result.exit_code != expect_exit:
        return Outcome(False, f"expected exit {expect_exit}, got {describe_exit(result)}", log)
    missing = [pattern for pattern in patterns if not re.search(pattern, result.output, re.MULTILINE)]
    if missing:
        return Outcome(False, f"output lacks {missing[0]!r}", log)
    return Outcome(True, "", log)


def check_tpu_run(board: str, cores: int, app: str, expect_exit: int, patterns: list[str],
                  extra: tuple[str, ...] = (), outfeed_check: Path | None = None, link: str | None = None) -> Outcome:
    """Runs `tpu run` (build, boot, serve the link) and checks its exit status, output and outfeed."""
    built = build_tpu_tool()
    if not built.ok:
        return Outcome(False, f"make tpu failed: {built.reason}", built.log)
    outfeed_dir = REPO_ROOT / "build" / "tpu-run" / f"{Path(app).name}-{board}-{cores}-{link or 'auto'}"
    shutil.rmtree(outfeed_dir, ignore_errors=True)
    link_option = ["--link", link] if link else []  # none: tpu's own choice (shm where the board has it)
    command = [TPU_BINARY, "run", "--board", board, "--cores", str(cores), *link_option,
               "--outfeed-dir", str(outfeed_dir), *extra, app]
    result = run_image(command, TPU_TIMEOUT_S)
    log = f"$ {shlex.join(command)}\n{result.output}"
    judged = judge_exit_and_output(result, log, expect_exit, patterns)
    if not judged.ok:
        return judged
    if outfeed_check:
        checked = run_image(["/usr/bin/python3", str(outfeed_check), str(outfeed_dir), str(cores)], 60)
        if checked.exit_code != 0:
            return Outcome(False, "the outfeed .npy files are wrong", log + "\n" + checked.output)
    return Outcome(True, "", log)


def check_tpu_script(arguments: list[str], pattern: str) -> Outcome:
    """Runs a NumPy-checking script that drives `tpu` (tests/*_check.py) and requires its pass line."""
    built = build_tpu_tool()
    if not built.ok:
        return Outcome(False, f"make tpu failed: {built.reason}", built.log)
    command = ["/usr/bin/python3", *arguments]
    result = run_image(command, 600)
    log = f"$ {shlex.join(command)}\n{result.output}"
    if result.timed_out or result.exit_code != 0 or not re.search(pattern, result.output, re.MULTILINE):
        return Outcome(False, f"{describe_exit(result)}; expected {pattern!r}", log)
    return Outcome(True, "", log)


SHELL_COMMANDS = "help\ncores\nmem\nbench\nstats\ntrace off\nexit\n"


def check_shell_console(board: str) -> Outcome:
    """Pipes commands into `tpu console` (the firmware shell) and checks their answers."""
    built = build_tpu_tool()
    if not built.ok:
        return Outcome(False, f"make tpu failed: {built.reason}", built.log)
    command = [TPU_BINARY, "console", "--board", board, "--cores", "2"]
    try:
        result = subprocess.run(command, input=SHELL_COMMANDS, capture_output=True, text=True, timeout=TPU_TIMEOUT_S,
                                cwd=REPO_ROOT, errors="replace")
    except subprocess.TimeoutExpired as expired:
        return Outcome(False, f"tpu console timed out after {TPU_TIMEOUT_S} s", str(expired.output))
    output = result.stdout + result.stderr
    log = f"$ printf {SHELL_COMMANDS!r} | {shlex.join(command)}\n{output}"
    for pattern in (r"MFLOP/s", r"trace recording off", r"PASS shell"):
        if not re.search(pattern, output):
            return Outcome(False, f"exit {result.returncode}, output lacks {pattern!r}", log)
    if result.returncode != 0:
        return Outcome(False, f"exit {result.returncode}", log)
    return Outcome(True, "", log)


FAULT_WORK = REPO_ROOT / "build" / "fault-matrix"


def fault_workload(workload: str, board: str, timeout_s: int, work: Path) -> tuple[list[str], Path | None]:
    """The tpu command of a fault-matrix workload, and the result file a killed run must not leave:
      shell   tpu run of the shell app (it never ends by itself), 2 cores, shared memory
      infeed  tpu run streaming 4 MiB through infeed-bulk (4 steps of [8, 32768] float32) over the UART
              (~1 min per MiB, so any point of the first seconds is mid-stream), 4 cores
      exec    tpu exec matmul of [2, 768, 768] float32 stacks on 2 replicas (~6 s), result to work/c.npy"""
    common = ["--board", board, "--timeout", str(timeout_s)]
    shm = ["--link", "shm"]
    work.mkdir(parents=True, exist_ok=True)
    if workload == "shell":
        return [TPU_BINARY, "run", *common, *shm, "--cores", "2", "shell"], None
    if workload == "infeed":
        x = work / "x.npy"
        if not x.exists():
            x.write_bytes(npy_bytes((4, 8, 32768), b"\x00\x00\x80\x3f" * (4 * 8 * 32768)))
        return [TPU_BINARY, "run", *common, "--link", "uart", "--cores", "4", "--infeed", f"0={x}", "--outfeed-dir", str(work / "out"),
                "infeed-bulk"], None
    if workload == "exec":
        a, result = work / "a.npy", work / "c.npy"
        a.write_bytes(npy_bytes((2, 768, 768), struct.pack("<f", 0.5) * (2 * 768 * 768)))
        result.unlink(missing_ok=True)
        return [TPU_BINARY, "exec", *common, *shm, "--replicas", "2", "matmul", str(a), str(a), "-o", str(result)], result
    raise ValueError(f"unknown fault workload {workload!r}")


def start_collecting(command: list[str], stdin: int = subprocess.DEVNULL, env: dict[str, str] | None = None
                     ) -> tuple[subprocess.Popen, list[str], threading.Thread]:
    """Starts `command` in a session of its own; a thread appends its output lines to the list as they come."""
    process = subprocess.Popen(command, cwd=REPO_ROOT, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, errors="replace", start_new_session=True, env=env)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True)
    reader.start()
    return process, lines, reader


def check_tpu_fault(workload: str, board: str, victim: str, signal_number: int, expect_exit: int, pattern: str,
                    timeout_s: int = 120) -> Outcome:
    """Starts a workload (fault_workload) under tpu, waits for its start line (FAULT_POINTS) and then a
    random time in the workload's window (the delay is in the log), then sends `signal_number` to QEMU (victim "qemu")
    or to tpu itself (victim "tpu"). tpu must exit with `expect_exit` and print `pattern` within its
    grace period (plus `timeout_s` when that is tpu's --timeout, for a board that stops answering),
    leaving no QEMU, no RAM file and no result file."""
    built = build_tpu_tool()
    if not built.ok:
        return Outcome(False, f"make tpu failed: {built.reason}", built.log)
    work = FAULT_WORK / f"{workload}-{victim}-{signal.Signals(signal_number).name}"
    command, result_file = fault_workload(workload, board, timeout_s, work)
    started, earliest_s, latest_s = FAULT_POINTS[workload]
    delay = random.Random().uniform(earliest_s, latest_s)
    process, lines, reader = start_collecting(command, stdin=subprocess.PIPE)
    log = lambda: f"$ {shlex.join(command)}\n(signal {delay:.2f} s after /{started}/)\n" + "".join(lines)  # noqa: E731
    try:
        deadline = time.monotonic() + 120
        while not any(re.search(started, line) for line in lines) and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        if not any(re.search(started, line) for line in lines):
            return Outcome(False, f"the workload never printed /{started}/", log())
        time.sleep(delay)
        if process.poll() is not None:
            return Outcome(False, f"the workload ended before the signal ({delay:.2f} s after /{started}/): make it longer", log())
        children = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True).stdout.split()
        if victim == "qemu":
            if not children:
                return Outcome(False, "tpu has no QEMU child to stop", log())
            for child in children:
                os.kill(int(child), signal_number)
        else:
            process.send_signal(signal_number)
        try:
            code = process.wait(timeout=20 + (timeout_s if timeout_s < 120 else 0))
        except subprocess.TimeoutExpired:
            return Outcome(False, f"tpu did not exit in time after {signal.Signals(signal_number).name} to {victim}", log())
        reader.join(timeout=5)
        left = [child for child in children if Path(f"/proc/{child}").exists()]
        ours = re.search(r"mem-path=(\S+)/board-ram", "".join(lines))  # this run's folder (others may run now)
        if not ours and "--link uart" not in shlex.join(command):
            return Outcome(False, "tpu did not start QEMU with a shared RAM file", log())
        if code != expect_exit:
            return Outcome(False, f"expected exit {expect_exit}, got {code}", log())
        if not re.search(pattern, "".join(lines)):
            return Outcome(False, f"output lacks {pattern!r}", log())
        if left:
            return Outcome(False, f"QEMU (pid {', '.join(left)}) still runs", log())
        if ours and Path(ours.group(1)).exists():
            return Outcome(False, f"the RAM file folder was left behind: {ours.group(1)}", log())
        if result_file and result_file.exists():
            return Outcome(False, f"a failed run left a result file: {result_file}", log())
        return Outcome(True, "", log())
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def npy_bytes(shape: tuple[int, ...], data: bytes = b"", descr: str = "<f4") -> bytes:
    """A .npy file written by hand: any header (even one whose shape does not match the data)."""
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, "".join(f"{d}, " for d in shape))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + data


def check_hostile_input(case: str, expect_exit: int, pattern: str) -> Outcome:
    """tpu given hostile files or values: a clear error (or a normal run) and the expected exit status,
    never a crash."""
    built = build_tpu_tool()
    if not built.ok:
        return Outcome(False, f"make tpu failed: {built.reason}", built.log)
    work = REPO_ROOT / "build" / "tpu-input"
    work.mkdir(parents=True, exist_ok=True)
    (work / "wraps.npy").write_bytes(npy_bytes((1 << 40, 1 << 22)))  # 2^64 bytes: wraps to 0
    (work / "huge.npy").write_bytes(npy_bytes((1 << 32, 1 << 30)))
    (work / "a.npy").write_bytes(npy_bytes((2, 3), struct.pack("<6f", *range(6))))
    (work / "b.npy").write_bytes(npy_bytes((3, 1), struct.pack("<3f", 1, 2, 3)))
    (work / "dir.npy").mkdir(exist_ok=True)
    (work / "text.elf").write_text("not an image\n")
    raspi_fault = str(REPO_ROOT / "build" / "raspi3b" / "fault-null" / "firmware.elf")
    commands = {
        "image-not-elf": ["run", str(work / "text.elf")],
        "image-for-another-board": ["run", "--board", "qemu-virt-a53", raspi_fault],
        "image-runs-on-its-board": ["run", "--board", "raspi3b", "--cores", "4", raspi_fault],
        "image-board-from-its-tag": ["run", "--cores", "4", raspi_fault],
        "cores-the-board-lacks": ["run", "--board", "raspi3b", "--cores", "2", "hello"],
        "exec-on-raspi3b": ["exec", "--board", "raspi3b", "matmul", str(work / "a.npy"), str(work / "b.npy"), "-o",
                            str(work / "o-raspi3b.npy")],
        "infeed-wrapping-shape": ["run", "--infeed", f"0={work / 'wraps.npy'},{work / 'wraps.npy'}", "infeed"],
        "exec-huge-shape": ["exec", "matmul", str(work / "huge.npy"), str(work / "huge.npy"), "-o", str(work / "o.npy")],
        "exec-directory": ["exec", "matmul", str(work / "dir.npy"), str(work / "b.npy"), "-o", str(work / "o.npy")],
        "exec-huge-timeout": ["exec", "--timeout", "1e10", "matmul", str(work / "a.npy"), str(work / "b.npy"), "-o",
                              str(work / "o.npy")],
        "exec-infinite-timeout": ["exec", "--timeout", "inf", "matmul", str(work / "a.npy"), str(work / "b.npy"), "-o",
                                  str(work / "o.npy")],
    }
    command = [TPU_BINARY, *commands[case]]
    result = run_image(command, TPU_TIMEOUT_S)
    log = f"$ {shlex.join(command)}\n{result.output}"
    if result.timed_out or result.exit_code != expect_exit:
        return Outcome(False, f"expected exit {expect_exit}, got {describe_exit(result)}", log)
    if not re.search(pattern, result.output):
        return Outcome(False, f"output lacks {pattern!r}", log)
    return Outcome(True, "", log)


HOSTILE_INPUTS = {
    "infeed-wrapping-shape": (2, r"shape \[1099511627776, 4194304\] of float32 needs more than 2\^64 bytes"),
    "exec-huge-shape": (2, r"needs more than 2\^64 bytes"),
    "exec-directory": (2, r"dir.npy is not a regular file"),
    "exec-huge-timeout": (0, r"tpu exec: wrote .*o.npy"),
    "exec-infinite-timeout": (0, r"tpu exec: wrote .*o.npy"),
    "image-not-elf": (2, r"text.elf is not an ELF file"),
    "image-for-another-board": (2, r"was built for raspi3b, not for --board qemu-virt-a53"),
    "image-runs-on-its-board": (3, r"app fault-null[\s\S]*FAULT on core 3"),  # not the default app's kernel8.img
    "image-board-from-its-tag": (3, r"runtime on raspi3b: 4 cores, app fault-null"),
    "cores-the-board-lacks": (2, r"board raspi3b boots 4 cores, not 2"),
    "exec-on-raspi3b": (0, r"tpu exec: wrote .*o-raspi3b.npy"),
}
HOSTILE_IMAGES = {"image-runs-on-its-board": (("raspi3b", "fault-null"),),
                  "image-board-from-its-tag": (("raspi3b", "fault-null"),),
                  "image-for-another-board": (("raspi3b", "fault-null"),),
                  "exec-on-raspi3b": (("raspi3b", "exec"),)}

CORRUPTION_PATTERNS = {
    1: r"has a bad header .*torn or corrupted write",
    2: r"claims \d+ bytes, only \d+ are published",
    3: r"the writer's position \d+ is impossible",
    4: r"failed its check \(crc mismatch",
}


NEW_APP_FOLDER = REPO_ROOT / "build" / "tpu-new" / "first-app"  # made by `tpu new` before the cases run
NEW_APP_TEMPLATE = REPO_ROOT / "host-tools" / "templates" / "app"


def new_app_cases() -> list[Case]:
    """The app `tpu new` makes, run as its own app.toml says on every board (its cases are named
    tpu-new/...). The folder is created by prepare_new_app() before the images are built; the
    case list comes from the template's app.toml, so listing the cases needs no tool."""
    spec = app_tests.load_app(NEW_APP_TEMPLATE)
    spec.name, spec.folder, spec.make_app = NEW_APP_FOLDER.name, NEW_APP_FOLDER, str(NEW_APP_FOLDER)
    if spec.tpu:
        spec.tpu.patterns = [pattern.replace("@NAME@", spec.name) for pattern in spec.tpu.patterns]
    cases = app_cases(spec)
    for case in cases:
        case.name = "tpu-new/" + case.name
    return cases


def prepare_new_app() -> str:
    """`tpu new` into a fresh folder; "" or what went wrong."""
    built = build_tpu_tool()
    if not built.ok:
        return f"make tpu failed: {built.reason}"
    shutil.rmtree(NEW_APP_FOLDER, ignore_errors=True)
    NEW_APP_FOLDER.parent.mkdir(parents=True, exist_ok=True)
    made = run_image([TPU_BINARY, "new", str(NEW_APP_FOLDER)], MAKE_TIMEOUT_S)
    if made.exit_code != 0:
        return f"tpu new failed: {describe_exit(made)}\n{made.output}"
    return ""


SANITIZED_TPU_BINARY = f"build/host-tools-{SANITIZERS.replace(',', '-')}/tpu"


def check_sanitized_tool_tests() -> Outcome:
    """The tool's Catch2 tests (link session, .npy, app host functions) built and run under ASan+UBSan."""
    command = make_command("tpu-tests", HOST_SANITIZE=SANITIZERS)
    result = run_image(command, COMPILE_TIMEOUT_S, env=runner.make_env() | SANITIZER_ENV)
    ok = result.exit_code == 0 and not result.timed_out and "Sanitizer" not in result.output
    reason = "" if ok else "; ".join(filter(None, [describe_exit(result), runner.telling_line(result.output)]))
    return Outcome(ok, reason, f"$ {shlex.join(command)}\n{result.output}")


def check_tpu_command(arguments: list[str], expect_exit: int, patterns: list[str], cwd: Path = REPO_ROOT,
                      binary: str = TPU_BINARY) -> Outcome:
    """Runs tpu with `arguments` and checks its exit status and output (its command line, tpu new, ...);
    `binary` may be the tool built with sanitizers, whose reports fail the case."""
    built = build_tpu_tool()
    if not built.ok:
        return Outcome(False, f"make tpu failed: {built.reason}", built.log)
    command = [str(REPO_ROOT / binary), *arguments]
    result = run_image(command, TPU_TIMEOUT_S, cwd=cwd, env=runner.make_env() | SANITIZER_ENV)
    if "Sanitizer" in result.output:
        return Outcome(False, "the sanitizer reported a problem", f"$ {shlex.join(command)}\n{result.output}")
    log = f"$ {shlex.join(command)}\n{result.output}"
    return judge_exit_and_output(result, log, expect_exit, patterns)


def check_host_function_clash() -> Outcome:
    """An app whose host half defines a function named like a built-in must stop before the board runs."""
    folder = REPO_ROOT / "build" / "tpu-new" / "clashing-app"
    shutil.rmtree(folder, ignore_errors=True)
    created = check_tpu_command(["new", str(folder)], 0, [r"created app clashing-app"])
    if not created.ok:
        return created
    (folder / "host" / "functions.cpp").write_text(
        '#include "host-tools/lib/functions/app_host.hpp"\n'
        'TPU_HOST_FUNCTION(print, call) { return call.tensor(0); }\n')
    return check_tpu_command(["run", "--board", "host", "--cores", "1", str(folder)], 2,
                             [r"the app's host function 'print' is already defined \(a built-in\)"])


def check_readme_examples() -> Outcome:
    """Every "// example: NAME ... // end" block of the readme-examples app appears, dedented,
    as a code block of README.md (the README shows the code the tests run)."""
    source = (app_tests.app_folder("readme-examples") / "device" / "examples.cpp").read_text()
    readme = (REPO_ROOT / "README.md").read_text()
    blocks = re.findall(r"// example: (\w+)\n(.*?)\n\s*// end", source, re.S)
    if not blocks:
        return Outcome(False, "examples.cpp has no // example: blocks")
    stale = [name for name, code in blocks if f"```cpp\n{textwrap.dedent(code)}\n```" not in readme]
    if stale:
        return Outcome(False, f"README.md does not show the current code of example(s) {', '.join(stale)}")
    return Outcome(True)


def python3_without_numpy() -> Path:
    """A folder whose `python3` cannot import NumPy (Debian's interpreter without site-packages), to
    put first on PATH as pyenv, conda or a venv would."""
    folder = REPO_ROOT / "build" / "python3-without-numpy"
    folder.mkdir(parents=True, exist_ok=True)
    shim = folder / "python3"
    shim.write_text('#!/bin/sh\n# A python3 without NumPy (no site-packages), first on PATH in a test.\n'
                    'exec /usr/bin/python3 -S "$@"\n')
    shim.chmod(0o755)
    return folder


def check_readme_training_commands() -> Outcome:
    """The README's training commands (the sh block that runs prepare_digits.py), run as written with
    a python3 first on PATH that lacks NumPy: they must not depend on which python3 comes first."""
    readme = (REPO_ROOT / "README.md").read_text()
    blocks = [block for block in re.findall(r"```sh\n(.*?)```", readme, re.S) if "prepare_digits.py" in block]
    if len(blocks) != 1:
        return Outcome(False, f"README.md has {len(blocks)} sh blocks running prepare_digits.py, expected 1")
    env = runner.make_env()
    env["PATH"] = f"{python3_without_numpy()}:{env.get('PATH', '')}"
    probe = run_image(["python3", "-c", "import numpy"], 30, env=env)
    if probe.exit_code == 0:
        return Outcome(False, "the python3 put first on PATH can import numpy: the case would prove nothing")
    result = run_image(["bash", "-e", "-o", "pipefail", "-c", blocks[0]], 300, env=env)
    log = f"$ PATH=build/python3-without-numpy:$PATH bash -e -c <README block>\n{blocks[0]}\n{result.output}"
    if result.timed_out or result.exit_code != 0:
        return Outcome(False, f"the README's training commands failed: {describe_exit(result)}", log)
    if not re.search(r"^tpu: (\d+) of \1 cores reported a result, all OK", result.output, re.M):
        return Outcome(False, "the training run did not end with every core OK", log)
    return Outcome(True, "", log)


CLI_CASES = {
    "help": (["--help"], 0, [r"Subcommands:", r"^\s+run\b", r"^\s+exec\b", r"^\s+new\b", r"^\s+test\b"]),
    "run-help": (["run", "--help"], 0, [r"Usage: tpu run", r"--infeed", r"--link"]),
    "exec-help": (["exec", "--help"], 0, [r"Usage: tpu exec", r"matmul", r"--replicas"]),
    "no-command": ([], 2, [r"A subcommand is required"]),
    "unknown-command": (["fly"], 2, [r"fly"]),
    "cores-out-of-range": (["run", "--cores", "17", "hello"], 2, [r"--cores: Value 17 not in range 1 to 16"]),
    "bad-link": (["run", "--link", "wifi", "hello"], 2, [r"--link: wifi not in \{auto,shm,uart\}"]),
    "bad-timeout": (["run", "--timeout", "-3", "hello"], 2, [r"positive number of seconds .*got '-3'"]),
    "unknown-board": (["run", "--board", "pi5", "hello"], 2, [r"--board: unknown board 'pi5' \(boards: host, qemu-virt-a53, qemu-virt-rv64, raspi3b\)"]),
    "unknown-app": (["run", "--board", "host", "nosuchapp"], 2, [r"unknown APP 'nosuchapp'.*valid apps: .*hello"]),
    "exec-bad-op": (["exec", "fly", "-o", "x.npy"], 2, [r"OP: fly not in \{matmul"]),
    "new-bad-name": (["new", "build/tpu-new/9lives"], 2, [r"'9lives' is not an app name"]),
    "new-existing-folder": (["new", "firmware/examples/hello"], 2, [r"already exists and is not an empty folder"]),
    # Found by the command-line fuzz target: `tpu new ""` died of an uncaught filesystem_error.
    "new-empty-folder": (["new", ""], 2, [r"FOLDER: must not be empty"]),
    "empty-outfeed-dir": (["run", "--outfeed-dir", "", "hello"], 2, [r"--outfeed-dir: must not be empty"]),
}


def tpu_cases() -> list[Case]:
    # The Catch2 binaries are built in the build phase (one build at a time, BUILD_TIMEOUT_S): compiled
    # under ASan beside other cases they took over 600 s from a clean clone.
    cases = [Case("tpu-tests/host", partial(check_command_succeeds, make_command("tpu-tests"), COMPILE_TIMEOUT_S),
                  images=(("tool", "build/host-tools/tpu-tests"),), estimate_s=60),
             Case("asan/tpu-tests/host", partial(check_sanitized_tool_tests),
                  images=(("sanitized-tool", f"build/host-tools-{SANITIZERS.replace(',', '-')}/tpu-tests"),),
                  estimate_s=150)]
    cases += [Case(f"asan/tpu-cli/{name}", partial(check_tpu_command, *arguments, binary=SANITIZED_TPU_BINARY))
              for name, arguments in CLI_CASES.items() if arguments[0][:1] != ["exec"]]
    cases += [Case(f"tpu-cli/{name}", partial(check_tpu_command, *arguments)) for name, arguments in CLI_CASES.items()]
    cases.append(Case("tpu-cli/host-function-clash", check_host_function_clash, estimate_s=10))
    cases.append(Case("readme/api-examples", check_readme_examples))
    cases.append(Case("tpu-readme/training-commands/python3-without-numpy", check_readme_training_commands,
                      images=(("qemu-virt-a53", "train-digits"),), estimate_s=20))
    cases += new_app_cases()
    for board, cores in (("qemu-virt-a53", 8), ("qemu-virt-rv64", 4), ("host", 8)):
        for link in link_transports(board):
            cases.append(Case(f"tpu-infeed/{board}/{cores}/{link}",
                              partial(check_tpu_script, ["tests/infeed_check.py", "--board", board, "--cores", str(cores),
                                                         "--link", link], r"^PASS infeed"),
                              images=((board, "infeed"),), estimate_s=70))
    # 64 MiB through infeed and back out, bit for bit (the UART takes ~1 min per MiB: small runs only).
    for board, cores, steps, link in (("qemu-virt-a53", 8, 64, "shm"), ("qemu-virt-rv64", 4, 16, "shm"),
                                      ("host", 8, 8, "uart"), ("qemu-virt-a53", 1, 1, "uart")):
        cases.append(Case(f"tpu-infeed-bulk/{board}/{cores}/{link}/{steps}MiB",
                          partial(check_tpu_script, ["tests/infeed_bulk_check.py", "--board", board, "--cores", str(cores),
                                                     "--steps", str(steps), "--link", link], r"^PASS infeed-bulk"),
                          images=((board, "infeed-bulk"),), estimate_s=40))
    for board in TPU_RUN_BOARDS[:3]:
        for link in link_transports(board):
            cases.append(Case(f"tpu-exec/{board}/{link}",
                              partial(check_tpu_script, ["tests/exec_check.py", "--board", board, "--link", link],
                                      r"\b0 failed"), images=((board, "exec"),), estimate_s=30))
        cases.append(Case(f"tpu-console/shell/{board}/2", partial(check_shell_console, board),
                          images=((board, "shell"),), estimate_s=15))
    cases.append(Case("tpu-run/fault-null/qemu-virt-a53/4",
                      partial(check_tpu_run, "qemu-virt-a53", 4, "fault-null", 3,
                              [r"exited with status 3", r"FAULT on core 3"]),
                      images=(("qemu-virt-a53", "fault-null"),), estimate_s=10))
    cases.append(Case("tpu-run/dead-core/qemu-virt-a53/4",
                      partial(check_tpu_run, "qemu-virt-a53", 4, "dead-core", 4, [r"timed out after 3 s"],
                              extra=("--timeout", "3")), images=(("qemu-virt-a53", "dead-core"),), estimate_s=10))
    # The digits classifiers (firmware/examples/train-digits: MLP and CNN) against NumPy, across replica
    # counts and boards, their full runs' test accuracy, and hostile input.
    train = ["tests/train_digits_check.py"]
    for model in ("mlp", "cnn"):
        for cores in (1, 2, 4, 8):
            cases.append(Case(f"tpu-train/{model}/host/{cores}/24-steps", partial(
                check_tpu_script, [*train, "--model", model, "--board", "host", "--cores", str(cores), "--steps", "24"],
                r"^PASS train-digits"), images=(("host", "train-digits"),), estimate_s=5))
        cases.append(Case(f"tpu-train/{model}/same-bits/4", partial(
            check_tpu_script, [*train, "--model", model, "--same-bits", ",".join(BOARDS), "--cores", "4", "--steps", "16"],
            r"^PASS train-digits.*bit-identical"), images=tuple((board, "train-digits") for board in BOARDS), estimate_s=15))
        for board in ("host", "qemu-virt-a53"):
            cases.append(Case(f"tpu-train/{model}/{board}/4/full", partial(
                check_tpu_script, [*train, "--model", model, "--board", board, "--cores", "4", "--steps", "0",
                                   "--epochs", "10", "--min-accuracy", "0.95"], r"^PASS train-digits.*test accuracy"),
                images=((board, "train-digits"),), estimate_s=15))
    for board in ("host", "qemu-virt-a53"):
        cases.append(Case(f"tpu-train/cnn/model-parallel/{board}", partial(
            check_tpu_script, [*train, "--model-parallel", "--board", board, "--steps", "16"],
            r"^PASS train-digits: cnn model parallel"), images=((board, "train-digits"),), estimate_s=10))
    for kind in ("batch", "dtype", "nan", "replicas"):
        cases.append(Case(f"tpu-train/bad-input/{kind}", partial(
            check_tpu_script, [*train, "--board", "host", "--bad", kind], r"^PASS train-digits: bad input"),
            images=(("host", "train-digits"),), estimate_s=3))
    for variant, pattern in CORRUPTION_PATTERNS.items():
        cases.append(Case(f"tpu-run/link-corrupt/qemu-virt-a53/{variant}",
                          partial(check_tpu_run, "qemu-virt-a53", variant, "link-corrupt", 1,
                                  [r"the link to the board failed: .*" + pattern], link="shm"),
                          images=(("qemu-virt-a53", "link-corrupt"),), estimate_s=10))
    for board in ("qemu-virt-a53", "qemu-virt-rv64"):
        cases.append(Case(f"tpu-run/link-bench/{board}/1/shm",
                          partial(check_tpu_run, board, 1, "link-bench", 0,
                                  [r"LINK-BENCH .*host-to-board.*67108864", r"LINK-BENCH .*board-to-host.*67108864",
                                   r"LINK-BENCH .*round-trip", r"PASS link-bench",
                                   r"[1-9]\d{7,} bytes placed straight into board memory"], link="shm"),
                          images=((board, "link-bench"),), estimate_s=40))
    for name, (code, pattern) in HOSTILE_INPUTS.items():
        cases.append(Case(f"tpu-input/{name}", partial(check_hostile_input, name, code, pattern),
                          images=HOSTILE_IMAGES.get(name, (("qemu-virt-a53", "exec"),)), estimate_s=5))
    cases += fault_matrix_cases()
    cases += host_fault_cases()
    cases += hang_triage_cases()
    return cases


# The fault matrix: each fault at a random point of each workload (fault_workload) must end with a
# clear error naming what happened, its exit status, and nothing left behind (check_tpu_fault).
#   qemu-killed      SIGKILL to QEMU: "was killed by signal 9 (Killed)", exit 5
#   qemu-terminated  SIGTERM to QEMU (it exits 0 by itself): the run still fails naming the cores
#                    that never reported (tpu exec: the outputs that never came), exit 1
#   qemu-stopped     SIGSTOP to QEMU, a board gone silent: tpu's --timeout names it and kills it, exit 4
#   interrupted      SIGINT (Ctrl-C) to tpu: exit 130 after stopping the board
FAULTS = {
    "qemu-killed": ("qemu", signal.SIGKILL, 5, r"was killed by signal 9 \(Killed\)", 120),
    "qemu-terminated": ("qemu", signal.SIGTERM, 1,
                        r"exited with status 0 before (cores? [\d, ]+ reported a result|sending every output)", 120),
    "qemu-stopped": ("qemu", signal.SIGSTOP, 4, r"timed out after 8 s", 8),
    "interrupted": ("tpu", signal.SIGINT, 130, r"interrupted; stopped", 120),
}
# When the fault strikes: a random time in [earliest, latest] s after the workload printed the line.
# tpu exec prints nothing between starting QEMU and the result, so its window starts at QEMU's start
# (its boot takes ~0.5 s, the matmul ~6 s).
FAULT_POINTS = {"shell": (r"tpu: link up", 0.0, 0.0), "infeed": (r"tpu: link up", 0.0, 2.0),
                "exec": (r"tpu: \$ qemu-system", 0.0, 3.0)}


def fault_matrix_cases() -> list[Case]:
    cases = []
    images = {"shell": "shell", "infeed": "infeed-bulk", "exec": "exec"}
    for workload in FAULT_POINTS:
        for fault, (victim, number, code, pattern, timeout_s) in FAULTS.items():
            cases.append(Case(f"tpu-fault/{workload}/{fault}", partial(
                check_tpu_fault, workload, "qemu-virt-a53", victim, number, code, pattern, timeout_s),
                images=(("qemu-virt-a53", images[workload]),), estimate_s=20))
    # A core that never joins a collective: the others' all-reduce ends with DEADLINE_EXCEEDED naming
    # it (not a hang), and tpu's timeout names it as the core that never reported.
    cases.append(Case("tpu-fault/collective-hang/qemu-virt-a53/4", partial(
        check_tpu_run, "qemu-virt-a53", 4, "collective-hang", 4,
        [r"FAIL collective-hang: DEADLINE_EXCEEDED: core 0 timed out after 1000 ms in all_reduce #1: "
         r"receiving \d+ bytes from core 3", r"timed out after 8 s: .*core 3 had not reported a result"],
        extra=("--timeout", "8")), images=(("qemu-virt-a53", "collective-hang"),), estimate_s=12))
    return cases


# A user's host functions that misbehave (tests/faults/host-function-faults, HOST_FAULT picks how):
# tpu runs them in a worker process, so a crash or a hang ends the run with a message naming the
# function, the call and the core (exit 6), a throw or a wrong shape reaches the replica as a status
# (exit 1), and tpu's --timeout, SIGTERM and SIGKILL leave nothing running.
HOST_FAULTS = {
    "crash": (6, [r"host function 'misbehave' crashed with SIGSEGV \(Segmentation fault\) during call 1 to it, "
                  r"from replica 1 on core 1 \(host call \d+\); stopped"]),
    "abort": (6, [r"host function 'misbehave' crashed with SIGABRT \(Aborted\) during call 1 to it, from replica 1 on core 1"]),
    "exit": (6, [r"host function 'misbehave' ended its worker with exit status 3 during call 1 to it, from replica 1 on core 1"]),
    "hang": (6, [r"host function 'misbehave' did not return within its deadline of 3 s in call 1 to it, from replica 1 on core 1 "
                 r"\(host call \d+\); tpu killed it; stopped"]),
    "throw": (1, [r"count still answers after misbehave threw",
                  r"FAIL host-function-faults: INTERNAL: host function 'misbehave' failed: misbehave threw on purpose"]),
    "wrong-shape": (1, [r"FAIL host-function-faults: INVALID_ARGUMENT: host call \d+ 'misbehave': result 0 should be "
                        r"float32\[2\], the host sent float32\[3\]"]),
    "arena": (1, [r"FAIL host-function-faults: RESOURCE_EXHAUSTED: core 1 out of memory: 4 GiB on purpose needs "
                  r"4294967296 bytes"]),
}
HOST_FAULT_BOARDS = ("host", "qemu-virt-a53")


def host_fault_command(board: str, timeout_s: int, deadline_s: int) -> list[str]:
    return [TPU_BINARY, "run", "--board", board, "--cores", "4", "--timeout", str(timeout_s),
            "--host-call-deadline", str(deadline_s), "host-function-faults"]


def check_host_fault(board: str, fault: str, expect_exit: int, patterns: list[str], timeout_s: int = 60,
                     deadline_s: int = 3) -> Outcome:
    """tpu run of host-function-faults with HOST_FAULT=`fault`: its exit status and messages."""
    built = build_tpu_tool()
    if not built.ok:
        return Outcome(False, f"make tpu failed: {built.reason}", built.log)
    command = host_fault_command(board, timeout_s, deadline_s)
    result = run_image(command, TPU_TIMEOUT_S, env=runner.make_env() | {"HOST_FAULT": fault})
    log = f"$ HOST_FAULT={fault} {shlex.join(command)}\n{result.output}"
    return judge_exit_and_output(result, log, expect_exit, patterns)


def gone_or_dead(pid: str, grace_s: float = 5.0) -> bool:
    """True once process `pid` has exited (gone, or a zombie waiting for init to reap it)."""
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError, IndexError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


def check_tpu_signalled_in_host_call(board: str, signal_number: int, expect_exit: int | None) -> Outcome:
    """While a host function hangs (deadline 60 s), `signal_number` goes to tpu: it must end (with
    `expect_exit`; None for SIGKILL), and its children (the board, the host-function worker) must end
    too, even when tpu could do nothing (SIGKILL: PR_SET_PDEATHSIG), leaving no RAM file."""
    built = build_tpu_tool()
    if not built.ok:
        return Outcome(False, f"make tpu failed: {built.reason}", built.log)
    command = host_fault_command(board, 100, 60)
    process, lines, reader = start_collecting(command, env=runner.make_env() | {"HOST_FAULT": "hang"})
    log = lambda: f"$ HOST_FAULT=hang {shlex.join(command)}\n" + "".join(lines)  # noqa: E731
    try:
        deadline = time.monotonic() + 120
        while not any("calls misbehave" in line for line in lines) and time.monotonic() < deadline:
            if process.poll() is not None:
                return Outcome(False, "tpu ended before the host function hung", log())
            time.sleep(0.05)
        time.sleep(0.5)  # the call is in the worker now
        children = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True).stdout.split()
        if len(children) < 2:
            return Outcome(False, f"expected the board and the worker as tpu's children, found {children}", log())
        process.send_signal(signal_number)
        try:
            code = process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            return Outcome(False, f"tpu did not end within 20 s of {signal.Signals(signal_number).name}", log())
        reader.join(timeout=5)
        if expect_exit is not None and code != expect_exit:
            return Outcome(False, f"expected exit {expect_exit}, got {code}", log())
        left = [child for child in children if not gone_or_dead(child)]
        if left:
            return Outcome(False, f"tpu's children {left} still run after {signal.Signals(signal_number).name}", log())
        ours = re.search(r"mem-path=(\S+)/board-ram", "".join(lines))
        if ours and Path(ours.group(1)).exists():
            return Outcome(False, f"the RAM file folder was left behind: {ours.group(1)}", log())
        return Outcome(True, "", log())
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def host_fault_cases() -> list[Case]:
    cases = []
    for board in HOST_FAULT_BOARDS:
        images = ((board, "host-function-faults"),)
        for fault, (code, patterns) in HOST_FAULTS.items():
            cases.append(Case(f"tpu-host-fault/{board}/{fault}", partial(check_host_fault, board, fault, code, patterns),
                              images=images, estimate_s=8))
        for number, code in ((signal.SIGTERM, 130), (signal.SIGKILL, None)):
            cases.append(Case(f"tpu-host-fault/{board}/tpu-{signal.Signals(number).name}-in-host-call",
                              partial(check_tpu_signalled_in_host_call, board, number, code), images=images, estimate_s=8))
    cases.append(Case("tpu-host-fault/host/timeout-in-host-call", partial(
        check_host_fault, "host", "hang", 4,
        [r"timed out after 6 s", r"the host function 'misbehave' had run for [\d.]+ s in call 1 to it, from replica 1 on core 1"],
        6, 60), images=(("host", "host-function-faults"),), estimate_s=8))
    return cases


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


# ---------------------------------------------------------------- the cases

def image_case(name: str, board: str, app: str, cores: int, judge: Callable[[RunResult], runner.Verdict],
               extra_args: tuple[str, ...] = (), estimate_s: float = 2.0) -> Case:
    return Case(f"{name}/{board}/{cores}", partial(check_image, board, app, cores, judge, extra_args),
                images=((board, app),), estimate_s=estimate_s)


def core_counts_for(board: str, counts: tuple[int, ...]) -> tuple[int, ...]:
    """The core counts a case list uses on `board`: all of them, or the board's one fixed count."""
    return (FIXED_CORE_BOARDS[board],) if board in FIXED_CORE_BOARDS else tuple(counts)


def run_judge(spec: app_tests.AppSpec, cores: int) -> Callable[[RunResult], runner.Verdict]:
    """How one `make run` of the app is judged, from its app.toml's expect."""
    run = spec.run
    if run.expect == "fault":
        return partial(runner.expect_fault, patterns=run.patterns)
    if run.expect == "boot-failure":
        return partial(runner.expect_boot_failure, missing_cores=run.missing_cores)
    return partial(runner.expect_pass, cores=cores, app=spec.name)


def run_cases(spec: app_tests.AppSpec) -> list[Case]:
    """The [run] section: make run per board and core count, plus -icount, TSan and same-hash runs."""
    run, app, cases = spec.run, spec.make_app, []
    slow = 11.0 if run.expect == "boot-failure" else 2.0  # a boot failure waits out the boot timeout
    for board in run.boards:
        cases += [image_case(spec.name, board, app, cores, run_judge(spec, cores), estimate_s=slow)
                  for cores in dict.fromkeys(core_counts_for(board, run.cores))]
        if run.icount and board in QEMU_BOARDS:
            cases.append(image_case(f"{spec.name}-icount", board, app, run.icount, run_judge(spec, run.icount),
                                    extra_args=("-icount", "shift=0"), estimate_s=5))
    if run.same_hash:
        cases.append(Case(f"{spec.name}-bit-identical/all-boards/4", partial(check_same_hash, app, 4, run.same_hash),
                          images=tuple((board, app) for board in BOARDS), estimate_s=5))
    if run.tsan:
        cases.append(Case(f"tsan/{spec.name}/host/{run.tsan}", partial(check_sanitized, "thread", app, run.tsan, spec.name),
                          images=(("host", app, "thread"),), estimate_s=40))
    return cases


def tpu_run_cases(spec: app_tests.AppSpec) -> list[Case]:
    """The [tpu] section: tpu run on each board and link, every core reporting OK."""
    tpu, cases = spec.tpu, []
    for board in tpu.boards:
        cores = FIXED_CORE_BOARDS.get(board, tpu.cores)
        for link in link_transports(board):
            if f"{board}/{link}" in tpu.skip:
                continue
            patterns = tpu.patterns + [rf"{cores} of {cores} cores reported a result, all OK"]
            cases.append(Case(f"tpu-run/{spec.name}/{board}/{cores}/{link}",
                              partial(check_tpu_run, board, cores, spec.make_app, 0, patterns,
                                      outfeed_check=tpu.outfeed_check, link=link),
                              images=((board, spec.make_app),), estimate_s=15))
    return cases


def app_cases(spec: app_tests.AppSpec) -> list[Case]:
    return (run_cases(spec) if spec.run else []) + (tpu_run_cases(spec) if spec.tpu else [])


FUZZ_RUNS = 30000  # inputs per fuzz target in make test (make fuzz runs them for minutes)


def fuzz_targets() -> list[str]:
    return sorted(path.stem for path in (REPO_ROOT / "tests" / "fuzz").glob("*.cpp"))


def check_fuzz_target(target: str) -> Outcome:
    """Runs one libFuzzer target (tests/fuzz/run_fuzzers.py) for FUZZ_RUNS inputs from its seed corpus;
    a crash, a sanitizer report, a leak or a slow input fails it."""
    command = ["python3", "tests/fuzz/run_fuzzers.py", "--runs", str(FUZZ_RUNS), target]
    ran = run_image(command, IMAGE_TIMEOUT_S * 4)
    ok = ran.exit_code == 0 and not ran.timed_out
    return Outcome(ok, "" if ok else describe_exit(ran), f"$ {shlex.join(command)}\n{ran.output}")


def all_cases(apps: list[app_tests.AppSpec]) -> list[Case]:
    n = INJECTION_CORES
    sources = unit_test_sources()
    if not sources:
        cases = [Case("unit", lambda: Outcome(False, "no unit tests: tests/unit/*.cpp matches no file"))]
    else:
        cases = [Case(f"unit/{Path(source).stem.removeprefix('test_')}", partial(check_unit_tests, source), estimate_s=60)
                 for source in sources if Path(source).stem != "main"]
        cases += [Case(f"asan/unit/{Path(source).stem.removeprefix('test_')}",
                       partial(check_unit_tests, source, UNIT_SANITIZED), estimate_s=120)
                  for source in sources
                  if Path(source).stem.removeprefix("test_").split("_")[0] in SANITIZED_UNIT_FILES]
    cases += [Case(f"fuzz/{target}", partial(check_fuzz_target, target), images=(("fuzzers", "all"),), estimate_s=15)
              for target in fuzz_targets()]
    cases += [Case(f"freestanding/{board}", partial(check_command_succeeds,
                                                    make_command("freestanding-check", BOARD=board),
                                                    COMPILE_TIMEOUT_S), estimate_s=20)
              for board in BOARDS]
    for spec in apps:
        cases += app_cases(spec)
    cases += tpu_cases()
    cases += [
        Case("bad-arguments/board", partial(check_bad_arguments, {"BOARD": "nosuchboard"}, "qemu-virt-a53")),
        Case("bad-arguments/app", partial(check_bad_arguments, {"APP": "nosuchapp"}, "hello")),
        Case("bad-arguments/cores-17", partial(check_bad_arguments, {"BOARD": "qemu-virt-a53", "CORES": 17}, "16")),
        Case("bad-arguments/cores-0", partial(check_bad_arguments, {"BOARD": "qemu-virt-a53", "CORES": 0}, "16")),
        Case(f"debug-smoke/qemu-virt-a53/{n}", partial(check_debug, "qemu-virt-a53", n),
             images=(("qemu-virt-a53", "hello"),), estimate_s=3),
        Case(f"debug-smoke/raspi3b/{n}", partial(check_debug, "raspi3b", n),
             images=(("raspi3b", "hello"),), estimate_s=3),
        Case("chainboot/raspi3b/qemu", partial(check_command_succeeds,
                                                make_command("chainboot", BOARD="raspi3b", APP="hello", SERIAL="qemu"),
                                                COMPILE_TIMEOUT_S), estimate_s=15),
    ]
    return cases


# ---------------------------------------------------------------- running

_print_lock = threading.Lock()
_interrupted = threading.Event()  # after Ctrl-C, cases killed on the way out are not reported


def emit(text: str) -> None:
    with _print_lock:
        print(text, flush=True)


def has_host_half(app: str) -> bool:
    folder = Path(app) if "/" in app else app_tests.app_folder(app)
    return any(folder.glob("host/*.cpp"))


def with_tools(case: Case) -> tuple[Image, ...]:
    """What a case needs built, tools included: every tpu case needs the tpu tool, and the host
    program of each app with a host half it runs (built here once, not by concurrent cases)."""
    if case.name.startswith("asan/tpu"):
        return (("sanitized-tool", "tpu"), *case.images)
    if not case.name.startswith("tpu"):
        return case.images
    programs = [("host-program", image[1]) for image in case.images if has_host_half(image[1])]
    return (("tool", "tpu"), *programs, *case.images)


def build_command(image: Image) -> list[str]:
    kind, app, *sanitizer = image
    if kind == "tool":
        return ["make", "-s", f"-j{BUILD_JOBS}", app]
    if kind == "sanitized-tool":
        return ["make", "-s", f"-j{BUILD_JOBS}", app, f"HOST_SANITIZE={SANITIZERS}"]
    if kind == "fuzzers":
        return ["make", "-s", f"-j{BUILD_JOBS}", "fuzz-targets"]
    if kind == "host-program":
        return ["make", "-s", f"-j{BUILD_JOBS}", "host-program", f"APP={app}"]
    return ["make", "-s", f"-j{BUILD_JOBS}", "image", f"BOARD={kind}", f"APP={app}",
            *(f"SANITIZE={name}" for name in sanitizer)]


def build_images(cases: list[Case]) -> dict[Image, Build]:
    """Builds each image (and tool) the cases need once, tools first, one at a time."""
    for case in cases:
        case.images = with_tools(case)
    needed = list(dict.fromkeys(image for case in cases for image in case.images))
    needed.sort(key=lambda image: image[0] not in ("tool", "sanitized-tool", "host-program", "fuzzers"))  # stable: tools first
    builds = {}
    for image in needed:
        command = build_command(image)
        result = run_image(command, BUILD_TIMEOUT_S)
        ok = result.exit_code == 0 and not result.timed_out
        summary = "; ".join(filter(None, [f"`{shlex.join(command)}`: {describe_exit(result)}",
                                          runner.telling_line(result.output)]))
        builds[image] = Build(ok, summary, result.output)
        emit(f"{'built' if ok else 'BUILD FAILED'}  {' '.join(image)}  ({result.seconds:.1f} s)"
             + ("" if ok else f"  {summary}"))
    return builds


def run_case(case: Case, builds: dict[Image, Build]) -> Outcome:
    for image in case.images:
        build = builds[image]
        if not build.ok:
            tail = "\n".join(build.output.rstrip("\n").split("\n")[-BUILD_LOG_TAIL_LINES:])
            return Outcome(False, f"image {' '.join(image)} did not build: {build.summary}", tail)
    try:
        return case.check()
    except Exception as error:  # a harness bug must fail one case, not the whole run
        return Outcome(False, f"harness error: {error!r}", traceback.format_exc())


def report(case: Case, outcome: Outcome, seconds: float, width: int) -> None:
    if _interrupted.is_set():
        return
    line = f"{'PASS' if outcome.ok else 'FAIL'}  {case.name:<{width}}  ({seconds:.1f} s)"
    if not outcome.ok:
        line += f"  {outcome.reason}\n{format_log(outcome.log)}"
    emit(line)


def timed_run(case: Case, builds: dict[Image, Build], width: int) -> bool:
    start = time.monotonic()
    outcome = run_case(case, builds)
    report(case, outcome, time.monotonic() - start, width)
    return outcome.ok


def run_all(cases: list[Case], jobs: int) -> tuple[int, int]:
    builds = build_images(cases)
    width = max(len(case.name) for case in cases)
    ordered = sorted(cases, key=lambda case: -case.estimate_s)  # stable: table order otherwise
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(timed_run, case, builds, width) for case in ordered]
        try:
            results = [future.result() for future in concurrent.futures.as_completed(futures)]
        except KeyboardInterrupt:
            _interrupted.set()
            pool.shutdown(wait=False, cancel_futures=True)
            runner.kill_all_running()
            raise
    passed = sum(results)
    return passed, len(results) - passed


def select(cases: list[Case], substrings: list[str]) -> list[Case]:
    if not substrings:
        return cases
    return [case for case in cases if any(s in case.name for s in substrings)]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-k", dest="substrings", action="append", default=[], metavar="SUBSTRING",
                        help="run only cases whose name contains SUBSTRING (repeatable: any of them)")
    parser.add_argument("--list", action="store_true", help="list the (selected) case names and exit")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="cases run in parallel (default 2)")
    parser.add_argument("--app", dest="apps", action="append", default=[], metavar="FOLDER",
                        help="run only the tests the app.toml of this app folder declares (repeatable)")
    arguments = parser.parse_args(argv)

    try:
        if arguments.apps:
            specs = [app_tests.load_app(Path(folder)) for folder in arguments.apps]
            cases = [case for spec in specs for case in app_cases(spec)]
        else:
            cases = all_cases(app_tests.repository_apps())
    except (app_tests.AppSpecError, OSError) as error:
        print(f"harness: {error}", file=sys.stderr)
        return 2
    cases = select(cases, arguments.substrings)
    if not arguments.list and any(case.name.startswith("tpu-new/") for case in cases):
        problem = prepare_new_app()
        if problem:
            print(f"harness: {problem}", file=sys.stderr)
    if arguments.list:
        print("\n".join(case.name for case in cases))
        return 0
    if not cases:
        print(f"no test case name contains any of {arguments.substrings} (see --list)", file=sys.stderr)
        return 2
    start = time.monotonic()
    try:
        passed, failed = run_all(cases, max(1, arguments.jobs))
    except KeyboardInterrupt:
        runner.kill_all_running()
        print("\ninterrupted", file=sys.stderr)
        return 130
    print(f"(ran {len(cases)} cases in {time.monotonic() - start:.1f} s)")
    print(f"{passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 else 1


# ---------------------------------------------------------------- hang triage (issue 25)
# What tpu prints about every core when a run times out, read from board memory without the board's
# help (host-tools/lib/triage/core_triage.hpp): collective-hang must name the cores that waited, the
# collective and its number, and the missing core, on both QEMU boards, also with --watch (its live
# block); the host board's UART says plainly that it cannot; `tpu run --help` documents both.
HANG_TRIAGE = (r"^tpu: hang triage: cores 0, 1, 2 (wait|gave up waiting) in all_reduce #1 for core 3"
               r"(, which| and finished with DEADLINE_EXCEEDED; core 3) is running")


def hang_triage_cases() -> list[Case]:
    image = "collective-hang"
    cases = [Case(f"tpu-triage/{image}/{board}/4", partial(
        check_tpu_run, board, 4, image, 4, [HANG_TRIAGE, r"^tpu:   core 3: is running"], extra=("--timeout", "5")),
        images=((board, image),), estimate_s=8) for board in ("qemu-virt-a53", "qemu-virt-rv64")]
    cases.append(Case(f"tpu-triage/{image}/qemu-virt-a53/4/watch", partial(
        check_tpu_run, "qemu-virt-a53", 4, image, 4,
        [r"^tpu: watch: qemu-virt-a53, 4 cores", r"^tpu:   => cores 0, 1, 2 (wait|gave up waiting) in all_reduce #1 "
         r"for core 3", HANG_TRIAGE], extra=("--timeout", "5", "--watch")),
        images=(("qemu-virt-a53", image),), estimate_s=8))
    cases.append(Case(f"tpu-triage/{image}/host/4", partial(
        check_tpu_run, "host", 4, image, 4, [r"^tpu: hang triage: not possible on the uart link"],
        extra=("--timeout", "4")), images=(("host", image),), estimate_s=6))
    cases.append(Case("tpu-triage/run-help", partial(check_tpu_command, ["run", "--help"], 0,
                                                     [r"--watch", r"Hang triage"])))
    return cases


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
