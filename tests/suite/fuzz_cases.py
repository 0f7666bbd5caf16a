"""The fuzz targets (tests/fuzz/*.cpp) in make test: each replays its seed corpus and deterministic
mutants of it through tests/fuzz/replay/main.cpp, built with GCC under ASan and UBSan beside the
sanitized host library (no clang-built copy of the host code); a crash, a sanitizer report or a
leak fails it. Coverage-guided fuzzing with libFuzzer is `make fuzz` (tests/fuzz/run_fuzzers.py)."""
from __future__ import annotations

import shlex
from functools import partial

from qemu_runner import REPO_ROOT, describe_exit, make_env, run_image

from .case import IMAGE_TIMEOUT_S, Case, Outcome
from .sanitizers import SANITIZER_FOLDER_SUFFIX, SANITIZERS

REPLAY_IMAGE = ("sanitized-tool", "fuzz-replay")
REPLAY_FOLDER = f"build/host-tools{SANITIZER_FOLDER_SUFFIX}/fuzz-replay"
# Mutants per seed: the command line costs ~1.5 ms per input under the sanitizers (CLI11 builds its
# whole parser per input), the others a few µs.
MUTANTS = {"command_line": 200}
DEFAULT_MUTANTS = 5000
# As run_fuzzers.py: a huge allocation returns null (the targets must cope) instead of ending the run,
# above 2 GiB as libFuzzer's -rss_limit_mb.
REPLAY_ENV = {"ASAN_OPTIONS": "halt_on_error=1:detect_leaks=1:allocator_may_return_null=1:max_allocation_size_mb=2048",
              "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1"}


def fuzz_targets() -> list[str]:
    return sorted(path.stem for path in (REPO_ROOT / "tests" / "fuzz").glob("*.cpp"))


def check_fuzz_target(target: str) -> Outcome:
    command = [f"{REPLAY_FOLDER}/{target}", f"tests/fuzz/corpus/{target}", "--mutants",
               str(MUTANTS.get(target, DEFAULT_MUTANTS))]
    ran = run_image(command, IMAGE_TIMEOUT_S * 2, env=make_env() | REPLAY_ENV)
    ok = ran.exit_code == 0 and not ran.timed_out and "no failure" in ran.output
    return Outcome(ok, "" if ok else describe_exit(ran), f"$ {shlex.join(command)}\n{ran.output}")


def fuzz_cases() -> list[Case]:
    assert SANITIZERS == "address,undefined"
    return [Case(f"fuzz/{target}", partial(check_fuzz_target, target), images=(REPLAY_IMAGE,), estimate_s=3)
            for target in fuzz_targets()]
