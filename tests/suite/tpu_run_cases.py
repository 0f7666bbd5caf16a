"""`tpu run` of the images that test the tool's side of a run: a core that faults, a core that never
starts, a link that corrupts its frames on purpose (each corruption named), and the link benchmark
moving 64 MiB each way through shared memory."""
from __future__ import annotations

from functools import partial

from .case import Case
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
