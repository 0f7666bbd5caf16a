"""`tpu run` of the images that test the tool's side of a run: a core that faults, a core that never
starts, a link that corrupts its frames on purpose (each corruption named), the link benchmark
moving 64 MiB each way through shared memory, and the infeed benchmark's app (a .npy read straight
into the board's slots, dequeued in place, every tuple handed back)."""
from __future__ import annotations

import struct
from functools import partial

from .case import Case
from qemu_runner import REPO_ROOT

from .case import Outcome
from .npy_bytes import npy_bytes
from .tpu_tool import check_tpu_run

CORRUPTION_PATTERNS = {
    1: r"has a bad header .*torn or corrupted write",
    2: r"claims \d+ bytes, only \d+ are published",
    3: r"the writer's position \d+ is impossible",
    4: r"failed its check \(crc mismatch",
}


def faulty_image_cases() -> list[Case]:
    return [
        Case("tpu-run/fault-null/qemu-virt-a53/4",
             partial(check_tpu_run, "qemu-virt-a53", 4, "fault-null", 3, [r"exited with status 3", r"FAULT on core 3"]),
             images=(("qemu-virt-a53", "fault-null"),), estimate_s=10),
        Case("tpu-run/dead-core/qemu-virt-a53/4",
             partial(check_tpu_run, "qemu-virt-a53", 4, "dead-core", 4, [r"timed out after 1 s"], extra=("--timeout", "1")),
             images=(("qemu-virt-a53", "dead-core"),), estimate_s=10),
    ]


def link_corrupt_cases() -> list[Case]:
    return [Case(f"tpu-run/link-corrupt/qemu-virt-a53/{variant}",
                 partial(check_tpu_run, "qemu-virt-a53", variant, "link-corrupt", 1,
                         [r"the link to the board failed: .*" + pattern], link="shm"),
                 images=(("qemu-virt-a53", "link-corrupt"),), estimate_s=10)
            for variant, pattern in CORRUPTION_PATTERNS.items()]


def link_bench_cases() -> list[Case]:
    return [Case(f"tpu-run/link-bench/{board}/1/shm",
                 partial(check_tpu_run, board, 1, "link-bench", 0,
                         [r"LINK-BENCH .*host-to-board.*67108864", r"LINK-BENCH .*board-to-host.*67108864",
                          r"LINK-BENCH .*round-trip", r"PASS link-bench",
                          r"[1-9]\d{7,} bytes placed straight into board memory"], link="shm"),
                 images=((board, "link-bench"),), estimate_s=11)
            for board in ("qemu-virt-a53", "qemu-virt-rv64")]


def check_bench_infeed(board: str) -> Outcome:
    """3 tuples of float32 [1024, 1024] filled with 1.5 (what bench-infeed checks) through --infeed."""
    folder = REPO_ROOT / "build" / "tpu-run" / f"bench-infeed-input-{board}"
    folder.mkdir(parents=True, exist_ok=True)
    x = folder / "x.npy"
    x.write_bytes(npy_bytes((3, 1024, 1024), struct.pack("<f", 1.5) * (3 << 20)))
    return check_tpu_run(board, 1, "bench-infeed", 0,
                         [r"3 of 3 tuples sent, 3 consumed", r"PASS bench-infeed",
                          r"12582912 bytes placed straight into board memory"],
                         extra=("--infeed", f"0={x}"), link="shm")


def check_bind_to_core() -> Outcome:
    """`tpu run --bind-to core`: the host board's core 0 bound to CPU 0 (tpu says so, the board does not
    complain that it could not bind), and the app runs as without it."""
    ran = check_tpu_run("host", 1, "hello", 0, [r"tpu: the board's cores are bound to CPU 0 \(--bind-to core\)",
                                                 r"PASS hello"], extra=("--bind-to", "core"))
    if ran.ok and "could not be bound" in ran.log:
        return Outcome(False, "the board could not bind its core as asked", ran.log)
    return ran


def bind_to_core_cases() -> list[Case]:
    return [Case("tpu-run/bind-to-core/host/1", check_bind_to_core, images=(("host", "hello"),), estimate_s=3)]


def bench_infeed_cases() -> list[Case]:
    return [Case(f"tpu-run/bench-infeed/{board}/1/shm", partial(check_bench_infeed, board),
                 images=((board, "bench-infeed"),), estimate_s=4) for board in ("host", "qemu-virt-a53")]
