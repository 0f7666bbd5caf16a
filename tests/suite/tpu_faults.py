"""The fault matrix: each fault at a random point of each workload (fault_workload) must end with a
clear error naming what happened, its exit status, and nothing left behind (check_tpu_fault).
  qemu-killed      SIGKILL to QEMU: "was killed by signal 9 (Killed)", exit 5
  qemu-terminated  SIGTERM to QEMU (it exits 0 by itself): the run still fails naming the cores
                   that never reported (tpu exec: the outputs that never came), exit 1
  qemu-stopped     SIGSTOP to QEMU, a board gone silent: tpu's --timeout names it and kills it, exit 4
  interrupted      SIGINT (Ctrl-C) to tpu: exit 130 after stopping the board
Also a core that never joins a collective (collective-hang)."""
from __future__ import annotations

import os
import random
import re
import shlex
import signal
import struct
import subprocess
import time
from functools import partial
from pathlib import Path

from qemu_runner import REPO_ROOT

from .case import Case, Outcome
from .checks import ram_file_folder
from .collecting import start_collecting, stop_collecting
from .npy_bytes import npy_bytes
from .tpu_tool import TPU_BINARY, check_tpu_run, tpu_not_built

FAULT_WORK = REPO_ROOT / "build" / "fault-matrix"

FAULTS = {
    "qemu-killed": ("qemu", signal.SIGKILL, 5, r"was killed by signal 9 \(Killed\)", 120),
    # QEMU handles SIGTERM and exits 0 (tpu: 1, naming what was missing); one struck before QEMU
    # installed its handler (early in its start, on a loaded machine) kills it (tpu: 5, naming the signal).
    "qemu-terminated": ("qemu", signal.SIGTERM, (1, 5),
                        r"exited with status 0 before (cores? [\d, ]+ reported a result|sending every output)"
                        r"|was killed by signal 15 \(Terminated\) before (cores? [\d, ]+ reported a result|sending every output)",
                        120),
    "qemu-stopped": ("qemu", signal.SIGSTOP, 4, r"timed out after 8 s", 8),
    "interrupted": ("tpu", signal.SIGINT, 130, r"interrupted \(SIGINT\); stopped", 120),
}
# When the fault strikes: a random time in [earliest, latest] s after the workload printed the line.
# tpu exec prints nothing between starting QEMU and the result, so its window starts at QEMU's start
# (its boot takes ~0.5 s, the matmul ~6 s).
FAULT_POINTS = {"shell": (r"tpu: link up", 0.0, 0.0), "infeed": (r"tpu: link up", 0.0, 2.0),
                "exec": (r"tpu: \$ qemu-system", 0.0, 3.0)}
FAULT_IMAGES = {"shell": "shell", "infeed": "infeed-bulk", "exec": "exec"}


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


def check_tpu_fault(workload: str, board: str, victim: str, signal_number: int, expect_exit: int | tuple[int, ...], pattern: str,
                    timeout_s: int = 120) -> Outcome:
    """Starts a workload (fault_workload) under tpu, waits for its start line (FAULT_POINTS) and then a
    random time in the workload's window (the delay is in the log), then sends `signal_number` to QEMU (victim "qemu")
    or to tpu itself (victim "tpu"). tpu must exit with `expect_exit` and print `pattern` within its
    grace period (plus `timeout_s` when that is tpu's --timeout, for a board that stops answering),
    leaving no QEMU, no RAM file and no result file."""
    missing = tpu_not_built()
    if missing:
        return missing
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
        folder = ram_file_folder("".join(lines))  # this run's folder (others may run now)
        if folder is None and "--link uart" not in shlex.join(command):
            return Outcome(False, "tpu did not start QEMU with a shared RAM file", log())
        if code not in (expect_exit if isinstance(expect_exit, tuple) else (expect_exit,)):
            return Outcome(False, f"expected exit {expect_exit}, got {code}", log())
        if not re.search(pattern, "".join(lines)):
            return Outcome(False, f"output lacks {pattern!r}", log())
        if left:
            return Outcome(False, f"QEMU (pid {', '.join(left)}) still runs", log())
        if folder is not None and folder.exists():
            return Outcome(False, f"the RAM file folder was left behind: {folder}", log())
        if result_file and result_file.exists():
            return Outcome(False, f"a failed run left a result file: {result_file}", log())
        return Outcome(True, "", log())
    finally:
        stop_collecting(process)


def fault_matrix_cases() -> list[Case]:
    cases = []
    for workload in FAULT_POINTS:
        for fault, (victim, number, code, pattern, timeout_s) in FAULTS.items():
            cases.append(Case(f"tpu-fault/{workload}/{fault}", partial(
                check_tpu_fault, workload, "qemu-virt-a53", victim, number, code, pattern, timeout_s),
                images=(("qemu-virt-a53", FAULT_IMAGES[workload]),), estimate_s=12 if fault == "qemu-stopped" else 6))
    # A core that never joins a collective: the others' all-reduce ends with DEADLINE_EXCEEDED naming
    # it (not a hang), and tpu's timeout names it as the core that never reported.
    cases.append(Case("tpu-fault/collective-hang/qemu-virt-a53/4", partial(
        check_tpu_run, "qemu-virt-a53", 4, "collective-hang", 4,
        [r"FAIL collective-hang: DEADLINE_EXCEEDED: core 0 timed out after 1000 ms in all_reduce #1: "
         r"receiving \d+ bytes from core 3", r"timed out after 8 s: .*core 3 had not reported a result"],
        extra=("--timeout", "8")), images=(("qemu-virt-a53", "collective-hang"),), estimate_s=12))
    return cases
