#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (tests/fuzz/corpus/<target>/): small valid and nearly valid
inputs, so the fuzzers start inside the formats instead of guessing a .npy magic or a CRC-32.
The files are checked in; run this again (`python3 tests/fuzz/make_seeds.py`) after a format change.
Encodings follow the format comments in runtime/link/transport/frame.hpp, message.hpp, tensor_chunk.hpp,
shm_ring.hpp and NumPy's own np.save; written independently of the C++ encoders on purpose."""
import io
import shutil
import struct
import zlib
from pathlib import Path

import numpy as np

CORPUS = Path(__file__).resolve().parent / "corpus"


def write(target: str, name: str, data: bytes) -> None:
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)


# ---------------------------------------------------------------- .npy
def npy_seeds() -> None:
    arrays = {
        "f4_2x3": np.arange(6, dtype="<f4").reshape(2, 3), "f8_4": np.linspace(0, 1, 4), "f2_3": np.ones(3, "<f2"),
        "i4_scalar": np.array(7, "<i4"), "u4_2": np.array([1, 2], "<u4"), "i1_5": np.arange(-2, 3, dtype="i1"),
        "b1_3": np.array([True, False, True]), "i8_2x1": np.array([[1], [2]], "<i8"), "c8_2": np.array([1j, 2], "<c8"),
        "v2_bf16": np.frombuffer(b"\x80\x3f\x00\x40", dtype="V2"), "f4_empty": np.zeros((0, 4), "<f4"),
    }
    for name, array in arrays.items():
        buffer = io.BytesIO()
        np.save(buffer, array)
        write("npy_parser", name + ".npy", buffer.getvalue())

    def crafted(header: str, data: bytes = b"", version: bytes = b"\x01\x00") -> bytes:
        text = header.encode()
        size_bytes = 2 if version == b"\x01\x00" else 4
        pad = (64 - (8 + size_bytes + len(text) + 1) % 64) % 64
        text += b" " * pad + b"\n"
        return b"\x93NUMPY" + version + len(text).to_bytes(size_bytes, "little") + text + data

    write("npy_parser", "huge_shape.npy", crafted("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 4194304), }"))
    write("npy_parser", "v2_header.npy", crafted("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }",
                                                 struct.pack("<2i", 1, 2), b"\x02\x00"))
    write("npy_parser", "fortran.npy", crafted("{'descr': '<f4', 'fortran_order': True, 'shape': (1, 1), }", b"\0" * 4))
    write("npy_parser", "big_endian.npy", crafted("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", b"\0" * 4))
    write("npy_parser", "short_data.npy", crafted("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", b"\0" * 9))


# ---------------------------------------------------------------- link frames
KIND = {"hello": 1, "log": 2, "credits": 4, "outfeed": 5, "request": 6, "result": 9, "error": 10, "trace": 11,
        "argument_in_place": 14}
DTYPE_F32, DTYPE_I32 = 1, 3


def cobs(data: bytes) -> bytes:
    out, block = bytearray(), bytearray()
    for byte in data:
        if byte == 0:
            out += bytes([len(block) + 1]) + block
            block = bytearray()
        else:
            block.append(byte)
            if len(block) == 254:
                out += b"\xff" + block
                block = bytearray()
    return bytes(out + bytes([len(block) + 1]) + block)


def frame_body(kind: int, channel: int, sequence: int, payload: bytes) -> bytes:
    head = struct.pack("<BBBBHHI", 0xFA, 1, kind, 0, channel, len(payload), sequence) + payload
    return head + struct.pack("<I", zlib.crc32(head))


def wire(kind: int, channel: int, sequence: int, payload: bytes) -> bytes:
    return b"\0" + cobs(frame_body(kind, channel, sequence, payload)) + b"\0"


def str8(text: str) -> bytes:
    return bytes([len(text)]) + text.encode()


def str16(text: str) -> bytes:
    return struct.pack("<H", len(text)) + text.encode()


def chunk(dtype: int, shape: tuple[int, ...], data: bytes, offset: int = 0) -> bytes:
    return bytes([dtype, len(shape)]) + b"".join(struct.pack("<q", d) for d in shape) + struct.pack("<Q", offset) + data


def hello(cores: int = 4) -> bytes:
    return struct.pack("<BBHH4H", 1, 1, cores, 4096, 1, 1, 1, cores) + str8("qemu-virt-a53") + str8("hello")


def call(call_id: int, text: str, tensors: list[bytes], status: int = 0) -> list[bytes]:
    if not tensors:
        return [struct.pack("<IBBB", call_id, status, 0, 0) + str16(text)]
    return [struct.pack("<IBBB", call_id, status, len(tensors), i) + str16(text) + t for i, t in enumerate(tensors)]


def board_messages() -> list[tuple[int, int, bytes]]:
    """A board's side of a session: (kind, channel, payload)."""
    f32 = chunk(DTYPE_F32, (2,), struct.pack("<2f", 1.5, -2.0))
    messages = [(KIND["hello"], 0, hello()), (KIND["log"], 1, b"Icore 1 up")]
    messages += [(KIND["request"], 0, p) for p in call(1, "format", [f32, chunk(DTYPE_I32, (), struct.pack("<i", 7))])]
    messages += [(KIND["request"], 1, p) for p in call(2, "to_number", [])]
    messages += [(KIND["request"], 2, p) for p in call(3, "echo", [f32])]
    messages += [(KIND["request"], 3, p) for p in call(4, "print", [f32])]
    messages += [(KIND["outfeed"], 1, struct.pack("<HBB", 0, 1, 0) + f32)]
    messages += [(KIND["credits"], 0, struct.pack("<HIQ", 0, 4, 4096))]
    messages += [(KIND["trace"], 0, struct.pack("<H", 1) + struct.pack("<QQHB", 1000, 50, 0, ord("X")) + str8("compute"))]
    messages += [(KIND["argument_in_place"], 0, struct.pack("<IBB", 5, 1, 0) + str16("echo") + bytes([DTYPE_F32, 1])
                  + struct.pack("<qQ", 4, 0x40000100))]
    messages += [(KIND["error"], 0, struct.pack("<BBI", 13, 6, 3) + str16("board could not take it"))]
    messages += [(KIND["result"], core, p) for core in range(4) for p in call(0, "", [])]
    return messages


def frame_seeds() -> None:
    stream = b"boot: 4 cores\r\n"
    for sequence, (kind, channel, payload) in enumerate(board_messages()):
        stream += wire(kind, channel, sequence, payload) + b"text between\r\n"
    write("frame_decoder", "session.bin", stream)
    corrupt = bytearray(wire(KIND["log"], 0, 0, b"Ihello"))
    corrupt[6] ^= 0x10
    write("frame_decoder", "crc_error.bin", b"abc" + bytes(corrupt) + b"def")
    write("frame_decoder", "oversized.bin", b"\0\x04\xfa" + b"\x01" * 5000 + b"\0tail")
    write("frame_decoder", "text_only.bin", "héllo\r\nwörld\r\n".encode())


def session_seeds() -> None:
    records = b""
    for route, (kind, channel, payload) in enumerate(board_messages()):
        records += struct.pack("<BBHH", route % 2 | (route % 3 == 0) << 2, kind - 1, channel, len(payload)) + payload
    write("link_session", "session.bin", records)
    first = board_messages()[0]
    only_hello = struct.pack("<BBHH", 0, first[0] - 1, first[1], len(first[2])) + first[2]
    write("link_session", "hello_twice.bin", only_hello + only_hello)


# ---------------------------------------------------------------- shared-memory ring
def shm_seeds() -> None:
    window = 1 << 20
    control = struct.pack("<QII", 0x31304D4853555054, 1, window) + struct.pack("<II", 4096, 1 << 19)
    control += struct.pack("<II", 4096 + 128 + (1 << 19), 1 << 18) + b"\0" * 8
    # FuzzedDataProvider takes integers from the end: the last byte picks the mode, the one before
    # it says "the window size is the control block's own".
    write("shm_ring_reader", "control.bin", control + b"\x01" + b"\x00")
    records = b""
    for position, body in ((0, b"\xfa\x01hello"), (24, b"")):
        records += struct.pack("<II", len(body), len(body) ^ 0x5EC0AD5E ^ position) + body + b"\0" * (-len(body) % 8)
    write("shm_ring_reader", "hostile.bin", records + b"\0" * (4096 - len(records)) + b"\x20\x00\x01" + b"\x01" + b"\x00" + b"\x01")
    write("shm_ring_reader", "honest.bin", bytes(range(256)) * 8 + b"\x00\x02")


# ---------------------------------------------------------------- tpu command line
def command_line_seeds() -> None:
    lines = {
        "run": "run\n--cores\n4\n--board\nqemu-virt-a53\nhello",
        "run_infeed": "run\n--infeed\n0=a.npy,b.npy\n--infeed\n1=c.npy\n--timeout\n30\ninfeed",
        "run_attach": "run\n--socket\n/tmp/qemu.sock\n--link\nuart",
        "trace": "trace\n-o\nt.json\n--cores\n2\ncollectives",
        "console": "console\n--app\nshell\n--timeout\ninf",
        "exec": "exec\nmatmul\na.npy\nb.npy\n-o\nc.npy",
        "new": "new\n/tmp/my-app",
        "help": "run\n--help",
        "bad": "run\n--cores\n17\n--link\nwifi",
    }
    for name, text in lines.items():
        write("command_line", name + ".txt", text.encode())


def main() -> None:
    shutil.rmtree(CORPUS, ignore_errors=True)
    npy_seeds()
    frame_seeds()
    session_seeds()
    shm_seeds()
    command_line_seeds()
    print(f"seeds written to {CORPUS}: " + ", ".join(f"{d.name} {len(list(d.iterdir()))}" for d in sorted(CORPUS.iterdir())))


if __name__ == "__main__":
    main()
