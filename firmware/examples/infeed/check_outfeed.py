#!/usr/bin/python3
"""check_outfeed.py OUTFEED_DIR CORES: the outfeed of `tpu run --infeed 0=data/x.npy,data/labels.npy`
(app.toml's outfeed-check), checked against NumPy: at step s, replica r of N outfeeds its rows
[r * 8/N, (r + 1) * 8/N) of x, their float32 column sums (rows added in ascending order) and the
int32 sum of its labels (wrapping), as c<r>_q0_t<s>_e{0,1,2}.npy. Exit status 0 if all are exact."""
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def column_sums(rows: np.ndarray) -> np.ndarray:
    """float32 sums down the columns, rows added in order (cumsum adds one row at a time)."""
    return np.cumsum(rows, axis=0, dtype=np.float32)[-1]


def wrapped_sum(values: np.ndarray) -> np.int32:
    """The int32 sum, wrapping as the board's integer adds do (NumPy's int32 arithmetic wraps too)."""
    return np.int32(np.sum(values, dtype=np.int32))


def main() -> int:
    outfeed, cores = Path(sys.argv[1]), int(sys.argv[2])
    x, labels = np.load(HERE / "data" / "x.npy"), np.load(HERE / "data" / "labels.npy")
    rows = x.shape[1] // cores
    for step in range(x.shape[0]):
        for replica in range(cores):
            shard = slice(replica * rows, (replica + 1) * rows)
            expected = (x[step, shard], column_sums(x[step, shard]), wrapped_sum(labels[step, shard]))
            for element, want in enumerate(expected):
                path = outfeed / f"c{replica}_q0_t{step}_e{element}.npy"
                got = np.load(path) if path.is_file() else None
                if got is None or got.dtype != np.asarray(want).dtype or not np.array_equal(got, want):
                    print(f"{path.name}: {got!r}, expected {want!r}")
                    return 1
    print(f"PASS outfeed of {x.shape[0]} steps x {cores} replicas")
    return 0


if __name__ == "__main__":
    sys.exit(main())
