"""A user's host functions that misbehave (tests/faults/host-function-faults, HOST_FAULT picks how):
tpu runs them in a worker process, so a crash or a hang ends the run with a message naming the
function, the call and the core (exit 6), a throw or a wrong shape reaches the replica as a status
(exit 1), and tpu's --timeout, SIGTERM and SIGKILL leave nothing running."""
from __future__ import annotations

import re
import shlex
import signal
import subprocess
import time
from functools import partial
from pathlib import Path

import qemu_runner as runner
from qemu_runner import run_image

from .case import Case, Outcome
from .checks import judge_exit_and_output, ram_file_folder
from .collecting import start_collecting, stop_collecting
from .tpu_tool import TPU_BINARY, TPU_TIMEOUT_S, tpu_not_built

HOST_FAULTS = {
    "crash": (6, [r"host function 'misbehave' crashed with SIGSEGV \(Segmentation fault\) during call 1 to it, "
                  r"from replica 1 on core 1 \(host call \d+\); it faulted in misbehave\(tpu::HostCall const&\) at "
                  r"tests/faults/host-function-faults/host/misbehaving_functions\.cpp:\d+; stopped"]),
    "abort": (6, [r"host function 'misbehave' crashed with SIGABRT \(Aborted\) during call 1 to it, from replica 1 on core 1"]),
    "exit": (6, [r"host function 'misbehave' ended its worker with exit status 3 during call 1 to it, from replica 1 on core 1"]),
    "hang": (6, [r"host function 'misbehave' did not return within its deadline of 3 s in call 1 to it, from replica 1 on core 1 "
                 r"\(host call \d+\); tpu killed it; stopped"]),
    "throw": (1, [r"count still answers after misbehave threw",
                  r"FAIL host-function-faults: INTERNAL: host function 'misbehave' failed: misbehave threw on purpose"]),
    "wrong-shape": (1, [r"FAIL host-function-faults: INVALID_ARGUMENT: host call \d+ 'misbehave': result 0 should be "
                        r"float32\[2\], the host sent float32\[3\]"]),
    "two-results": (1, [r"FAIL host-function-faults: INVALID_ARGUMENT: host call \d+ 'misbehave' returned 2 results, "
                        r"the caller expects 1"]),
    "arena": (1, [r"FAIL host-function-faults: RESOURCE_EXHAUSTED: core 1 out of memory: 4 GiB on purpose needs "
                  r"4294967296 bytes"]),
}
HOST_FAULT_BOARDS = ("host", "qemu-virt-a53")
# Host functions that leave a process running (holding tpu's stdout): the run must end as usual, at
# once (a crash named within a second, not at the call's deadline), and take the process with it.
# The wait is said as it starts (after 2 s), then how it ended.
ENDED_WITH_THE_WORKER = (r"tpu: waiting up to 1 s more for the processes the app's host functions started \(the "
                         r"host-function worker ends after them\)\n(.*\n)*?"
                         r"tpu: the host-function worker had not ended 3 s after the run \(it waits for the processes "
                         r"its functions started\); killed it and them")
LEFT_PROCESSES = {
    "leave-child": (0, [r"misbehave left process \d+ running", r"4 of 4 cores reported a result, all OK",
                        ENDED_WITH_THE_WORKER]),
    "leave-daemon": (0, [r"misbehave left process \d+ running", r"4 of 4 cores reported a result, all OK",
                         ENDED_WITH_THE_WORKER]),
    "leave-daemon-crash": (6, [r"misbehave left process \d+ running",
                               r"host function 'misbehave' crashed with SIGSEGV \(Segmentation fault\) during call 1"]),
}


def host_fault_command(board: str, timeout_s: int, deadline_s: int) -> list[str]:
    return [TPU_BINARY, "run", "--board", board, "--cores", "4", "--timeout", str(timeout_s),
            "--host-call-deadline", str(deadline_s), "host-function-faults"]


def check_host_fault(board: str, fault: str, expect_exit: int, patterns: list[str], timeout_s: int = 60,
                     deadline_s: int = 3) -> Outcome:
    """tpu run of host-function-faults with HOST_FAULT=`fault`: its exit status and messages."""
    missing = tpu_not_built()
    if missing:
        return missing
    command = host_fault_command(board, timeout_s, deadline_s)
    result = run_image(command, TPU_TIMEOUT_S, env=runner.make_env() | {"HOST_FAULT": fault})
    log = f"$ HOST_FAULT={fault} {shlex.join(command)}\n{result.output}"
    return judge_exit_and_output(result, log, expect_exit, patterns)


def check_process_left_running(board: str, fault: str, expect_exit: int, patterns: list[str]) -> Outcome:
    """host-function-faults with HOST_FAULT=`fault` (a host function leaves a process running, which
    holds tpu's stdout): tpu's judged run must end (the worker waits for it up to the call deadline of
    3 s, then it goes; a crash is seen at once), and the process the function started must be gone."""
    judged = check_host_fault(board, fault, expect_exit, patterns, deadline_s=3)
    if not judged.ok:
        return judged
    pids = re.findall(r"misbehave left process (\d+) running", judged.log)
    left = [pid for pid in pids if not gone_or_dead(pid, 2.0)]
    if left:
        for pid in left:  # not ours to leave either
            subprocess.run(["kill", "-9", pid], check=False)
        return Outcome(False, f"the process(es) {', '.join(left)} the host function started outlived tpu", judged.log)
    return judged


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
    missing = tpu_not_built()
    if missing:
        return missing
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
        folder = ram_file_folder("".join(lines))
        if folder is not None and folder.exists():
            return Outcome(False, f"the RAM file folder was left behind: {folder}", log())
        return Outcome(True, "", log())
    finally:
        stop_collecting(process)


def host_fault_cases() -> list[Case]:
    cases = []
    for board in HOST_FAULT_BOARDS:
        images = ((board, "host-function-faults"),)
        for fault, (code, patterns) in HOST_FAULTS.items():
            cases.append(Case(f"tpu-host-fault/{board}/{fault}", partial(check_host_fault, board, fault, code, patterns),
                              images=images, estimate_s=8))
        for number, code in ((signal.SIGTERM, 143), (signal.SIGKILL, None)):
            cases.append(Case(f"tpu-host-fault/{board}/tpu-{signal.Signals(number).name}-in-host-call",
                              partial(check_tpu_signalled_in_host_call, board, number, code), images=images, estimate_s=8))
    for fault, (code, patterns) in LEFT_PROCESSES.items():
        cases.append(Case(f"tpu-host-fault/host/{fault}", partial(check_process_left_running, "host", fault, code, patterns),
                          images=(("host", "host-function-faults"),), estimate_s=4))
    cases.append(Case("tpu-host-fault/host/timeout-in-host-call", partial(
        check_host_fault, "host", "hang", 4,
        [r"timed out after 6 s", r"the host function 'misbehave' had run for [\d.]+ s in call 1 to it, from replica 1 on core 1"],
        6, 60), images=(("host", "host-function-faults"),), estimate_s=8))
    return cases
