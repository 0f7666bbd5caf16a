"""The build phase: every image and tool the selected cases need, built by sub-makes of the
repository's Makefile (`make image BOARD=.. APP=..`, `make tpu`, ...) that share ONE jobserver of
BUILD_JOBS slots, as the sub-makes of one parallel make would: both CPUs stay busy across images
instead of one small make after another, and a make with many files to compile (the tpu tool, a
board's runtime library) takes every slot that is free.

This module is that make's scheduler: it starts the next image in priority order (build_needs.
build_priority, then the order the slowest cases want them) as soon as what it needs is built (a
board's runtime library before its images, ...) and a slot is free, which make itself would not do
(it starts ready targets in no particular order). Each build's output goes to a log of its own
(build/test-plan/logs/), its CPU time is measured, and a failed build stops nothing else: the cases
that need it fail naming make's error (Build.summary). BuildPhase.result() answers as soon as an
image is done, so the scheduler starts its cases while the rest is still building.
"""
from __future__ import annotations

import os
import shlex
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import qemu_runner as runner
from qemu_runner import REPO_ROOT

from .build_needs import build_command, describe, prerequisites, with_prerequisites
from .case import BUILD_TIMEOUT_S, Image

BUILD_JOBS = max(2, os.cpu_count() or 2)
LOG_FOLDER = REPO_ROOT / "build" / "test-plan" / "logs"
BUILD_LOG_TAIL_LINES = 20
POLL_S = 0.05
# Runs a build with its output in $LOG and the CPU time of its processes (the shell's `times`) in $TIMES.
MEASURED = '"$@" > "$LOG" 2>&1; status=$?; times > "$TIMES"; exit $status'


@dataclass
class Build:
    ok: bool
    summary: str
    output: str = ""
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # user + system time of the build's processes

    def failure_tail(self) -> str:
        return "\n".join(self.output.rstrip("\n").split("\n")[-BUILD_LOG_TAIL_LINES:])


def children_cpu_seconds(times: Path) -> float:
    """User + system seconds of a shell's children, from its `times` (the second line, e.g.
    "1m2.5s 0m3.1s")."""
    try:
        lines = times.read_text().split("\n")
        minutes_seconds = [word.rstrip("s").split("m") for word in lines[1].split()]
        return sum(float(minutes) * 60 + float(seconds) for minutes, seconds in minutes_seconds)
    except (OSError, IndexError, ValueError):
        return 0.0


class Jobserver:
    """GNU make's jobserver: a pipe holding one token per slot but the first; a make given its fds in
    MAKEFLAGS takes a token for each job beyond its first. The scheduler holds one slot per running
    build (the first free, each further one a token it took)."""

    def __init__(self, slots: int):
        self.read_fd, self.write_fd = os.pipe()
        os.write(self.write_fd, b"+" * (slots - 1))
        os.set_blocking(self.read_fd, False)  # as make sets it: a token taken by another is no wait
        self.held = 1

    def environment(self) -> dict[str, str]:
        return runner.make_env() | {"MAKEFLAGS": f" -j{BUILD_JOBS} --jobserver-auth={self.read_fd},{self.write_fd}"}

    def acquire(self, running: int) -> bool:
        """A slot for one more build beside `running` ones: True when there is one."""
        if running < self.held:
            return True
        try:
            os.read(self.read_fd, 1)
        except BlockingIOError:
            return False
        self.held += 1
        return True

    def release_unused(self, running: int) -> None:
        while self.held > max(1, running):
            os.write(self.write_fd, b"+")
            self.held -= 1

    def close(self) -> None:
        os.close(self.read_fd)
        os.close(self.write_fd)


class BuildPhase:
    """Builds the images in the background; result(image) is None until that image is done."""

    def __init__(self, images: list[Image], jobs: int = BUILD_JOBS, on_change: threading.Event | None = None):
        self.images = with_prerequisites(images)
        self.needs = {image: prerequisites(image) for image in self.images}
        self.jobs = jobs
        self.on_change = on_change or threading.Event()
        self.builds: dict[Image, Build] = {}
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.running: dict[Image, tuple[subprocess.Popen, float]] = {}
        self.start_time = self.end_time = 0.0

    def start(self) -> None:
        self.start_time = time.monotonic()
        LOG_FOLDER.mkdir(parents=True, exist_ok=True)
        for old in LOG_FOLDER.iterdir():
            old.unlink()
        threading.Thread(target=self._schedule, daemon=True).start()

    # ------------------------------------------------------------ the scheduler thread

    def _schedule(self) -> None:
        jobserver = Jobserver(self.jobs)
        pending = list(self.images)
        try:
            while (pending or self.running) and not self.stopping.is_set():
                self._reap()
                jobserver.release_unused(len(self.running))
                for image in [image for image in pending if self._ready(image)]:
                    if not jobserver.acquire(len(self.running)):
                        break
                    pending.remove(image)
                    self._launch(image, jobserver)
                if time.monotonic() - self.start_time > BUILD_TIMEOUT_S:
                    self.stop(f"the build phase ran out of time ({BUILD_TIMEOUT_S} s)")
                time.sleep(POLL_S)
        finally:
            self._kill_running()
            for image in pending:
                self._record(image, Build(False, self.stop_reason))
            jobserver.close()
            self.end_time = time.monotonic()
            self.on_change.set()

    def _ready(self, image: Image) -> bool:
        with self.lock:
            return all(needed in self.builds for needed in self.needs[image])

    def _launch(self, image: Image, jobserver: Jobserver) -> None:
        number = self.images.index(image)
        env = jobserver.environment() | {"LOG": str(LOG_FOLDER / f"{number}.log"),
                                         "TIMES": str(LOG_FOLDER / f"{number}.times")}
        process = subprocess.Popen(["sh", "-c", MEASURED, "sh", *build_command(image)], cwd=REPO_ROOT, env=env,
                                   stdin=subprocess.DEVNULL, start_new_session=True,
                                   pass_fds=(jobserver.read_fd, jobserver.write_fd))
        runner.track(process)
        self.running[image] = (process, time.monotonic())

    def _reap(self) -> None:
        for image, (process, started) in list(self.running.items()):
            if process.poll() is None:
                continue
            runner.forget(process)
            del self.running[image]
            self._record(image, self._finished(image, process.returncode, time.monotonic() - started))

    def _finished(self, image: Image, status: int, seconds: float) -> Build:
        number = self.images.index(image)
        log = LOG_FOLDER / f"{number}.log"
        output = log.read_text(errors="replace") if log.exists() else ""
        summary = "; ".join(filter(None, [f"`{shlex.join(build_command(image))}`: exit {status}",
                                          runner.telling_line(output)]))
        return Build(status == 0, summary, output, seconds, children_cpu_seconds(LOG_FOLDER / f"{number}.times"))

    def _record(self, image: Image, build: Build) -> None:
        with self.lock:
            self.builds[image] = build
        self.on_change.set()

    def _kill_running(self) -> None:
        for image, (process, _) in list(self.running.items()):
            runner.end_process(process)
            self._record(image, Build(False, f"`{describe(image)}` was stopped: {self.stop_reason}"))
        self.running.clear()

    # ------------------------------------------------------------ for the case scheduler

    stop_reason = "the build phase was stopped"

    def stop(self, reason: str = "the build phase was stopped") -> None:
        """Ends the build phase: what runs is killed, what is not built fails with `reason`."""
        self.stop_reason = reason
        self.stopping.set()

    def result(self, image: Image) -> Build | None:
        with self.lock:
            return self.builds.get(image)

    def done(self, images: tuple[Image, ...]) -> bool:
        with self.lock:
            return all(image in self.builds for image in images)
