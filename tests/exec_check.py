#!/usr/bin/python3
"""Checks `tpu exec` against NumPy: random inputs per op, the board's result compared with a float64
reference (int8 / integer results exactly, float results within the bound of a float32 chain of
fused multiply-adds, collectives' float32 sums exactly in group order).

  /usr/bin/python3 tests/exec_check.py [--board B]... [--tpu build/host-tools/tpu] [-k SUBSTRING]

Boards default to qemu-virt-a53, qemu-virt-rv64 and host. Prints one line per case and ends with
"N passed, M failed"; the exit status is 0 only if every case passed. Needs `make tpu` first.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
UNIT_ROUNDOFF_F32 = 2.0 ** -24
TIMEOUT_S = 300


# ---------------------------------------------------------------- dtypes

def to_bfloat16_bits(values: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bit patterns (uint16), round to nearest even."""
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def bfloat16_to_float(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


def save_bfloat16(path: Path, bits: np.ndarray) -> None:
    np.save(path, bits.view("V2"))


# ---------------------------------------------------------------- references

def matmul_bound(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|fl(a @ b) - a @ b| for a chain of K float32 fmas: gamma_K * (|a| @ |b|), plus underflow slack."""
    k = a.shape[1]
    return (k + 1) * UNIT_ROUNDOFF_F32 * (np.abs(a) @ np.abs(b)) + 1e-30


def conv2d_patches(x: np.ndarray, kh: int, kw: int, strides, dilations, padding: str) -> np.ndarray:
    """im2col with TF's padding rules: [N, OH, OW, KH*KW*C] in (kh, kw, c) order, float64."""
    n, h, w, c = x.shape

    def size_and_pad(length, k, stride, dilation):
        effective = (k - 1) * dilation + 1
        if padding == "VALID":
            return (length - effective) // stride + 1, 0
        out = -(-length // stride)
        total = max((out - 1) * stride + effective - length, 0)
        return out, total // 2

    oh, top = size_and_pad(h, kh, strides[0], dilations[0])
    ow, left = size_and_pad(w, kw, strides[1], dilations[1])
    padded = np.zeros((n, h + 2 * (kh * dilations[0]) + oh * strides[0], w + 2 * (kw * dilations[1]) + ow * strides[1], c))
    padded[:, top:top + h, left:left + w, :] = x
    patches = np.zeros((n, oh, ow, kh * kw * c))
    for i in range(kh):
        for j in range(kw):
            rows = padded[:, i * dilations[0]: i * dilations[0] + oh * strides[0]: strides[0], :, :][:, :oh]
            taps = rows[:, :, j * dilations[1]: j * dilations[1] + ow * strides[1]: strides[1], :][:, :, :ow]
            patches[..., (i * kw + j) * c:(i * kw + j + 1) * c] = taps
    return patches


def all_to_all_reference(xs, split_dimension, concat_dimension):
    count = len(xs)
    return [np.concatenate([np.split(x, count, axis=split_dimension)[r] for x in xs], axis=concat_dimension)
            for r in range(count)]


# ---------------------------------------------------------------- running tpu exec

class Runner:
    def __init__(self, tpu: Path, board: str, work: Path, link: str | None = None):
        self.tpu, self.board, self.work, self.link = tpu, board, work, link
        work.mkdir(parents=True, exist_ok=True)
        self.counter = 0
        self.last_status: int | None = None  # the last `tpu exec`'s exit status

    def save(self, array: np.ndarray) -> Path:
        self.counter += 1
        path = self.work / f"in{self.counter}.npy"
        np.save(path, array)
        return path

    def exec(self, op: str, inputs: list[Path], *options: str, replicas: int = 1) -> tuple[np.ndarray | None, str]:
        out = self.work / f"out_{op}.npy"
        out.unlink(missing_ok=True)
        link = ["--link", self.link] if self.link else []
        command = [str(self.tpu), "exec", "--board", self.board, *link, "--replicas", str(replicas), op,
                   *map(str, inputs), *options, "-o", str(out)]
        result = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                errors="replace", timeout=TIMEOUT_S)
        log = "$ " + " ".join(command) + "\n" + result.stdout + f"[tpu exec exit status {result.returncode}]\n"
        self.last_status = result.returncode
        if result.returncode != 0 or not out.exists():
            return None, log
        return np.load(out), log


def within(got: np.ndarray, want: np.ndarray, bound: np.ndarray | float) -> str:
    if got.shape != want.shape:
        return f"shape {got.shape}, expected {want.shape}"
    error = np.abs(got.astype(np.float64) - want)
    worst = np.argmax(error / np.maximum(bound, 1e-300)) if error.size else 0
    if error.size and not np.all(error <= bound):
        return f"error {error.flat[worst]:.3g} > bound {np.broadcast_to(bound, error.shape).flat[worst]:.3g}"
    return ""


def exactly(got: np.ndarray, want: np.ndarray) -> str:
    if got.shape != want.shape:
        return f"shape {got.shape}, expected {want.shape}"
    if got.dtype != want.dtype:
        return f"dtype {got.dtype}, expected {want.dtype}"
    if not np.array_equal(got, want):
        return f"{int(np.sum(got != want))} elements differ"
    return ""


# ---------------------------------------------------------------- cases

def case_matmul_f32(run: Runner, rng) -> tuple[str, str]:
    a = rng.standard_normal((37, 70)).astype(np.float32)
    b = rng.standard_normal((70, 131)).astype(np.float32)
    got, log = run.exec("matmul", [run.save(a), run.save(b)])
    if got is None:
        return "tpu exec failed", log
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    return within(got, a64 @ b64, matmul_bound(a64, b64)) or ("" if got.dtype == np.float32 else f"dtype {got.dtype}"), log


def case_matmul_bf16(run: Runner, rng) -> tuple[str, str]:
    a_bits = to_bfloat16_bits(rng.standard_normal((20, 33)))
    b_bits = to_bfloat16_bits(rng.standard_normal((33, 17)))
    path_a, path_b = run.work / "a_bf16.npy", run.work / "b_bf16.npy"
    save_bfloat16(path_a, a_bits)
    save_bfloat16(path_b, b_bits)
    got, log = run.exec("matmul", [path_a, path_b])
    if got is None:
        return "tpu exec failed", log
    a64, b64 = bfloat16_to_float(a_bits).astype(np.float64), bfloat16_to_float(b_bits).astype(np.float64)
    return within(got, a64 @ b64, matmul_bound(a64, b64)), log


def case_matmul_int8(run: Runner, rng) -> tuple[str, str]:
    a = rng.integers(-128, 128, (19, 150), dtype=np.int8)
    b = rng.integers(-128, 128, (150, 66), dtype=np.int8)
    got, log = run.exec("matmul", [run.save(a), run.save(b)])
    if got is None:
        return "tpu exec failed", log
    return exactly(got, a.astype(np.int32) @ b.astype(np.int32)), log


def conv2d_case(run: Runner, rng, dtype, padding: str, strides, dilations) -> tuple[str, str]:
    if dtype == np.int8:
        x = rng.integers(-128, 128, (2, 9, 8, 3), dtype=np.int8)
        w = rng.integers(-128, 128, (3, 2, 3, 5), dtype=np.int8)
    else:
        x = rng.standard_normal((2, 9, 8, 3)).astype(np.float32)
        w = rng.standard_normal((3, 2, 3, 5)).astype(np.float32)
    options = ["--padding", padding, "--strides", ",".join(map(str, strides)), "--dilations", ",".join(map(str, dilations))]
    got, log = run.exec("conv2d", [run.save(x), run.save(w)], *options)
    if got is None:
        return "tpu exec failed", log
    patches = conv2d_patches(x.astype(np.float64), w.shape[0], w.shape[1], strides, dilations, padding)
    matrix = w.astype(np.float64).reshape(-1, w.shape[3])
    want = patches @ matrix
    if dtype == np.int8:
        return exactly(got, want.astype(np.int32)), log
    bound = (matrix.shape[0] + 1) * UNIT_ROUNDOFF_F32 * (np.abs(patches) @ np.abs(matrix)) + 1e-30
    return within(got, want, bound), log


def case_conv2d_same_f32(run: Runner, rng):
    return conv2d_case(run, rng, np.float32, "SAME", (2, 1), (1, 1))


def case_conv2d_valid_f32(run: Runner, rng):
    return conv2d_case(run, rng, np.float32, "VALID", (1, 2), (2, 1))


def case_conv2d_same_int8(run: Runner, rng):
    return conv2d_case(run, rng, np.int8, "SAME", (1, 1), (1, 1))


def case_cross_replica_sum_f32(run: Runner, rng) -> tuple[str, str]:
    xs = [rng.standard_normal((5, 7)).astype(np.float32) for _ in range(4)]
    got, log = run.exec("cross_replica_sum", [run.save(x) for x in xs], replicas=4)
    if got is None:
        return "tpu exec failed", log
    total = xs[0]
    for x in xs[1:]:
        total = total + x  # the runtime's order: ((x0 + x1) + x2) + x3, in float32
    return exactly(got, np.stack([total] * 4)), log


def case_cross_replica_sum_int32_stacked(run: Runner, rng) -> tuple[str, str]:
    stacked = rng.integers(-1000, 1000, (3, 4, 6), dtype=np.int32)
    got, log = run.exec("cross_replica_sum", [run.save(stacked)], replicas=3)
    if got is None:
        return "tpu exec failed", log
    return exactly(got, np.stack([stacked.sum(axis=0, dtype=np.int32)] * 3)), log


def case_all_reduce_max(run: Runner, rng) -> tuple[str, str]:
    xs = rng.standard_normal((4, 33)).astype(np.float32)
    got, log = run.exec("all_reduce", [run.save(xs)], "--reduce", "max", replicas=4)
    if got is None:
        return "tpu exec failed", log
    return exactly(got, np.stack([xs.max(axis=0)] * 4)), log


def case_all_gather(run: Runner, rng) -> tuple[str, str]:
    xs = rng.standard_normal((2, 3, 4)).astype(np.float32)
    got, log = run.exec("all_gather", [run.save(xs)], replicas=2)
    if got is None:
        return "tpu exec failed", log
    return exactly(got, np.stack([np.concatenate(list(xs), axis=0)] * 2)), log


def case_all_to_all(run: Runner, rng) -> tuple[str, str]:
    xs = [rng.standard_normal((4, 8)).astype(np.float32) for _ in range(4)]
    got, log = run.exec("all_to_all", [run.save(x) for x in xs], "--split-dimension", "1", "--concat-dimension", "0",
                        replicas=4)
    if got is None:
        return "tpu exec failed", log
    return exactly(got, np.stack(all_to_all_reference(xs, 1, 0))), log


def case_collective_permute(run: Runner, rng) -> tuple[str, str]:
    xs = [rng.integers(-50, 50, (6,), dtype=np.int32) for _ in range(4)]
    pairs = [(0, 1), (1, 2), (2, 3)]
    got, log = run.exec("collective_permute", [run.save(x) for x in xs], "--pairs",
                        ",".join(f"{s}:{t}" for s, t in pairs), replicas=4)
    if got is None:
        return "tpu exec failed", log
    want = [np.zeros(6, np.int32) for _ in range(4)]
    for source, target in pairs:
        want[target] = xs[source]
    return exactly(got, np.stack(want)), log


def case_replicate_padded(run: Runner, rng) -> tuple[str, str]:
    xs = [rng.standard_normal((rows, 3)).astype(np.float32) for rows in (2, 5, 3)]
    got, log = run.exec("replicate_padded", [run.save(x) for x in xs], "--max-shape", "-1,3", replicas=3)
    if got is None:
        return "tpu exec failed", log
    want = np.zeros((3, 5, 3), np.float32)
    for r, x in enumerate(xs):
        want[r, :x.shape[0]] = x
    return exactly(got, want), log


def case_bad_shapes_fail(run: Runner, rng) -> tuple[str, str]:
    a = rng.standard_normal((3, 4)).astype(np.float32)
    got, log = run.exec("matmul", [run.save(a), run.save(a)])
    if got is not None:
        return "a [3, 4] x [3, 4] matmul did not fail", log
    if run.last_status != 1:
        return f"exit status {run.last_status}, expected 1 (a core reported an error)", log
    return ("" if "Matrix size-incompatible: In[0]: [3,4], In[1]: [3,4]" in log else "TF's error text is missing"), log


CASES = [case_matmul_f32, case_matmul_bf16, case_matmul_int8, case_conv2d_same_f32, case_conv2d_valid_f32,
         case_conv2d_same_int8, case_cross_replica_sum_f32, case_cross_replica_sum_int32_stacked, case_all_reduce_max,
         case_all_gather, case_all_to_all, case_collective_permute, case_replicate_padded, case_bad_shapes_fail]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", action="append", help="board(s) to check (default: a53, rv64, host)")
    parser.add_argument("--tpu", default=str(ROOT / "build/host-tools/tpu"))
    parser.add_argument("-k", default="", help="only cases whose name contains this")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--link", choices=("shm", "uart"), help="the host link transport (default: tpu's choice)")
    args = parser.parse_args()
    boards = args.board or ["qemu-virt-a53", "qemu-virt-rv64", "host"]
    passed = failed = 0
    for board in boards:
        run = Runner(Path(args.tpu), board, ROOT / "build" / "exec-check" / f"{board}-{args.link or 'auto'}", args.link)
        for case in CASES:
            name = case.__name__.removeprefix("case_")
            if args.k not in f"{board}/{name}":
                continue
            problem, log = case(run, np.random.default_rng(args.seed))
            if problem:
                failed += 1
                print(f"FAIL {board}/{name}: {problem}\n" + "\n".join("    " + line for line in log.splitlines()[-25:]))
            else:
                passed += 1
                print(f"PASS {board}/{name}")
            sys.stdout.flush()
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
