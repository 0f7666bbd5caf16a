"""Pods of boards (`tpu run --boards K`, one Open MPI rank per board): what each board knows of its pod
and a replicate over the whole pod whose cross_replica_sum crosses the boards, the README's API
examples (replicate, merge_call, split_to_logical_devices) over pods of 2 and 4 boards, the refusals
before any board starts, and a pod that fails as a whole (a fault on one board, a rank killed). Expected POD lines are computed here from TF's definitions and the stacking rule of
runtime/tpu/mesh/topology.hpp (each board's default mesh, boards stacked along z), written out
independently of the runtime."""
from __future__ import annotations

import functools
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from functools import partial
from pathlib import Path
from typing import Callable

from qemu_runner import REPO_ROOT, RunResult, run_image

from .case import Case, Outcome
from .checks import judge_exit_and_output
from .collecting import start_collecting, stop_collecting
from .tpu_tool import TPU_BINARY, TPU_TIMEOUT_S, tpu_not_built

# A board's default mesh [x, y, z, cores per chip] for the core counts the pods here use.
BOARD_MESH = {1: (1, 1, 1, 1), 2: (1, 1, 1, 2), 4: (1, 1, 2, 2), 8: (1, 2, 2, 2)}


def device_coordinates(cores: int, task: int, device: int) -> tuple[int, int, int, int]:
    """Device `device` of task `task`: core-within-chip fastest, then x, y, z, with z moved up by the
    boards below it."""
    x_size, y_size, z_size, chip_cores = BOARD_MESH[cores]
    return ((device // chip_cores) % x_size, (device // (chip_cores * x_size)) % y_size,
            device // (chip_cores * x_size * y_size) + task * z_size, device % chip_cores)


def expected_pod_lines(boards: int, cores: int, task: int, across_hash: str) -> list[str]:
    """What core 0 of task `task` prints (firmware/examples/pod), in order; `across_hash` is the hash of
    the collectives across boards that one board of as many cores prints (one_board_hash)."""
    x_size, y_size, z_size, chip_cores = BOARD_MESH[cores]
    # The cluster spec without TF_CONFIG: this machine's name and port 8470 + the local rank.
    workers = ", ".join(f"{socket.gethostname()}:{8470 + t}" for t in range(boards))
    lines = [f"POD task {task} of {boards}", f"POD resolver task_id {task} accelerators {cores}",
             f"POD cluster_spec worker: [{workers}]",
             f"POD mesh [{x_size}, {y_size}, {z_size * boards}, {chip_cores}]"]
    for t in range(boards):
        for d in range(cores):
            lines.append(f"POD device {t} {d} at [{', '.join(map(str, device_coordinates(cores, t, d)))}]")
    lines.append(f"POD replicas {boards * cores} hosts {boards} per-host {cores}")
    lines += [f"POD worker {r} /job:worker/replica:0/task:{r // cores}/device:TPU:{r % cores}"
              for r in range(boards * cores)]
    lines += [f"POD host-cpu {h} /job:worker/replica:0/task:{h}/device:CPU:0" for h in range(boards)]
    # contrib's names (a tower is a replica): a host's towers are its board's cores; TF 1.x's pods are
    # one graph (between_graph false); worker_device_index is every replica's index in the pod.
    lines.append(f"POD contrib towers-per-host {cores} between-graph false worker_device_index 0..{boards * cores - 1} "
                 "checked")
    # cross_replica_sum over every replica of the pod (replica r holds r + 1), over the groups of one
    # replica per board, and the max of the ids: every board checks every replica's outputs and says so.
    n = boards * cores
    lines.append(f"POD sums over {n} replicas on {boards} boards: all {n * (n + 1) // 2}, columns of {boards}, "
                 f"max id {n - 1}, broadcast, all_gather, barrier: checked on all {n} replicas' outputs")
    # Mean and 16-bit all_reduce, reduce_scatter, all_to_all and collective_permute across the boards:
    # every board checks every output against one board's computation and values worked out by hand
    # (firmware/examples/pod/device/across_boards.cpp), and the hash of them all is one board's.
    lines.append("POD across boards: all_reduce mean float32, sum bfloat16, mean float16, reduce_scatter, all_to_all, "
                 f"collective_permute on {n} replicas: every output checked, hash {across_hash}")
    # distribute_datasets_from_function: one pipeline per board, (3 + t) R rows on board t, 3 steps agreed.
    lines.append(f"POD input: {boards} pipelines for {n} replicas, 3 steps agreed, every value checked")
    # experimental_distribute_dataset: global batches of 2N rows split over the pod's replicas.
    lines.append(f"POD global batches: 4 batches of {2 * n} rows split over {n} replicas, every slice checked")
    # run_steps_on_dataset: 4 steps in one launch; every board checks every replica's last step outputs.
    lines.append(f"POD steps on dataset: 4 steps in one launch, the last step's outputs of {n} replicas checked")
    # ... again with replicas on the first board's cores only (num_cores): the others run none.
    lines.append(f"POD steps on dataset: 4 steps in one launch, the last step's outputs of {cores} replicas checked")
    # ... and with replicas of 2 logical cores each (N / 2 replicas, each inside one board), where a
    # board has an even number of cores.
    lines.append(f"POD steps on dataset, 2 logical cores per replica: 4 steps in one launch, the last step's outputs of "
                 f"{n // 2} replicas checked" if cores % 2 == 0 else
                 f"POD steps on dataset, 2 logical cores per replica: not run on boards of {cores} core"
                 f"{'' if cores == 1 else 's'}")
    return lines


def pod_lines(output: str, task: int) -> list[str]:
    return re.findall(rf"^\[task {task}\] \[c0 I\] (POD .*)$", output, re.M)


ACROSS_HASH = re.compile(r"^(?:\[task \d+\] )?\[c0 I\] POD across boards: .* hash ([0-9a-f]{8})$", re.M)


@functools.cache  # several pod cases compare with the same board (cases run in threads: at worst twice)
def one_board_hash(board: str, cores: int) -> tuple[str | None, str]:
    """The hash of the collectives across boards (firmware/examples/pod) on one board of `cores` cores,
    where the same collectives stay on the board: a pod of as many cores must print the same bits.
    (None and the log if the board did not print it.)"""
    command = [TPU_BINARY, "run", "--board", board, "--cores", str(cores), "--timeout", "90", "pod"]
    result = run_image(command, TPU_TIMEOUT_S)
    found = ACROSS_HASH.search(result.output)
    return (found.group(1) if found and result.exit_code == 0 else None), f"$ {shlex.join(command)}\n{result.output}"


def check_pod_knowledge(board: str, boards: int, cores: int, extra: tuple[str, ...] = ()) -> Outcome:
    """Every board of the pod prints its task, the pod's topology and TPUStrategy's hosts and devices,
    each line as computed above, runs its replicas of a pod-wide replicate whose sums and other
    collectives cross the boards (the latter with the bits of one board of as many cores of the first
    kind), and passes."""
    missing = tpu_not_built()
    if missing:
        return missing
    # raspi3b boots at most its 4 cores: a qemu-virt-a53 board of as many cores runs the same AArch64 code.
    reference = board.split(",")[0].replace("raspi3b", "qemu-virt-a53")
    across_hash, one_board_log = one_board_hash(reference, boards * cores)
    if across_hash is None:
        return Outcome(False, f"one board of {boards * cores} cores did not print its hash", one_board_log)
    command = [TPU_BINARY, "run", "--boards", str(boards), "--board", board, "--cores", str(cores), "--timeout", "90",
               *extra, "pod"]
    result = run_image(command, TPU_TIMEOUT_S)
    return judge_pod_knowledge(board, boards, cores, across_hash, result, f"$ {shlex.join(command)}\n{result.output}")


def judge_pod_knowledge(board: str, boards: int, cores: int, across_hash: str, result: RunResult, log: str) -> Outcome:
    """A pod run of the pod app passed: every task's POD lines as computed above (the collectives across
    boards with `across_hash`, one board's bits), every core OK, rank 0 saying the ranks agree."""
    if result.timed_out or result.exit_code != 0:
        return Outcome(False, f"the pod exited {result.exit_code}{' (timed out)' if result.timed_out else ''}", log)
    for task in range(boards):
        expected, got = expected_pod_lines(boards, cores, task, across_hash), pod_lines(result.output, task)
        if got != expected:
            first = next((i for i, (e, g) in enumerate(zip(expected, got)) if e != g), min(len(expected), len(got)))
            return Outcome(False, f"task {task}'s POD line {first} differs: expected "
                                  f"{expected[first] if first < len(expected) else '(none)'!r}, got "
                                  f"{got[first] if first < len(got) else '(none)'!r}", log)
        if not re.search(rf"^\[task {task}\] tpu: {cores} of {cores} cores reported a result, all OK", result.output, re.M):
            return Outcome(False, f"task {task} did not end with every core OK", log)
    kind = "mixed" if "," in board else board
    if not re.search(rf"^\[task 0\] tpu: a pod of {boards} {kind} boards: every rank agrees", result.output, re.M):
        return Outcome(False, "rank 0 did not report the pod's agreement", log)
    return Outcome(True, "", log)


def check_pod_trace_and_binding() -> Outcome:
    """A pod of 2 host boards of 1 core with --trace and --bind-to core: each board's timeline in a file
    of its own (trace.task-0.json, trace.task-1.json: Chrome trace JSON with its cores' events, no
    trace.json), and the boards' cores bound to consecutive CPUs by local rank (where the machine has 2)."""
    missing = tpu_not_built()
    if missing:
        return missing
    folder = REPO_ROOT / "build" / "tpu-pod" / "trace-and-binding"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    command = [TPU_BINARY, "run", "--boards", "2", "--board", "host", "--cores", "1", "--bind-to", "core", "--timeout",
               "90", "--trace", str(folder / "trace.json"), "pod"]
    result = run_image(command, TPU_TIMEOUT_S)
    log = f"$ {shlex.join(command)}\n{result.output}"
    if result.timed_out or result.exit_code != 0:
        return Outcome(False, f"the pod exited {result.exit_code}{' (timed out)' if result.timed_out else ''}", log)
    if (folder / "trace.json").exists():
        return Outcome(False, "the boards wrote one trace.json between them", log)
    for task in (0, 1):
        trace = folder / f"trace.task-{task}.json"
        if not trace.exists():
            return Outcome(False, f"no {trace.name}", log)
        events = json.loads(trace.read_text()).get("traceEvents", [])
        if not any(event.get("ph") == "C" and "total:run" in event.get("name", "") for event in events):
            return Outcome(False, f"{trace.name} has no core run totals", log)
        binding = (rf"^\[task {task}\] tpu: the board's cores are bound to CPU {task} \(--bind-to core\)"
                   if len(os.sched_getaffinity(0)) >= 2 else
                   rf"^\[task {task}\] tpu: --bind-to core: not bound")
        if not re.search(binding, result.output, re.M):
            return Outcome(False, f"task {task} does not say {binding!r}", log)
    if "could not be bound" in result.output:
        return Outcome(False, "a board could not bind its core as asked", log)
    return Outcome(True, "", log)


# What tests/device/pod-sum-order prints (element 0 and 1 of the forward and the reverse grouping),
# worked out by hand in float32 (1e8 + 1 is 1e8): on one board the group order; across boards each
# board's partial first, then the boards in the group's task order, so 2 x 2 loses the 1 that one
# board of 4 keeps, and 3 x 2 gives 0 forward (1 - 1e8 + 1e8) but 1 reversed (1e8 - 1e8 + 1).
SUM_ORDER_EXPECTED = {(1, 4): "forward 1 -100000000 reverse 0 -100000000",
                      (2, 2): "forward 0 -100000000 reverse 0 -100000000",
                      (3, 2): "forward 100000000 0 reverse 100000000 1",
                      # 2 x 4: forward each board's partial is 1 (1e8 + 1 - 1e8 + 1) for element 0,
                      # -1e8 and 1e8 for element 1; reversed, task 1's partial comes first, and
                      # both boards' are 0 (element 0) and 1e8 then -1e8 (element 1).
                      (2, 4): "forward 2 0 reverse 0 0"}


def check_sum_order(board: str, boards: int, cores: int) -> Outcome:
    """float32 sums across boards in the documented order: the app checks every replica's sums bit for
    bit against a plain loop in that order, and its printed values must be the hand-worked ones (the
    same on host boards, QEMU boards and a mixed pod)."""
    missing = tpu_not_built()
    if missing:
        return missing
    pod = ["--boards", str(boards)] if boards > 1 else []
    command = [TPU_BINARY, "run", *pod, "--board", board, "--cores", str(cores), "--timeout", "90",
               "tests/device/pod-sum-order"]
    result = run_image(command, TPU_TIMEOUT_S)
    log = f"$ {shlex.join(command)}\n{result.output}"
    if result.timed_out or result.exit_code != 0:
        return Outcome(False, f"exited {result.exit_code}{' (timed out)' if result.timed_out else ''}", log)
    prefix = r"\[task 0\] " if boards > 1 else ""
    expected = SUM_ORDER_EXPECTED[(boards, cores)]
    if not re.search(rf"^{prefix}\[c0 I\] SUM-ORDER {expected}$", result.output, re.M):
        return Outcome(False, f"no 'SUM-ORDER {expected}' line", log)
    return Outcome(True, "", log)


def check_readme_examples_on_pod(board: str, boards: int, cores: int) -> Outcome:
    """The README's API examples (firmware/examples/readme-examples: replicate, the merge_call sum,
    split_to_logical_devices) over every core of a pod, each checked by the app against TF's
    hand-computed results: every board must say which ran and pass."""
    missing = tpu_not_built()
    if missing:
        return missing
    command = [TPU_BINARY, "run", "--boards", str(boards), "--board", board, "--cores", str(cores), "--timeout", "90",
               "readme-examples"]
    result = run_image(command, TPU_TIMEOUT_S)
    log = f"$ {shlex.join(command)}\n{result.output}"
    if result.timed_out or result.exit_code != 0:
        return Outcome(False, f"the pod exited {result.exit_code}{' (timed out)' if result.timed_out else ''}", log)
    n = boards * cores
    ran = ("replicate, " if n == 2 else "") + "merge_call" + (", split_to_logical_devices" if cores == 8 else "")
    for task in range(boards):
        line = rf"^\[task {task}\] \[c0 I\] readme examples on {n} cores \({boards} boards of {cores}\): {ran} checked$"
        if not re.search(line, result.output, re.M):
            return Outcome(False, f"task {task} did not report {ran} checked on {n} cores", log)
    return Outcome(True, "", log)


def tf_config(index: int | str) -> str:
    return ('{"cluster": {"worker": ["board-a.example:2222", "board-b.example:2222"]}, '
            f'"task": {{"type": "worker", "index": {index}}}}}')


def check_pod_tf_config(form: str) -> Outcome:
    """Each rank's own TF_CONFIG (mpirun's MPMD form, as two machines would set it), or one TF_CONFIG
    for `tpu run --boards 2` whose task index is "{rank}": its workers become every board's
    cluster_spec()."""
    missing = tpu_not_built()
    if missing:
        return missing
    tpu = ["run", "--board", "host", "--cores", "1", "pod"]
    env = mpirun_environment()
    if form == "mpmd":
        command = ["mpirun", "--oversubscribe", "--bind-to", "none", "--mca", "plm", "isolated", "--mca", "btl",
                   "self,vader", "--allow-run-as-root", "-n", "1", "-x", f"TF_CONFIG={tf_config(0)}", TPU_BINARY, *tpu,
                   ":", "-n", "1", "-x", f"TF_CONFIG={tf_config(1)}", TPU_BINARY, *tpu]
    else:
        command = [TPU_BINARY, "run", "--boards", "2", *tpu[1:]]
        env["TF_CONFIG"] = tf_config("{rank}")
    result = run_image(command, 120, env=env)
    log = f"$ {shlex.join(command)}\n{result.output}"
    if result.timed_out or result.exit_code != 0:
        return Outcome(False, f"the pod exited {result.exit_code}{' (timed out)' if result.timed_out else ''}", log)
    for task in range(2):
        line = rf"^\[task {task}\] \[c0 I\] POD cluster_spec worker: \[board-a.example:2222, board-b.example:2222\]$"
        if not re.search(line, result.output, re.M):
            return Outcome(False, f"task {task}'s cluster_spec is not TF_CONFIG's workers", log)
    return Outcome(True, "", log)


def mpirun_environment() -> dict[str, str]:
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return env


def check_pod_refused(case: str) -> Outcome:
    """A pod whose boards disagree (started by mpirun directly, as on several machines), whose boards
    on one machine would all attach to one serial line, that has more TPU devices than the runtime's
    tables hold, or whose board cannot boot that many cores (refused by tpu itself, before it builds
    or starts mpirun) is refused before any board starts: exit 2, the reason named, no board output."""
    missing = tpu_not_built()
    if missing:
        return missing
    tpu = str(Path(TPU_BINARY).resolve()) if Path(TPU_BINARY).is_absolute() else TPU_BINARY
    mpirun = ["mpirun", "--oversubscribe", "--bind-to", "none", "--mca", "plm", "isolated", "--mca", "btl", "self,vader",
              "--allow-run-as-root"]
    commands = {
        "cores-differ": (mpirun + ["-n", "1", tpu, "run", "--board", "host", "--cores", "2", "pod", ":",
                                   "-n", "1", tpu, "run", "--board", "host", "--cores", "1", "pod"],
                         r"\[task 0\] tpu: the pod's boards disagree: rank 1 \(host [^,]+, board host\) boots 1 core, "
                         r"rank 0 \(host [^,]+, board host\) boots 2 cores; every board of a pod boots the same number "
                         r"of cores \(--cores\)"),
        "apps-differ": (mpirun + ["-n", "1", tpu, "run", "--board", "host", "--cores", "2", "pod", ":",
                                  "-n", "1", tpu, "run", "--board", "host", "--cores", "2", "hello"],
                        r"rank 1 \(host [^,]+, board host\) runs hello, rank 0 \(host [^,]+, board host\) runs pod; "
                        r"every board of a pod runs the same program"),
        "boards-differ-from-ranks": (mpirun + ["-n", "2", tpu, "run", "--boards", "3", "--board", "host", "pod"],
                                     r"tpu: --boards 3, but mpirun started 2 ranks"),
        "one-serial-for-two-boards": ([TPU_BINARY, "run", "--boards", "2", "--board", "raspi3b", "--serial", "/dev/null", "pod"],
                                      r"tpu: --serial /dev/null: 2 boards of the pod on this machine would all attach to it; "
                                      r"put \{rank\} or \{local_rank\} in the path"),
        "more-devices-than-the-tables": ([TPU_BINARY, "run", "--boards", "5", "--board", "host", "--cores", "16", "pod"],
                                         r"tpu: a pod of 5 boards of 16 cores has 80 TPU devices; the runtime's "
                                         r"tables hold at most 64 \(kMaxPodDevices\) in all"),
        "cores-the-board-cannot-boot": ([TPU_BINARY, "run", "--boards", "2", "--board", "raspi3b", "--cores", "2", "pod"],
                                        r"(?m)^tpu: board raspi3b boots 4 cores, not 2$"),  # by tpu, before mpirun
        "tf-config-of-another-rank": (mpirun + ["-n", "2", "-x", f"TF_CONFIG={tf_config(0)}", tpu, "run", "--board",
                                                "host", "pod"],
                                      r"tpu: rank 1 \(host [^)]+\): TF_CONFIG says task 0, but this is rank 1 of the pod"),
    }
    command, pattern = commands[case]
    result = run_image(command, 120, env=mpirun_environment())
    return judge_refusal(command, result, pattern, r"\[c\d+ I\]", "a board started although the pod was refused")


def judge_refusal(command: list[str], result: RunResult, pattern: str, started: str, started_says: str) -> Outcome:
    """A refused pod: exit 2, `pattern` in the output, and nothing `started` matches (what did start
    is `started_says`)."""
    log = f"$ {shlex.join(command)}\n{result.output}"
    if result.timed_out or result.exit_code != 2:
        return Outcome(False, f"expected exit 2, got {result.exit_code}{' (timed out)' if result.timed_out else ''}", log)
    if not re.search(pattern, result.output):
        return Outcome(False, f"output lacks {pattern!r}", log)
    if re.search(started, result.output):
        return Outcome(False, started_says, log)
    return Outcome(True, "", log)


def check_pod_infeed_refused() -> Outcome:
    """A pod on this machine whose per-rank infeed files (x.{rank}.npy) are missing for one rank is
    refused by `tpu run --boards` before mpirun starts, as one board refuses a missing file: exit 2,
    the rank and the file named, no rank started."""
    missing = tpu_not_built()
    if missing:
        return missing
    data = REPO_ROOT / "firmware" / "examples" / "infeed" / "data"
    folder = Path(tempfile.mkdtemp(prefix="pod-infeed-"))
    try:
        shutil.copy(data / "x.npy", folder / "x.0.npy")  # rank 0's files only: rank 1 has none
        shutil.copy(data / "labels.npy", folder / "labels.0.npy")
        command = [TPU_BINARY, "run", "--boards", "2", "--board", "host", "--cores", "1", "--infeed",
                   f"0={folder}/x.{{rank}}.npy,{folder}/labels.{{rank}}.npy", "infeed"]
        result = run_image(command, 60, env=mpirun_environment())
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    pattern = rf"(?m)^tpu: --infeed \(rank 1\): cannot read {re.escape(str(folder))}/x\.1\.npy"
    return judge_refusal(command, result, pattern, r"one Open MPI rank each|\[task ",
                         "mpirun started although the pod's infeed files were refused")


def check_pod_fault() -> Outcome:
    """Core 1 of task 1 faults (tests/faults/pod-fault) while task 0 passes: both ranks end with the
    fault's status 3, the faulting board's report names its task and core, and task 0 says that
    another board failed (after passing, or stopped at once by the failure's announcement)."""
    missing = tpu_not_built()
    if missing:
        return missing
    command = [TPU_BINARY, "run", "--boards", "2", "--board", "host", "--cores", "2", "--timeout", "60", "pod-fault"]
    result = run_image(command, TPU_TIMEOUT_S)
    log = f"$ {shlex.join(command)}\n{result.output}"
    if result.timed_out or result.exit_code != 3:
        return Outcome(False, f"expected exit 3, got {result.exit_code}{' (timed out)' if result.timed_out else ''}", log)
    if not re.search(r"^\[task 1\] \*\*\* FAULT on core 1: .* at address 0x0+\b", result.output, re.M):
        return Outcome(False, "task 1's fault report is missing", log)
    # Task 0 either finished first and was told the pod failed, or was stopped by task 1's announcement.
    finished = (r"^\[task 0\] tpu: 2 of 2 cores reported a result, all OK[\s\S]*^\[task 0\] tpu: this board passed, "
                r"but another board of the pod failed \(the pod's exit status is 3\)")
    stopped = (r"^\[task 0\] tpu: stopped \S+: the pod is ending, rank 1 \(host [^,]+, board host\) failed with exit "
               r"status 3")
    if not (re.search(finished, result.output, re.M) or re.search(stopped, result.output, re.M)):
        return Outcome(False, "task 0 neither passed and heard of the failure nor was stopped by it", log)
    return Outcome(True, "", log)


def check_pod_hang(cores: int) -> Outcome:
    """The last board's replicas skip a collective the others wait in (tests/faults/pod-hang, collective
    timeout 3 s): the waiting board gives up naming the collective across boards (its leader does, not
    a member waiting for the leader, whatever the cores per board; the members then stop with an error,
    no panic, and the leader's error is the board's verdict), tpu names the task no part came from (as
    the board ends, and again as it ends the pod), the
    other ranks stop their boards at once, and the pod exits non-zero well within tpu's --timeout."""
    missing = tpu_not_built()
    if missing:
        return missing
    command = [TPU_BINARY, "run", "--boards", "2", "--board", "host", "--cores", str(cores), "--timeout", "60",
               str(Path("tests/faults/pod-hang"))]
    started = time.monotonic()
    result = run_image(command, 90)
    took = time.monotonic() - started
    log = f"$ {shlex.join(command)}\n{result.output}\n(took {took:.1f} s)"
    if result.timed_out or result.exit_code == 0:
        return Outcome(False, f"expected a failing exit, got {result.exit_code}{' (timed out)' if result.timed_out else ''}",
                       log)
    if re.search(r"timed out after \d+ ms in all_reduce", result.output):
        return Outcome(False, "a member waiting for its board's leader timed out before the leader did", log)
    if "PANIC" in result.output:
        return Outcome(False, "a board panicked: a leader that gives up must fail its members with an error", log)
    for pattern in (rf"^\[task 0\] \[c0 E\] FAIL pod-hang: DEADLINE_EXCEEDED: all_reduce #1 across boards \(sum of 1 "
                    rf"float32; {2 * cores} members on "
                    r"tasks 0-1\): core 0 timed out after 3000 ms waiting for the host's reply to host call \d+ "
                    r"'\.pod' \(another board's part never came; tpu says which\)$",
                    r"^\[task 0\] tpu: the board ended in all_reduce #1 across boards; no part came from task 1 "
                    r"\(all_reduce sum of 1 float32 shaped \[\]\)$",
                    r"^\[task 0\] tpu: 1 exchange with other boards can never finish; no part came from task 1;",
                    r"^\[task 1\] tpu: stopped \S+: the pod is ending, rank 0 \(host [^,]+, board host\) failed with "
                    r"exit status \d+"):
        if not re.search(pattern, result.output, re.M):
            return Outcome(False, f"output lacks {pattern!r}", log)
    if took > 40:
        return Outcome(False, f"the pod took {took:.0f} s to end after a 3 s collective timeout", log)
    return Outcome(True, "", log)


def check_pod_replica_error() -> Outcome:
    """The last replica of a pod of 2 x 2 returns an error between two cross_replica_sums
    (tests/faults/pod-replica-error, the default 10 s collective timeout): its board reports that
    error (its peer there stopped waiting for it), the other board, waiting across boards, is stopped
    by the pod, and nobody times out."""
    missing = tpu_not_built()
    if missing:
        return missing
    command = [TPU_BINARY, "run", "--boards", "2", "--board", "host", "--cores", "2", "--timeout", "60",
               str(Path("tests/faults/pod-replica-error"))]
    result = run_image(command, 90)
    log = f"$ {shlex.join(command)}\n{result.output}"
    if re.search(r"timed out|DEADLINE_EXCEEDED", result.output):
        return Outcome(False, "a collective waited out its timeout for the failed replica", log)
    return judge_exit_and_output(result, log, 1, [
        r"^\[task 1\] \[c0 E\] FAIL pod-replica-error: INVALID_ARGUMENT: replica 3 gave up after its first "
        r"cross_replica_sum$",
        r"^\[task 0\] tpu: stopped \S+: the pod is ending, rank 1 \(host [^,]+, board host\) failed with exit "
        r"status 1$"])


def check_pod_mismatch(board: str, boards: int, cores: int) -> Outcome:
    """The boards of a pod call one cross_replica_sum with operands that disagree
    (tests/faults/pod-mismatch): task 0 a float32 [2, 2], the others a float32 [4] on boards of 1
    core (the same elements in another shape), a float32 [6] on boards of 2 (another count, whose rows
    differ in size too). A board fails the call with a single board's words for it, naming a task
    that disagrees and both operands, instead of summing what came. The first board to fail ends the
    pod, so every other board either says the same of its own call or was stopped by the pod (the
    pod-replica-error case's line); with 3 boards, tasks 1 and 2 agree with each other, and task 0 may
    name either."""
    missing = tpu_not_built()
    if missing:
        return missing
    command = [TPU_BINARY, "run", "--boards", str(boards), "--board", board, "--cores", str(cores), "--timeout", "60",
               str(Path("tests/faults/pod-mismatch"))]
    result = run_image(command, 90)
    log = f"$ {shlex.join(command)}\n{result.output}"
    verdict = judge_exit_and_output(result, log, 1, [])
    if not verdict.ok:
        return verdict
    theirs = "shaped \\[4\\]" if cores == 1 else "shaped \\[6\\]"
    count = 4 if cores == 1 else 6
    group = rf"{boards * cores} members on tasks 0-{boards - 1}"
    said = {0: rf"^\[task 0\] \[c0 E\] FAIL pod-mismatch: INVALID_ARGUMENT: all_reduce #1 across boards \(sum of 4 "
               rf"float32; {group}\): collective mismatch with task [1-{boards - 1}]: all_reduce sum of 4 float32 shaped "
               rf"\[2, 2\] here, all_reduce sum of {count} float32 {theirs} there$"}
    for task in range(1, boards):
        said[task] = (rf"^\[task {task}\] \[c0 E\] FAIL pod-mismatch: INVALID_ARGUMENT: all_reduce #1 across boards "
                      rf"\(sum of {count} float32; {group}\): collective mismatch with task 0: all_reduce sum of {count} "
                      rf"float32 {theirs} here, all_reduce sum of 4 float32 shaped \[2, 2\] there$")
    reported = [task for task, pattern in said.items() if re.search(pattern, result.output, re.MULTILINE)]
    if not reported:
        return Outcome(False, "no board reported the collective mismatch", log)
    for task in range(boards):
        stopped = rf"^\[task {task}\] tpu: stopped \S+: the pod is ending, rank \d+ \(host [^,]+, board {board}\) failed"
        if task not in reported and not re.search(stopped, result.output, re.MULTILINE):
            return Outcome(False, f"task {task} neither reported the mismatch nor was stopped by the pod", log)
    return Outcome(True, "", log)


def rank_processes(mpirun_pid: int) -> list[int]:
    """The tpu ranks mpirun started (its children, but the guard of the pod's scratch folder, which tpu
    forked before it became mpirun)."""
    children = subprocess.run(["pgrep", "-P", str(mpirun_pid)], capture_output=True, text=True).stdout.split()
    return [int(pid) for pid in children if process_name(int(pid)) != "tpu-pod-guard"]


def process_name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def descendants(pid: int) -> list[int]:
    found, queue = [], [pid]
    while queue:
        children = subprocess.run(["pgrep", "-P", str(queue.pop())], capture_output=True, text=True).stdout.split()
        found += [int(child) for child in children]
        queue += children
    return found


def still_running(pids: list[int], grace_s: float) -> list[str]:
    """Which of `pids` still run (zombies count as gone) after up to `grace_s`, named by command."""
    deadline = time.monotonic() + grace_s
    while True:
        left = []
        for pid in pids:
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
                command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if stat.rsplit(")", 1)[1].split()[0] != "Z":
                left.append(f"{pid} ({command[:80].strip()})")
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.1)


ShellPodScenario = Callable[[subprocess.Popen, list[str], threading.Thread, Callable[[], str]], Outcome]


def on_shell_pod(scenario: ShellPodScenario) -> Outcome:
    """Starts a pod of two QEMU boards running the shell (it never ends by itself), waits until both
    boards said link up, and runs `scenario` on it (the process, its lines as they come, their reader,
    the log so far); the pod is stopped in the end, whatever happened."""
    missing = tpu_not_built()
    if missing:
        return missing
    command = [TPU_BINARY, "run", "--boards", "2", "--board", "qemu-virt-a53", "--cores", "2", "--timeout", "150", "shell"]
    process, lines, reader = start_collecting(command)
    log = lambda: f"$ {shlex.join(command)}\n" + "".join(lines)  # noqa: E731
    try:
        deadline = time.monotonic() + 150  # a loaded machine (make test) may take long to build and boot
        # Not anchored: a rank's shell prompt ("tpu> ", no newline) may precede the other rank's line.
        up = lambda: {int(m) for m in re.findall(r"\[task (\d)\] tpu: link up", "".join(lines))}  # noqa: E731
        while up() != {0, 1} and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        if up() != {0, 1}:
            return Outcome(False, "the pod's two boards never both said link up", log())
        return scenario(process, lines, reader, log)
    finally:
        stop_collecting(process)


def ram_folders_left(output: str) -> str:
    """What is wrong with the two boards' RAM-file folders the output names: "" once both are removed."""
    folders = [Path(f) for f in re.findall(r"mem-path=(\S+)/board-ram", output)]
    if len(folders) != 2 or any(folder.exists() for folder in folders):
        return f"RAM-file folders: {folders} (expected two, both removed)"
    return ""


RANK_DEATH_END_S = 60  # a liveness bound (the pod must end, not hang), not a timing target


def kill_a_rank(process: subprocess.Popen, lines: list[str], reader: threading.Thread, log: Callable[[], str]) -> Outcome:
    """Rank 1's tpu is killed with SIGKILL. mpirun must end the other rank, the pod must exit non-zero
    well before tpu's own --timeout (150 s), and no QEMU and no RAM-file folder may be left. Idle, the
    pod ends 2-4 s after the kill; with both CPUs busy 13-15 s, and beyond 20 s once under make test's
    full load (2026-11-27), hence RANK_DEATH_END_S."""
    family = descendants(process.pid)  # the ranks, their QEMUs
    ranks = rank_processes(process.pid)
    rank_one = [pid for pid in ranks if world_rank(pid) == 1]
    if len(ranks) != 2 or len(rank_one) != 1:
        return Outcome(False, f"mpirun has rank processes {ranks}, expected 2 and one of them rank 1", log())
    os.kill(rank_one[0], signal.SIGKILL)
    # A killed rank's QEMU dies by its parent-death signal; only mpirun's line names a rank killed outright.
    return judge_pod_end(process, lines, reader, log, family, "a rank", r"exited on signal 9")


def judge_pod_end(process: subprocess.Popen, lines: list[str], reader: threading.Thread, log: Callable[[], str],
                  family: list[int], victim: str, says: str) -> Outcome:
    """After `victim` of the pod was killed: the pod ends within RANK_DEATH_END_S with a non-zero status,
    its output holds `says` (a regex), and neither a process of `family` (after 5 s of grace) nor a
    board's RAM-file folder is left."""
    try:
        code = process.wait(timeout=RANK_DEATH_END_S)
    except subprocess.TimeoutExpired:
        return Outcome(False, f"the pod did not end within {RANK_DEATH_END_S} s of {victim}'s death", log())
    reader.join(timeout=5)
    output = "".join(lines)
    left = still_running(family, grace_s=5)
    if code == 0:
        return Outcome(False, f"the pod exited 0 although {victim} was killed", log())
    if not re.search(says, output):
        return Outcome(False, f"no line says {says!r}", log())
    if left:
        return Outcome(False, f"processes of the pod still run: {left}", log())
    folders = ram_folders_left(output)
    return Outcome(not folders, folders, log())


def world_rank(pid: int) -> int | None:
    """The Open MPI rank of process `pid` (its OMPI_COMM_WORLD_RANK), None if it has none or is gone."""
    try:
        environment = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return None
    found = [entry.split(b"=", 1)[1] for entry in environment if entry.startswith(b"OMPI_COMM_WORLD_RANK=")]
    return int(found[0]) if found else None


def kill_a_qemu(process: subprocess.Popen, lines: list[str], reader: threading.Thread, log: Callable[[], str]) -> Outcome:
    """Rank 1's QEMU (its board) is killed with SIGKILL. Every rank must end well before tpu's own
    --timeout, the pod non-zero, with a line naming the rank, its host and its board, and no process
    and no RAM-file folder may be left (the multi-host check does the same with the board on a second
    host)."""
    family = descendants(process.pid)  # the ranks, their QEMUs, the guard
    rank_one = [pid for pid in rank_processes(process.pid) if world_rank(pid) == 1]
    boards = [pid for pid in descendants(rank_one[0]) if process_name(pid).startswith("qemu-system")] if rank_one else []
    if len(boards) != 1:
        return Outcome(False, f"rank 1 ({rank_one}) has {len(boards)} QEMU processes, expected 1", log())
    os.kill(boards[0], signal.SIGKILL)
    named = re.escape(f"rank 1 (host {socket.gethostname()}, board qemu-virt-a53) failed")
    return judge_pod_end(process, lines, reader, log, family, "a board", named)


def kill_mpirun(process: subprocess.Popen, lines: list[str], reader: threading.Thread, log: Callable[[], str]) -> Outcome:
    """mpirun itself (the process `tpu run --boards 2` became) is killed with SIGKILL, which it cannot
    handle. Within seconds no rank, QEMU or guard may be left, nor the boards' RAM-file folders, nor the
    pod's scratch folder, where Open MPI kept its session directory and shared-memory segments (before
    the guard, a killed mpirun left them in /dev/shm and /tmp)."""
    scratch = re.search(r"--mca orte_tmpdir_base (\S+)", "".join(lines))
    if not scratch or not Path(scratch.group(1)).is_dir():
        return Outcome(False, "no scratch folder in mpirun's command, or it does not exist while the pod runs", log())
    family = descendants(process.pid)  # the ranks, their QEMUs, the guard
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=5)
    left = still_running(family, grace_s=15)
    reader.join(timeout=5)
    if left:
        return Outcome(False, f"processes of the pod still run 15 s after mpirun was killed: {left}", log())
    if Path(scratch.group(1)).exists():
        return Outcome(False, f"the pod's scratch folder {scratch.group(1)} is left", log())
    folders = ram_folders_left("".join(lines))
    return Outcome(not folders, folders, log())


def pod_cases() -> list[Case]:
    host_pod = (("host", "pod"),)
    cases = [Case("tpu-pod/host/2x2", partial(check_pod_knowledge, "host", 2, 2), images=host_pod, estimate_s=8),
             Case("tpu-pod/host/4x1", partial(check_pod_knowledge, "host", 4, 1), images=host_pod, estimate_s=8),
             Case("tpu-pod/host/2x4", partial(check_pod_knowledge, "host", 2, 4), images=host_pod, estimate_s=8),
             Case("tpu-pod/host/2x2/tcp", partial(check_pod_knowledge, "host", 2, 2, ("--pod-network", "tcp")),
                  images=host_pod, estimate_s=8),
             Case("tpu-pod/host/4x1/tcp", partial(check_pod_knowledge, "host", 4, 1, ("--pod-network", "tcp")),
                  images=host_pod, estimate_s=8),
             Case("tpu-pod/qemu-virt-a53/2x2", partial(check_pod_knowledge, "qemu-virt-a53", 2, 2),
                  images=(("qemu-virt-a53", "pod"),), estimate_s=15),
             Case("tpu-pod/qemu-virt-a53/4x1", partial(check_pod_knowledge, "qemu-virt-a53", 4, 1),
                  images=(("qemu-virt-a53", "pod"),), estimate_s=15),
             Case("tpu-pod/qemu-virt-a53/4x1/tcp", partial(check_pod_knowledge, "qemu-virt-a53", 4, 1, ("--pod-network", "tcp")),
                  images=(("qemu-virt-a53", "pod"),), estimate_s=15),
             Case("tpu-pod/host+qemu-virt-a53/2x2", partial(check_pod_knowledge, "host,qemu-virt-a53", 2, 2),
                  images=(("host", "pod"), ("qemu-virt-a53", "pod")), estimate_s=15),
             # raspi3b under QEMU (its 4 cores, the shared-memory window at the top of its RAM), and over
             # its UART, the only link a real Pi has (the board learns at boot from the first byte of
             # tpu's hello that a host will name its task).
             Case("tpu-pod/raspi3b/2x4", partial(check_pod_knowledge, "raspi3b", 2, 4),
                  images=(("raspi3b", "pod"), ("qemu-virt-a53", "pod")), estimate_s=15),
             Case("tpu-pod/raspi3b/2x4/uart", partial(check_pod_knowledge, "raspi3b", 2, 4, ("--link", "uart")),
                  images=(("raspi3b", "pod"), ("qemu-virt-a53", "pod")), estimate_s=15),
             Case("tpu-pod/qemu-virt-rv64/2x2/uart", partial(check_pod_knowledge, "qemu-virt-rv64", 2, 2, ("--link", "uart")),
                  images=(("qemu-virt-rv64", "pod"),), estimate_s=15),
             Case("tpu-pod/host+raspi3b/2x4", partial(check_pod_knowledge, "host,raspi3b", 2, 4),
                  images=(("host", "pod"), ("raspi3b", "pod")), estimate_s=15),
             Case("tpu-pod/fault/host/2x2", check_pod_fault, images=(("host", "pod-fault"),), estimate_s=8),
             *(Case(f"tpu-pod/tf-config/{form}/host/2x1", partial(check_pod_tf_config, form), images=host_pod,
                    estimate_s=5) for form in ("mpmd", "rank-placeholder")),
             Case("tpu-pod/trace-and-binding/host/2x1", check_pod_trace_and_binding, images=host_pod, estimate_s=5),
             *(Case(f"tpu-pod/sum-order/{board.replace(',', '+')}/{boards}x{cores}", partial(check_sum_order, board, boards, cores),
                    images=tuple((kind, "tests/device/pod-sum-order") for kind in board.split(",")), estimate_s=6)
               for board, boards, cores in (("host", 1, 4), ("host", 2, 2), ("host", 3, 2), ("qemu-virt-a53", 2, 2),
                                            ("host,qemu-virt-a53", 2, 2), ("raspi3b", 2, 4))),
             Case("tpu-pod/replica-error/host/2x2", check_pod_replica_error,
                  images=(("host", "tests/faults/pod-replica-error"),), estimate_s=5),
             *(Case(f"tpu-pod/mismatch/{board}/{boards}x{cores}", partial(check_pod_mismatch, board, boards, cores),
                    images=((board, "tests/faults/pod-mismatch"),), estimate_s=5 if board == "host" else 8)
               for board, boards, cores in (("host", 2, 1), ("host", 2, 2), ("host", 3, 1), ("qemu-virt-a53", 2, 1))),
             *(Case(f"tpu-pod/collective-hang/host/2x{cores}", partial(check_pod_hang, cores),
                    images=(("host", "tests/faults/pod-hang"),), estimate_s=6) for cores in (1, 2)),
             Case("tpu-pod/rank-killed/qemu-virt-a53", partial(on_shell_pod, kill_a_rank), images=(("qemu-virt-a53", "shell"),),
                  estimate_s=15),
             Case("tpu-pod/mpirun-killed/qemu-virt-a53", partial(on_shell_pod, kill_mpirun), images=(("qemu-virt-a53", "shell"),),
                  estimate_s=15),
             Case("tpu-pod/qemu-killed/qemu-virt-a53", partial(on_shell_pod, kill_a_qemu), images=(("qemu-virt-a53", "shell"),),
                  estimate_s=15)]
    # 4x8, 2x16 and 3x8: pods above one board's 16 cores (kMaxPodDevices, runtime/pod/pod_devices.hpp),
    # on QEMU boards too (their 256 KiB main stacks hold the strategy's values of 32 replicas).
    for board, boards, cores in (("host", 2, 1), ("host", 4, 2), ("host", 2, 8), ("host", 4, 8),
                                 ("qemu-virt-a53", 2, 1), ("qemu-virt-a53", 2, 4), ("qemu-virt-a53", 2, 16),
                                 ("qemu-virt-a53", 3, 8), ("host,qemu-virt-a53", 2, 16), ("raspi3b", 2, 4)):
        cases.append(Case(f"tpu-pod/readme-examples/{board.replace(',', '+')}/{boards}x{cores}",
                          partial(check_readme_examples_on_pod, board, boards, cores),
                          images=tuple((kind, "readme-examples") for kind in board.split(",")), estimate_s=8))
    refusal_images = {"cores-differ": host_pod + (("host", "hello"),), "apps-differ": host_pod + (("host", "hello"),),
                      "boards-differ-from-ranks": host_pod, "one-serial-for-two-boards": (("raspi3b", "pod"),),
                      "more-devices-than-the-tables": host_pod, "cores-the-board-cannot-boot": (),
                      "tf-config-of-another-rank": host_pod}
    cases += [Case(f"tpu-pod/refused/{name}", partial(check_pod_refused, name), images=images, estimate_s=4)
              for name, images in refusal_images.items()]
    cases.append(Case("tpu-pod/refused/infeed-of-one-rank-missing", check_pod_infeed_refused,
                      images=(("host", "infeed"),), estimate_s=4))
    return cases
