#!/usr/bin/python3
"""`make bench`: runs every benchmark part and records one JSON object per result line.

Each line is {"bench", "metric", "value", "unit", "baseline", "ratio"}: the ratio compares the value
with a baseline measured in the same run (these machines are noisy, absolute numbers are not).

How results are kept (nothing measured is lost to a later failure):
  - every line is printed and appended to build/bench/results.jsonl (flushed) as soon as it is
    measured; the previous run's file is kept as results.previous.jsonl;
  - each part runs under its own guard: a part that fails (an exception, a command's non-zero exit
    or timeout, a missing tool) is reported on stderr as one line "bench: part P FAILED: why" and
    recorded as {"bench": P, "metric": "failed", "error": why, ...}; the other parts still run, and
    the exit status is 1 once all parts ran if any failed;
  - Python that needs NumPy/sklearn always runs as /usr/bin/python3 (Debian's, where python3-numpy
    and python3-sklearn are: tests/bench/*.py start it so), never as whichever python3 is first on
    PATH. This script itself needs only the standard library.

The parts (--only PART, repeatable, runs just those and writes build/bench/results-only-<parts>.jsonl;
gemm includes peak: its lines need it):
  allreduce  host, 2 cores (threads): all-reduce f32 algbw/busbw (NCCL's busbw = algbw x 2(n-1)/n),
             4 KiB .. 64 MiB, vs the concurrent copy bound (every core copying N bytes at once: the
             bytes an optimal shared-memory all-reduce moves per core) and vs Open MPI MPI_Allreduce
             (2 ranks, shared memory); also 4 and 8 cores/ranks where the machine has the CPUs
             (--allreduce-threads to force). Medians of many short batches pooled over --rounds runs
             interleaved with MPI's (ours+copies, MPI, MPI, ours+copies, ...), min/max = fastest/slowest
             batch, per-round ratios, a machine line (CPU, CPUs, load before and after); a table on
             stderr. Host cores pin themselves one per CPU where there are enough, as mpirun binds ranks
  mailbox    host: mailbox round trip vs raw atomic ping-pongs (one line; one line per direction),
             and small tensors: a 2-core all_reduce of 4 and 38,448 bytes vs a round trip + a memcpy
             (bench-small-tensors); batches interleaved, medians pooled over --rounds runs
  peak       host, 1 thread: the core's peak (tests/bench/baselines/fma_peak.cpp: independent vfmadd231ps
             zmm/ymm, vdpbf16ps, vpdpbusd zmm/ymm, vpdpwssd chains; GFLOP/s and GOP/s)
  gemm       host, 1 thread: MXU GEMM (tests/bench/baselines/gemm_baselines.cpp) float32, int8, bfloat16 vs
             OpenBLAS cblas_sgemm (its "Core:" kernel from OPENBLAS_VERBOSE=2 as "openblas_core"),
             oneDNN dnnl_sgemm / dnnl_gemm_u8s8s32 / dnnl_gemm_s8s8s32 / matmul, each line with
             "best_library", "peak" and "ratio_to_peak"; a "machine" line
  qemu       QEMU -icount shift=0,sleep=off (deterministic): instructions per reduced f32 element, 8
             and 16 cores, and MXU instructions per MAC (256^3, 1 core, f32/bf16/int8), both QEMU boards
  link       the host link (tests/bench/link_throughput.py)
  training   the digits classifier's samples/s and scaling on host and qemu-virt-a53, step-time
             shares (tests/bench/training.py)
  pod        cross_replica_sum across 2 boards of a pod (host and qemu-virt-a53) against Open MPI's
             MPI_Allreduce between 2 processes (tests/bench/pod_allreduce.py), and train-digits on pods
             of host boards (1x1, 1x2, 2x1, 2x2 boards x cores, tests/bench/training.py)

  /usr/bin/python3 tests/bench/benchmarks.py --only gemm
  /usr/bin/python3 tests/bench/benchmarks.py --only allreduce --only mailbox [--rounds 7] [--allreduce-threads 2,4]
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent.parent
RESULTS = ROOT / "build" / "bench" / "results.jsonl"
BENCH_LINE = re.compile(r"BENCH (\{.*\})\s*$")
SIZE_IN_NAME = re.compile(r"/(\d+)KiB$")
sys.path.insert(0, str(ROOT / "tests"))  # qemu_runner.py, app_tests.py


class BenchError(Exception):
    """A benchmark part that cannot go on; the message says why (it ends that part only)."""


def last_line(text: str | bytes | None) -> str:
    """The last non-empty line of a command's output (what usually says why it failed)."""
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def run(command: list[str], timeout_s: int) -> str:
    """Runs a command from the repository root; its output, or BenchError with its last lines."""
    result = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, text=True, errors="replace", timeout=timeout_s)
    if result.returncode != 0:
        sys.stderr.write(result.stdout[-4000:])
        raise BenchError(f"{shlex.join(command)} exited with status {result.returncode}: {last_line(result.stdout)}")
    return result.stdout


def device_output(board: str, app: str, cores: int, extra_qemu: tuple[str, ...] = (), timeout_s: int = 600) -> str:
    """Builds and runs a bench app; returns its console output."""
    run(["make", "-s", "-j2", "image", f"BOARD={board}", f"APP={app}"], 600)
    command = run(["make", "-s", "print-run-command", f"BOARD={board}", f"CORES={cores}", f"APP={app}"], 60).split()
    return run(command + list(extra_qemu), timeout_s)


def device_results(board: str, app: str, cores: int, extra_qemu: tuple[str, ...] = (), timeout_s: int = 600) -> list[dict]:
    """Builds and runs a bench app; returns the JSON objects of its BENCH lines."""
    output = device_output(board, app, cores, extra_qemu, timeout_s)
    lines = [json.loads(m.group(1)) for m in map(BENCH_LINE.search, output.splitlines()) if m]
    if not lines:
        sys.stderr.write(output[-2000:])
        raise BenchError(f"{app} on {board} printed no BENCH lines")
    return lines


# ---------------------------------------------------------------- all-reduce and mailbox (host)
# Both are measured in ROUNDS runs, interleaved with their baselines, and every figure is the
# median over all the short timed batches of all runs (the apps time many ~1 ms batches; a batch
# the OS preempted is an outlier, not the result), with the fastest and slowest batch as min/max.
#   all-reduce, per round: one bench-allreduce run (ours, memcpy and a copy loop alternating batch
#     by batch, size by size) and one Open MPI run (tests/bench/baselines/mpi_allreduce.sh: the same sizes,
#     warm-up rule and batch length); the two alternate which goes first from round to round.
#   mailbox, per round: one bench-mailbox run (mailbox, one-line and line-per-direction ping-pongs
#     alternating batch by batch).
SAMPLES_LINE = re.compile(r"SAMPLES (\{.*\})\s*$")
ROUNDS = 5
COPY_BOUND = ("concurrent copy bound: every core copies N bytes (its input to its output) at the same time, "
              "which is what an optimal shared-memory all-reduce must move per core (all n inputs read and all "
              "n outputs written once, spread over n cores: N bytes read + N written per core); the fastest of "
              "memcpy, a vector copy loop and that loop with non-temporal stores, median of its batches")


def device_samples(output: str) -> dict[tuple[str, str], list[int]]:
    """{(bench, contender): picoseconds per operation of each batch} from an app's SAMPLES lines."""
    samples: dict[tuple[str, str], list[int]] = {}
    for match in map(SAMPLES_LINE.search, output.splitlines()):
        if match:
            entry = json.loads(match.group(1))
            samples.setdefault((entry["bench"], entry["contender"]), []).extend(entry["ps"])
    return samples


def median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else 0.5 * (ordered[middle - 1] + ordered[middle])


def cpu_busy_percent(seconds: float = 1.0) -> float:
    """How busy all CPUs were over `seconds` (run before a benchmark: what else is running)."""
    def snapshot() -> tuple[int, int]:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        idle = fields[3] + fields[4]
        return sum(fields[:8]) - idle, sum(fields[:8])
    busy1, total1 = snapshot()
    time.sleep(seconds)
    busy2, total2 = snapshot()
    return 100.0 * (busy2 - busy1) / max(total2 - total1, 1)


def machine_line(part: str, busy: float, load_before: list[float]) -> dict:
    """The machine the host figures come from, and how loaded it was."""
    cpuinfo = Path("/proc/cpuinfo").read_text()
    model = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.MULTILINE)
    family = re.search(r"^cpu family\s*:\s*(\d+)$", cpuinfo, re.MULTILINE)
    cpu_model = re.search(r"^model\s*:\s*(\d+)$", cpuinfo, re.MULTILINE)
    hypervisor = "hypervisor" in cpuinfo.split("flags", 1)[-1].split("\n", 1)[0]
    return {"bench": f"machine/{part}", "cpu": model.group(1).strip() if model else platform.processor(),
            "cpu_family": int(family.group(1)) if family else None, "cpu_model": int(cpu_model.group(1)) if cpu_model else None,
            "cpus": os.cpu_count(), "virtual_machine": hypervisor, "kernel": platform.release(),
            "cpu_busy_percent_before": round(busy, 1), "loadavg_before": load_before,
            "loadavg_after": [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]}


def mpi_samples(ranks: int) -> tuple[dict[int, list[int]], str]:
    """One Open MPI run: {size_bytes: picoseconds per call of each batch}, and its version."""
    output = run(["env", f"MPI_BENCH_NP={ranks}", "bash", "tests/bench/baselines/mpi_allreduce.sh"], 300)
    # run() merges stderr in: the script's notes (a busy machine, build output) are not JSON lines.
    entries = [json.loads(line) for line in output.splitlines() if line.startswith('{"size_bytes"')]
    samples = {entry["size_bytes"]: entry["samples_ps"] for entry in entries}
    version = run(["bash", "-c", "mpirun --version 2>&1 | head -1"], 30).strip()
    return samples, version


def stats(picoseconds: list[int], size: int, factor: float = 1.0) -> dict:
    """Median, min and max bandwidth (GB/s) of per-operation times."""
    def gbps(ps: float) -> float:
        return size / ps * 1e3 * factor
    return {"value": gbps(median(picoseconds)), "min": gbps(max(picoseconds)), "max": gbps(min(picoseconds))}


def mpi_comparison(bench: str, size: int, ours: list[int], mpi: list[int], version: str, ranks: int,
                   per_round: list[float]) -> dict:
    """Our all-reduce against MPI_Allreduce at one size: algbw medians over the pooled batches."""
    mine = stats(ours, size)
    theirs = stats(mpi, size)
    bus = 2.0 * (ranks - 1) / ranks if ranks > 1 else 1.0
    return {"bench": bench, "metric": "algbw", **mine, "unit": "GB/s",
            "baseline": f"MPI_Allreduce ({version}, {ranks} ranks, shared memory)",
            "ratio": mine["value"] / theirs["value"], "baseline_value": theirs["value"],
            "baseline_min": theirs["min"], "baseline_max": theirs["max"],
            "busbw": mine["value"] * bus, "baseline_busbw": theirs["value"] * bus,
            "ratio_per_round": [round(r, 3) for r in per_round], "samples": len(ours), "baseline_samples": len(mpi)}


# bench-allreduce's copy contenders: the bound is the fastest of them (the median of its batches).
COPY_CONTENDERS = ("memcpy", "copy_loop", "streaming_copy_loop")


def size_in_name(bench: str) -> int:
    """The buffer size in bytes of an all-reduce line ("allreduce_f32/host/2cores/1024KiB")."""
    return int(SIZE_IN_NAME.search(bench).group(1)) * 1024


def allreduce_results(threads: int, rounds: int) -> list[dict]:
    """bench-allreduce on the host board with `threads` cores, against the copy bound and Open MPI."""
    ours: dict[tuple[str, str], list[int]] = {}
    mpi: dict[int, list[int]] = {}
    per_round: dict[int, list[float]] = {}        # ours / MPI, algbw, round by round
    bound_per_round: dict[int, list[float]] = {}  # ours / copy bound, round by round
    version = ""
    for r in range(rounds):
        for step in ("device", "mpi") if r % 2 == 0 else ("mpi", "device"):
            if step == "device":
                round_ours = device_samples(device_output("host", "bench-allreduce", threads))
                for key, values in round_ours.items():
                    ours.setdefault(key, []).extend(values)
            else:
                round_mpi, version = mpi_samples(threads)
                for size, values in round_mpi.items():
                    mpi.setdefault(size, []).extend(values)
        for (bench, contender), values in round_ours.items():  # this round's ratios per size
            if contender != "ours":
                continue
            size = size_in_name(bench)
            if size in round_mpi:
                per_round.setdefault(size, []).append(median(round_mpi[size]) / median(values))
            copies = [median(round_ours[(bench, name)]) for name in COPY_CONTENDERS if (bench, name) in round_ours]
            bound_per_round.setdefault(size, []).append(min(copies) / median(values))
    lines = []
    bus = 2.0 * (threads - 1) / threads if threads > 1 else 1.0
    for (bench, contender), values in sorted(ours.items(), key=lambda item: size_in_name(item[0][0])):
        if contender != "ours":
            continue
        size = size_in_name(bench)
        copies = {name: ours[(bench, name)] for name in COPY_CONTENDERS if (bench, name) in ours}
        fastest = min(copies, key=lambda name: median(copies[name]))
        for metric, factor in (("algbw", 1.0), ("busbw", bus)):
            mine = stats(values, size, factor)
            bound = stats(copies[fastest], size, factor)
            lines.append({"bench": bench, "metric": metric, **mine, "unit": "GB/s", "baseline": COPY_BOUND,
                          "ratio": mine["value"] / bound["value"], "baseline_value": bound["value"],
                          "baseline_min": bound["min"], "baseline_max": bound["max"],
                          "bound_copy": fastest.replace("_", " "),
                          "memcpy_value": stats(copies["memcpy"], size, factor)["value"] if "memcpy" in copies else None,
                          "ratio_per_round": [round(r, 3) for r in bound_per_round.get(size, [])],
                          "samples": len(values), "rounds": rounds})
        if size in mpi:
            lines.append(mpi_comparison(bench, size, values, mpi[size], version, threads, per_round.get(size, [])))
    return lines


def mailbox_results(rounds: int) -> list[dict]:
    """bench-mailbox on the host board: the round trip against the raw ping-pongs, pooled over rounds."""
    samples: dict[tuple[str, str], list[int]] = {}
    for _ in range(rounds):
        for key, values in device_samples(device_output("host", "bench-mailbox", 2)).items():
            samples.setdefault(key, []).extend(values)
    lines = []
    baselines = {"line_per_direction": "raw atomic ping-pong, one line per direction",
                 "one_line": "raw atomic ping-pong, one shared line"}
    for (bench, contender), values in samples.items():
        if contender != "mailbox":
            continue
        for name, text in baselines.items():
            base = samples[(bench, name)]
            value = median(values) * 1e-3
            lines.append({"bench": bench, "metric": "latency", "value": value, "min": min(values) * 1e-3,
                          "max": max(values) * 1e-3, "unit": "ns", "baseline": text,
                          "ratio": value / (median(base) * 1e-3), "baseline_value": median(base) * 1e-3,
                          "baseline_min": min(base) * 1e-3, "baseline_max": max(base) * 1e-3,
                          "samples": len(values), "rounds": rounds})
    return lines


SMALL_TENSORS_BASELINE = "mailbox round trip + memcpy of the same bytes (both measured in the same runs)"


def small_tensor_results(rounds: int) -> list[dict]:
    """bench-small-tensors on the host board: a 2-core all_reduce of a scalar and of the MLP's 38,448
    bytes of gradients and metrics against a mailbox round trip plus a memcpy of the same bytes,
    pooled over rounds (the apps' batch medians; min/max the fastest and slowest batch)."""
    samples: dict[tuple[str, str], list[int]] = {}
    for _ in range(rounds):
        for key, values in device_samples(device_output("host", "bench-small-tensors", 2)).items():
            samples.setdefault(key, []).extend(values)
    lines = []
    for bench in sorted({bench for bench, _ in samples}, key=lambda name: int(name.rsplit("/", 1)[1][:-1])):
        ours, trip, copy = (samples[(bench, contender)] for contender in ("all_reduce", "round_trip", "copy"))
        value, base = median(ours) * 1e-3, (median(trip) + median(copy)) * 1e-3
        lines.append({"bench": bench, "metric": "latency", "value": value, "min": min(ours) * 1e-3,
                      "max": max(ours) * 1e-3, "unit": "ns", "baseline": SMALL_TENSORS_BASELINE,
                      "ratio": value / base, "baseline_value": base, "round_trip_ns": median(trip) * 1e-3,
                      "copy_ns": median(copy) * 1e-3, "samples": len(ours), "rounds": rounds})
    return lines


def print_host_table(lines: list[dict]) -> None:
    """A readable summary of the all-reduce and mailbox lines on stderr (the JSON goes to stdout)."""
    rows = {}
    for entry in lines:
        bench = entry.get("bench", "")
        if bench.startswith("allreduce_f32/host/") and entry.get("metric") == "algbw":
            row = rows.setdefault(bench, {})
            row["mpi" if str(entry["baseline"]).startswith("MPI_Allreduce") else "bound"] = entry
        elif bench.startswith("machine/"):
            print(f"{bench}: {entry['cpu']}, {entry['cpus']} CPUs{' (VM)' if entry['virtual_machine'] else ''}, "
                  f"{entry['cpu_busy_percent_before']}% busy before, load {entry['loadavg_before']} -> "
                  f"{entry['loadavg_after']}", file=sys.stderr)
        elif bench.startswith("small_tensors/"):
            print(f"{bench}: all_reduce {entry['value']:.0f} ns [{entry['min']:.0f}, {entry['max']:.0f}] vs round trip "
                  f"{entry['round_trip_ns']:.0f} + copy {entry['copy_ns']:.0f} ns: {entry['ratio']:.2f}x", file=sys.stderr)
        elif bench.startswith("mailbox_roundtrip/"):
            print(f"{bench}: {entry['value']:.0f} ns [{entry['min']:.0f}, {entry['max']:.0f}] vs {entry['baseline']} "
                  f"{entry['baseline_value']:.0f} ns [{entry['baseline_min']:.0f}, {entry['baseline_max']:.0f}]: "
                  f"{entry['ratio']:.2f}x", file=sys.stderr)
    if rows:
        print(f"{'all-reduce algbw GB/s':34} {'ours median [min, max]':>26} {'MPI median [min, max]':>24} "
              f"{'copy bound':>10} {'/bound':>7} {'/MPI':>6}  per round: /MPI (/bound)", file=sys.stderr)
    for bench, row in rows.items():
        bound, mpi = row.get("bound"), row.get("mpi")
        if not bound:
            continue
        ours = f"{bound['value']:.2f} [{bound['min']:.2f}, {bound['max']:.2f}]"
        theirs = f"{mpi['baseline_value']:.2f} [{mpi['baseline_min']:.2f}, {mpi['baseline_max']:.2f}]" if mpi else "-"
        versus = f"{mpi['ratio']:.2f}" if mpi else "-"
        rounds = ", ".join(f"{r:.2f}" for r in mpi["ratio_per_round"]) if mpi else ""
        rounds += "  (/bound: " + ", ".join(f"{r:.2f}" for r in bound["ratio_per_round"]) + ")"
        print(f"{bench:34} {ours:>26} {theirs:>24} {bound['baseline_value']:10.2f} {bound['ratio']:7.2f} {versus:>6}  {rounds}",
              file=sys.stderr)


# The MXU and what it calls: the dtype folder whole (a new error text there broke this list once).
GEMM_SOURCES = ["tests/bench/baselines/gemm_baselines.cpp", "runtime/mxu/mxu.cpp", "runtime/tensor/shape.cpp",
                "runtime/tensor/tensor.cpp", "hal/support/format.cpp", "hal/support/status.cpp",
                *sorted(str(path.relative_to(ROOT)) for folder in ("runtime/dtype", "runtime/mxu/kernels")
                        for path in (ROOT / folder).glob("*.cpp"))]
# One thread for every contender (the MXU is single-threaded): oneDNN runs on OpenMP in Debian's build.
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
OPENBLAS_CORE = re.compile(r"^Core: (.+?)\s*$", re.MULTILINE)


def peak_results() -> list[dict]:
    """The core's multiply-add peak per data type (tests/bench/baselines/fma_peak.cpp), one thread."""
    binary = "build/bench/fma_peak"
    (ROOT / "build" / "bench").mkdir(parents=True, exist_ok=True)
    run(["g++", "-std=c++20", "-O2", "tests/bench/baselines/fma_peak.cpp", "-o", binary], 300)
    output = run(["env", *(f"{k}={v}" for k, v in ONE_THREAD.items()), binary], 600)
    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


def best_peaks(peaks: list[dict]) -> dict[str, dict]:
    """The fastest peak line per data type ("f32", "bf16", "int8", "int16")."""
    best: dict[str, dict] = {}
    for entry in peaks:
        if entry["dtype"] not in best or entry["value"] > best[entry["dtype"]]["value"]:
            best[entry["dtype"]] = entry
    return best


@functools.cache
def build_gemm_baselines() -> str:
    """Compiles the host GEMM benchmark (the runtime's MXU against OpenBLAS and oneDNN), once per
    benchmarks.py run (the gemm and training parts both use it); its path."""
    binary = "build/bench/gemm_baselines"
    (ROOT / "build" / "bench").mkdir(parents=True, exist_ok=True)
    run(["g++", "-std=c++20", "-O2", "-ffp-contract=off", "-mavx2", "-mfma", "-ftree-vectorize", "-fvect-cost-model=dynamic", "-I.",
         "-Ihal/include", *GEMM_SOURCES, "-o", binary, "-lopenblas", "-ldnnl", "-lgomp"], 300)
    return binary


def mxu_gemm_rate() -> float:
    """The MXU's float32 GEMM rate at 512^3 on one thread (GFLOP/s), the gemm part's headline case."""
    binary = build_gemm_baselines()
    result = subprocess.run([binary, "f32:512x512x512"], cwd=ROOT, capture_output=True, stdin=subprocess.DEVNULL,
                            text=True, errors="replace", timeout=600, env={**os.environ, **ONE_THREAD})
    if result.returncode != 0:
        raise BenchError(f"{binary} f32:512x512x512 exited with status {result.returncode}: {last_line(result.stderr)}")
    for text in result.stdout.splitlines():
        entry = json.loads(text) if text.startswith("{") else {}
        if entry.get("bench") == "gemm" and entry.get("metric") == "f32 512x512x512 MXU":
            return float(entry["value"])
    raise BenchError("gemm_baselines f32:512x512x512 printed no MXU line")


def gemm_results(peaks: list[dict]) -> list[dict]:
    """Builds the host GEMM benchmark (runtime MXU vs OpenBLAS and oneDNN), runs it on one thread and
    relates every figure to the core's peak for its data type (`peaks`, from peak_results())."""
    binary = build_gemm_baselines()
    # OPENBLAS_VERBOSE=2: OpenBLAS names the kernel set it picked for this CPU ("Core: Haswell") on stderr.
    result = subprocess.run([binary], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            text=True, errors="replace", timeout=900,
                            env={**os.environ, **ONE_THREAD, "OPENBLAS_VERBOSE": "2"})
    if result.returncode != 0:
        sys.stderr.write(result.stdout[-2000:] + result.stderr[-4000:])
        raise BenchError(f"{binary} exited with status {result.returncode}: {last_line(result.stderr)}")
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    core = OPENBLAS_CORE.search(result.stderr)
    machine = next(entry for entry in lines if entry["bench"] == "machine")
    # A build without DYNAMIC_ARCH prints no "Core:" line; its compiled-in name is all there is then.
    openblas_core = core.group(1) if core else f"{machine['openblas_corename']} (openblas_get_corename)"
    best = best_peaks(peaks)
    machine["openblas_core"] = openblas_core
    machine["peaks"] = {dtype: {"value": entry["value"], "unit": entry["unit"], "instruction": entry["instruction"]}
                        for dtype, entry in best.items()}
    for entry in lines:
        if entry["bench"] != "gemm" or entry.get("value") is None:  # (a library excluded as wrong here)
            continue
        entry["openblas_core"] = openblas_core
        peak = best.get(entry["peak_dtype"])
        if peak is None:  # no peak measured for this type on this CPU (e.g. no AVX512_BF16): use float32's
            peak = best.get("f32")
        if peak is None:
            continue
        entry["peak"] = peak["value"]
        entry["peak_instruction"] = f"{peak['instruction']} ({peak['isa']}), {peak['chains']} chains, {peak['unit']}"
        entry["ratio_to_peak"] = entry["value"] / peak["value"]
        if entry["baseline"] == "peak":  # library lines: the baseline is the core's peak
            entry["baseline"] = f"core peak: {peak['instruction']} ({peak['isa']})"
            entry["ratio"] = entry["ratio_to_peak"]
    return lines


# ---------------------------------------------------------------- recording and the parts' guards
class Results:
    """The run's result lines: each is printed and appended to the results file (flushed) at once."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():  # a new run starts its own file; the last one's stays beside it
            path.replace(path.with_name(path.name.replace(".jsonl", ".previous.jsonl")))
        self.path = path
        self.file = path.open("a")
        self.count = 0
        self.failed: dict[str, str] = {}

    def record(self, entry: dict) -> None:
        line = json.dumps(entry)
        print(line, flush=True)
        self.file.write(line + "\n")
        self.file.flush()
        self.count += 1

    def fail(self, part: str, why: str) -> None:
        self.failed[part] = why
        print(f"bench: part {part} FAILED: {why}", file=sys.stderr, flush=True)
        self.record({"bench": part, "metric": "failed", "value": None, "unit": None, "baseline": None,
                     "ratio": None, "error": why})


@dataclass
class Options:
    """What the parts need: the recorder, the command line, and the peaks the gemm part relates to."""
    record: Callable[[dict], None]
    rounds: int
    allreduce_threads: list[int] | None
    peaks: list[dict] = field(default_factory=list)


def why_it_failed(error: BaseException) -> str:
    """One line: which command or tool failed and how."""
    if isinstance(error, subprocess.CalledProcessError):
        command = error.cmd if isinstance(error.cmd, str) else shlex.join(map(str, error.cmd))
        detail = last_line(error.stderr) or last_line(error.stdout)
        return f"{command} exited with status {error.returncode}" + (f": {detail}" if detail else "")
    if isinstance(error, subprocess.TimeoutExpired):
        command = error.cmd if isinstance(error.cmd, str) else shlex.join(map(str, error.cmd))
        return f"{command} did not finish within {error.timeout:g} s (killed)"
    if isinstance(error, FileNotFoundError) and error.filename:
        return f"{error.filename}: not found ({error.strerror})"
    if isinstance(error, BenchError):
        return str(error)
    return f"{type(error).__name__}: {error}".splitlines()[0]


def run_part(part: str, body: Callable[[Options], None], options: Options, results: Results) -> None:
    """Runs one part; a failure is reported and recorded, and the run goes on with the next part."""
    print(f"bench: part {part} ...", file=sys.stderr, flush=True)
    start = time.monotonic()
    try:
        body(options)
    except (Exception, SystemExit) as error:  # SystemExit too: a helper calling sys.exit ends its part only
        if not isinstance(error, (BenchError, RuntimeError, subprocess.SubprocessError, OSError)):
            traceback.print_exc()  # unexpected (a bug?): the stack helps
        results.fail(part, why_it_failed(error))
        return
    print(f"bench: part {part} done in {time.monotonic() - start:.0f} s", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- the parts
def record_host_part(options: Options, part: str, body, *args) -> None:
    """A host part with a machine line (CPU, and the load before and after) first, and its table."""
    load_before = [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]
    busy = cpu_busy_percent()
    lines = [machine_line(part, busy, load_before), *body(*args)]
    for entry in lines:
        options.record(entry)
    print_host_table(lines)


def allreduce_part(options: Options) -> None:
    cpus = os.cpu_count() or 1
    threads = options.allreduce_threads or [2, *(t for t in (4, 8) if t <= cpus)]
    for skipped in sorted({4, 8} - set(threads)) if options.allreduce_threads is None else []:
        options.record({"bench": f"allreduce_f32/host/{skipped}cores", "metric": "skipped",
                        "reason": f"the machine has {cpus} CPUs: {skipped} busy threads and {skipped} MPI ranks "
                                  "would time-share them (--allreduce-threads forces it)"})
    for count in threads:
        record_host_part(options, f"allreduce/{count}cores", allreduce_results, count, options.rounds)


def mailbox_part(options: Options) -> None:
    record_host_part(options, "mailbox", mailbox_results, options.rounds)
    record_host_part(options, "small-tensors", small_tensor_results, options.rounds)


def peak_part(options: Options) -> None:
    options.peaks = peak_results()
    for entry in options.peaks:
        options.record(entry)


def gemm_part(options: Options) -> None:
    for entry in gemm_results(options.peaks):
        options.record(entry)


def qemu_part(options: Options) -> None:
    icount = ("-icount", "shift=0,sleep=off")
    for board in ("qemu-virt-a53", "qemu-virt-rv64"):
        for entry in device_results(board, "bench-mxu", 1, icount):
            options.record(entry)
        for cores in (8, 16):
            for entry in device_results(board, "bench-instructions", cores, icount):
                options.record(entry)


def link_part(options: Options) -> None:
    """Host link throughput, round trips and end-to-end figures on both transports (tests/bench/link_throughput.py)."""
    import link_throughput
    link_throughput.link_results(options.record)


def pod_part(options: Options) -> None:
    """cross_replica_sum across 2 boards of a pod against Open MPI's MPI_Allreduce (tests/bench/pod_allreduce.py),
    and the digits MLP trained on pods of host boards, 1x1, 1x2, 2x1 and 2x2 (tests/bench/training.py)."""
    import pod_allreduce
    import training
    pod_allreduce.pod_results(options.record)
    training.pod_training_results(options.record)


def training_part(options: Options) -> None:
    """The train-digits app's samples/s, scaling and step-time shares (tests/bench/training.py)."""
    import training
    training.training_results(options.record, mxu_gemm=mxu_gemm_rate())


PARTS: dict[str, Callable[[Options], None]] = {
    "allreduce": allreduce_part, "mailbox": mailbox_part, "peak": peak_part, "gemm": gemm_part,
    "qemu": qemu_part, "link": link_part, "training": training_part, "pod": pod_part,
}


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="make bench: every benchmark, JSON lines")
    parser.add_argument("--only", action="append", choices=list(PARTS), help="run only this part (repeatable)")
    parser.add_argument("--rounds", type=int, default=ROUNDS,
                        help=f"allreduce/mailbox: interleaved runs whose batches are pooled (default {ROUNDS})")
    parser.add_argument("--allreduce-threads", type=lambda text: [int(t) for t in text.split(",")], default=None,
                        help="allreduce: host core (thread) counts, e.g. 2,4,8 (default: 2, plus 4 and 8 where the "
                             "machine has that many CPUs)")
    return parser.parse_args()


def main() -> int:
    arguments = parse_arguments()
    only = set(arguments.only or PARTS)
    named = "-".join(part for part in PARTS if part in only)
    path = RESULTS if len(only) == len(PARTS) else RESULTS.with_name(f"results-only-{named}.jsonl")
    selected = [part for part in PARTS if part in only or (part == "peak" and "gemm" in only)]
    results = Results(path)
    options = Options(results.record, arguments.rounds, arguments.allreduce_threads)
    for part in selected:
        run_part(part, PARTS[part], options, results)
    where = path.relative_to(ROOT)
    if results.failed:
        print(f"bench: {results.count} lines in {where}; {len(results.failed)} of {len(selected)} parts FAILED: "
              + "; ".join(f"{part}: {why}" for part, why in results.failed.items()), file=sys.stderr)
        return 1
    print(f"bench: {results.count} lines in {where}; every part ran ({', '.join(selected)})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
