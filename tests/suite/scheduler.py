"""Runs the cases: the build phase starts first (build_plan.py), and each case starts on a small worker
pool as soon as everything it needs is built (the slowest ready case first), so cases run while the
rest still builds. Each result is printed as it finishes, a failure followed by its log's tail; a case
whose image did not build fails naming make's error. Ctrl-C kills the builds and every running case."""
from __future__ import annotations

import concurrent.futures
import os
import threading
import time
import traceback

import qemu_runner as runner
from qemu_runner import format_log

from .build_needs import TOOL_KINDS, build_priority, describe, with_tools
from .build_plan import BuildPhase
from .case import Case, Image, Outcome

_print_lock = threading.Lock()
_interrupted = threading.Event()  # after Ctrl-C, cases killed on the way out are not reported
WAKE_UP_S = 1.0
# With one case at a time (-j 1) each line also says the CPU time of the case's processes (the
# children's times grow by theirs, and by the builds' while the build phase still runs); with more,
# the cases' processes would be mixed up.
_cpu_per_case = threading.Event()


def children_cpu_seconds() -> float:
    times = os.times()
    return times.children_user + times.children_system


def emit(text: str) -> None:
    with _print_lock:
        print(text, flush=True)


def run_case(case: Case, phase: BuildPhase) -> Outcome:
    for image in case.images:
        build = phase.result(image)
        if not build.ok:
            return Outcome(False, f"image {describe(image)} did not build: {build.summary}", build.failure_tail())
    try:
        return case.check()
    except Exception as error:  # a harness bug must fail one case, not the whole run
        return Outcome(False, f"harness error: {error!r}", traceback.format_exc())


def report(case: Case, outcome: Outcome, seconds: float, cpu_seconds: float | None, width: int) -> None:
    if _interrupted.is_set():
        return
    cpu = "" if cpu_seconds is None else f", CPU {cpu_seconds:.1f} s"
    line = f"{'PASS' if outcome.ok else 'FAIL'}  {case.name:<{width}}  ({seconds:.1f} s{cpu})"
    if not outcome.ok:
        line += f"  {outcome.reason}\n{format_log(outcome.log)}"
    emit(line)


def timed_run(case: Case, phase: BuildPhase, width: int) -> tuple[bool, float]:
    """Runs one case and reports it; (passed, seconds)."""
    start, cpu_start = time.monotonic(), children_cpu_seconds()
    outcome = run_case(case, phase)
    seconds = time.monotonic() - start
    report(case, outcome, seconds, children_cpu_seconds() - cpu_start if _cpu_per_case.is_set() else None, width)
    return outcome.ok, seconds


def build_order(cases: list[Case]) -> list[Image]:
    """The images in the order the cases start (slowest first), tools before images among equals,
    then by build_priority: what many cases wait for before the costly builds few cases need."""
    wanted = [image for case in cases for image in sorted(case.images, key=lambda image: image[0] not in TOOL_KINDS)]
    return sorted(dict.fromkeys(wanted), key=build_priority)


class BuildReporter:
    """Prints "built <image> (s)" or "BUILD FAILED ..." once per image as the build phase finishes it."""

    def __init__(self, phase: BuildPhase):
        self.phase = phase
        self.reported: set[Image] = set()

    def report_new(self) -> None:
        for image in self.phase.images:
            build = self.phase.result(image)
            if build is None or image in self.reported:
                continue
            self.reported.add(image)
            done_at = time.monotonic() - self.phase.start_time  # where it sits in the schedule
            emit(f"{'built' if build.ok else 'BUILD FAILED'}  {describe(image)}  ({build.seconds:.1f} s, "
                 f"CPU {build.cpu_seconds:.1f} s, done at {done_at:.0f} s)"
                 + ("" if build.ok else f"  {build.summary}"))


class CasePool:
    """The worker pool: starts each pending case once everything it needs is built, the slowest first,
    at most `jobs` at a time, and keeps the results."""

    def __init__(self, cases: list[Case], jobs: int, phase: BuildPhase, changed: threading.Event):
        self.pending = sorted(cases, key=lambda case: -case.estimate_s)  # stable: table order otherwise
        self.jobs, self.phase, self.changed = jobs, phase, changed
        self.running: set[concurrent.futures.Future] = set()
        self.results: list[tuple[bool, float]] = []
        self.width = max(len(case.name) for case in cases)

    def busy(self) -> bool:
        return bool(self.pending or self.running)

    def start_ready(self, pool: concurrent.futures.ThreadPoolExecutor) -> None:
        ready = [case for case in self.pending if self.phase.done(case.images)]
        for case in ready[:self.jobs - len(self.running)]:
            self.pending.remove(case)
            future = pool.submit(timed_run, case, self.phase, self.width)
            future.add_done_callback(lambda _: self.changed.set())
            self.running.add(future)

    def collect_finished(self) -> None:
        for future in [future for future in self.running if future.done()]:
            self.running.discard(future)
            self.results.append(future.result())


def run_all(cases: list[Case], jobs: int) -> tuple[int, int, dict[str, float]]:
    """Runs every case while the build phase builds what they need; returns (passed, failed, the
    phases' figures in seconds)."""
    for case in cases:
        case.images = with_tools(case)
    if jobs == 1:
        _cpu_per_case.set()
    changed = threading.Event()
    phase = BuildPhase(build_order(sorted(cases, key=lambda case: -case.estimate_s)), on_change=changed)
    builds, cases_pool = BuildReporter(phase), CasePool(cases, jobs, phase, changed)
    start = time.monotonic()
    phase.start()
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        try:
            while cases_pool.busy():
                builds.report_new()
                cases_pool.start_ready(pool)
                changed.wait(WAKE_UP_S)
                changed.clear()
                cases_pool.collect_finished()
            builds.report_new()
        except KeyboardInterrupt:
            _interrupted.set()
            phase.stop()
            pool.shutdown(wait=False, cancel_futures=True)
            runner.kill_all_running()
            raise
    end = time.monotonic()
    build_end = phase.end_time or end
    passed = sum(ok for ok, _ in cases_pool.results)
    figures = {"build phase": build_end - start,
               "its CPU time": sum(build.cpu_seconds for build in map(phase.result, phase.images) if build),
               "cases after it": end - build_end,
               "case time summed": sum(seconds for _, seconds in cases_pool.results)}
    return passed, len(cases_pool.results) - passed, figures
