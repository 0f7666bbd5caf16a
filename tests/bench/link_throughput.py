#!/usr/bin/python3
"""Host link benchmarks (make bench): what moving data between the PC and a QEMU board costs, on the
shared-memory transport and on the UART, against what the same machine does without a board.

The board side is the link-bench app (tests/bench/link-bench), timed with the board's own clock
around each host call, so boot and build never count:
  host -> board   host_call("link_source") returns n bytes (host-call reply frames, as infeed data
                  and tpu exec inputs travel), 64 KiB .. 64 MiB, every byte checked on the board;
  board -> host   host_call("link_sink") takes n bytes (as outfeed data travels), checked on the host;
  round trip      1000 host calls of "echo" with a float32 scalar: median and p99.
Baselines from tests/bench/baselines/link_baselines.cpp in the same run: a Unix socketpair between two threads
(256 KiB writes) and a memcpy of the same bytes for throughput, a socketpair ping-pong for the round
trip. Also end to end: `tpu exec matmul` with 64 MiB of input on qemu-virt-a53 (wall clock, target
< 10 s), a 64 MiB .npy through `tpu run --infeed` into qemu-virt-a53 and the host board (the
bench-infeed app, tuples dequeued in place; tpu's rate line against a memcpy of 64 MiB in this run,
target >= 0.5), and the infeed step rate of the infeed app at 8 replicas (tpu run's rate line).
Hands each {"bench", "metric", "value", "unit", "baseline", "ratio"} line to `record` as soon as it
is measured (run alone: prints them). tests/infeed_check.py (NumPy) runs as PYTHON, Debian's
/usr/bin/python3, whichever python3 comes first on PATH.
"""
from __future__ import annotations

import json
import re
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent.parent
TPU = ROOT / "build" / "host-tools" / "tpu"
BASELINES = ROOT / "build" / "bench" / "link_baselines"
SIZES = [64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20]
BOARDS = ("qemu-virt-a53", "qemu-virt-rv64")
TRANSPORTS = ("shm", "uart")
PYTHON = "/usr/bin/python3"  # Debian's, with python3-numpy (never the first python3 on PATH)


def failed(command: list[str], how: str, output: str) -> None:
    """Shows the end of a failed command's output on stderr and raises a one-line RuntimeError."""
    sys.stderr.write(output[-3000:])
    last = [text for text in output.splitlines() if text.strip()][-1:]
    raise RuntimeError(f"link benchmark: {' '.join(command)} {how}" + (f": {last[0].strip()}" if last else ""))


def size_name(size: int) -> str:
    return f"{size >> 20}MiB" if size >= 1 << 20 else f"{size >> 10}KiB"


def build_baselines() -> None:
    BASELINES.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["g++", "-std=c++20", "-O2", "-pthread", str(ROOT / "tests/bench/baselines/link_baselines.cpp"), "-o",
                    str(BASELINES)], check=True, timeout=300)


def baselines() -> tuple[dict[int, dict], dict]:
    output = subprocess.run([str(BASELINES), *map(str, SIZES)], capture_output=True, text=True, check=True,
                            timeout=600).stdout
    lines = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    return {line["size"]: line for line in lines if "size" in line}, next(line for line in lines if "pingpong_median_us" in line)


def link_bench(board: str, transport: str) -> list[dict]:
    command = [str(TPU), "run", "--board", board, "--cores", "1", "--link", transport, "--timeout", "900", "link-bench"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, errors="replace", timeout=1200)
    if result.returncode != 0:
        failed(command, f"exited with status {result.returncode}", result.stdout + result.stderr)
    return [json.loads(match) for match in re.findall(r"LINK-BENCH (\{.*\})", result.stdout)]


def throughput_lines(board: str, transport: str, figures: list[dict], base: dict[int, dict]) -> list[dict]:
    results = []
    for figure in figures:
        if figure["direction"] == "round-trip":
            continue
        size = figure["bytes"]
        mb_s = size / figure["seconds"] / 1e6
        socket_mb_s, memcpy_mb_s = base[size]["socketpair_mb_s"], base[size]["memcpy_mb_s"]
        results.append({"bench": f"link/{figure['direction']}/{board}/{transport}/{size_name(size)}", "metric": "throughput",
                        "value": round(mb_s, 2), "unit": "MB/s",
                        "baseline": "Unix socketpair between two threads, same bytes (C++, 256 KiB writes)",
                        "ratio": round(mb_s / socket_mb_s, 5), "baseline_value": socket_mb_s,
                        "memcpy_mb_s": memcpy_mb_s, "memcpy_ratio": round(mb_s / memcpy_mb_s, 5)})
    return results


def round_trip_lines(board: str, transport: str, figures: list[dict], ping: dict) -> list[dict]:
    results = []
    for figure in figures:
        if figure["direction"] != "round-trip":
            continue
        for quantile, key in (("median", "median_us"), ("p99", "p99_us")):
            base = ping[f"pingpong_{key}"]
            results.append({"bench": f"link/host-call-round-trip/{board}/{transport}/{quantile}", "metric": "latency",
                            "value": round(figure[key], 2), "unit": "us",
                            "baseline": f"socketpair ping-pong between two threads ({quantile})",
                            "ratio": round(figure[key] / base, 3), "baseline_value": base})
    return results


def write_npy_f32(path: Path, shape: tuple[int, ...], fill: float) -> None:
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % "".join(f"{d}, " for d in shape)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    count = 1
    for d in shape:
        count *= d
    with path.open("wb") as out:
        out.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
        out.write(struct.pack("<f", fill) * count)


def exec_64mib_line(work: Path) -> dict:
    n = 8 << 20  # A [1, n] and B [n, 1] float32: 32 MiB each
    a, b, c = work / "a.npy", work / "b.npy", work / "c.npy"
    write_npy_f32(a, (1, n), 0.5)
    write_npy_f32(b, (n, 1), 0.25)
    command = [str(TPU), "exec", "--board", "qemu-virt-a53", "--timeout", "600", "matmul", str(a), str(b), "-o", str(c)]
    subprocess.run(["make", "-s", "image", "BOARD=qemu-virt-a53", "APP=exec"], cwd=ROOT, check=True, timeout=900)
    start = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        failed(command, f"exited with status {result.returncode}", result.stdout + result.stderr)
    return {"bench": "link/tpu-exec-matmul-64MiB/qemu-virt-a53/shm", "metric": "wall time", "value": round(elapsed, 2),
            "unit": "s", "baseline": "target: under 10 s end to end (build excluded)", "ratio": round(elapsed / 10, 3)}


INFEED_NPY_RUNS = 5


def infeed_npy_lines(work: Path, base: dict[int, dict]) -> list[dict]:
    """A 64 MiB .npy through `tpu run --infeed` into the bench-infeed app (16 tuples of 4 MiB, dequeued in
    place) on qemu-virt-a53 and the host board, shared memory: tpu's rate line (first tuple sent to
    every tuple consumed), the median of INFEED_NPY_RUNS runs, against a memcpy of 64 MiB in this run."""
    x = work / "x.npy"
    write_npy_f32(x, (16, 1024, 1024), 1.5)  # bench-infeed checks kFill = 1.5
    memcpy_mb_s = base[64 << 20]["memcpy_mb_s"]
    results = []
    for board in ("qemu-virt-a53", "host"):
        command = [str(TPU), "run", "--board", board, "--cores", "1", "--timeout", "600", "--infeed", f"0={x}",
                   "bench-infeed"]
        rates = []
        for _ in range(INFEED_NPY_RUNS):
            result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, errors="replace", timeout=900)
            rate = re.search(r"16 of 16 tuples sent, 16 consumed, 67108864 bytes in [\d.]+ s: [\d.]+ tuples/s, "
                             r"([\d.]+) MB/s", result.stderr + result.stdout)
            if result.returncode != 0 or not rate:
                failed(command, f"exited with status {result.returncode} or printed no rate", result.stdout + result.stderr)
            rates.append(float(rate.group(1)))
        median = sorted(rates)[len(rates) // 2]
        results.append({"bench": f"link/infeed-npy-64MiB/{board}/shm", "metric": "throughput", "value": median,
                        "unit": "MB/s", "baseline": "memcpy of 64 MiB (C++, this run)",
                        "ratio": round(median / memcpy_mb_s, 3), "baseline_value": memcpy_mb_s,
                        "min": min(rates), "max": max(rates), "runs": len(rates)})
    return results


def infeed_rate_lines() -> list[dict]:
    results = []
    for transport in TRANSPORTS:
        command = [PYTHON, str(ROOT / "tests/infeed_check.py"), "--board", "qemu-virt-a53", "--cores", "8",
                   "--steps", "200", "--link", transport, "--timeout", "600"]
        output = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900).stdout
        rate = re.search(r"tuples sent, \d+ consumed, .*?([\d.]+) tuples/s", output)
        if "PASS infeed" not in output or not rate:
            failed(command, "did not pass", output)
        results.append({"bench": f"link/infeed-steps/qemu-virt-a53/8-replicas/{transport}", "metric": "step rate",
                        "value": float(rate.group(1)), "unit": "tuples/s",
                        "baseline": "the same run over the UART" if transport == "shm" else "none (the UART itself)",
                        "ratio": None})
    if len(results) == 2 and results[1]["value"] > 0:
        results[0]["ratio"] = round(results[0]["value"] / results[1]["value"], 2)
    return results


def print_line(entry: dict) -> None:
    print(json.dumps(entry), flush=True)


def link_results(record: Callable[[dict], None] = print_line) -> list[dict]:
    """Every link figure; each board/transport's lines go to `record` as soon as they are measured."""
    subprocess.run(["make", "-s", "tpu"], cwd=ROOT, check=True, timeout=900)
    build_baselines()
    base, ping = baselines()
    results = []

    def keep(lines: list[dict]) -> None:
        for entry in lines:
            record(entry)
        results.extend(lines)

    for board in BOARDS:
        for transport in TRANSPORTS:
            figures = link_bench(board, transport)
            keep(throughput_lines(board, transport, figures, base) + round_trip_lines(board, transport, figures, ping))
    with tempfile.TemporaryDirectory() as directory:
        keep([exec_64mib_line(Path(directory))])
    with tempfile.TemporaryDirectory() as directory:
        keep(infeed_npy_lines(Path(directory), base))
    keep(infeed_rate_lines())
    return results


if __name__ == "__main__":
    link_results()
