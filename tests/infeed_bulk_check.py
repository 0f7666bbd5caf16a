#!/usr/bin/python3
"""Bit-exact check of bulk infeed and outfeed through `tpu run` (tests/device/infeed-bulk).

Generates a dataset x float32 [S, 8, 32768] (1 MiB per step; 64 MiB by default) as x.npy, with
values that expose byte errors (random normals, random finite bit patterns, exact powers of two,
negative zeros, subnormals), runs

    build/host-tools/tpu run --board B --cores N --timeout T [--link L] --infeed 0=x.npy --outfeed-dir D infeed-bulk

and checks with NumPy that replica r (on core r) of N outfed, for every step s, exactly
x[s, r * 8/N : (r + 1) * 8/N] (compared as uint32 bit patterns) as D/c<r>_q0_t<s>_e0.npy, that no
tuple past the last step was outfed, and that tpu exited 0. Prints PASS (with the run's time and
the rate it implies) or FAIL with the reason and the tail of tpu's output; exit status 0 only on PASS.

    /usr/bin/python3 tests/infeed_bulk_check.py --board qemu-virt-a53 --cores 8 [--steps 64] [--link shm|uart] [--keep DIR]
"""
import argparse
import pathlib
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

REPO_ROOT = pathlib.Path(__file__).resolve().parent.parent
TPU = REPO_ROOT / "build" / "host-tools" / "tpu"
ROWS, COLUMNS = 8, 32768
TAIL_LINES = 40


def make_tuple(random: np.random.Generator) -> np.ndarray:
    """One [8, 32768] tuple: normals, a quarter of them replaced by random finite bit patterns, and
    about 1/64 each by exact powers of two, negative zeros and subnormals."""
    x = random.standard_normal((ROWS, COLUMNS)).astype(np.float32)
    bits = x.view(np.uint32)
    patterns = random.integers(0, 2**32, size=x.shape, dtype=np.uint32) & ~np.uint32(0x00800000)  # exponent != 0xff
    pick = random.random(x.shape) < 0.25
    bits[pick] = patterns[pick]
    special = random.integers(0, 64, size=x.shape)
    powers = random.integers(-126, 128, size=x.shape, dtype=np.int32)
    x[special == 0] = np.ldexp(np.float32(1), powers[special == 0])
    x[special == 1] = np.float32(-0.0)
    bits[special == 2] = random.integers(1, 0x00800000, size=int(np.sum(special == 2)), dtype=np.uint32)
    return x


def make_dataset(path: pathlib.Path, steps: int, seed: int) -> np.ndarray:
    random = np.random.default_rng(seed)
    x = np.empty((steps, ROWS, COLUMNS), dtype=np.float32)
    for step in range(steps):
        x[step] = make_tuple(random)
    assert np.all(np.isfinite(x))
    np.save(path, x)
    return x


def check_outfeed(outfeed: pathlib.Path, x: np.ndarray, cores: int) -> str:
    """'' if every replica's outfeed for every step is its shard bit for bit, else the first problem."""
    rows = ROWS // cores
    for step in range(x.shape[0]):
        for replica in range(cores):
            path = outfeed / f"c{replica}_q0_t{step}_e0.npy"
            if not path.exists():
                return f"step {step} replica {replica}: missing {path.name}"
            got = np.load(path)
            want = x[step, replica * rows:(replica + 1) * rows]
            if got.dtype != np.float32 or got.shape != want.shape:
                return f"step {step} replica {replica}: {got.dtype}{list(got.shape)}, expected float32{list(want.shape)}"
            differ = np.flatnonzero(got.view(np.uint32) != want.view(np.uint32))
            if differ.size:
                i = differ[0]
                return (f"step {step} replica {replica}: {differ.size} of {want.size} values differ, the first at flat "
                        f"index {i}: 0x{got.view(np.uint32).flat[i]:08x}, expected 0x{want.view(np.uint32).flat[i]:08x}")
    expected = {f"c{r}_q0_t{s}_e0.npy" for s in range(x.shape[0]) for r in range(cores)}
    extra = sorted(p.name for p in outfeed.glob("*.npy") if p.name not in expected)
    if extra:
        return f"unexpected outfeed file: {extra[0]}"
    return ""


def run_tpu(args: argparse.Namespace, work: pathlib.Path, outfeed: pathlib.Path) -> tuple[list[str], int, str, float]:
    link = ["--link", args.link] if args.link else []
    command = [str(TPU), "run", "--board", args.board, "--cores", str(args.cores), "--timeout", str(args.timeout), *link,
               "--infeed", f"0={work / 'x.npy'}", "--outfeed-dir", str(outfeed), "infeed-bulk"]
    start = time.monotonic()
    try:
        run = subprocess.run(command, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             errors="replace", timeout=args.timeout + 60)
        status, output = run.returncode, run.stdout
    except subprocess.TimeoutExpired as timeout:
        raw = timeout.stdout or b""
        status, output = -1, raw.decode(errors="replace") if isinstance(raw, bytes) else raw
    return command, status, output, time.monotonic() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="qemu-virt-a53")
    parser.add_argument("--cores", type=int, default=8)
    parser.add_argument("--steps", type=int, default=64, help="tuples of 1 MiB (default 64)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--timeout", type=float, default=300, help="seconds, passed to tpu run")
    parser.add_argument("--link", help="the host link transport, passed to tpu run (default: none given)")
    parser.add_argument("--keep", type=pathlib.Path, help="write the dataset and outfeed here (kept)")
    args = parser.parse_args()
    if not TPU.exists():
        subprocess.run(["make", "-C", str(REPO_ROOT), "tpu"], check=True, stdout=subprocess.DEVNULL)
    where = f"{args.board}/{args.cores}" + (f" --link {args.link}" if args.link else "")
    with tempfile.TemporaryDirectory(prefix="infeed-bulk-") as scratch:
        work = args.keep or pathlib.Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        outfeed = work / "outfeed"
        for old in outfeed.glob("*.npy"):
            old.unlink()
        x = make_dataset(work / "x.npy", args.steps, args.seed)
        command, status, output, seconds = run_tpu(args, work, outfeed)
        if status == -1:
            problem = f"tpu run did not finish within {args.timeout + 60:.0f} s"
        elif status != 0:
            problem = f"tpu run exited with status {status}"
        else:
            problem = check_outfeed(outfeed, x, args.cores)
        if problem:
            tail = "\n".join(output.splitlines()[-TAIL_LINES:])
            print(f"$ {' '.join(command)}\n... (last {TAIL_LINES} lines)\n{tail}")
            print(f"FAIL infeed-bulk: {problem} ({where})")
            return 1
        rate = re.search(r"infeed queue 0 .*MB/s", output)
        print(f"PASS infeed-bulk: {args.steps} tuples, {x.nbytes} bytes, {where}, in and out bit for bit, "
              f"tpu run {seconds:.1f} s "
              f"({x.nbytes / seconds / 1e6:.2f} MB/s including build, boot and outfeed)" +
              (f"; tpu: {rate.group(0)}" if rate else ""))
        return 0


if __name__ == "__main__":
    sys.exit(main())
