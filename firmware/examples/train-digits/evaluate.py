#!/usr/bin/python3
"""The accuracy of a train-digits run's final weights on the held-out test images, in NumPy float32.

  firmware/examples/train-digits/evaluate.py build/digits
  train-digits: test accuracy 98.3% (354 of 360 held-out images), mlp, final weights of build/digits

FOLDER is the run's folder: prepare_digits.py wrote model.txt and test_x.npy / test_y.npy there, and
`tpu run --outfeed-dir FOLDER` the final weights (c0_q0_t0_e0..3.npy: w1, b1, w2, b2; a pod's under
task-0/). The forward pass is the board's model (device/mlp.cpp, device/cnn.cpp): the MLP and the
wide MLP relu(x w1 + b1) w2 + b2; the CNN a 3x3 convolution of 8 filters over the 8x8 image (zeros
outside it), relu, dense. tests/train_digits_check.py checks its trainings with the same functions.
Needs NumPy: Debian's /usr/bin/python3 (the shebang), not whichever python3 comes first on PATH.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np


def model_of(folder: Path) -> str:
    """The run's model: mlp, cnn or mlp-wide (model.txt's first word)."""
    return (folder / "model.txt").read_text().split()[0]


def final_weights(folder: Path, task: int | None = None) -> list[np.ndarray]:
    """The final weights a board outfed; in a pod (tpu run --boards) task `task`'s, default task 0."""
    if task is not None or (folder / "task-0").is_dir():
        folder = folder / f"task-{task or 0}"
    return [np.load(folder / f"c0_q0_t0_e{i}.npy") for i in range(4)]


def patches(images: np.ndarray) -> np.ndarray:
    """[n * 64, 9]: each pixel's 3x3 neighbourhood (tap kh * 3 + kw), zeros outside the 8x8 image."""
    padded = np.pad(images.reshape(-1, 8, 8), ((0, 0), (1, 1), (1, 1)))
    return np.stack([padded[:, kh:kh + 8, kw:kw + 8] for kh in range(3) for kw in range(3)], axis=-1).reshape(-1, 9)


def forward(model: str, weights: list[np.ndarray], x: np.ndarray) -> tuple[np.ndarray, ...]:
    """(logits, the hidden layer before relu, after relu) of the MLP or the CNN, float32."""
    w1, b1, w2, b2 = weights
    if model in ("mlp", "mlp-wide"):
        pre = x @ w1 + b1
        hidden = np.maximum(pre, np.float32(0))
    else:
        taps = patches(x)
        pre = (taps @ w1.reshape(9, -1)).reshape(len(x), 8, 8, -1) + b1
        hidden = np.maximum(pre, np.float32(0)).reshape(len(x), -1)
    return hidden @ w2 + b2, pre, hidden


def test_accuracy(folder: Path) -> tuple[int, int]:
    """(correct, images) of the final weights on the run's test images."""
    x, y = np.load(folder / "test_x.npy"), np.load(folder / "test_y.npy")
    logits = forward(model_of(folder), final_weights(folder), x)[0]
    return int((logits.argmax(axis=1) == y).sum()), len(y)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", metavar="RUN_FOLDER", type=Path,
                        help="prepare_digits.py's folder, also tpu run's --outfeed-dir (the final weights)")
    folder = parser.parse_args(argv).folder
    try:
        correct, images = test_accuracy(folder)
    except (OSError, ValueError, IndexError) as error:
        print(f"evaluate.py: {folder}: {error}", file=sys.stderr)
        return 1
    print(f"train-digits: test accuracy {100 * correct / images:.1f}% ({correct} of {images} held-out images), "
          f"{model_of(folder)}, final weights of {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
