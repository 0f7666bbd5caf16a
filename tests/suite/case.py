"""What a test case is: a name, a check that returns an Outcome, the images and tools it needs built
(Image), and a rough duration used to start the slow ones first. Also the harness's time limits."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import boards

BOARDS = boards.NAMES  # boards/<name>/board.mk (tests/boards.py reads them)
QEMU_BOARDS = boards.QEMU_NAMES
FIXED_CORE_BOARDS = boards.FIXED_CORES  # boards whose core count is fixed: every case runs with exactly that many

IMAGE_TIMEOUT_S = 120
BUILD_TIMEOUT_S = 3600  # the whole build phase (a build that hangs fails what is unbuilt, not the run)
COMPILE_TIMEOUT_S = 600
MAKE_TIMEOUT_S = 60
DEBUG_TIMEOUT_S = 60

# What a case needs built, as a tuple: (board, app) or (board, app, sanitizer) for a firmware image,
# app as make's APP= takes it; or (kind, name) for a tool: ("tool", "tpu"), ("app-tool", app),
# ("sanitized-tool", "fuzz-replay"), ("unit-tests", variant) ... (build_plan.py knows every kind).
Image = tuple[str, ...]


@dataclass
class Outcome:
    ok: bool
    reason: str = ""  # one line, shown after FAIL
    log: str = ""     # shown indented after a failure


@dataclass
class Case:
    name: str
    check: Callable[[], Outcome]
    images: tuple[Image, ...] = ()  # built before the case starts
    estimate_s: float = 1.0         # slow cases start first, so the pool finishes sooner
