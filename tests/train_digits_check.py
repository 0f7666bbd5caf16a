#!/usr/bin/python3
"""Checks the train-digits app (firmware/examples/train-digits) against an independent NumPy training.

  tests/train_digits_check.py --board host --cores 4 [--steps 24] [--epochs 1] [--link shm]
  tests/train_digits_check.py --same-bits host,qemu-virt-a53,qemu-virt-rv64,raspi3b --cores 4
  tests/train_digits_check.py --board host --cores 4 --epochs 10 --min-accuracy 0.95
  tests/train_digits_check.py --board host --boards 2 --cores 2     (a pod of 2 boards against 1 board of 4)

Each run prepares the data (prepare_digits.py, fixed seeds) in its own folder under
build/train-digits-check/, trains on the board through `tpu run --infeed ... --outfeed-dir`, and
compares:
  - every step's mean loss and accuracy (train.csv) with a NumPy float32 training of the same MLP
    from the same initial weights on the same batches in the same order, and the final weights (the
    outfeed). NumPy's matmuls sum in BLAS's order, the board's MXU in k order, so the two agree to
    rounding, not to the bit, and the difference grows with the steps. Up to 64 steps: loss within
    1e-4 relative plus 1e-5, weights within 2e-4 relative plus 2e-5; longer runs (the full 10-epoch
    training: measured 1.0e-4 on the loss, 3.9e-4 on the weights): loss within 2e-3 relative plus
    2e-4, weights within 1e-3. Accuracy within one image of the batch either way;
  - with --same-bits: the losses, accuracies and final weights of every listed board, byte for byte (the
    runtime's summation orders are the same everywhere);
  - with --min-accuracy: the trained model's accuracy on the 360 held-out test images (NumPy
    evaluating the outfed weights).
  - with --model-parallel: the CNN as 2 replicas of 1, 2 and 4 logical cores (2, 4 and 8 cores; the
    image split [1, 2, 1, 1] and [1, 2, 2, 1] over each replica's cores), every run against NumPy
    and all three byte for byte alike;
  - with --bad KIND: hostile input must end the run with a clear error (non-zero exit, the message
    below, within the timeout): batch (a global batch of 16, not the 32 the model takes), dtype
    (images as float64), nan (a NaN in step 3's batch), replicas (3 replicas: 32 does not split).
Ends with "PASS train-digits ..." or "FAIL train-digits: ..." (exit 1).
"""
from __future__ import annotations

import argparse
import shutil
import csv
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "firmware" / "examples" / "train-digits"
sys.path.insert(0, str(APP))
import evaluate  # noqa: E402  the app's forward pass and final weights (firmware/examples/train-digits/evaluate.py)
from evaluate import final_weights, forward, model_of, patches  # noqa: E402

LEARNING_RATES = {"mlp": np.float32(0.5), "cnn": np.float32(0.2), "mlp-wide": np.float32(0.2)}  # device/loss.cpp model_spec


def prepare(folder: Path, epochs: int, steps: int, model: str = "mlp", logical_cores: int = 1) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for stale in [*folder.glob("c*_q*_t*_e*.npy"), *folder.glob(".*"), folder / "train.csv", folder / "train.png"]:
        stale.unlink(missing_ok=True)
    subprocess.run(["/usr/bin/python3", str(APP / "prepare_digits.py"), str(folder),  # the model's global batch
                    "--epochs", str(epochs), "--steps", str(steps), "--model", model, "--logical-cores",
                    str(logical_cores)], check=True, capture_output=True, text=True)


def train_on_board(tpu: Path, board: str, cores: int, link: str | None, folder: Path, boards: int = 1,
                   infeed: str = "") -> tuple[bool, str]:
    infeed = infeed or f"0={folder / 'infeed_x.npy'},{folder / 'infeed_y.npy'}"
    command = [str(tpu), "run", "--board", board, "--cores", str(cores), "--timeout", "600", "--outfeed-dir",
               str(folder), "--infeed", infeed,
               *(["--link", link] if link else []), *(["--boards", str(boards)] if boards > 1 else []), "train-digits"]
    ran = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, errors="replace", timeout=900)
    log = "$ " + " ".join(command) + "\n" + ran.stdout + ran.stderr
    return ran.returncode == 0, log


def trained_like_numpy(tpu: Path, board: str, cores: int, link: str | None, folder: Path, boards: int,
                       name: str) -> bool:
    """Trains on the board (or pod) and compares with NumPy; False after printing the log and why."""
    ok, log = train_on_board(tpu, board, cores, link, folder, boards)
    problem = "" if ok else "the run failed"
    if ok:
        problem = compare_with_numpy(folder) or infeed_fully_consumed(log, folder) or plotted(log, folder)
    if problem:
        print(log)
        print(f"FAIL train-digits: {name}: {problem}")
    return not problem


def plotted(log: str, folder: Path) -> str:
    """'' if the run drew its curves and said so (in a pod task 0 draws them, in the run's folder),
    leaving no file of its own there."""
    drawn = folder / "train.png"
    if f"train-digits: wrote {drawn}" not in log or not drawn.exists():
        return f"no line says 'train-digits: wrote {drawn}', or the file is missing"
    left = [path.name for path in folder.iterdir() if path.name.startswith(".")]
    return f"the plot left {left} in {folder}" if left else ""


def infeed_fully_consumed(log: str, folder: Path) -> str:
    """'' if every board's infeed rate line says each of the dataset's tuples was sent and consumed
    (the last, partial batch of credits included: the board's final credits when it closes the queue)."""
    steps = len(np.load(folder / "infeed_y.npy", mmap_mode="r"))
    lines = re.findall(r"infeed queue 0 .*?: (\d+) of (\d+) tuples sent, (\d+) consumed", log)
    if not lines or any(counts != (str(steps),) * 3 for counts in lines):
        return f"the infeed rate lines {lines} do not all say {steps} of {steps} tuples sent, {steps} consumed"
    return ""


def summary(folder: Path) -> np.ndarray:
    """[steps, 3]: step, mean loss, accuracy, as the board reported them."""
    with open(folder / "train.csv") as file:
        rows = [row for row in csv.reader(file)][1:]
    return np.array([[float(v) for v in row[0:3]] for row in rows], dtype=np.float64)


def loss_and_accuracy(folder: Path) -> list[str]:
    """train.csv's step, loss and accuracy columns as the host wrote them (the samples/s column is
    the host's clock, not the board's result)."""
    return [",".join(line.split(",")[:3]) for line in (folder / "train.csv").read_text().splitlines()]


def global_batch(folder: Path) -> int:
    """The images per step: the prepared batches' own size."""
    return int(np.load(folder / "infeed_x.npy", mmap_mode="r").shape[1])


def numpy_training(folder: Path) -> tuple[list[np.ndarray], np.ndarray]:
    """The same training in NumPy float32: returns the final weights and [steps, 2] (loss, accuracy)."""
    model = model_of(folder)
    weights = [np.load(folder / f"init_{name}.npy") for name in ("w1", "b1", "w2", "b2")]
    xs, ys = np.load(folder / "infeed_x.npy"), np.load(folder / "infeed_y.npy")
    batch = global_batch(folder)
    history = []
    for x, y in zip(xs, ys):
        w1, b1, w2, b2 = weights
        logits, pre, hidden = forward(model, weights, x)
        shifted = logits - logits.max(axis=1, keepdims=True)
        log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        rows = np.arange(len(y))
        history.append((-log_p[rows, y].sum(dtype=np.float32) / batch, (logits.argmax(axis=1) == y).mean()))
        dlogits = np.exp(log_p)
        dlogits[rows, y] -= np.float32(1)
        dlogits *= np.float32(1.0 / batch)
        dw2, db2 = hidden.T @ dlogits, dlogits.sum(axis=0)
        dhidden = (dlogits @ w2.T).reshape(pre.shape) * (pre > 0)
        if model in ("mlp", "mlp-wide"):
            dw1, db1 = x.T @ dhidden, dhidden.sum(axis=0)
        else:
            dz = dhidden.reshape(-1, w1.shape[-1])
            dw1, db1 = (patches(x).T @ dz).reshape(w1.shape), dz.sum(axis=0)
        rate = LEARNING_RATES[model]
        weights = [w - rate * g for w, g in zip(weights, (dw1, db1, dw2, db2))]
    return weights, np.array(history, dtype=np.float64)


def tolerances(steps: int) -> tuple[float, float, float, float]:
    """(loss relative, loss absolute, weight relative, weight absolute) for a run of `steps`."""
    return (1e-4, 1e-5, 2e-4, 2e-5) if steps <= 64 else (2e-3, 2e-4, 0.0, 1e-3)


def compare_with_numpy(folder: Path) -> str:
    reported = summary(folder)
    weights, history = numpy_training(folder)
    loss_rtol, loss_atol, weight_rtol, weight_atol = tolerances(len(history))
    if len(reported) != len(history):
        return f"the board reported {len(reported)} steps, the dataset has {len(history)}"
    if not np.array_equal(reported[:, 0], np.arange(len(history))):
        return f"summary steps out of order: {reported[:8, 0]}"
    loss_error = np.abs(reported[:, 1] - history[:, 0]) - (loss_rtol * np.abs(history[:, 0]) + loss_atol)
    if (loss_error > 0).any():
        step = int(np.argmax(loss_error > 0))
        return f"step {step}: loss {reported[step, 1]} on the board, {history[step, 0]} in NumPy"
    accuracy_error = np.abs(reported[:, 2] - history[:, 1])
    one_image = 1.0 / global_batch(folder)
    if (accuracy_error > one_image + 1e-9).any():
        step = int(np.argmax(accuracy_error > one_image + 1e-9))
        return f"step {step}: accuracy {reported[step, 2]} on the board, {history[step, 1]} in NumPy"
    for name, got, want in zip(("w1", "b1", "w2", "b2"), final_weights(folder), weights):
        if got.shape != want.shape or got.dtype != np.float32:
            return f"final {name} is {got.dtype}{list(got.shape)}, expected float32{list(want.shape)}"
        excess = np.abs(got - want) - (weight_rtol * np.abs(want) + weight_atol)
        if (excess > 0).any():
            index = np.unravel_index(int(np.argmax(excess)), got.shape)
            return f"final {name}{list(index)}: {got[index]} on the board, {want[index]} in NumPy"
    return ""


BAD_INPUTS = {  # kind: (boards, cores, what the run must say)
    "batch": (1, 4, r"element 0 from \S*infeed_x.npy[\s\S]*element 0 is float32\[32, 64\], the host sent float32\[16, 64\]"),
    "dtype": (1, 4, r"element 0 from \S*infeed_x.npy[\s\S]*element 0 is float32\[32, 64\], the host sent float64\[32, 64\]"),
    "nan": (1, 4, r"train-digits: step 3: the batch holds NaN at image 5, pixel 7"),
    "replicas": (1, 3, r"The `global_batch_size` 32 is not divisible by `num_replicas_in_sync` 3"),
    # In a pod every board's replicas are in sync: 2 boards of 3 cores are 6 replicas.
    "pod-replicas": (2, 3, r"\[task \d\] .*The `global_batch_size` 32 is not divisible by `num_replicas_in_sync` 6"),
}


def check_pod(tpu: Path, board: str, boards: int, cores: int, model: str, steps: int) -> int:
    """A pod of `boards` boards of `cores` cores against NumPy (the same tolerance as one board), every
    board's final weights the same bits, and against one board of boards x cores: the same bits when
    each board has one replica (the gradient sums then run in the same order), else equal within the
    NumPy tolerance (runtime/collectives/README.md: each board's partial, then the boards in order).
    `board` may list one kind per board (host,qemu-virt-a53): a pod of different kinds must then give
    the same bits as a pod of the first kind alone."""
    kinds = board.split(",")
    runs = [(board, boards, cores), (kinds[0], 1, boards * cores)]
    if len(kinds) > 1:
        runs.append((kinds[0], boards, cores))
    folders = []
    check = f"{model}-pod-{board.replace(',', '+')}-{boards}x{cores}-{steps}"  # this check's own folders: cases run at once
    for run_board, pod, replicas_per_board in runs:
        folder = ROOT / "build" / "train-digits-check" / check / f"{run_board.replace(',', '+')}-{pod}x{replicas_per_board}"
        shutil.rmtree(folder, ignore_errors=True)
        prepare(folder, 1, steps, model)
        if not trained_like_numpy(tpu, run_board, replicas_per_board, None, folder, pod,
                                  f"{pod} x {replicas_per_board} {run_board}"):
            return 1
        folders.append(folder)
    pod_folder, one_board = folders[0], folders[1]
    for task in range(1, boards):
        if any(a.tobytes() != b.tobytes() for a, b in zip(final_weights(pod_folder, task), final_weights(pod_folder, 0))):
            print(f"FAIL train-digits: task {task} of the pod holds other weights than task 0")
            return 1
    same = all(a.tobytes() == b.tobytes() for a, b in zip(final_weights(pod_folder), final_weights(one_board)))
    if cores == 1 and not same:
        print(f"FAIL train-digits: {boards} boards of 1 core and 1 board of {boards} cores trained different bits")
        return 1
    per_rank = ""
    if len(kinds) == 1 and cores == 2:  # each rank's own files (x.{rank}.npy): the same bits as the split
        problem = check_per_rank_files(tpu, board, boards, cores, pod_folder)
        if problem:
            print(f"FAIL train-digits: {problem}")
            return 1
        per_rank = ", the same bits from per-rank infeed files"
    mixed = ""
    if len(kinds) > 1:
        if any(a.tobytes() != b.tobytes() for a, b in zip(final_weights(pod_folder), final_weights(folders[2]))):
            print(f"FAIL train-digits: the pod of {board} and a pod of {kinds[0]} boards trained different bits")
            return 1
        mixed = f", the same bits as a pod of {kinds[0]} boards"
    verdict = "the same bits as" if same else "within NumPy's tolerance of"
    print(f"PASS train-digits: {model}, {boards} {board} boards x {cores} core{'s' if cores != 1 else ''} match NumPy, "
          f"every board holds the same weights, {verdict} 1 board x {boards * cores} cores{mixed}{per_rank}")
    return 0


def check_per_rank_files(tpu: Path, board: str, boards: int, cores: int, split_folder: Path) -> str:
    """The same pod fed from each rank's own files (x.{rank}.npy holds rank t's rows of every batch,
    made here with NumPy) must train the same bits as the pod that split one file; "" or the problem."""
    folder = split_folder.with_name(split_folder.name + "-per-rank")
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(split_folder, folder, ignore=shutil.ignore_patterns("task-*", "train.*"))
    for name in ("infeed_x", "infeed_y"):
        whole = np.load(folder / f"{name}.npy")
        for rank, rows in enumerate(np.split(whole, boards, axis=1)):  # [steps, batch, ...]: split the batch
            np.save(folder / f"{name}.{rank}.npy", np.ascontiguousarray(rows))
    infeed = f"0={folder / 'infeed_x.{rank}.npy'},{folder / 'infeed_y.{rank}.npy'}"
    ok, log = train_on_board(tpu, board, cores, None, folder, boards, infeed)
    if not ok:
        return "the run from per-rank infeed files failed\n" + log
    if any(a.tobytes() != b.tobytes() for a, b in zip(final_weights(folder), final_weights(split_folder))):
        return "per-rank infeed files and one split file trained different bits"
    return ""


def check_model_parallel(tpu: Path, board: str, steps: int) -> int:
    """2 replicas of 1, 2 and 4 logical cores: the same bits, and NumPy's model to rounding."""
    folders = []
    for logical_cores in (1, 2, 4):
        folder = ROOT / "build" / "train-digits-check" / f"cnn-split{logical_cores}-{board}-{steps}"
        prepare(folder, 1, steps, "cnn", logical_cores)
        ok, log = train_on_board(tpu, board, 2 * logical_cores, None, folder)
        problem = "" if ok else "the run failed"
        problem = problem or compare_with_numpy(folder)
        if problem:
            print(log)
            print(f"FAIL train-digits: cnn, 2 replicas of {logical_cores} logical cores on {board}: {problem}")
            return 1
        folders.append(folder)
    for logical_cores, folder in zip((2, 4), folders[1:]):
        if loss_and_accuracy(folder) != loss_and_accuracy(folders[0]) or any(
                a.tobytes() != b.tobytes() for a, b in zip(final_weights(folder), final_weights(folders[0]))):
            print(f"FAIL train-digits: the CNN split over {logical_cores} logical cores trained other bits than unsplit")
            return 1
    print(f"PASS train-digits: cnn model parallel on {board}: 2 replicas of 1, 2 and 4 logical cores, {steps} steps, "
          "bit-identical to each other, matching NumPy")
    return 0


def check_bad_input(tpu: Path, board: str, kind: str) -> int:
    boards, cores, pattern = BAD_INPUTS[kind]
    folder = ROOT / "build" / "train-digits-check" / f"bad-{kind}-{board}"
    prepare(folder, 1, 6)
    if kind == "batch":  # batches of 16 in the infeed, while the run (model.txt) says 32
        configured = (folder / "model.txt").read_text()
        subprocess.run(["/usr/bin/python3", str(APP / "prepare_digits.py"), str(folder), "--batch", "16", "--steps", "6"],
                       check=True, capture_output=True)
        (folder / "model.txt").write_text(configured)
    elif kind == "dtype":
        np.save(folder / "infeed_x.npy", np.load(folder / "infeed_x.npy").astype(np.float64))
    elif kind == "nan":
        x = np.load(folder / "infeed_x.npy")
        x[3, 5, 7] = np.nan
        np.save(folder / "infeed_x.npy", x)
    ok, log = train_on_board(tpu, board, cores, None, folder, boards)
    if ok or not re.search(pattern, log):
        print(log)
        print(f"FAIL train-digits: bad input '{kind}': expected a failing run saying {pattern!r}")
        return 1
    print(f"PASS train-digits: bad input '{kind}' on {board} refused: {re.search(pattern, log).group(0).splitlines()[-1]}")
    return 0


def test_accuracy(folder: Path) -> float:
    correct, images = evaluate.test_accuracy(folder)
    return correct / images


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--board", default="host")
    parser.add_argument("--same-bits", help="comma-separated boards that must give the same bytes")
    parser.add_argument("--cores", type=int, default=4)
    parser.add_argument("--model", choices=("mlp", "cnn", "mlp-wide"), default="mlp")
    parser.add_argument("--link", choices=("shm", "uart"))
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--steps", type=int, default=24, help="steps to train (0: every step of the epochs)")
    parser.add_argument("--min-accuracy", type=float, help="required test accuracy of the trained model")
    parser.add_argument("--tpu", type=Path, default=ROOT / "build" / "host-tools" / "tpu")
    parser.add_argument("--bad", choices=sorted(BAD_INPUTS), help="hostile input that must be refused")
    parser.add_argument("--model-parallel", action="store_true", help="the CNN split over 1, 2 and 4 logical cores")
    parser.add_argument("--boards", type=int, default=1,
                        help="train on a pod of this many boards of --cores each (tpu run --boards) and compare it with "
                             "NumPy and with one board of boards x cores")
    args = parser.parse_args(argv)
    if args.boards > 1:
        return check_pod(args.tpu, args.board, args.boards, args.cores, args.model, args.steps)
    if args.model_parallel:
        return check_model_parallel(args.tpu, args.board, args.steps)
    if args.bad:
        return check_bad_input(args.tpu, args.board, args.bad)
    boards = args.same_bits.split(",") if args.same_bits else [args.board]
    folders = []
    for board in boards:
        folder = ROOT / "build" / "train-digits-check" / f"{args.model}-{board}-{args.cores}-{args.link or 'auto'}-{args.steps}"
        prepare(folder, args.epochs, args.steps, args.model)
        if not trained_like_numpy(args.tpu, board, args.cores, args.link, folder, 1, f"{board}, {args.cores} replicas"):
            return 1
        folders.append(folder)
    for board, folder in zip(boards[1:], folders[1:]):
        same = loss_and_accuracy(folder) == loss_and_accuracy(folders[0]) and all(
            a.tobytes() == b.tobytes() for a, b in zip(final_weights(folder), final_weights(folders[0])))
        if not same:
            print(f"FAIL train-digits: {board} and {boards[0]} trained different bits")
            return 1
    steps = len(summary(folders[0]))
    line = f"PASS train-digits: {args.model}, {', '.join(boards)}, {args.cores} replicas, {steps} steps match NumPy"
    if args.same_bits:
        line += ", bit-identical across the boards"
    if not (folders[0] / "train.png").exists():
        print("FAIL train-digits: no train.png was written")
        return 1
    if args.min_accuracy is not None:
        accuracy = test_accuracy(folders[0])
        if accuracy < args.min_accuracy:
            print(f"FAIL train-digits: test accuracy {accuracy:.4f} < {args.min_accuracy}")
            return 1
        line += f", test accuracy {accuracy:.4f}"
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
