"""The tpu host tool as the cases use it (the build phase builds it): `tpu run` of an app judged by its
exit status, output and outfeed, and any tpu command line judged the same way."""
from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import qemu_runner as runner
from qemu_runner import REPO_ROOT, run_image

from .case import BOARDS, Outcome
from .checks import judge_exit_and_output
from .sanitizers import SANITIZER_ENV, SANITIZER_FOLDER_SUFFIX

TPU_BINARY = "build/host-tools/tpu"
SANITIZED_TPU_BINARY = f"build/host-tools{SANITIZER_FOLDER_SUFFIX}/tpu"
TPU_RUN_BOARDS = BOARDS  # every board (raspi3b: QEMU stdio is the PL011, which carries the link bytes too)
TPU_TIMEOUT_S = 180


def link_transports(board: str) -> tuple[str, ...]:
    """The host link transports a board has under tpu: shared memory and the UART (the host board's
    stdio) on every board tpu launches."""
    return ("shm", "uart")


def tpu_not_built(binary: str = TPU_BINARY) -> Outcome | None:
    """None when the tool is there, else a failing Outcome. The build phase builds it for every case
    that uses it (build_plan.with_tools), and a case whose build failed fails before its check runs,
    naming make's error; a case never builds the tool itself (it would race the build phase)."""
    if (REPO_ROOT / binary).is_file():
        return None
    return Outcome(False, f"{binary} is missing: the build phase did not build it (make tpu)")


def check_tpu_run(board: str, cores: int, app: str, expect_exit: int, patterns: list[str],
                  extra: tuple[str, ...] = (), outfeed_check: Path | None = None, link: str | None = None) -> Outcome:
    """Runs `tpu run` (build, boot, serve the link) and checks its exit status, output and outfeed."""
    missing = tpu_not_built()
    if missing:
        return missing
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
    return judge_outfeed(outfeed_check, [outfeed_dir, cores], log)


def check_tpu_pod(board: str, boards: int, cores: int, app: str, patterns: list[str], network: str = "shm",
                  extra: tuple[str, ...] = (), outfeed_check: Path | None = None, cwd: Path = REPO_ROOT) -> Outcome:
    """Runs `tpu run --boards K` (a pod of `boards` boards: `board`, or "a,b,..." naming each one) and checks
    that it exits 0, that every task's cores all report OK and its own output (its "[task t] " lines)
    matches every pattern, and the outfeed (each task's in OUTFEED_DIR/task-<t>)."""
    missing = tpu_not_built()
    if missing:
        return missing
    kind = "+".join(dict.fromkeys(board.split(",")))
    outfeed_dir = REPO_ROOT / "build" / "tpu-pod" / f"{Path(app).name}-{kind}-{boards}x{cores}-{network}"
    shutil.rmtree(outfeed_dir, ignore_errors=True)
    command = [str(REPO_ROOT / TPU_BINARY), "run", "--boards", str(boards), "--board", board, "--cores", str(cores),
               "--pod-network", network, "--outfeed-dir", str(outfeed_dir), *extra, app]
    result = run_image(command, TPU_TIMEOUT_S, cwd=cwd)
    log = f"$ {shlex.join(command)}\n{result.output}"
    judged = judge_exit_and_output(result, log, 0, [])
    if not judged.ok:
        return judged
    every_core = rf"^tpu: {cores} of {cores} cores reported a result, all OK"
    for task in range(boards):
        said = task_output(result.output, task)
        numbers = {"{task}": task, "{boards}": boards, "{cores}": cores, "{replicas}": boards * cores}
        expected = [every_core] + [re.sub(r"\{(task|boards|cores|replicas)\}", lambda m: str(numbers[m.group(0)]), pattern)
                                   for pattern in patterns]
        lacking = next((pattern for pattern in expected if not re.search(pattern, said, re.MULTILINE)), None)
        if lacking is not None:
            return Outcome(False, f"task {task}'s output lacks {lacking!r}", log)
    return judge_outfeed(outfeed_check, [outfeed_dir, cores, boards], log)


def judge_outfeed(outfeed_check: Path | None, arguments: list, log: str) -> Outcome:
    """An app's own outfeed check (`python3 CHECK ARGUMENTS...`, Debian's python3), if it has one, must exit 0."""
    if outfeed_check:
        checked = run_image(["/usr/bin/python3", str(outfeed_check), *map(str, arguments)], 60)
        if checked.exit_code != 0:
            return Outcome(False, "the outfeed .npy files are wrong", log + "\n" + checked.output)
    return Outcome(True, "", log)


def task_output(output: str, task: int) -> str:
    """What task `task` of a pod printed: its lines ("[task t] ..." as mpirun tags them), untagged."""
    tag = f"[task {task}] "
    return "\n".join(line[len(tag):] for line in output.splitlines() if line.startswith(tag))


def check_tpu_command(arguments: list[str], expect_exit: int, patterns: list[str], cwd: Path = REPO_ROOT,
                      binary: str = TPU_BINARY) -> Outcome:
    """Runs tpu with `arguments` and checks its exit status and output (its command line, tpu new, ...);
    `binary` may be the tool built with sanitizers, whose reports fail the case."""
    missing = tpu_not_built(binary)
    if missing:
        return missing
    command = [str(REPO_ROOT / binary), *arguments]
    result = run_image(command, TPU_TIMEOUT_S, cwd=cwd, env=runner.make_env() | SANITIZER_ENV)
    if "Sanitizer" in result.output:
        return Outcome(False, "the sanitizer reported a problem", f"$ {shlex.join(command)}\n{result.output}")
    log = f"$ {shlex.join(command)}\n{result.output}"
    return judge_exit_and_output(result, log, expect_exit, patterns)
