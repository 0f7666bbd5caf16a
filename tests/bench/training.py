#!/usr/bin/python3
"""Training benchmark (make bench): the train-digits app's throughput and where its step time goes.

For the host board at 1, 2 and 8 cores and qemu-virt-a53 at 1, 2, 4 and 8 cores, one run each of
STEPS steps of the MLP (global batch 32) through `tpu run --trace`:
  samples_per_s         training samples per second from the end of the first launch (boot, weight
                        loading and first-touch costs excluded) to the last, from the host's clock
                        in train.csv (the host hears of each launch's 8 steps at its end); baseline: the same board at 1 core in this run,
                        ratio = the speed-up
  scaling_efficiency    speed-up / cores (1.0 = linear)
  share_<category>      the share of the cores' run time (mean over cores) in compute (the MXU),
                        collectives, infeed waits, host calls and the rest (other: elementwise ops,
                        softmax, the update), from the board's exact per-category trace totals
Boards with more cores than this machine has share its CPUs (QEMU's vCPUs are threads), so scaling
there measures oversubscription, not the runtime: the lines say how many CPUs the machine has.
Hands each {"bench", "metric", "value", "unit", "baseline", "ratio"} line to `record` as soon as its
run is measured (run alone: prints them). The data is prepared by prepare_digits.py run with PYTHON,
Debian's /usr/bin/python3 (NumPy, sklearn's digits), whichever python3 comes first on PATH.
"""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent.parent
TPU = ROOT / "build" / "host-tools" / "tpu"
APP = ROOT / "firmware" / "examples" / "train-digits"
STEPS = 176  # 4 epochs
RUNS = {"host": (1, 2, 8), "qemu-virt-a53": (1, 2, 4, 8)}
CATEGORIES = ("compute", "collective", "infeed_wait", "host_call")
PYTHON = "/usr/bin/python3"  # Debian's, with python3-numpy and python3-sklearn (never the first on PATH)


def line(bench: str, metric: str, value: float, unit: str, baseline: float | None) -> dict:
    ratio = value / baseline if baseline else None
    return {"bench": bench, "metric": metric, "value": round(value, 4), "unit": unit,
            "baseline": round(baseline, 4) if baseline is not None else None,
            "ratio": round(ratio, 4) if ratio is not None else None}


def train(board: str, cores: int, data: Path) -> tuple[float, dict[str, float]]:
    folder = ROOT / "build" / "bench" / "train-digits" / f"{board}-{cores}"
    folder.mkdir(parents=True, exist_ok=True)
    for source in data.iterdir():  # the prepared run: model.txt, initial weights, batches
        (folder / source.name).write_bytes(source.read_bytes())
    trace = folder / "trace.json"
    command = [str(TPU), "run", "--board", board, "--cores", str(cores), "--timeout", "1200", "--trace", str(trace),
               "--outfeed-dir", str(folder), "--infeed", f"0={folder / 'infeed_x.npy'},{folder / 'infeed_y.npy'}",
               "train-digits"]
    ran = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, errors="replace", timeout=1500)
    if ran.returncode != 0:
        sys.stderr.write(ran.stdout[-3000:] + ran.stderr[-3000:])
        last = [text.strip() for text in (ran.stdout + ran.stderr).splitlines() if text.strip()][-1:]
        raise RuntimeError(f"training benchmark: {' '.join(command)} exited with status {ran.returncode}"
                           + (f": {last[0]}" if last else ""))
    with open(folder / "train.csv") as file:
        rows = list(csv.DictReader(file))
    first, last = rows[7], rows[-1]  # rows 0..7: the first launch, reported at its end
    samples_per_s = (int(last["step"]) - int(first["step"])) * 32 / (float(last["seconds"]) - float(first["seconds"]))
    return samples_per_s, time_shares(trace)


def time_shares(trace: Path) -> dict[str, float]:
    """Mean over cores of each category's share of the core's run time (the 'total:' counters)."""
    totals: dict[int, dict[str, float]] = {}
    for event in json.loads(trace.read_text())["traceEvents"]:
        name = event.get("name", "")
        if event.get("ph") == "C" and " total:" in name:
            core, category = int(name.split()[1]), name.split("total:")[1]
            totals.setdefault(core, {})[category] = float(event["args"]["value"])
    shares = {category: 0.0 for category in (*CATEGORIES, "other")}
    for per_core in totals.values():
        run = per_core.get("run", 0.0)
        if run <= 0:
            continue
        accounted = 0.0
        for category in CATEGORIES:
            shares[category] += per_core.get(category, 0.0) / run
            accounted += per_core.get(category, 0.0)
        shares["other"] += max(run - accounted, 0.0) / run
    return {category: value / max(len(totals), 1) for category, value in shares.items()}


def prepare_data() -> Path:
    """Builds tpu and the batches of STEPS steps (prepare_digits.py under Debian's python3)."""
    subprocess.run(["make", "-s", "tpu"], cwd=ROOT, check=True, capture_output=True, text=True, timeout=1200)
    data = ROOT / "build" / "bench" / "train-digits" / "data"
    subprocess.run([PYTHON, str(APP / "prepare_digits.py"), str(data), "--epochs", "4", "--steps", str(STEPS)],
                   check=True, capture_output=True, text=True, timeout=300)
    return data


def print_line(entry: dict) -> None:
    print(json.dumps(entry), flush=True)


def training_results(record: Callable[[dict], None] = print_line) -> list[dict]:
    """Every run of RUNS; each run's lines go to `record` as soon as it ends. Returns them all."""
    data = prepare_data()
    cpus = os.cpu_count() or 1
    results = []
    for board, core_counts in RUNS.items():
        one_core = None
        for cores in core_counts:
            rate, shares = train(board, cores, data)
            one_core = one_core or rate
            bench = f"train-digits/mlp/{board}/{cores}cores/{cpus}cpus"
            lines = [line(bench, "samples_per_s", rate, "samples/s", one_core),
                     line(bench, "scaling_efficiency", rate / one_core / cores, "fraction", None),
                     *(line(bench, f"share_{category}", share, "fraction of run time", None)
                       for category, share in shares.items())]
            for entry in lines:
                record(entry)
            results += lines
    return results


if __name__ == "__main__":
    training_results()
