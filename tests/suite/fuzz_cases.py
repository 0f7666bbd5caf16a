"""The libFuzzer targets (tests/fuzz/*.cpp, built with clang, ASan and UBSan), each run briefly from its
seed corpus by tests/fuzz/run_fuzzers.py; a crash, a sanitizer report, a leak or a slow input fails it."""
from __future__ import annotations

import shlex
from functools import partial

from qemu_runner import REPO_ROOT, describe_exit, run_image

from .case import IMAGE_TIMEOUT_S, Case, Outcome

FUZZ_RUNS = 30000  # inputs per fuzz target in make test (make fuzz runs them for minutes)


def fuzz_targets() -> list[str]:
    return sorted(path.stem for path in (REPO_ROOT / "tests" / "fuzz").glob("*.cpp"))


def check_fuzz_target(target: str) -> Outcome:
    """Runs one target for FUZZ_RUNS inputs."""
    command = ["python3", "tests/fuzz/run_fuzzers.py", "--runs", str(FUZZ_RUNS), target]
    ran = run_image(command, IMAGE_TIMEOUT_S * 4)
    ok = ran.exit_code == 0 and not ran.timed_out
    return Outcome(ok, "" if ok else describe_exit(ran), f"$ {shlex.join(command)}\n{ran.output}")


def fuzz_cases() -> list[Case]:
    return [Case(f"fuzz/{target}", partial(check_fuzz_target, target), images=(("fuzzers", "all"),), estimate_s=40)
            for target in fuzz_targets()]
