#!/usr/bin/python3
"""Writes this example's small dataset (what app.toml feeds `tpu test` with): x.npy float32 [4, 8, 3]
and labels.npy int32 [4, 8], 4 steps, from a fixed seed. Run it to make them again (NumPy: Debian's
/usr/bin/python3)."""
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
random = np.random.default_rng(2026)
np.save(HERE / "x.npy", random.standard_normal((4, 8, 3)).astype(np.float32))
np.save(HERE / "labels.npy", random.integers(-2**31, 2**31, size=(4, 8), dtype=np.int64).astype(np.int32))
