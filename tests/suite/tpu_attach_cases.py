"""`tpu run --socket` / `--serial`: tpu attached to a board it did not start, as to a real Raspberry Pi on
its header UART. QEMU is started here, the way a user would start a board by hand: raspi3b with its
mini UART (the one on a Pi's header pins) on a Unix socket or a pty, qemu-virt-rv64 with its one UART
on a Unix socket. Two orders are tried: the board boots only once tpu is there (QEMU waits for the
socket's client, like a Pi reset after tpu started) and the board booted well before tpu attached
(a pty, like a Pi powered before tpu). Either way the app's host functions must run on tpu's side,
every core's result must come back, and QEMU must end by itself when the run ends. A pod of two
raspi3b boards attached to the same way (each rank's socket named by {rank}) must run the pod app as
a pod tpu launches does; one whose board had booted alone must end with that said. With
--chainboot the boards boot the UART chainloader (what a Pi's SD card holds) and tpu sends each the
image it built; a board that is not in its loader is named after --timeout."""
from __future__ import annotations

import re
import shlex
import subprocess
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Callable

import qemu_runner as runner
from qemu_runner import REPO_ROOT, RunResult, make_command, run_image

from .case import Case, Outcome
from .checks import judge_exit_and_output
from .pod_cases import judge_pod_knowledge, one_board_hash
from .tpu_tool import TPU_BINARY, TPU_TIMEOUT_S, tpu_not_built

APP = "outside-compilation"
PTY_LINE = re.compile(r"char device redirected to (/dev/pts/\d+)")
BOOTED_BEFORE_ATTACH_S = 2.0  # the pty case: how long the board runs before tpu attaches
QEMU_END_S = 20.0


def qemu_command(board: str, cores: int, link: str, app: str = APP) -> list[str] | str:
    """The board's QEMU command line (make print-run-command) with its link UART on `link` (a QEMU
    -serial backend); an error text if make refused."""
    extra = {"RASPI3B_LINK_SERIAL": link} if board == "raspi3b" else {}
    result = run_image(make_command("print-run-command", BOARD=board, CORES=cores, APP=app, **extra), 60)
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


def stop_qemu(process: subprocess.Popen, grace_s: float = QEMU_END_S) -> bool:
    """True if QEMU had ended (or ends within `grace_s`) by itself; killed otherwise."""
    try:
        process.wait(timeout=grace_s)
        ended = True
    except subprocess.TimeoutExpired:
        ended = False
    runner.end_process(process)
    return ended


def run_beside_qemu(command: list[str], folder: Path, tpu_arguments: Callable[[subprocess.Popen, Path], list[str] | None],
                    grace_s: float = QEMU_END_S) -> tuple[RunResult | None, str, bool]:
    """Starts QEMU with `command` (its output in <folder>/qemu.txt), then `tpu` with the arguments
    tpu_arguments(qemu, its output file) gives (None: the board cannot be reached; QEMU's output says
    why), and stops QEMU, given `grace_s` to end by itself: the run's result (None if tpu did not
    run), the log, and whether QEMU ended by itself."""
    qemu_log, result, tpu = folder / "qemu.txt", None, []
    qemu = start_qemu(command, qemu_log)
    try:
        arguments = tpu_arguments(qemu, qemu_log)
        if arguments is not None:
            tpu = [TPU_BINARY, "run", *arguments]
            result = run_image(tpu, TPU_TIMEOUT_S)
    finally:
        ended = stop_qemu(qemu, grace_s if result is not None else 0)
    output = result.output if result else "(tpu did not run)"
    log = f"$ {shlex.join(command)}\n$ {shlex.join(tpu)}\n{output}\n--- QEMU:\n{qemu_log.read_text(errors='replace')}"
    return result, log, ended


def check_attach(board: str, cores: int, backend: str) -> Outcome:
    """QEMU with its link on `backend` ("socket": QEMU waits for tpu; "pty": the board boots first),
    then `tpu run --socket/--serial` on it."""
    missing = tpu_not_built()
    if missing:
        return missing
    with tempfile.TemporaryDirectory(prefix="tpu-attach-") as folder:
        socket_path = Path(folder) / "link.sock"
        command = qemu_command(board, cores, f"unix:{socket_path},server=on,wait=on" if backend == "socket" else "pty")
        if isinstance(command, str):
            return Outcome(False, command, "")

        def attach(qemu: subprocess.Popen, qemu_log: Path) -> list[str] | None:
            if backend == "socket":
                return ["--board", board, "--socket", str(socket_path), APP]
            pty = wait_for_pty(qemu_log, qemu)
            if pty is not None:
                time.sleep(BOOTED_BEFORE_ATTACH_S)
            return None if pty is None else ["--board", board, "--serial", pty, APP]

        result, log, ended = run_beside_qemu(command, Path(folder), attach)
    if result is None:
        return Outcome(False, "QEMU named no pty", log)
    judged = judge_exit_and_output(result, log, 0, [
        rf"tpu: link up: board {board}, app {APP}, {cores} cores",
        r"replicas called the app's host functions",
        rf"tpu: {cores} of {cores} cores reported a result, all OK"])
    if judged.ok and not ended:
        return Outcome(False, f"QEMU was still running {QEMU_END_S:.0f} s after the run ended", log)
    return judged


def run_attached_pod(app: str, waits: list[bool], folder: Path, boards_end: bool = True,
                     loader: Path | None = None) -> tuple[RunResult | None, str, bool]:
    """Raspi3b boards of 4 cores running `app`, board r's mini UART on <folder>/link-r.sock (QEMU
    waiting for tpu before it boots the board where waits[r], else booted at once and given 2 s),
    and `tpu run --boards K --socket <folder>/link-{rank}.sock` on them: the run's result (None if a
    board could not be started), the log, and whether every QEMU ended by itself (given QEMU_END_S if
    `boards_end`, else killed at once). With `loader` the boards boot it and tpu sends them the app
    (--chainboot)."""
    boards, started, log, result = len(waits), [], "", None
    try:
        for board, wait in enumerate(waits):
            link = f"unix:{folder / f'link-{board}.sock'},server=on,wait={'on' if wait else 'off'}"
            command = qemu_command("raspi3b", 4, link, app)
            if isinstance(command, str):
                return None, command, False
            if loader:
                boot_loader(command, loader)
            log += f"$ {shlex.join(command)}\n"
            started.append((board, start_qemu(command, folder / f"qemu-{board}.txt")))
        if not all(waits):
            time.sleep(BOOTED_BEFORE_ATTACH_S)
        tpu = [TPU_BINARY, "run", "--boards", str(boards), "--board", "raspi3b", "--socket",
               str(folder / "link-{rank}.sock"), *(["--chainboot"] if loader else []), "--timeout", "90", app]
        result = run_image(tpu, TPU_TIMEOUT_S)
        log += f"$ {shlex.join(tpu)}\n{result.output}"
    finally:
        grace = QEMU_END_S if boards_end and result is not None else 0  # boards tpu never ran wait forever
        ended = all([stop_qemu(process, grace) for _, process in started])
        for board, _ in started:
            log += f"\n--- QEMU {board}:\n" + (folder / f"qemu-{board}.txt").read_text(errors="replace")
    return result, log, ended


def check_attached_pod() -> Outcome:
    """Two raspi3b boards started by hand, each waiting for its tpu; `tpu run --boards 2 --socket
    .../link-{rank}.sock pod`: each board learns its task from its tpu's hello as it boots, and the pod
    app's lines (its topology, hosts, devices and the collectives across boards, the bits of one
    qemu-virt-a53 board of 8 cores) are what they are on a pod tpu launches."""
    missing = tpu_not_built()
    if missing:
        return missing
    across_hash, one_board_log = one_board_hash("qemu-virt-a53", 8)
    if across_hash is None:
        return Outcome(False, "one board of 8 cores did not print its hash", one_board_log)
    with tempfile.TemporaryDirectory(prefix="tpu-attach-") as folder:
        result, log, ended = run_attached_pod("pod", [True, True], Path(folder))
    if result is None:
        return Outcome(False, log, "")
    judged = judge_pod_knowledge("raspi3b", 2, 4, across_hash, result, log)
    if judged.ok and not ended:
        return Outcome(False, f"a QEMU was still running {QEMU_END_S:.0f} s after the pod ended", log)
    return judged


def check_chainbooted_pod() -> Outcome:
    """Two raspi3b boards in their chainloaders and `tpu run --boards 2 --socket .../link-{rank}.sock
    --chainboot hello`: each rank sends its board the image and each board boots as its task of the
    pod. (hello, whose 95 KB cross QEMU's UART in seconds: the pod app's lines are checked on boards
    attached to above; the pod app's 299 KB took 80 s here beside the rest of make test.)"""
    loader = loader_image()
    if isinstance(loader, Outcome):
        return loader
    with tempfile.TemporaryDirectory(prefix="tpu-attach-") as folder:
        result, log, ended = run_attached_pod("hello", [True, True], Path(folder), loader=loader)
    if result is None:
        return Outcome(False, log, "")
    patterns = [rf"^\[task {task}\] {line}" for task in (0, 1) for line in (
        r"tpu: chainloader: \d+ bytes sent in [\d.]+ s; the board starts the image",
        rf"\[c0 I\] pod: this board is task {task} of 2",
        r"tpu: 4 of 4 cores reported a result, all OK")]
    missing_line = next((pattern for pattern in patterns if not re.search(pattern, result.output, re.M)), None)
    if result.timed_out or result.exit_code != 0:
        return Outcome(False, f"the pod exited {runner.describe_exit(result)}", log)
    if missing_line:
        return Outcome(False, f"output lacks {missing_line!r}", log)
    if not ended:
        return Outcome(False, f"a QEMU was still running {QEMU_END_S:.0f} s after the pod ended", log)
    return Outcome(True, "", log)


def check_attached_pod_booted_first() -> Outcome:
    """Board 1 booted before its tpu attached, so it runs as a single board (a board takes its place in
    a pod only as it boots): its tpu must say so from the board's answer to kPod, and the pod must
    end, non-zero on every rank, instead of waiting for collectives that board never joins."""
    missing = tpu_not_built()
    if missing:
        return missing
    with tempfile.TemporaryDirectory(prefix="tpu-attach-") as folder:
        started = time.monotonic()
        result, log, _ = run_attached_pod(APP, [True, False], Path(folder), boards_end=False)
        log += f"\n(the pod ended {time.monotonic() - started:.1f} s after the boards started)"
    if result is None:
        return Outcome(False, log, "")
    if result.timed_out or result.exit_code == 0:
        return Outcome(False, f"expected the pod to fail, got {runner.describe_exit(result)}", log)
    pattern = (r"\[task 1\] tpu: the board is task 0 of 1 \(the place it took as it booted\), not task 1 of 2 as tpu "
               r"told it: it was running before tpu spoke")
    if not re.search(pattern, result.output):
        return Outcome(False, f"output lacks {pattern!r}", log)
    return Outcome(True, "", log)


def loader_image() -> Path | Outcome:
    """The raspi3b chainloader's kernel8.img (`make chainloader`: what a Pi's SD card holds), with the
    tpu tool built; or the failed outcome if either is missing."""
    missing = tpu_not_built()
    if missing:
        return missing
    result = run_image(make_command("chainloader", BOARD="raspi3b"), 300)
    if result.exit_code != 0:
        return Outcome(False, f"make chainloader failed: {runner.describe_exit(result)}", result.output)
    return REPO_ROOT / "build" / "raspi3b" / "chainloader" / "kernel8.img"


def boot_loader(command: list[str], loader: Path) -> None:
    """Makes a raspi3b QEMU command boot the chainloader, with one TCG thread: under multi-threaded TCG
    the three cores waiting in the spin table spin and starve QEMU's main loop, which moves the image
    into the UART a byte at a time (hello's 95 KB: about 2 s against 10 s idle, and 30-50 s beside
    another such QEMU)."""
    command[command.index("-kernel") + 1] = str(loader)
    command[1:1] = ["-accel", "tcg,thread=single"]


def check_chainboot(app: str, loader_running: bool) -> Outcome:
    """A raspi3b booted into its UART chainloader (its mini UART on a Unix socket, QEMU waiting for tpu)
    and `tpu run --socket S --chainboot APP`: tpu builds the app's kernel8.img, sends it through the
    loader, and serves the run the image starts. Without the loader (the board runs an app instead)
    tpu must give up after --timeout naming what it waited for and what the board said."""
    loader = loader_image()
    if isinstance(loader, Outcome):
        return loader
    with tempfile.TemporaryDirectory(prefix="tpu-chainboot-") as folder:
        socket_path = Path(folder) / "link.sock"
        command = qemu_command("raspi3b", 4, f"unix:{socket_path},server=on,wait=on", APP)
        if isinstance(command, str):
            return Outcome(False, command, "")
        if loader_running:
            boot_loader(command, loader)
        timeout = "90" if loader_running else "3"
        arguments = ["--board", "raspi3b", "--socket", str(socket_path), "--chainboot", "--timeout", timeout, app]
        result, log, ended = run_beside_qemu(command, Path(folder), lambda qemu, qemu_log: arguments,
                                             QEMU_END_S if loader_running else 0)
    if not loader_running:
        return judge_exit_and_output(result, log, 4, [
            r"tpu: --chainboot: no 'raspi3b-chainboot: ready' from the board within the time allowed",
            r"the board said instead:\n\s+\[c\d I\]"])
    judged = judge_exit_and_output(result, log, 0, [
        r"tpu: chainloader: \d+ bytes sent in [\d.]+ s; the board starts the image",
        rf"tpu: link up: board raspi3b, app {app}, 4 cores", r"tpu: 4 of 4 cores reported a result, all OK"])
    if judged.ok and not ended:
        return Outcome(False, f"QEMU was still running {QEMU_END_S:.0f} s after the run ended", log)
    return judged


def attach_cases() -> list[Case]:
    runs = [("raspi3b", 4, "socket"), ("raspi3b", 4, "pty"), ("qemu-virt-rv64", 4, "socket")]
    cases = [Case(f"tpu-attach/{board}/{cores}/{backend}", partial(check_attach, board, cores, backend),
                  images=((board, APP),), estimate_s=8)
             for board, cores, backend in runs]
    return cases + [
        Case("tpu-attach/pod/raspi3b/2x4/socket", check_attached_pod,
             images=(("raspi3b", "pod"), ("qemu-virt-a53", "pod")), estimate_s=15),
        Case("tpu-attach/pod/raspi3b/2x4/chainboot", check_chainbooted_pod, images=(("raspi3b", "hello"),), estimate_s=10),
        Case("tpu-attach/pod/raspi3b/2x4/booted-first", check_attached_pod_booted_first,
             images=(("raspi3b", APP),), estimate_s=10),
        # the chainloader receives at QEMU's UART pace (about 50 KB/s): hello's 95 KB image
        Case("tpu-attach/raspi3b/4/chainboot", partial(check_chainboot, "hello", True),
             images=(("raspi3b", "hello"),), estimate_s=15),
        Case("tpu-attach/raspi3b/4/chainboot-without-loader", partial(check_chainboot, "hello", False),
             images=(("raspi3b", "hello"), ("raspi3b", APP)), estimate_s=6)]
