#!/usr/bin/env python3
"""`make test`: every test case on every board, ending with the line "N passed, N failed".

  python3 tests/harness.py               run everything
  python3 tests/harness.py -k a53        only cases whose name contains "a53" (-k may repeat: any)
  python3 tests/harness.py --list        list the case names
  python3 tests/harness.py --app DIR     only the tests DIR/app.toml declares (an app anywhere)

The apps' own cases come from their app.toml files (tests/app_tests.py): every app of the
repository (firmware/examples, tests/device, tests/faults, ...) is discovered, none is listed here.
The cases of the tools (tpu, make) are in tests/suite/, one module per area (its __init__.py lists
them); tests/suite/catalog.py puts them together.

Every firmware image and tool the selected cases need is built by sub-makes sharing one jobserver, as
one parallel make would, started in priority order (tests/suite/build_plan.py), and each case starts
on a small worker pool (2 by default: each QEMU is mostly one busy thread) as soon as what it needs
is built, the slowest first; a case whose image did not build fails with the build output's tail. Each result is
printed as it finishes, a failure followed by its console log (the last 200 lines), indented. The
exit status is 0 only if no case failed.

How one image run is judged lives in qemu_runner.py.
"""
from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import app_tests  # noqa: E402  (sibling modules, found through the line above)
import qemu_runner as runner  # noqa: E402
from suite.app_cases import app_cases  # noqa: E402
from suite.case import Case  # noqa: E402
from suite.catalog import all_cases  # noqa: E402
from suite.scheduler import run_all  # noqa: E402


def select(cases: list[Case], substrings: list[str]) -> list[Case]:
    if not substrings:
        return cases
    return [case for case in cases if any(s in case.name for s in substrings)]


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-k", dest="substrings", action="append", default=[], metavar="SUBSTRING",
                        help="run only cases whose name contains SUBSTRING (repeatable: any of them)")
    parser.add_argument("--list", action="store_true", help="list the (selected) case names and exit")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="cases run in parallel (default 2)")
    parser.add_argument("--app", dest="apps", action="append", default=[], metavar="FOLDER",
                        help="run only the tests the app.toml of this app folder declares (repeatable)")
    return parser.parse_args(argv)


def interrupt(*_: object) -> None:
    """SIGTERM (e.g. from `timeout`) ends the run as Ctrl-C does: builds and cases killed."""
    raise KeyboardInterrupt


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGTERM, interrupt)
    arguments = parse_arguments(argv)
    try:
        if arguments.apps:
            specs = [app_tests.load_app(Path(folder)) for folder in arguments.apps]
            cases = [case for spec in specs for case in app_cases(spec)]
        else:
            cases = all_cases(app_tests.repository_apps())
    except (app_tests.AppSpecError, OSError) as error:
        print(f"harness: {error}", file=sys.stderr)
        return 2
    cases = select(cases, arguments.substrings)
    if arguments.list:
        print("\n".join(case.name for case in cases))
        return 0
    if not cases:
        print(f"no test case name contains any of {arguments.substrings} (see --list)", file=sys.stderr)
        return 2
    start = time.monotonic()
    try:
        passed, failed, phases = run_all(cases, max(1, arguments.jobs))
    except KeyboardInterrupt:
        runner.kill_all_running()
        print("\ninterrupted", file=sys.stderr)
        return 130
    print("(" + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in phases.items()) + ")")
    print(f"(ran {len(cases)} cases in {time.monotonic() - start:.1f} s)")
    print(f"{passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
