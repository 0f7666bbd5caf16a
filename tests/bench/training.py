#!/usr/bin/python3
"""Training benchmark (make bench): the train-digits app's throughput, against PyTorch and a NumPy loop
training the same model from the same initial weights on the same batches, and where its step time
goes.

Runs of SAMPLES images (225,280 on the host board, 5,632 on qemu-virt-a53) through `tpu run --trace`,
in global batches of the model's size (prepare_digits.py's default):
  mlp       (64 -> 128 relu -> 10, batches of 32: 7040 steps on the host board, 176 on qemu-virt-a53)
            on the host board at 1, 2 and 8 cores and on qemu-virt-a53 at 1, 2, 4 and 8 cores;
  mlp-wide  (64 -> 1024 relu -> 10, batches of 256: 880 steps; 64 times the MXU work of an mlp step,
            so the MXU's share shows) on the host board at 1 and 2 cores.
Per run:
  samples_per_s         training samples per second from the end of the first launch (boot, weight
                        loading and first-touch costs excluded) to the last, from the host's clock
                        in train.csv (the host hears of each launch's 8 steps at its end); baseline:
                        the same board at 1 core in this run, ratio = the speed-up
  vs_pytorch, vs_numpy  the same samples/s against PyTorch (CPU, 1 thread, autograd + SGD) and the
                        plain NumPy loop (tests/bench/train_baselines.py), each the better of two
                        measurements in this run, one before and one after the board's runs
  scaling_efficiency    speed-up / cores (1.0 = linear)
  share_<category>      the share of the cores' run time (mean over cores) in compute (the MXU),
                        collectives, infeed waits, host calls and the rest (other: elementwise ops,
                        softmax, the update), from the board's exact per-category trace totals
  mxu_gflops            the MXU's rate while the step computes: the model's matmul FLOPs per replica
                        and step x steps / the core's compute time, against the core's measured
                        vfmadd231ps ymm peak on the host board (tests/bench/baselines/fma_peak.cpp, the
                        AVX2 FMA the host board's MXU kernels use) and against the emulated bound on
                        qemu-virt-a53 (tests/bench/bench-fma-bound on one core: the AArch64 kernel's
                        own fmla mix), both in this run
  vs_mxu_gemm (host)    the same rate against the MXU's own float32 GEMM at 512^3 on one thread, in this
                        run (benchmarks.py passes it: issue 24's "measured GEMM rate" of the MXU)
  vs_fma_bound (a53)    samples/s against what the emulated bound allows on that many cores (bound x
                        cores / the matmul FLOPs per sample); the bound is measured right before and
                        right after each qemu-virt-a53 run, and the better of the two counts
  vs_every_core_bound   (a53, 2 .. CPUs cores) the same against what that many cores reach running the
                        fmla mix all at once (bench-fma-bound on every core, before and after, the
                        better), with its own line
                        fma_bound/qemu-virt-a53/every-core-at-once/<n>cores/<cpus>cpus
                        (ratio: that rate over one core's, the ceiling of a speed-up on this machine,
                        where QEMU's vCPU threads share the CPUs with QEMU's own threads and tpu)
Once per run: fma-peak/ymm/every-cpu-at-once, the vfmadd231ps ymm rate with fma_peak pinned to every
CPU at once (summed), against one CPU's: the ceiling of a speed-up from more cores on FMA-bound work.
Boards with more cores than this machine has share its CPUs (QEMU's vCPUs are threads), so scaling
there measures oversubscription, not the runtime: the lines say how many CPUs the machine has. The
host board runs with --bind-to core (each core on a CPU of its own, as mpirun binds ranks; where the
cores take every CPU, tpu and the board do not spin for each other: host-tools/lib/board/cpu_sharing.hpp).
Hands each {"bench", "metric", "value", "unit", "baseline", "ratio"} line to `record` as soon as its
run is measured (run alone: prints them). The data is prepared by prepare_digits.py run with PYTHON,
Debian's /usr/bin/python3 (NumPy, sklearn's digits; python3-torch for the PyTorch line), whichever
python3 comes first on PATH.
"""
from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent.parent
TPU = ROOT / "build" / "host-tools" / "tpu"
APP = ROOT / "firmware" / "examples" / "train-digits"
# Images per run: 7040 steps of 32 on the host board (so the setup's host calls do not dominate the
# shares, and a run lasts long enough, 0.3-6 s, that one preemption does not decide its rate), 176 on
# qemu-virt-a53 (the host board's first 176 batches of 32: the same batches in the same order).
SAMPLES = {"host": 7040 * 32, "qemu-virt-a53": 176 * 32}
RUNS = {"mlp": {"host": (1, 2, 8), "qemu-virt-a53": (1, 2, 4, 8)}, "mlp-wide": {"host": (1, 2)}}
HIDDEN = {"mlp": 128, "mlp-wide": 1024}
BATCH = {"mlp": 32, "mlp-wide": 256}  # prepare_digits.py's DEFAULT_BATCH
TRAINING_IMAGES = 1437
CATEGORIES = ("compute", "collective", "infeed_wait", "host_call")
PYTHON = "/usr/bin/python3"  # Debian's, with python3-numpy and python3-sklearn (never the first on PATH)


def line(bench: str, metric: str, value: float, unit: str, baseline: float | None) -> dict:
    ratio = value / baseline if baseline else None
    return {"bench": bench, "metric": metric, "value": round(value, 4), "unit": unit,
            "baseline": round(baseline, 4) if baseline is not None else None,
            "ratio": round(ratio, 4) if ratio is not None else None}


def train(board: str, cores: int, data: Path, boards: int = 1) -> tuple[float, dict[str, float], dict[str, float]]:
    """(samples/s, shares of the run time, per-core mean seconds per category) of one run; with
    boards > 1 on a pod of that many boards (tpu run --boards), the shares those of task 0's cores."""
    folder = ROOT / "build" / "bench" / "train-digits" / f"{data.name}-{board}-{boards}x{cores}"
    folder.mkdir(parents=True, exist_ok=True)
    for source in data.iterdir():  # the prepared run: model.txt, initial weights, batches
        (folder / source.name).write_bytes(source.read_bytes())
    trace = folder / "trace.json"
    # The host board's cores bound to CPUs of their own, as the other benchmarks bind (cpu_sharing.hpp).
    binding = ["--bind-to", "core"] if board == "host" else []
    pod = ["--boards", str(boards)] if boards > 1 else []
    command = [str(TPU), "run", *pod, "--board", board, "--cores", str(cores), *binding, "--timeout", "1200", "--trace",
               str(trace), "--outfeed-dir", str(folder), "--infeed",
               f"0={folder / 'infeed_x.npy'},{folder / 'infeed_y.npy'}", "train-digits"]
    ran = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, errors="replace", timeout=1500)
    if ran.returncode != 0:
        sys.stderr.write(ran.stdout[-3000:] + ran.stderr[-3000:])
        last = [text.strip() for text in (ran.stdout + ran.stderr).splitlines() if text.strip()][-1:]
        raise RuntimeError(f"training benchmark: {' '.join(command)} exited with status {ran.returncode}"
                           + (f": {last[0]}" if last else ""))
    with open(folder / "train.csv") as file:
        rows = list(csv.DictReader(file))
    first, last = rows[7], rows[-1]  # rows 0..7: the first launch, reported at its end
    batch = int((folder / "model.txt").read_text().split()[2])
    samples_per_s = (int(last["step"]) - int(first["step"])) * batch / (float(last["seconds"]) - float(first["seconds"]))
    totals = trace_totals(trace if boards == 1 else trace.with_name("trace.task-0.json"))
    seconds = {category: sum(core.get(category, 0.0) for core in totals.values()) / max(len(totals), 1) / 1e9
               for category in ("run", *CATEGORIES)}
    return samples_per_s, time_shares(totals), seconds


def trace_totals(trace: Path) -> dict[int, dict[str, float]]:
    """Per core, the nanoseconds of each category (the trace's 'total:' counters)."""
    totals: dict[int, dict[str, float]] = {}
    for event in json.loads(trace.read_text())["traceEvents"]:
        name = event.get("name", "")
        if event.get("ph") == "C" and " total:" in name:
            core, category = int(name.split()[1]), name.split("total:")[1]
            totals.setdefault(core, {})[category] = float(event["args"]["value"])
    return totals


def time_shares(totals: dict[int, dict[str, float]]) -> dict[str, float]:
    """Mean over cores of each category's share of the core's run time."""
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


def steps_of(model: str, board: str) -> int:
    return SAMPLES[board] // BATCH[model]


def prepare_data(model: str, steps: int) -> Path:
    """Builds tpu and `steps` batches of `model` (prepare_digits.py under Debian's python3)."""
    subprocess.run(["make", "-s", "tpu"], cwd=ROOT, check=True, capture_output=True, text=True, timeout=1200)
    data = ROOT / "build" / "bench" / "train-digits" / f"data-{model}-{steps}"
    epochs = -(-steps // (TRAINING_IMAGES // BATCH[model]))  # whole batches per epoch of the training images
    subprocess.run([PYTHON, str(APP / "prepare_digits.py"), str(data), "--model", model, "--epochs", str(epochs),
                    "--steps", str(steps)], check=True, capture_output=True, text=True, timeout=300)
    return data


def baseline_rates(data: Path) -> dict[str, float]:
    """{"numpy": samples/s, "pytorch": samples/s} of tests/bench/train_baselines.py on `data`."""
    ran = subprocess.run([PYTHON, str(ROOT / "tests" / "bench" / "train_baselines.py"), str(data)], capture_output=True,
                         text=True, timeout=600)
    if ran.returncode != 0:
        raise RuntimeError(f"training benchmark: train_baselines.py {data} failed: {ran.stderr.strip()[-400:]}")
    rates = {}
    for text in ran.stdout.splitlines():
        name, _, value = text.partition(":")
        rates[{"numpy": "numpy", "torch": "pytorch"}[name.strip()]] = float(value.split()[0].replace(",", ""))
    return rates


FMA_PEAK = ROOT / "build" / "bench" / "fma_peak"


def ymm_rate(output: str) -> float:
    for text in output.splitlines():
        if text.startswith("{") and "vfmadd231ps ymm" in text:
            return float(json.loads(text)["value"])
    raise RuntimeError("training benchmark: fma_peak printed no vfmadd231ps ymm line")


def fma_peak_ymm() -> float:
    """The core's vfmadd231ps ymm rate in GFLOP/s (tests/bench/baselines/fma_peak.cpp), one thread."""
    FMA_PEAK.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["g++", "-std=c++20", "-O2", str(ROOT / "tests" / "bench" / "baselines" / "fma_peak.cpp"), "-o",
                    str(FMA_PEAK)], check=True, timeout=300)
    return ymm_rate(subprocess.run([str(FMA_PEAK)], capture_output=True, text=True, check=True, timeout=600).stdout)


def fma_peak_every_cpu_at_once(cpus: int) -> float:
    """The machine's vfmadd231ps ymm rate with one fma_peak pinned to each CPU, all at once (GFLOP/s,
    summed): what a data-parallel step bound by the FMA units can reach on every core together. On a
    VM it moves with the neighbours: on this 2-vCPU VM 1.9-2.7x one CPU's in four tries, and once
    1.0x (each CPU at half its peak while the other computed)."""
    runs = [subprocess.Popen([str(FMA_PEAK)], stdout=subprocess.PIPE, text=True,
                             preexec_fn=lambda cpu=cpu: os.sched_setaffinity(0, {cpu})) for cpu in range(cpus)]
    return sum(ymm_rate(run.communicate(timeout=600)[0]) for run in runs)


FMA_BOUND_RUNS = 3  # a bound is the best the core reaches: the best of a few 1-second measurements


def emulated_fma_bound(cores: int = 1) -> float:
    """qemu-virt-a53's floating-point bound in GFLOP/s: `cores` cores each running the MXU kernel's own
    fmla mix at the same time (tests/bench/bench-fma-bound), their rates summed, the best of
    FMA_BOUND_RUNS runs in this run (one core's second moved between 0.126 and 0.166 GFLOP/s over a
    day on this VM)."""
    command = [str(TPU), "run", "--board", "qemu-virt-a53", "--cores", str(cores), "--timeout", "300",
               str(ROOT / "tests" / "bench" / "bench-fma-bound")]
    name = "1core" if cores == 1 else f"{cores}cores/core[0-9]+"
    rates = []
    for _ in range(FMA_BOUND_RUNS):
        ran = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, errors="replace", timeout=600)
        found = re.findall(rf'BENCH (\{{"bench":"fma_bound/qemu-virt-a53/{name}".*\}})$', ran.stdout + ran.stderr, re.M)
        if ran.returncode != 0 or len(found) != cores:
            raise RuntimeError(f"training benchmark: {' '.join(command)} exited {ran.returncode} with "
                               f"{len(found)} of its {cores} BENCH lines")
        rates.append(sum(float(json.loads(entry)["value"]) for entry in found))
    return max(rates)


def matmul_flops_per_replica_step(model: str, replicas: int) -> float:
    """The MLP's five matmuls on one replica's shard (b rows): x w1, h w2, h^T dlogits, dlogits w2^T,
    x^T dh = b * hidden * (64 + 10 + 10 + 10 + 64) multiply-adds, two FLOPs each."""
    rows = BATCH[model] // replicas
    return 2.0 * rows * HIDDEN[model] * (64 + 10 + 10 + 10 + 64)


def print_line(entry: dict) -> None:
    print(json.dumps(entry), flush=True)


def training_results(record: Callable[[dict], None] = print_line, mxu_gemm: float | None = None) -> list[dict]:
    """Every run of RUNS; each run's lines go to `record` as soon as it ends. Returns them all.
    mxu_gemm: the MXU's own float32 GEMM rate at 512^3 in this run (GFLOP/s; benchmarks.py measures
    it), for the vs_mxu_gemm lines."""
    cpus = os.cpu_count() or 1
    peak = fma_peak_ymm()
    results = []

    def emit(entries: list[dict]) -> None:
        for entry in entries:
            record(entry)
        results.extend(entries)

    # The ceiling of any speed-up from more host cores on an FMA-bound step: ratio = how many one-CPU
    # peaks the machine gives with every CPU computing.
    emit([line(f"fma-peak/ymm/every-cpu-at-once/{cpus}cpus", "gflops", fma_peak_every_cpu_at_once(cpus), "GFLOP/s", peak)])

    for model, boards in RUNS.items():
        host_data = prepare_data(model, steps_of(model, "host"))
        before = baseline_rates(host_data)
        runs = []
        for board, core_counts in boards.items():
            data = host_data if board == "host" else prepare_data(model, steps_of(model, board))
            one_core = None
            for cores in core_counts:
                # A QEMU board's bound measured right before and right after its run (this VM's speed
                # moves within minutes): the better of the two, so the ratio never flatters the run.
                # With several cores that each have a CPU, also what they reach computing all at once.
                every = board == "qemu-virt-a53" and 1 < cores <= cpus
                bound = emulated_fma_bound() if board == "qemu-virt-a53" else peak
                all_cores = emulated_fma_bound(cores) if every else None
                rate, shares, seconds = train(board, cores, data)
                if board == "qemu-virt-a53":
                    bound = max(bound, emulated_fma_bound())
                if every:
                    all_cores = max(all_cores, emulated_fma_bound(cores))
                one_core = one_core or rate
                runs.append((board, cores, rate, shares, seconds, one_core, bound, all_cores))
        after = baseline_rates(host_data)
        base = {name: max(before[name], after[name]) for name in before}
        emit([line(f"train-digits/{model}/{name}/1thread/{cpus}cpus", "samples_per_s", rate, "samples/s", None)
              for name, rate in base.items()])
        for board, cores, rate, shares, seconds, one_core, bound, all_cores in runs:
            bench = f"train-digits/{model}/{board}/{cores}cores/{cpus}cpus"
            lines = [line(bench, "samples_per_s", rate, "samples/s", one_core),
                     line(bench, "vs_pytorch", rate, "samples/s", base["pytorch"]),
                     line(bench, "vs_numpy", rate, "samples/s", base["numpy"]),
                     line(bench, "scaling_efficiency", rate / one_core / cores, "fraction", None),
                     *(line(bench, f"share_{category}", share, "fraction of run time", None)
                       for category, share in shares.items())]
            if seconds["compute"] > 0:  # the MXU's rate while the step computes, against the core's bound
                flops = matmul_flops_per_replica_step(model, cores) * steps_of(model, board)
                lines.append(line(bench, "mxu_gflops", flops / seconds["compute"] / 1e9, "GFLOP/s", bound))
                if board == "host" and mxu_gemm:  # against the MXU's own large-GEMM rate, same run
                    lines.append(line(bench, "vs_mxu_gemm", flops / seconds["compute"] / 1e9, "GFLOP/s", mxu_gemm))
            per_sample = matmul_flops_per_replica_step(model, 1) / BATCH[model]
            if board == "qemu-virt-a53":  # samples/s against what the emulated bound allows on `cores` cores
                lines.append(line(bench, "vs_fma_bound", rate, "samples/s", bound * 1e9 * cores / per_sample))
            if all_cores is not None:  # the cores' measured rate computing at once (ratio: the speed-up's ceiling here)
                lines.append(line(f"fma_bound/{board}/every-core-at-once/{cores}cores/{cpus}cpus", "gflops", all_cores,
                                  "GFLOP/s", bound))
                lines.append(line(bench, "vs_every_core_bound", rate, "samples/s", all_cores * 1e9 / per_sample))
            emit(lines)
    return results


def pod_training_results(record: Callable[[dict], None] = print_line) -> list[dict]:
    """The MLP on host boards as a pod (issue 22): 1 board of 1 and of 2 cores, 2 boards of 1 and of 2
    cores (the same global batch of 32, split over every replica of the pod); samples/s against 1x1
    in this run, and where task 0's cores spend their time."""
    cpus = os.cpu_count() or 1
    data = prepare_data("mlp", steps_of("mlp", "host"))
    results = []
    one = None
    for boards, cores in ((1, 1), (1, 2), (2, 1), (2, 2)):
        rate, shares, _ = train("host", cores, data, boards)
        one = one or rate
        bench = f"train-digits/mlp/host/{boards}x{cores}/{cpus}cpus"
        entries = [line(bench, "samples_per_s", rate, "samples/s", one),
                   *(line(bench, f"share_{category}", share, "fraction of run time", None)
                     for category, share in shares.items())]
        for entry in entries:
            record(entry)
        results.extend(entries)
    return results


if __name__ == "__main__":
    training_results()
