#!/usr/bin/python3
"""The training benchmark's baselines: the train-digits MLP (64 -> hidden relu -> 10, softmax
cross-entropy, plain SGD) trained from the same initial weights on the same global batches as the
board, by a plain NumPy loop and by PyTorch (CPU, one thread, autograd and torch.optim.SGD: what a
PyTorch user writes), each step computing the batch's loss and accuracy as the board does.

  tests/bench/train_baselines.py FOLDER    (a folder prepare_digits.py filled: mlp or mlp-wide)

samples/s counts the steps after the first launch's 8 (the board's measurement skips them too:
warm-up, first-touch costs), from the wall clock around the loop. Needs Debian's /usr/bin/python3
(python3-numpy; python3-torch, installed by `make bench`, for the PyTorch line).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/: the app's check
from train_digits_check import LEARNING_RATES  # noqa: E402  (the device's, as the check uses them)

WARM_UP_STEPS = 8
MODELS = ("mlp", "mlp-wide")  # the models with baselines here (the CNN has none)


def load(folder: Path) -> tuple[str, list[np.ndarray], np.ndarray, np.ndarray]:
    model = (folder / "model.txt").read_text().split()[0]
    if model not in MODELS:
        raise SystemExit(f"train_baselines: {folder} holds the {model} model; only mlp and mlp-wide have baselines")
    weights = [np.load(folder / f"init_{name}.npy") for name in ("w1", "b1", "w2", "b2")]
    return model, weights, np.load(folder / "infeed_x.npy"), np.load(folder / "infeed_y.npy")


def numpy_samples_per_s(folder: Path) -> float:
    model, (w1, b1, w2, b2), xs, ys = load(folder)
    rate = np.float32(LEARNING_RATES[model])
    batch = xs.shape[1]
    rows = np.arange(batch)
    scale = np.float32(1.0 / batch)
    start = 0.0
    for step, (x, y) in enumerate(zip(xs, ys)):
        if step == WARM_UP_STEPS:
            start = time.perf_counter()
        pre = x @ w1 + b1
        hidden = np.maximum(pre, np.float32(0))
        logits = hidden @ w2 + b2
        shifted = logits - logits.max(axis=1, keepdims=True)
        log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        _loss = -log_p[rows, y].sum(dtype=np.float32) * scale
        _accuracy = (logits.argmax(axis=1) == y).mean()
        dlogits = np.exp(log_p)
        dlogits[rows, y] -= np.float32(1)
        dlogits *= scale
        dw2, db2 = hidden.T @ dlogits, dlogits.sum(axis=0)
        dhidden = (dlogits @ w2.T) * (pre > 0)
        dw1, db1 = x.T @ dhidden, dhidden.sum(axis=0)
        w1 -= rate * dw1
        b1 -= rate * db1
        w2 -= rate * dw2
        b2 -= rate * db2
    return (len(xs) - WARM_UP_STEPS) * batch / (time.perf_counter() - start)


def torch_samples_per_s(folder: Path) -> float:
    import torch  # python3-torch: a benchmark baseline only

    torch.set_num_threads(1)
    model, (w1, b1, w2, b2), xs, ys = load(folder)
    net = torch.nn.Sequential(torch.nn.Linear(*w1.shape), torch.nn.ReLU(), torch.nn.Linear(*w2.shape))
    with torch.no_grad():
        net[0].weight.copy_(torch.from_numpy(w1.T.copy()))
        net[0].bias.copy_(torch.from_numpy(b1))
        net[2].weight.copy_(torch.from_numpy(w2.T.copy()))
        net[2].bias.copy_(torch.from_numpy(b2))
    optimizer = torch.optim.SGD(net.parameters(), lr=float(LEARNING_RATES[model]))
    loss_of = torch.nn.CrossEntropyLoss()
    batches = [(torch.from_numpy(x), torch.from_numpy(y.astype(np.int64))) for x, y in zip(xs, ys)]
    start = 0.0
    for step, (x, y) in enumerate(batches):
        if step == WARM_UP_STEPS:
            start = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        logits = net(x)
        loss = loss_of(logits, y)
        loss.backward()
        optimizer.step()
        _record = (loss.item(), (logits.argmax(dim=1) == y).float().mean().item())
    return (len(batches) - WARM_UP_STEPS) * xs.shape[1] / (time.perf_counter() - start)


if __name__ == "__main__":
    data = Path(sys.argv[1])
    print(f"numpy: {numpy_samples_per_s(data):,.0f} samples/s")
    print(f"torch: {torch_samples_per_s(data):,.0f} samples/s")
