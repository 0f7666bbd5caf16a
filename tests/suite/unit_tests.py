"""The runtime's Catch2 unit tests (tests/unit/*.cpp): one case per test file, each running that file's
test cases (tagged [#file] by Catch2's -#) from the unit-tests binary the build phase made with
`make unit-tests`; the link, shared-memory and .npy tests also run from a binary built with ASan and
UBSan (`make unit-tests UNIT_SANITIZE=address,undefined`), where any report fails the case."""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import qemu_runner as runner
from qemu_runner import REPO_ROOT, describe_exit, run_image

from .case import IMAGE_TIMEOUT_S, Case, Outcome
from .sanitizers import SANITIZER_ENV, SANITIZER_FOLDER_SUFFIX, SANITIZERS

# The test files that also run under ASan+UBSan (by the first word after test_): the host link, the
# rings and .npy.
SANITIZED_UNIT_FILES = ("link", "shm", "npy")


@dataclass(frozen=True)
class UnitVariant:
    """A build of the unit tests: plain, or with sanitizers in its own folder (only the test files
    that run under them are compiled in)."""
    folder: str
    sanitize: str = ""

    @property
    def binary(self) -> str:
        return f"{self.folder}/unit-tests"

    @property
    def image(self) -> tuple[str, str]:
        """What the build phase builds for it (build_plan.py)."""
        return ("unit-tests", self.sanitize or "plain")


UNIT_PLAIN = UnitVariant("build/unit")
UNIT_SANITIZED = UnitVariant(f"build/unit{SANITIZER_FOLDER_SUFFIX}", SANITIZERS)


def unit_test_sources() -> list[str]:
    return sorted(str(path.relative_to(REPO_ROOT)) for path in (REPO_ROOT / "tests/unit").glob("*.cpp"))


def test_files() -> list[str]:
    return [source for source in unit_test_sources() if Path(source).stem != "main"]


def short_name(test_file: str) -> str:
    return Path(test_file).stem.removeprefix("test_")


def sanitized_test_files() -> list[str]:
    return [source for source in test_files() if short_name(source).split("_")[0] in SANITIZED_UNIT_FILES]


def make_unit_tests(variant: str) -> list[str]:
    """The make command that builds a variant ("plain" or the sanitizers) of the unit-tests binary."""
    if variant == "plain":
        return ["make", "-s", "unit-tests"]
    return ["make", "-s", "unit-tests", f"UNIT_SANITIZE={variant}", f"UNIT_TESTS={' '.join(sanitized_test_files())}"]


def catch2_summary(output: str) -> list[str]:
    """Catch2's "test cases: ..." total and where the first failure is, when present."""
    parts = [re.sub(r"\s+", " ", line) for line in re.findall(r"^test cases:.*$", output, re.MULTILINE)[-1:]]
    first = re.search(r"^(\S+:\d+): FAILED:", output, re.MULTILINE)
    if first:
        parts.append(f"first failure at {first.group(1)}")
    return parts


def check_unit_tests(test_file: str, variant: UnitVariant = UNIT_PLAIN) -> Outcome:
    """Runs the Catch2 test cases of one tests/unit file from the variant's binary; under sanitizers
    any report fails the case."""
    command = [variant.binary, "-#", f"[#{Path(test_file).stem}]"]
    env = runner.make_env() | (SANITIZER_ENV if variant.sanitize else {})
    ran = run_image(command, IMAGE_TIMEOUT_S * (4 if variant.sanitize else 1), env=env)
    ok = ran.exit_code == 0 and not ran.timed_out and "Sanitizer" not in ran.output
    reason = "" if ok else "; ".join([describe_exit(ran)] + catch2_summary(ran.output))
    return Outcome(ok, reason, f"$ {shlex.join(command)}\n{ran.output}")


def unit_cases() -> list[Case]:
    if not unit_test_sources():
        return [Case("unit", lambda: Outcome(False, "no unit tests: tests/unit/*.cpp matches no file"))]
    cases = [Case(f"unit/{short_name(source)}", partial(check_unit_tests, source), images=(UNIT_PLAIN.image,),
                  estimate_s=2) for source in test_files()]
    cases += [Case(f"asan/unit/{short_name(source)}", partial(check_unit_tests, source, UNIT_SANITIZED),
                   images=(UNIT_SANITIZED.image,), estimate_s=3) for source in sanitized_test_files()]
    return cases
