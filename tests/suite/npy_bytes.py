"""A .npy file written by hand, without NumPy (the harness runs on any python3): any header, even one
whose shape does not match the data."""
from __future__ import annotations


def npy_bytes(shape: tuple[int, ...], data: bytes = b"", descr: str = "<f4") -> bytes:
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, "".join(f"{d}, " for d in shape))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + data
