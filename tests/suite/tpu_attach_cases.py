"""`tpu run --socket` / `--serial`: tpu attached to a board it did not start, as to a real Raspberry Pi on
its header UART. QEMU is started here, the way a user would start a board by hand: raspi3b with its
mini UART (the one on a Pi's header pins) on a Unix socket or a pty, qemu-virt-rv64 with its one UART
on a Unix socket. Two orders are tried: the board boots only once tpu is there (QEMU waits for the
socket's client, like a Pi reset after tpu started) and the board booted well before tpu attached
(a pty, like a Pi powered before tpu). Either way the app's host functions must run on tpu's side,
every core's result must come back, and QEMU must end by itself when the run ends."""
from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import tempfile
import time
from functools import partial
from pathlib import Path

import qemu_runner as runner
from qemu_runner import REPO_ROOT, make_command, run_image

from .case import Case, Outcome
from .checks import judge_exit_and_output
from .tpu_tool import TPU_BINARY, TPU_TIMEOUT_S, tpu_not_built

APP = "outside-compilation"
PTY_LINE = re.compile(r"char device redirected to (/dev/pts/\d+)")
BOOTED_BEFORE_ATTACH_S = 2.0  # the pty case: how long the board runs before tpu attaches
QEMU_END_S = 20.0


def qemu_command(board: str, cores: int, link: str) -> list[str] | str:
    """The board's QEMU command line (make print-run-command) with its link UART on `link` (a QEMU
    -serial backend); an error text if make refused."""
    extra = {"RASPI3B_LINK_SERIAL": link} if board == "raspi3b" else {}
    result = run_image(make_command("print-run-command", BOARD=board, CORES=cores, APP=APP, **extra), 60)
    lines = [line for line in result.output.splitlines() if line.strip()]
    if result.exit_code != 0 or not lines:
        return f"make print-run-command failed: {runner.describe_exit(result)}"
    command = shlex.split(lines[-1])
    if board != "raspi3b":  # one UART for console and link: the first -serial
        command[command.index("-serial") + 1] = link
    return command


def start_qemu(command: list[str], log: Path) -> subprocess.Popen:
    with log.open("wb") as output:
        process = subprocess.Popen(command, cwd=REPO_ROOT, stdin=subprocess.DEVNULL, stdout=output,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    runner.track(process)
    return process


def wait_for_pty(log: Path, process: subprocess.Popen, timeout_s: float = 10.0) -> str | None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and process.poll() is None:
        found = PTY_LINE.search(log.read_text(errors="replace"))
        if found:
            return found.group(1)
        time.sleep(0.05)
    return None


def stop_qemu(process: subprocess.Popen) -> bool:
    """True if QEMU had ended (or ends within QEMU_END_S) by itself; killed otherwise."""
    try:
        process.wait(timeout=QEMU_END_S)
        ended = True
    except subprocess.TimeoutExpired:
        ended = False
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()
    runner.forget(process)
    return ended


def check_attach(board: str, cores: int, backend: str) -> Outcome:
    """QEMU with its link on `backend` ("socket": QEMU waits for tpu; "pty": the board boots first),
    then `tpu run --socket/--serial` on it."""
    missing = tpu_not_built()
    if missing:
        return missing
    with tempfile.TemporaryDirectory(prefix="tpu-attach-") as folder:
        socket_path, qemu_log = Path(folder) / "link.sock", Path(folder) / "qemu.txt"
        link = f"unix:{socket_path},server=on,wait=on" if backend == "socket" else "pty"
        command = qemu_command(board, cores, link)
        if isinstance(command, str):
            return Outcome(False, command, "")
        qemu = start_qemu(command, qemu_log)
        try:
            if backend == "socket":
                attach = ["--socket", str(socket_path)]
            else:
                pty = wait_for_pty(qemu_log, qemu)
                if pty is None:
                    return Outcome(False, "QEMU named no pty", qemu_log.read_text(errors="replace"))
                time.sleep(BOOTED_BEFORE_ATTACH_S)
                attach = ["--serial", pty]
            tpu = [TPU_BINARY, "run", "--board", board, *attach, APP]
            result = run_image(tpu, TPU_TIMEOUT_S)
        finally:
            ended = stop_qemu(qemu)
        log = f"$ {shlex.join(command)}\n$ {shlex.join(tpu)}\n{result.output}\n--- QEMU:\n{qemu_log.read_text(errors='replace')}"
    judged = judge_exit_and_output(result, log, 0, [
        rf"tpu: link up: board {board}, app {APP}, {cores} cores",
        r"replicas called the app's host functions",
        rf"tpu: {cores} of {cores} cores reported a result, all OK"])
    if judged.ok and not ended:
        return Outcome(False, f"QEMU was still running {QEMU_END_S:.0f} s after the run ended", log)
    return judged


def attach_cases() -> list[Case]:
    runs = [("raspi3b", 4, "socket"), ("raspi3b", 4, "pty"), ("qemu-virt-rv64", 4, "socket")]
    return [Case(f"tpu-attach/{board}/{cores}/{backend}", partial(check_attach, board, cores, backend),
                 images=((board, APP),), estimate_s=8)
            for board, cores, backend in runs]
