#!/usr/bin/python3
"""make bench, part "pod": cross_replica_sum across the boards of a pod against Open MPI.

Runs tests/bench/bench-pod-allreduce on a pod of 2 boards of 1 core (tpu run --boards 2 --bind-to
core; host and qemu-virt-a53 boards, one float (the latency) and 4 KiB to 64 MiB), each call timed on
the board (median per call over at least 5 calls and about 1 s), and Open MPI's MPI_Allreduce between
2 processes of the same machine (tests/bench/baselines/mpi_allreduce.sh, its median per call) in the
same run: ROUNDS rounds, each board's run next to one of MPI's (ours first, then MPI first). One JSON
line per board kind and size:
  {"bench": "pod_allreduce_f32/<board>/2boards/<size>", "metric": "seconds_per_call", "value": ours
   (median over the rounds; min/max the fastest and slowest round), "unit": "s", "baseline": "Open MPI
   MPI_Allreduce, 2 processes", "baseline_value": MPI's median, "ratio": the median of the rounds'
   MPI / ours (1.0: as fast as MPI; ratio_per_round each), "algbw_gbps": bytes / ours / 1e9}
Where the time goes: the board's partial reaches its tpu as a host call through the shared-memory link,
tpu sends it to the other board's tpu over MPI point-to-point straight from board memory, receives
theirs into a buffer kept from call to call and folds both straight into the board's output (no copy
on either side of the link); then the board fans it out. What remains is the host call's round trip
and, on a machine with as many CPUs as the pod has cores, the scheduling of 2 boards and 2 tpu
processes on them (MPI's 2 ranks have the CPUs to themselves).
"""
from __future__ import annotations

import json
import re
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent.parent
TPU = ROOT / "build" / "host-tools" / "tpu"
APP = ROOT / "tests" / "bench" / "bench-pod-allreduce"
BOARDS = ("host", "qemu-virt-a53")


def size_name(size: int) -> str:
    return f"{size >> 20}MiB" if size >= 1 << 20 else f"{size >> 10}KiB" if size >= 1 << 10 else f"{size}B"


def pod_times(board: str) -> dict[int, dict]:
    """bytes -> the board's POD-ALLREDUCE record (task 0's)."""
    command = [str(TPU), "run", "--boards", "2", "--board", board, "--cores", "1", "--bind-to", "core", "--timeout", "600",
               str(APP)]
    ran = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, errors="replace", timeout=900)
    if ran.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {ran.returncode}: {(ran.stdout + ran.stderr)[-2000:]}")
    records = [json.loads(m) for m in re.findall(r"^\[task 0\] \[c0 I\] POD-ALLREDUCE (\{.*\})$", ran.stdout + ran.stderr, re.M)]
    if not records:
        raise RuntimeError(f"{' '.join(command)} printed no POD-ALLREDUCE line")
    return {record["bytes"]: record for record in records}


def mpi_times() -> dict[int, float]:
    """bytes -> MPI_Allreduce's median seconds per call between 2 processes."""
    ran = subprocess.run(["bash", str(ROOT / "tests/bench/baselines/mpi_allreduce.sh")], cwd=ROOT, capture_output=True,
                         text=True, errors="replace", timeout=900, env={**__import__("os").environ, "MPI_BENCH_NP": "2"})
    if ran.returncode != 0:
        raise RuntimeError(f"mpi_allreduce.sh exited {ran.returncode}: {ran.stderr[-2000:]}")
    lines = [json.loads(line) for line in ran.stdout.splitlines() if line.startswith("{")]
    return {line["size_bytes"]: line["seconds"] for line in lines}


ROUNDS = 3  # this machine's speed (and MPI's with it) drifts by 2x within minutes: pair each run with MPI's


def pod_results(record: Callable[[dict], None]) -> None:
    ours: dict[str, dict[int, list[float]]] = {board: {} for board in BOARDS}  # seconds per call, run by run
    theirs: dict[str, dict[int, list[float]]] = {board: {} for board in BOARDS}  # MPI's, the run beside each
    for round_index in range(ROUNDS):
        for board in BOARDS:
            for step in ("pod", "mpi") if round_index % 2 == 0 else ("mpi", "pod"):
                if step == "pod":
                    for size, record_of_size in pod_times(board).items():
                        ours[board].setdefault(size, []).append(record_of_size["seconds"])
                else:
                    for size, seconds in mpi_times().items():
                        theirs[board].setdefault(size, []).append(seconds)
    for board in BOARDS:
        for size, times in sorted(ours[board].items()):
            baselines = theirs[board].get(size, [])
            ratios = [baseline / time for time, baseline in zip(times, baselines)]
            record({"bench": f"pod_allreduce_f32/{board}/2boards/{size_name(size)}", "metric": "seconds_per_call",
                    "value": statistics.median(times), "min": min(times), "max": max(times), "rounds": len(times),
                    "unit": "s", "baseline": "Open MPI MPI_Allreduce, 2 processes, this machine",
                    "baseline_value": statistics.median(baselines) if baselines else None,
                    "ratio": statistics.median(ratios) if ratios else None,
                    "ratio_per_round": [round(ratio, 3) for ratio in ratios], "algbw_gbps": size / statistics.median(times) / 1e9})


if __name__ == "__main__":
    out = ROOT / "build" / "bench" / "results-pod.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a") as file:
        def emit(entry: dict) -> None:
            line = json.dumps(entry)
            print(line, flush=True)
            file.write(line + "\n")
            file.flush()
        pod_results(emit)
    sys.exit(0)
