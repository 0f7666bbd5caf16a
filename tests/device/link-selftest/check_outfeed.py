"""The outfeed link-selftest sends, checked with NumPy (written independently of the device code).

  python3 check_outfeed.py OUTFEED_DIR CORES
"""
import pathlib
import sys

import numpy as np

d = pathlib.Path(sys.argv[1])
a = np.load(d / 'c0_q0_t0_e0.npy')
b = np.load(d / 'c0_q0_t0_e1.npy')
assert a.dtype == np.float32 and np.array_equal(a, (0.5 * np.arange(6, dtype=np.float32)).reshape(2, 3)), a
assert b.dtype == np.int32 and np.array_equal(b, (np.arange(5000) ** 2 - 7).astype(np.int32)), b[:5]
rows = (d / 'summary.csv').read_text().strip().splitlines()
assert len(rows) == 1 + int(sys.argv[2]), rows
print('OK')
