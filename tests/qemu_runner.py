#!/usr/bin/env python3
"""Run one firmware image (a QEMU command line or the host board's binary) and judge its console.

The process gets its own session (so the whole process group can be killed), stdin from /dev/null
and stderr merged into stdout; a wall-clock timeout kills the group, so a run never hangs. Output
is decoded with errors="replace", because a misbehaving device can print anything.

Judges take a RunResult and return a Verdict (ok + one-line reason):
  expect_pass(result, cores, app)           exit 0 and "[c<k> I] PASS <app>" from every core k
  expect_fault(result, patterns, exit_code=3)  that exit status and every regex matches
  expect_boot_failure(result, missing_cores)   exit 4 and a BOOT FAIL line naming exactly those cores

Exit statuses of an image: 0 pass, 1 fail, 3 fault, 4 timeout or boot failure, 77 skip.

As a command line tool:
  python3 tests/qemu_runner.py --board qemu-virt-a53 --app hello --cores 4 --expect pass
  python3 tests/qemu_runner.py --expect fault --pattern 'FAULT on core 3' -- qemu-system-aarch64 ...
It prints the console log (always with -v, otherwise only when the judge fails) and exits 0 when
the judge accepts the run, 1 otherwise.
"""
from __future__ import annotations

import argparse
import os
import re
import selectors
import shlex
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

EXIT_PASS, EXIT_FAIL, EXIT_FAULT, EXIT_TIMEOUT, EXIT_SKIP = 0, 1, 3, 4, 77
EXIT_NAMES = {EXIT_PASS: "pass", EXIT_FAIL: "fail", EXIT_FAULT: "fault",
              EXIT_TIMEOUT: "timeout/boot failure", EXIT_SKIP: "skip"}

LOG_TAIL_LINES = 200
MAX_OUTPUT_BYTES = 8 * 1024 * 1024  # a runaway device keeps only its last 8 MiB
KILL_GRACE_S = 5.0

# Lines worth quoting in a failure reason, most telling first.
_TELLING_LINES = [re.compile(p, re.MULTILINE) for p in (
    r"^.*\*\*\* (?:FAULT|PANIC) .*$",
    r"^.*BOOT FAIL.*$",
    r"^\[c\d+ E\] FAIL .*$",  # a core's verdict before other error lines (a replica's expected errors)
    r"^\[c\d+ E\] .*$",
    r"^.*\berror\b.*$",
    r"^.*: \*\*\* .*$",  # make: "Makefile:21: *** unknown BOARD ..."
)]


@dataclass
class RunResult:
    exit_code: int      # the process's status; negative: killed by that signal (also after a timeout)
    output: str         # stdout and stderr interleaved, "\r\n" normalised to "\n"
    timed_out: bool
    seconds: float


@dataclass
class Verdict:
    ok: bool
    reason: str = ""


# ---------------------------------------------------------------- running

_running: set[subprocess.Popen] = set()
_running_lock = threading.Lock()


def make_env() -> dict[str, str]:
    """The environment for children: without the variables a parent `make test` exports, so its
    flags, jobserver and command-line variables do not leak into the make commands we run."""
    env = dict(os.environ)
    for name in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "MAKE_TERMOUT", "MAKE_TERMERR"):
        env.pop(name, None)
    return env


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def end_process(process: subprocess.Popen) -> None:
    """Kills a process started in a session of its own (its whole group), reaps it and forgets it."""
    _kill_group(process)
    process.wait()
    forget(process)


def kill_all_running() -> None:
    """Kills every process group started by run_image (or tracked) that is still running (for Ctrl-C)."""
    with _running_lock:
        for process in list(_running):
            _kill_group(process)


def track(process: subprocess.Popen) -> None:
    """Adds a process started elsewhere (in a session of its own) to those kill_all_running() kills."""
    with _running_lock:
        _running.add(process)


def forget(process: subprocess.Popen) -> None:
    with _running_lock:
        _running.discard(process)


class _Output:
    """Collected output bytes; beyond MAX_OUTPUT_BYTES only the newest are kept."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.size = 0
        self.dropped = 0

    def add(self, data: bytes) -> None:
        self.chunks.append(data)
        self.size += len(data)
        while self.size > MAX_OUTPUT_BYTES and len(self.chunks) > 1:
            oldest = self.chunks.pop(0)
            self.size -= len(oldest)
            self.dropped += len(oldest)

    def text(self) -> str:
        text = b"".join(self.chunks).decode("utf-8", errors="replace")
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        if self.dropped:
            text = f"[... {self.dropped} bytes of earlier output dropped ...]\n" + text
        return text


def _read_until(process: subprocess.Popen, deadline: float, output: _Output) -> bool:
    """Reads the process's output until EOF (True) or the deadline (False)."""
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            if not selector.select(min(remaining, 1.0)):
                continue
            data = os.read(process.stdout.fileno(), 65536)
            if not data:
                return True
            output.add(data)


def run_image(command: list[str], timeout_s: float, cwd: Path | str = REPO_ROOT,
              env: dict[str, str] | None = None) -> RunResult:
    """Runs `command` with a wall-clock timeout; never raises for a command that cannot start."""
    start = time.monotonic()
    try:
        process = subprocess.Popen(command, cwd=cwd, env=env if env is not None else make_env(),
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    except OSError as error:
        return RunResult(127, f"cannot start {shlex.join(command)}: {error}\n", False, time.monotonic() - start)
    with _running_lock:
        _running.add(process)
    output = _Output()
    try:
        finished = _read_until(process, start + timeout_s, output)
        if finished:
            try:
                process.wait(timeout=max(0.0, start + timeout_s - time.monotonic()))
            except subprocess.TimeoutExpired:  # closed its output but kept running
                finished = False
        _kill_group(process)  # on a timeout, and any leftover (e.g. a backgrounded QEMU) otherwise
        if not finished:
            _read_until(process, time.monotonic() + 1.0, output)  # what it printed before dying
        try:
            exit_code = process.wait(timeout=KILL_GRACE_S)
        except subprocess.TimeoutExpired:
            exit_code = -signal.SIGKILL
    finally:
        process.stdout.close()
        with _running_lock:
            _running.discard(process)
    return RunResult(exit_code, output.text(), not finished, time.monotonic() - start)


# ---------------------------------------------------------------- describing a run

def describe_exit(result: RunResult) -> str:
    """'exit 3 (fault)', 'killed by SIGSEGV', 'timed out after 120 s'."""
    if result.timed_out:
        return f"timed out after {result.seconds:.0f} s"
    if result.exit_code < 0:
        try:
            return f"killed by {signal.Signals(-result.exit_code).name}"
        except ValueError:
            return f"killed by signal {-result.exit_code}"
    name = EXIT_NAMES.get(result.exit_code)
    return f"exit {result.exit_code}" + (f" ({name})" if name else "")


def telling_line(output: str) -> str:
    """The console line that best explains a failure (a fault, a boot failure, an error), or ''."""
    for pattern in _TELLING_LINES:
        match = pattern.search(output)
        if match:
            return match.group(0).strip()
    return ""


def _with_context(reason: str, result: RunResult) -> str:
    line = telling_line(result.output)
    return f"{reason}; {line}" if line else reason


def format_log(output: str, max_lines: int = LOG_TAIL_LINES, indent: str = "    ") -> str:
    """The output (or its last max_lines lines) indented, with control characters made visible."""
    lines = output.rstrip("\n").split("\n") if output.strip() else ["(no output)"]
    header = []
    if len(lines) > max_lines:
        header = [f"[... {len(lines) - max_lines} earlier lines omitted; last {max_lines} lines follow ...]"]
        lines = lines[-max_lines:]
    cleaned = [re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", lambda m: f"\\x{ord(m.group(0)):02x}", line)
               for line in header + lines]
    return "\n".join(indent + line for line in cleaned)


# ---------------------------------------------------------------- judges

def _pass_line(app: str) -> re.Pattern:
    return re.compile(rf"^\[c(\d+) I\] PASS {re.escape(app)}\s*$", re.MULTILINE)


def expect_pass(result: RunResult, cores: int, app: str = "hello") -> Verdict:
    """Exit 0 and a PASS line from every core 0..cores-1; the reason names the silent cores."""
    passed = {int(core) for core in _pass_line(app).findall(result.output)}
    missing = [core for core in range(cores) if core not in passed]
    problems = []
    if result.timed_out or result.exit_code != EXIT_PASS:
        problems.append(describe_exit(result))
    if missing:
        problems.append(f"no PASS line from core{'s' if len(missing) > 1 else ''} "
                        + ", ".join(map(str, missing)))
    if not problems:
        return Verdict(True)
    return Verdict(False, _with_context("; ".join(problems), result))


def expect_fault(result: RunResult, patterns: list[str], exit_code: int = EXIT_FAULT) -> Verdict:
    """That exit status and every regex (multiline) found in the output."""
    problems = []
    if result.timed_out or result.exit_code != exit_code:
        problems.append(f"expected exit {exit_code}, got {describe_exit(result)}")
    unmatched = [p for p in patterns if not re.search(p, result.output, re.MULTILINE)]
    if unmatched:
        problems.append("no match for " + ", ".join(f"/{p}/" for p in unmatched))
    if not problems:
        return Verdict(True)
    return Verdict(False, _with_context("; ".join(problems), result))


def expect_boot_failure(result: RunResult, missing_cores: list[int] | int) -> Verdict:
    """Exit 4 and 'BOOT FAIL: cores that never started within <n> ms: <cores>' naming exactly them."""
    if isinstance(missing_cores, int):
        missing_cores = [missing_cores]
    named = " ".join(str(core) for core in sorted(missing_cores))
    pattern = rf"BOOT FAIL: cores that never started within \d+ ms: {named}$"
    return expect_fault(result, [pattern], exit_code=EXIT_TIMEOUT)


# ---------------------------------------------------------------- images via make

def make_command(target: str, **variables: object) -> list[str]:
    return ["make", "-s", target] + [f"{name}={value}" for name, value in variables.items()]


def build_image(board: str, app: str, timeout_s: float = 900) -> RunResult:
    return run_image(make_command("image", BOARD=board, APP=app), timeout_s)


def image_command(board: str, app: str, cores: int, timeout_s: float = 60) -> tuple[list[str] | None, RunResult]:
    """The run command `make run` would execute, or None (and make's result) if make refuses."""
    result = run_image(make_command("print-run-command", BOARD=board, CORES=cores, APP=app), timeout_s)
    lines = [line for line in result.output.splitlines() if line.strip()]
    if result.timed_out or result.exit_code != 0 or not lines:
        return None, result
    return shlex.split(lines[-1]), result


# ---------------------------------------------------------------- command line

def _parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--board", default="qemu-virt-a53")
    parser.add_argument("--app", default="hello")
    parser.add_argument("--cores", type=int, default=4)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds (default 120)")
    parser.add_argument("--expect", choices=("pass", "fault", "boot-failure", "nothing"), default="pass")
    parser.add_argument("--pattern", action="append", default=[], help="regex for --expect fault (repeatable)")
    parser.add_argument("--exit-code", type=int, default=EXIT_FAULT, help="for --expect fault (default 3)")
    parser.add_argument("--missing-core", type=int, action="append", default=[],
                        help="for --expect boot-failure (repeatable)")
    parser.add_argument("--no-build", action="store_true", help="do not run `make image` first")
    parser.add_argument("-v", "--verbose", action="store_true", help="print the console log even on success")
    parser.add_argument("command", nargs="*", help="the command to run (default: from make print-run-command)")
    return parser.parse_args(argv)


def _judge(arguments: argparse.Namespace, result: RunResult) -> Verdict:
    if arguments.expect == "pass":
        return expect_pass(result, arguments.cores, arguments.app)
    if arguments.expect == "fault":
        return expect_fault(result, arguments.pattern, arguments.exit_code)
    if arguments.expect == "boot-failure":
        return expect_boot_failure(result, arguments.missing_core)
    return Verdict(not result.timed_out, describe_exit(result))


def main(argv: list[str]) -> int:
    arguments = _parse_arguments(argv)
    command = arguments.command
    if not command:
        if not arguments.no_build:
            built = build_image(arguments.board, arguments.app)
            if built.exit_code != 0 or built.timed_out:
                print(f"FAIL  image build: {describe_exit(built)}\n{format_log(built.output)}")
                return 1
        command, made = image_command(arguments.board, arguments.app, arguments.cores)
        if command is None:
            print(f"FAIL  make print-run-command: {describe_exit(made)}\n{format_log(made.output)}")
            return 1
    print("$ " + shlex.join(command), flush=True)
    result = run_image(command, arguments.timeout)
    verdict = _judge(arguments, result)
    if arguments.verbose or not verdict.ok:
        print(format_log(result.output))
    status = "PASS" if verdict.ok else "FAIL"
    print(f"{status}  {describe_exit(result)}  ({result.seconds:.1f} s)" + (f"  {verdict.reason}" if not verdict.ok else ""))
    return 0 if verdict.ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        kill_all_running()
        sys.exit(130)
