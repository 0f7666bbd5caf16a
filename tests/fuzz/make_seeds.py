#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (tests/fuzz/corpus/<target>/): small valid and nearly valid
inputs, so the fuzzers start inside the formats instead of guessing a .npy magic or a CRC-32.
The files are checked in; run this again (`python3 tests/fuzz/make_seeds.py [TARGET...]`) after a
format change (the .npy seeds need NumPy; name the other targets to leave them alone).
Message payloads are built from the link's own description of its messages: the kind table in
runtime/link/protocol/message_kind.hpp and the field lists in message.hpp, read here, so a field
added there reaches the seeds. The framing (frame.hpp), the tensor chunk (tensor_chunk.hpp), the
ring (shm_ring.hpp) and .npy (NumPy's np.save) are encoded from their format comments,
independently of the C++ encoders on purpose."""
import io
import re
import shutil
import struct
import sys
import zlib
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "corpus"
PROTOCOL = Path(__file__).resolve().parents[2] / "runtime/link/protocol"


def write(target: str, name: str, data: bytes) -> None:
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)


# ---------------------------------------------------------------- .npy
def npy_seeds() -> None:
    import numpy as np

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


# ---------------------------------------------------------------- link messages, from their description
def macro_bodies(text: str) -> dict[str, str]:
    """#define NAME(...) bodies with their line continuations joined."""
    joined = text.replace("\\\n", " ")
    return {m.group(1): m.group(2) for m in re.finditer(r"^#define (\w+)\([A-Z]\)\s+(.*)$", joined, re.M)}


def message_kinds() -> dict[str, tuple[int, str]]:
    """Enumerator (kHello) -> (number, payload struct), from RT_LINK_MESSAGE_KINDS."""
    body = macro_bodies((PROTOCOL / "message_kind.hpp").read_text())["RT_LINK_MESSAGE_KINDS"]
    return {m.group(2): (int(m.group(1)), m.group(3)) for m in re.finditer(r"K\((\d+), (\w+), \"[^\"]*\", (\w+),", body)}


def message_fields() -> dict[str, list[tuple[str, str]]]:
    """Struct -> [(wire type, member)] in wire order, from RT_LINK_MESSAGES and the field lists."""
    macros = macro_bodies((PROTOCOL / "message.hpp").read_text())
    fields = {}
    for m in re.finditer(r"M\((\w+), \"[^\"]*\", (\w+)\)", macros["RT_LINK_MESSAGES"]):
        fields[m.group(1)] = re.findall(r"F\((\w+), (\w+)\)", macros[m.group(2)])
    return fields


KINDS = message_kinds()
FIELDS = message_fields()
DTYPE_F32, DTYPE_I32 = 1, 3


def text_bytes(value) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode()


# How each wire type of message_codec.hpp is written; `fields` is the whole message (for chunk_if_tensors).
WIRE = {
    "u8": lambda v, fields: struct.pack("<B", v or 0),
    "u16": lambda v, fields: struct.pack("<H", v or 0),
    "u32": lambda v, fields: struct.pack("<I", v or 0),
    "u64": lambda v, fields: struct.pack("<Q", v or 0),
    "u16x4": lambda v, fields: struct.pack("<4H", *(v or (0, 0, 0, 0))),
    "role": lambda v, fields: struct.pack("<B", v or 0),
    "char8": lambda v, fields: text_bytes(v or "\0")[:1],
    "status": lambda v, fields: struct.pack("<B", v or 0),
    "str8": lambda v, fields: bytes([len(text_bytes(v or ""))]) + text_bytes(v or ""),
    "str16": lambda v, fields: struct.pack("<H", len(text_bytes(v or ""))) + text_bytes(v or ""),
    "rest": lambda v, fields: text_bytes(v or ""),
    "dtype": lambda v, fields: struct.pack("<B", v or 0),
    "shape": lambda v, fields: bytes([len(v or ())]) + b"".join(struct.pack("<q", d) for d in v or ()),
    "chunk": lambda v, fields: v or b"",
    "chunk_if_tensors": lambda v, fields: (v or b"") if fields.get("tensor_count") else b"",
}


def encode_struct(name: str, values: dict) -> bytes:
    unknown = set(values) - {member for _, member in FIELDS[name]}
    assert not unknown, f"{name} has no fields {unknown}"
    return b"".join(WIRE[wire](values.get(member), values) for wire, member in FIELDS[name])


def payload(kind: str, **values) -> bytes:
    """A payload of message kind `kind` (an enumerator of RT_LINK_MESSAGE_KINDS) with these fields."""
    struct_name = KINDS[kind][1]
    if struct_name == "TraceBatch":  # u16 count, then described events
        events = values["events"]
        return struct.pack("<H", len(events)) + b"".join(encode_struct("TraceEvent", e) for e in events)
    return encode_struct(struct_name, values)


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


def chunk(dtype: int, shape: tuple[int, ...], data: bytes, offset: int = 0) -> bytes:
    return bytes([dtype, len(shape)]) + b"".join(struct.pack("<q", d) for d in shape) + struct.pack("<Q", offset) + data


def hello(cores: int = 4) -> bytes:
    return payload("kHello", protocol_version=1, role=1, core_count=cores, max_payload=4096,
                   mesh_shape=(1, 1, 1, cores), board="qemu-virt-a53", app="hello")


def call(kind: str, call_id: int, text: str, tensors: list[bytes], status: int = 0, replica: int = 0xFFFF) -> list[bytes]:
    if not tensors:
        return [payload(kind, id=call_id, replica=replica, status=status, text=text)]
    return [payload(kind, id=call_id, replica=replica, status=status, tensor_count=len(tensors), tensor_index=i,
                    text=text, chunk=t) for i, t in enumerate(tensors)]


def board_messages() -> list[tuple[int, int, bytes]]:
    """A board's side of a session: (kind number, channel, payload)."""
    f32 = chunk(DTYPE_F32, (2,), struct.pack("<2f", 1.5, -2.0))
    messages = [("kHello", 0, hello()), ("kLog", 1, payload("kLog", level="I", text="core 1 up"))]
    request = "kHostCallRequest"
    messages += [(request, 0, p) for p in call(request, 1, "format", [f32, chunk(DTYPE_I32, (), struct.pack("<i", 7))], replica=0)]
    messages += [(request, 1, p) for p in call(request, 2, "to_number", [])]
    messages += [(request, 2, p) for p in call(request, 3, "echo", [f32], replica=2)]
    messages += [(request, 3, p) for p in call(request, 4, "print", [f32])]
    messages += [("kOutfeedData", 1, payload("kOutfeedData", queue=0, element_count=1, element_index=0, chunk=f32))]
    messages += [("kInfeedCredits", 0, payload("kInfeedCredits", queue=0, granted_tuples=4, granted_bytes=4096))]
    messages += [("kTrace", 0, payload("kTrace", events=[dict(timestamp_ns=1000, arg=50, core=0, phase="X", name="compute")]))]
    messages += [("kHostCallArgumentInPlace", 0, payload("kHostCallArgumentInPlace", id=5, replica=0xFFFF, tensor_count=1,
                                                         tensor_index=0, text="echo", dtype=DTYPE_F32, shape=(4,),
                                                         address=0x40000100))]
    messages += [("kError", 0, payload("kError", code=13, related_kind=6, related_sequence=3, message="board could not take it"))]
    messages += [("kResult", core, p) for core in range(4) for p in call("kResult", 0, "", [])]
    return [(KINDS[kind][0], channel, data) for kind, channel, data in messages]


def frame_seeds() -> None:
    stream = b"boot: 4 cores\r\n"
    for sequence, (kind, channel, data) in enumerate(board_messages()):
        stream += wire(kind, channel, sequence, data) + b"text between\r\n"
    write("frame_decoder", "session.bin", stream)
    corrupt = bytearray(wire(KINDS["kLog"][0], 0, 0, payload("kLog", level="I", text="hello")))
    corrupt[6] ^= 0x10
    write("frame_decoder", "crc_error.bin", b"abc" + bytes(corrupt) + b"def")
    write("frame_decoder", "oversized.bin", b"\0\x04\xfa" + b"\x01" * 5000 + b"\0tail")
    write("frame_decoder", "text_only.bin", "héllo\r\nwörld\r\n".encode())


def session_seeds() -> None:
    records = b""
    for route, (kind, channel, data) in enumerate(board_messages()):
        records += struct.pack("<BBHH", route % 2 | (route % 3 == 0) << 2, kind - 1, channel, len(data)) + data
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


TARGETS = {"npy_parser": npy_seeds, "frame_decoder": frame_seeds, "link_session": session_seeds,
           "shm_ring_reader": shm_seeds, "command_line": command_line_seeds}


def main() -> None:
    targets = sys.argv[1:] or list(TARGETS)
    for target in targets:
        shutil.rmtree(CORPUS / target, ignore_errors=True)
        TARGETS[target]()
    print(f"seeds written to {CORPUS}: " + ", ".join(f"{d.name} {len(list(d.iterdir()))}" for d in sorted(CORPUS.iterdir())))


if __name__ == "__main__":
    main()
