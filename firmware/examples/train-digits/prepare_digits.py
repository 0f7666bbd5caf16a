#!/usr/bin/python3
"""The handwritten-digits dataset as the train-digits app eats it (NumPy only, no download).

  firmware/examples/train-digits/prepare_digits.py OUT_DIR [--model mlp|cnn|mlp-wide] [--batch B] [--epochs 2] [--seed 0]

Reads the 1797 8x8 images Debian's python3-sklearn ships (sklearn/datasets/data/digits.csv.gz:
64 pixel values 0..16 and the label per row), scales pixels to [0, 1] as float32, shuffles with
`seed` and splits 1437 / 360 (80 / 20) into train and test. Writes into OUT_DIR:
  train_x.npy float32 [1437, 64], train_y.npy int32 [1437], test_x.npy, test_y.npy
  infeed_x.npy float32 [S, B, 64], infeed_y.npy int32 [S, B]: the S = epochs * floor(1437 / B)
      global batches in training order (each epoch a new permutation of the training set, from
      `seed` + 1 + epoch), what `tpu run --infeed 0=infeed_x.npy,infeed_y.npy` streams
  model.txt: "MODEL CORES B" ("mlp 1 32", "mlp-wide 1 256", "cnn 2 32", ...): the model the board
      trains (mlp, mlp-wide or cnn), the cores per replica (the CNN split model parallel over 2 or
      4) and the global batch (default 32, the wide MLP 256: it is the compute-bound model, so its
      rows' work should outweigh a step's fixed costs); the app's host function run_config
  init_w1.npy, init_b1.npy, init_w2.npy, init_b2.npy: Glorot-uniform weights and zero biases from
      `seed` + 100, the model's starting point: mlp w1 [64, 128], b1 [128], w2 [128, 10], b2 [10]
      (mlp-wide: 1024 hidden units);
      cnn w1 [3, 3, 1, 8] (the 3x3 filters), b1 [8], w2 [512, 10], b2 [10]
A missing dataset file is an error naming the package to install.
"""
from __future__ import annotations

import argparse
import gzip
import sys
from pathlib import Path

import numpy as np

DIGITS = Path("/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz")
HIDDEN = 128
WIDE_HIDDEN = 1024
FILTERS = 8
CLASSES = 10
DEFAULT_BATCH = {"mlp": 32, "cnn": 32, "mlp-wide": 256}


def load_digits(path: Path = DIGITS) -> tuple[np.ndarray, np.ndarray]:
    if not path.exists():
        raise SystemExit(f"prepare_digits: {path} is missing: install Debian's python3-sklearn (make setup does)")
    with gzip.open(path, "rt") as file:
        table = np.loadtxt(file, delimiter=",", dtype=np.float64)
    if table.ndim != 2 or table.shape[1] != 65:
        raise SystemExit(f"prepare_digits: {path} has shape {table.shape}, expected [1797, 65]")
    return (table[:, :64] / 16.0).astype(np.float32), table[:, 64].astype(np.int32)


def glorot(rng: np.random.Generator, fan_in: int, fan_out: int, shape: tuple[int, ...] | None = None) -> np.ndarray:
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-limit, limit, size=shape or (fan_in, fan_out)).astype(np.float32)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--model", choices=("mlp", "cnn", "mlp-wide"), default="mlp")
    parser.add_argument("--logical-cores", type=int, choices=(1, 2, 4), default=1,
                        help="cores per replica: the CNN's image split over them (model parallel)")
    parser.add_argument("--batch", type=int, default=0,
                        help=f"global batch size (default: {DEFAULT_BATCH['mlp']}, the wide MLP {DEFAULT_BATCH['mlp-wide']})"),
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all the epochs give)")
    args = parser.parse_args(argv)
    args.batch = args.batch or DEFAULT_BATCH[args.model]
    if not 0 < args.batch <= 1437:
        raise SystemExit(f"prepare_digits: a global batch of {args.batch} images: 1 to 1437 (the training set)")
    x, y = load_digits()
    order = np.random.default_rng(args.seed).permutation(len(x))
    train, test = order[:1437], order[1437:]
    out = args.out_dir
    out.mkdir(parents=True, exist_ok=True)
    np.save(out / "train_x.npy", x[train]), np.save(out / "train_y.npy", y[train])
    np.save(out / "test_x.npy", x[test]), np.save(out / "test_y.npy", y[test])
    per_epoch = len(train) // args.batch
    batches = []
    for epoch in range(args.epochs):
        shuffled = np.random.default_rng(args.seed + 1 + epoch).permutation(len(train))
        batches += [train[shuffled[i * args.batch:(i + 1) * args.batch]] for i in range(per_epoch)]
    if args.steps:
        batches = batches[:args.steps]
    np.save(out / "infeed_x.npy", np.stack([x[b] for b in batches]))
    np.save(out / "infeed_y.npy", np.stack([y[b] for b in batches]))
    rng = np.random.default_rng(args.seed + 100)
    if args.model in ("mlp", "mlp-wide"):
        hidden = HIDDEN if args.model == "mlp" else WIDE_HIDDEN
        w1, w2 = glorot(rng, 64, hidden), glorot(rng, hidden, CLASSES)
    else:  # fan in 3 * 3 * 1, fan out 3 * 3 * FILTERS for the convolution
        w1, hidden = glorot(rng, 9, 9 * FILTERS, (3, 3, 1, FILTERS)), FILTERS
        w2 = glorot(rng, 64 * FILTERS, CLASSES)
    np.save(out / "init_w1.npy", w1), np.save(out / "init_b1.npy", np.zeros(hidden, np.float32))
    np.save(out / "init_w2.npy", w2), np.save(out / "init_b2.npy", np.zeros(CLASSES, np.float32))
    if args.logical_cores != 1 and args.model != "cnn":
        raise SystemExit("prepare_digits: only the cnn splits over logical cores")
    (out / "model.txt").write_text(f"{args.model} {args.logical_cores} {args.batch}\n")
    print(f"prepare_digits: {len(train)} train / {len(test)} test images, {len(batches)} steps of {args.batch} into {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
