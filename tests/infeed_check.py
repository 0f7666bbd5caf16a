#!/usr/bin/python3
"""End-to-end check of infeed and outfeed through `tpu run` (firmware/examples/infeed).

Generates a dataset of S steps (x float32 [S, 8, 3], labels int32 [S, 8]) as .npy files, runs

    build/host-tools/tpu run --board B --cores N --infeed 0=x.npy,labels.npy --outfeed-dir D infeed

and checks, with NumPy and independently of the device code, what every replica outfed for every
step: replica r (on core r) of N gets rows [r * 8/N, (r + 1) * 8/N) of x and of the labels, and sends
back (its x shard, the float32 column sums of that shard with rows added in ascending order, the
int32 sum of its labels). Also checks the tool's exit status and its infeed rate line. Prints PASS or
FAIL with the reason; the exit status is 0 only on PASS.

    /usr/bin/python3 tests/infeed_check.py --board qemu-virt-a53 --cores 8 [--steps 24] [--link shm|uart] [--keep DIR]

With --app infeed-columns (tests/device/infeed-columns) x is float32 [S, 4, 8] sharded along its
columns instead: replica r gets x columns [r * 8/N, (r + 1) * 8/N) of every row and labels
[r * 8/N, (r + 1) * 8/N), and outfeeds both as it got them; in a pod (--boards K) each board's tpu
streams its block of the columns.
"""
import argparse
import pathlib
import re
import subprocess
import sys
import tempfile

import numpy as np

REPO_ROOT = pathlib.Path(__file__).resolve().parent.parent
TPU = REPO_ROOT / "build" / "host-tools" / "tpu"
# Per app: one step's x shape, and the dimension of x its queue shards along (the labels: dimension 0).
APPS = {"infeed": ((8, 3), 0), "infeed-columns": ((4, 8), 1)}


def make_dataset(directory: pathlib.Path, steps: int, seed: int, app: str, odd: bool = False) -> tuple[np.ndarray, np.ndarray]:
    random = np.random.default_rng(seed)
    (rows, columns), x_dimension = APPS[app]
    labels_length = (rows, columns)[x_dimension]  # the labels shard along with x's sharded dimension
    x = random.standard_normal((steps, rows, columns + (1 if odd else 0))).astype(np.float32)
    labels = random.integers(-2**31, 2**31, size=(steps, labels_length), dtype=np.int64).astype(np.int32)
    np.save(directory / "x.npy", x)
    np.save(directory / "labels.npy", labels)
    return x, labels


def column_sums(shard: np.ndarray) -> np.ndarray:
    """float32 sums over rows, added in ascending row order (what the board does), no pairwise tricks."""
    total = np.zeros(shard.shape[1], dtype=np.float32)
    for row in shard:
        total = (total + row).astype(np.float32)
    return total


def label_sum(shard: np.ndarray) -> np.int32:
    """The int32 sum, wrapping like the board's integer adds."""
    wrapped = int(np.sum(shard.astype(np.int64))) % 2**32
    return np.int32(wrapped - 2**32 if wrapped >= 2**31 else wrapped)


def check_outfeed(outfeed: pathlib.Path, x: np.ndarray, labels: np.ndarray, cores: int, boards: int = 1,
                  x_dimension: int = 0) -> str:
    """'' if every replica's outfeed for every step is right, else the first problem. In a pod of
    `boards` boards replica r runs on board r // cores, core r % cores, which outfeeds into
    task-<board>/c<core>_..."""
    rows = labels.shape[1] // (cores * boards)  # the shard's length along the sharded dimensions
    for step in range(x.shape[0]):
        for replica in range(cores * boards):
            folder = outfeed / f"task-{replica // cores}" if boards > 1 else outfeed
            prefix = folder / f"c{replica % cores}_q0_t{step}_e"
            files = [pathlib.Path(f"{prefix}{k}.npy") for k in range(3 if x_dimension == 0 else 2)]
            missing = [f.name for f in files if not f.exists()]
            if missing:
                return f"step {step} replica {replica}: missing {missing[0]}"
            block = slice(replica * rows, (replica + 1) * rows)
            want_shard = x[step, block] if x_dimension == 0 else x[step, :, block]
            want_labels = labels[step, block]
            shard = np.load(files[0])
            if shard.dtype != np.float32 or not np.array_equal(shard, want_shard):
                return f"step {step} replica {replica}: x shard {shard!r}, expected {want_shard!r}"
            if x_dimension != 0:  # infeed-columns outfeeds its label shard as it got it
                got_labels = np.load(files[1])
                if got_labels.dtype != np.int32 or not np.array_equal(got_labels, want_labels):
                    return f"step {step} replica {replica}: labels {got_labels!r}, expected {want_labels!r}"
                continue
            sums, total = np.load(files[1]), np.load(files[2])
            if sums.dtype != np.float32 or sums.tobytes() != column_sums(want_shard).tobytes():
                return f"step {step} replica {replica}: column sums {sums!r}, expected {column_sums(want_shard)!r}"
            if not np.allclose(sums, want_shard.sum(axis=0, dtype=np.float64), rtol=1e-5, atol=1e-5):
                return f"step {step} replica {replica}: column sums {sums!r} far from NumPy's"
            if total.dtype != np.int32 or total.shape != () or total != label_sum(want_labels):
                return f"step {step} replica {replica}: label sum {total!r}, expected {label_sum(want_labels)!r}"
    extra = sorted(p.name for p in outfeed.glob(f"**/c*_q0_t{x.shape[0]}_e*.npy"))
    if extra:
        return f"more outfeed tuples than steps: {extra[0]}"
    return ""


def pod_name(boards: int) -> str:
    return f" x {boards} boards" if boards > 1 else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="qemu-virt-a53")
    parser.add_argument("--app", choices=sorted(APPS), default="infeed",
                        help="infeed (x sharded along rows) or infeed-columns (along columns, tests/device)")
    parser.add_argument("--cores", type=int, default=8)
    parser.add_argument("--steps", type=int, default=24)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=240)
    parser.add_argument("--keep", type=pathlib.Path, help="write the dataset and outfeed here (kept)")
    parser.add_argument("--link", choices=("shm", "uart"), help="the host link transport (default: tpu's choice)")
    parser.add_argument("--boards", type=int, default=1,
                        help="a pod of this many boards (tpu run --boards): each board's tpu streams its own rows")
    parser.add_argument("--odd-columns", action="store_true",
                        help="infeed-columns in a pod, x with 9 columns: tpu must refuse to split it, naming the file")
    parser.add_argument("--same-size-as", choices=("int32", "flat"),
                        help="x as int32, or flattened to [S, 24]: the bytes the queue takes, in a dtype or shape it "
                             "does not: the board must refuse it on every link (placed bytes carry no dtype)")
    args = parser.parse_args()
    if not TPU.exists():
        subprocess.run(["make", "-C", str(REPO_ROOT), "tpu"], check=True, stdout=subprocess.DEVNULL)
    with tempfile.TemporaryDirectory(prefix="infeed-check-") as scratch:
        work = args.keep or pathlib.Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        outfeed = work / "outfeed"
        for old in outfeed.glob("*.npy"):
            old.unlink()
        x, labels = make_dataset(work, args.steps, args.seed, args.app, args.odd_columns)
        if args.same_size_as == "int32":
            np.save(work / "x.npy", x.view(np.int32))
        elif args.same_size_as == "flat":
            np.save(work / "x.npy", x.reshape(x.shape[0], -1))
        app = "infeed" if args.app == "infeed" else str(REPO_ROOT / "tests" / "device" / args.app)
        link = ["--link", args.link] if args.link else []
        pod = ["--boards", str(args.boards)] if args.boards > 1 else []
        command = [str(TPU), "run", "--board", args.board, "--cores", str(args.cores), "--timeout", str(args.timeout), *link, *pod,
                   "--infeed", f"0={work / 'x.npy'},{work / 'labels.npy'}", "--outfeed-dir", str(outfeed), app]
        run = subprocess.run(command, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             errors="replace", timeout=args.timeout + 60)
        log = f"$ {' '.join(command)}\n{run.stdout}"
        problem = ""
        if args.same_size_as:
            sent = "int32[8, 3]" if args.same_size_as == "int32" else "float32[24]"
            refusal = (r"INVALID_ARGUMENT: infeed queue '\S+' \(link queue 0\): element 0 is float32\[8, 3\], the host "
                       rf"sent {re.escape(sent)}")
            if run.returncode != 1:
                problem = f"tpu run exited with status {run.returncode}, expected 1 (the board refuses the tuple)"
            elif not re.search(refusal, run.stdout):
                problem = f"no message saying element 0 is float32[8, 3], not {sent}"
        elif args.odd_columns:
            refusal = rf"tpu: --infeed: infeed queue 0: \S*x.npy: a step of float32\[4, 9\] does not split its dimension 1 over {args.boards} boards"
            if run.returncode != 2:
                problem = f"tpu run exited with status {run.returncode}, expected 2 (a dataset that does not split)"
            elif not re.search(refusal, run.stdout):
                problem = "no message saying x.npy does not split along dimension 1"
        elif run.returncode != 0:
            problem = f"tpu run exited with status {run.returncode}"
        elif not re.search(rf"{args.cores} of {args.cores} cores reported a result, all OK", run.stdout):
            problem = "not every core reported OK"
        elif not re.search(rf"infeed queue 0 .*: {args.steps} of {args.steps} tuples sent, {args.steps} consumed, .* MB/s",
                           run.stdout):
            problem = "no infeed rate line saying every tuple was consumed"
        else:
            problem = check_outfeed(outfeed, x, labels, args.cores, args.boards, APPS[args.app][1])
        rate = re.search(r"infeed queue 0 .*MB/s", run.stdout)
        if problem:
            print(log)
            print(f"FAIL {args.app} {args.board}/{args.cores}{pod_name(args.boards)}: {problem}")
            return 1
        if args.odd_columns:
            print(f"PASS {args.app} {args.board}/{args.cores}{pod_name(args.boards)}: 9 columns refused")
            return 0
        if args.same_size_as:
            print(f"PASS {args.app} {args.board}/{args.cores}: x as {args.same_size_as} refused by the board")
            return 0
        print(f"PASS {args.app} {args.board}/{args.cores}{pod_name(args.boards)}: {args.steps} steps checked" +
              (f" ({rate.group(0)})" if rate else ""))
        return 0


if __name__ == "__main__":
    sys.exit(main())
