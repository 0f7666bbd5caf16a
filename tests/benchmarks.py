#!/usr/bin/env python3
"""`make bench`: runs every benchmark, prints one JSON object per line and writes them all to
build/bench/results.jsonl.

Each line is {"bench", "metric", "value", "unit", "baseline", "ratio"}: the ratio compares the value
with a baseline measured in the same run (these machines are noisy, absolute numbers are not).

  host, 2 cores (threads): all-reduce f32 algbw/busbw vs concurrent memcpy, 4 KiB .. 64 MiB
                           all-reduce algbw vs Open MPI MPI_Allreduce (2 ranks, shared memory)
                           mailbox round trip vs a raw atomic ping-pong
  host, 1 thread:          the core's peak (tests/bench/fma_peak.cpp: independent vfmadd231ps zmm/ymm,
                           vdpbf16ps, vpdpbusd zmm/ymm, vpdpwssd chains; GFLOP/s and GOP/s)
                           MXU GEMM (tests/bench/gemm_baselines.cpp) float32, int8, bfloat16 vs OpenBLAS
                           cblas_sgemm (its "Core:" kernel from OPENBLAS_VERBOSE=2 as "openblas_core"),
                           oneDNN dnnl_sgemm / dnnl_gemm_u8s8s32 / dnnl_gemm_s8s8s32 / matmul, each
                           line with "best_library", "peak" and "ratio_to_peak"; a "machine" line
  QEMU -icount shift=0,sleep=off (deterministic): instructions per reduced f32 element, 8 and 16 cores,
                           and MXU instructions per MAC (256^3, 1 core, f32/bf16/int8), both QEMU boards
  host link (tests/bench/link_throughput.py) and training (tests/bench/training.py: the digits
                           classifier's samples/s and scaling on host and qemu-virt-a53, step-time shares)

`--only PART` (repeatable; allreduce, mailbox, peak, gemm, qemu, link, training) runs just those parts
and writes build/bench/results-only-<parts>.jsonl instead; gemm includes peak (its lines need it):
  python3 tests/benchmarks.py --only gemm
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "build" / "bench" / "results.jsonl"
BENCH_LINE = re.compile(r"BENCH (\{.*\})\s*$")
SIZE_IN_NAME = re.compile(r"/(\d+)KiB$")


def run(command: list[str], timeout_s: int) -> str:
    """Runs a command from the repository root; fails loudly with its output on error."""
    result = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, text=True, errors="replace", timeout=timeout_s)
    if result.returncode != 0:
        sys.stderr.write(result.stdout[-4000:])
        raise SystemExit(f"benchmark command failed ({result.returncode}): {' '.join(command)}")
    return result.stdout


def device_results(board: str, app: str, cores: int, extra_qemu: tuple[str, ...] = (), timeout_s: int = 600) -> list[dict]:
    """Builds and runs a bench app; returns the JSON objects of its BENCH lines."""
    run(["make", "-s", "-j2", "image", f"BOARD={board}", f"APP={app}"], 600)
    command = run(["make", "-s", "print-run-command", f"BOARD={board}", f"CORES={cores}", f"APP={app}"], 60).split()
    output = run(command + list(extra_qemu), timeout_s)
    lines = [json.loads(m.group(1)) for m in map(BENCH_LINE.search, output.splitlines()) if m]
    if not lines:
        raise SystemExit(f"{app} on {board} printed no BENCH lines:\n{output[-2000:]}")
    return lines


def mpi_comparison(ours: list[dict]) -> list[dict]:
    """Runs the Open MPI baseline and compares algbw size by size."""
    output = run(["bash", "tests/bench/mpi_allreduce.sh"], 300)
    mpi = {entry["size_bytes"]: entry for entry in map(json.loads, filter(None, output.splitlines()))}
    version = run(["bash", "-c", "mpirun --version 2>&1 | head -1"], 30).strip()
    compared = []
    for entry in ours:
        match = SIZE_IN_NAME.search(entry["bench"])
        if entry["metric"] != "algbw" or not match:
            continue
        size = int(match.group(1)) * 1024
        if size not in mpi:
            continue
        compared.append({"bench": entry["bench"], "metric": "algbw", "value": entry["value"], "unit": "GB/s",
                         "baseline": f"MPI_Allreduce ({version}, 2 ranks, shared memory)",
                         "ratio": entry["value"] / mpi[size]["algbw_gbps"],
                         "baseline_value": mpi[size]["algbw_gbps"]})
    return compared


GEMM_SOURCES = ["tests/bench/gemm_baselines.cpp", "runtime/mxu/mxu.cpp", "runtime/tensor/shape.cpp",
                "runtime/tensor/tensor.cpp", "runtime/dtype/dtype.cpp", "runtime/dtype/half.cpp",
                "runtime/support/format.cpp", "runtime/support/status.cpp",
                *sorted(str(path.relative_to(ROOT)) for path in (ROOT / "runtime/mxu/kernels").glob("*.cpp"))]
# One thread for every contender (the MXU is single-threaded): oneDNN runs on OpenMP in Debian's build.
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
OPENBLAS_CORE = re.compile(r"^Core: (.+?)\s*$", re.MULTILINE)


def peak_results() -> list[dict]:
    """The core's multiply-add peak per data type (tests/bench/fma_peak.cpp), one thread."""
    binary = "build/bench/fma_peak"
    (ROOT / "build" / "bench").mkdir(parents=True, exist_ok=True)
    run(["g++", "-std=c++20", "-O2", "tests/bench/fma_peak.cpp", "-o", binary], 300)
    output = run(["env", *(f"{k}={v}" for k, v in ONE_THREAD.items()), binary], 600)
    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


def best_peaks(peaks: list[dict]) -> dict[str, dict]:
    """The fastest peak line per data type ("f32", "bf16", "int8", "int16")."""
    best: dict[str, dict] = {}
    for entry in peaks:
        if entry["dtype"] not in best or entry["value"] > best[entry["dtype"]]["value"]:
            best[entry["dtype"]] = entry
    return best


def gemm_results(peaks: list[dict]) -> list[dict]:
    """Builds the host GEMM benchmark (runtime MXU vs OpenBLAS and oneDNN), runs it on one thread and
    relates every figure to the core's peak for its data type (`peaks`, from peak_results())."""
    binary = "build/bench/gemm_baselines"
    (ROOT / "build" / "bench").mkdir(parents=True, exist_ok=True)
    run(["g++", "-std=c++20", "-O2", "-ffp-contract=off", "-mavx2", "-mfma", "-ftree-vectorize", "-fvect-cost-model=dynamic", "-I.",
         "-Ihal/include", *GEMM_SOURCES, "-o", binary, "-lopenblas", "-ldnnl", "-lgomp"], 300)
    # OPENBLAS_VERBOSE=2: OpenBLAS names the kernel set it picked for this CPU ("Core: Haswell") on stderr.
    result = subprocess.run([binary], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            text=True, errors="replace", timeout=900,
                            env={**os.environ, **ONE_THREAD, "OPENBLAS_VERBOSE": "2"})
    if result.returncode != 0:
        sys.stderr.write(result.stdout[-2000:] + result.stderr[-4000:])
        raise SystemExit(f"benchmark command failed ({result.returncode}): {binary}")
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
        if entry["bench"] != "gemm":
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


def link_throughput_results() -> list[dict]:
    """Host link throughput, round trips and end-to-end figures on both transports (tests/bench/link_throughput.py)."""
    sys.path.insert(0, str(ROOT / "tests" / "bench"))
    import link_throughput
    return link_throughput.link_results()


def training_results() -> list[dict]:
    """The train-digits app's samples/s, scaling and step-time shares (tests/bench/training.py)."""
    sys.path.insert(0, str(ROOT / "tests" / "bench"))
    import training
    return training.training_results()


PARTS = ("allreduce", "mailbox", "peak", "gemm", "qemu", "link", "training")


def main() -> int:
    parser = argparse.ArgumentParser(description="make bench: every benchmark, JSON lines")
    parser.add_argument("--only", action="append", choices=PARTS, help="run only this part (repeatable)")
    only = set(parser.parse_args().only or PARTS)
    results: list[dict] = []
    if "allreduce" in only:
        allreduce = device_results("host", "bench-allreduce", 2)
        results += allreduce
        results += mpi_comparison(allreduce)
    if "mailbox" in only:
        results += device_results("host", "bench-mailbox", 2)
    if only & {"peak", "gemm"}:
        peaks = peak_results()
        results += peaks
        if "gemm" in only:
            results += gemm_results(peaks)
    if "qemu" in only:
        for board in ("qemu-virt-a53", "qemu-virt-rv64"):
            results += device_results(board, "bench-mxu", 1, ("-icount", "shift=0,sleep=off"))
            for cores in (8, 16):
                results += device_results(board, "bench-instructions", cores, ("-icount", "shift=0,sleep=off"))
    if "link" in only:
        results += link_throughput_results()
    if "training" in only:
        results += training_results()
    path = RESULTS if only == set(PARTS) else RESULTS.with_name(f"results-only-{'-'.join(p for p in PARTS if p in only)}.jsonl")
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as out:
        for entry in results:
            line = json.dumps(entry)
            print(line)
            out.write(line + "\n")
    print(f"{len(results)} results written to {path.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
