"""The libFuzzer targets (tests/fuzz/*.cpp, built with clang, ASan and UBSan), each run briefly from its
seed corpus by tests/fuzz/run_fuzzers.py; a crash, a sanitizer report, a leak or a slow input fails it.
The whole seed corpus always runs; then new inputs for FUZZ_SECONDS (a time, not a count: inputs of the
command-line target cost 4 ms each, of the ring reader's a few µs)."""
from __future__ import annotations

import shlex
from functools import partial

from qemu_runner import REPO_ROOT, describe_exit, run_image

from .case import IMAGE_TIMEOUT_S, Case, Outcome

FUZZ_SECONDS = 6  # per fuzz target in make test (make fuzz runs each for a minute, FUZZ_SECONDS=..)


def fuzz_targets() -> list[str]:
    return sorted(path.stem for path in (REPO_ROOT / "tests" / "fuzz").glob("*.cpp"))


def check_fuzz_target(target: str) -> Outcome:
    """Runs one target for FUZZ_SECONDS after its seed corpus."""
    command = ["python3", "tests/fuzz/run_fuzzers.py", "--seconds", str(FUZZ_SECONDS), target]
    ran = run_image(command, IMAGE_TIMEOUT_S * 4)
    ok = ran.exit_code == 0 and not ran.timed_out
    return Outcome(ok, "" if ok else describe_exit(ran), f"$ {shlex.join(command)}\n{ran.output}")


def fuzz_cases() -> list[Case]:
    return [Case(f"fuzz/{target}", partial(check_fuzz_target, target), images=(("fuzzers", "all"),), estimate_s=FUZZ_SECONDS + 2)
            for target in fuzz_targets()]
