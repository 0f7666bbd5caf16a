"""Hang triage (issue 25): what tpu prints about every core when a run times out, read from board
memory without the board's help (host-tools/lib/triage/core_triage.hpp). collective-hang must name
the cores that waited, the collective and its number, and the missing core, on both QEMU boards, also
with --watch (its live block); the host board too (its shared-memory link; the rest of its memory
is its process's, read before tpu stops it), with the running core's function and line; over --link uart it says plainly that it cannot; `tpu
run --help` documents both."""
from __future__ import annotations

from functools import partial

from .case import Case
from .tpu_tool import check_tpu_command, check_tpu_run

HANG_TRIAGE = (r"^tpu: hang triage: cores 0, 1, 2 (wait|gave up waiting) in all_reduce #1 for core 3"
               r"(, which| and finished with DEADLINE_EXCEEDED; core 3) is running")
# Where the running core is, read from outside the board (QEMU's monitor; ptrace on the host board)
# and named by addr2line: its endless loop, line 15 of the image's source.
RUNNING_CORE = (r"^tpu:   core 3: is running \(not waiting for anything\) at pc 0x[0-9a-f]+: "
                r"\(anonymous namespace\)::run\(firmware::CoreContext const&\) at "
                r"tests/faults/collective-hang/device/collective_hang\.cpp:15;")


def hang_triage_cases() -> list[Case]:
    image = "collective-hang"
    cases = [Case(f"tpu-triage/{image}/{board}/4", partial(
        check_tpu_run, board, 4, image, 4, [HANG_TRIAGE, RUNNING_CORE], extra=("--timeout", "5")),
        images=((board, image),), estimate_s=8) for board in ("qemu-virt-a53", "qemu-virt-rv64")]
    cases.append(Case(f"tpu-triage/{image}/qemu-virt-a53/4/watch", partial(
        check_tpu_run, "qemu-virt-a53", 4, image, 4,
        [r"^tpu: watch: qemu-virt-a53, 4 cores", r"^tpu:   => cores 0, 1, 2 (wait|gave up waiting) in all_reduce #1 "
         r"for core 3", HANG_TRIAGE], extra=("--timeout", "5", "--watch")),
        images=(("qemu-virt-a53", image),), estimate_s=8))
    cases.append(Case(f"tpu-triage/{image}/host/4", partial(
        check_tpu_run, "host", 4, image, 4, [HANG_TRIAGE, RUNNING_CORE], extra=("--timeout", "4")),
        images=(("host", image),), estimate_s=6))
    cases.append(Case(f"tpu-triage/{image}/host/4/uart", partial(
        check_tpu_run, "host", 4, image, 4, [r"^tpu: hang triage: not possible on the uart link"],
        extra=("--timeout", "4", "--link", "uart")), images=(("host", image),), estimate_s=6))
    cases.append(Case("tpu-triage/run-help", partial(check_tpu_command, ["run", "--help"], 0,
                                                     [r"--watch", r"Hang triage"])))
    return cases
