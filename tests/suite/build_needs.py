"""What the build phase builds, as Image tuples: which images and tools a case needs (with_tools),
the command that builds each, what must be built before it (its make would otherwise build the same
files at the same time) and how soon (build_priority).

  (board, app[, sanitizer])   `make image BOARD=board APP=app [SANITIZE=..]`
  (board, "runtime"[, san.])  `make runtime BOARD=board`: the board's runtime library, before its images
  ("tool", "tpu")             `make tpu`; ("tool", "tpu-tests") its Catch2 tests
  ("sanitized-tool", ..)      the same with HOST_SANITIZE=address,undefined
  ("app-tool", app)       `make app-tool APP=app`: the app's tpu with its host functions
  ("tpu-new", folder)         `tpu new folder` (the app the tpu-new cases run)
  ("unit-tests", variant)     `make unit-tests`, plain or UNIT_SANITIZE=address,undefined
  ("sanitized-tool", "fuzz-replay")   `make fuzz-replay HOST_SANITIZE=..`: the fuzz targets' replays
"""
from __future__ import annotations

import shlex
from pathlib import Path

import app_tests

from .case import BOARDS, Case, Image
from .sanitizers import SANITIZER_FOLDER_SUFFIX, SANITIZERS
from .tpu_new_app import NEW_APP_FOLDER, NEW_APP_TEMPLATE
from .tpu_tool import TPU_BINARY
from .unit_tests import make_unit_tests

TOOL_KINDS = ("tool", "sanitized-tool", "app-tool", "unit-tests", "tpu-new")


def has_host_half(app: str) -> bool:
    """Whether the app has host functions (for the app `tpu new` makes: whether its template has)."""
    folder = NEW_APP_TEMPLATE if made_by_tpu_new(app) else Path(app) if "/" in app else app_tests.app_folder(app)
    return any(folder.glob("host/*.cpp"))


def apps_with_host_half() -> list[str]:
    return [folder.name for folder in app_tests.repository_app_folders() if any(folder.glob("host/*.cpp"))]


def made_by_tpu_new(app: str) -> bool:
    """The app folder `tpu new` makes in the build phase (tests/suite/tpu_new_app.py)."""
    return "/" in app and Path(app) == NEW_APP_FOLDER


def with_tools(case: Case) -> tuple[Image, ...]:
    """What a case needs built, tools included: every tpu case needs the tpu tool, the app tool of
    each app with a host half it runs (built here once, not by concurrent cases), and the folder of
    an app that `tpu new` makes."""
    if case.name.startswith("asan/tpu"):
        return (("sanitized-tool", "tpu"), *case.images)
    if not case.name.startswith("tpu"):
        return case.images
    apps = [image[1] for image in case.images if image[0] in BOARDS and image[1] != "runtime"]
    made = [("tpu-new", app) for app in dict.fromkeys(apps) if made_by_tpu_new(app)]
    programs = [("app-tool", app) for app in dict.fromkeys(apps) if has_host_half(app)]
    return (("tool", "tpu"), *made, *programs, *case.images)


def build_priority(image: Image) -> int:
    """0: what most cases wait for (the boards' runtimes and images, the tpu tool, the apps' tools)
    and the head of the longest chain of builds (the sanitized tool, which the sanitized tests, unit
    tests and fuzz replays wait for: started last, it left one CPU idle at the end of make test); 1:
    the unit tests and the ThreadSanitizer images; 2: the rest of the sanitized chain."""
    kind, name, *sanitizer = image
    if image == ("sanitized-tool", "tpu"):
        return 0
    if kind == "sanitized-tool" or image == ("tool", "tpu-tests") or image[:1] == ("unit-tests",) and name != "plain":
        return 2
    if kind == "unit-tests" or sanitizer:
        return 1
    return 0


# ---------------------------------------------------------------- how each is built

def build_command(image: Image) -> list[str]:
    """The command that builds an image or tool (a sub-make, except `tpu new`)."""
    kind, name, *sanitizer = image
    sanitize = [f"SANITIZE={value}" for value in sanitizer]
    if kind == "tool":
        return ["make", "-s", "tpu" if name == "tpu" else f"build/host-tools/{name}"]
    if kind == "sanitized-tool":
        target = name if name in ("tpu", "fuzz-replay") else f"build/host-tools{SANITIZER_FOLDER_SUFFIX}/{name}"
        return ["make", "-s", target, f"HOST_SANITIZE={SANITIZERS}"]
    if kind == "app-tool":
        return ["make", "-s", "app-tool", f"APP={name}"]
    if kind == "unit-tests":
        return make_unit_tests(name)
    if kind == "tpu-new":
        return ["sh", "-c", f"rm -rf {shlex.quote(name)} && mkdir -p {shlex.quote(str(Path(name).parent))} && "
                            f"{TPU_BINARY} new {shlex.quote(name)}"]
    if name == "runtime":
        return ["make", "-s", "runtime", f"BOARD={kind}", *sanitize]
    return ["make", "-s", "image", f"BOARD={kind}", f"APP={name}", *sanitize]


def prerequisites(image: Image) -> list[Image]:
    """What must be built before `image`, because its make would build (or need) the same files:
    a board's runtime library before its images, the tpu tool before what links its objects."""
    kind, name, *sanitizer = image
    if kind == "tool":  # the tests link the host halves of the apps, compiled as their app tools are, and
        # the Catch2 main the unit tests' build compiles
        if name == "tpu":
            return []
        return [("tool", "tpu"), ("unit-tests", "plain"), *(("app-tool", app) for app in apps_with_host_half())]
    if kind == "sanitized-tool":  # the tests link the Catch2 main the unit tests' build compiles; the replays the tool's objects
        if name == "tpu":
            return []
        return [("sanitized-tool", "tpu")] if name == "fuzz-replay" else [("sanitized-tool", "tpu"), ("unit-tests", "plain")]
    if kind == "app-tool":  # it links the app's device half built for the host board (its outside_compilation
        # clusters), which the app's host image builds: before, never beside it
        return [("tool", "tpu"), *([("tpu-new", name)] if made_by_tpu_new(name) else []), ("host", name)]
    if kind == "tpu-new":
        return [("tool", "tpu")]
    if kind == "unit-tests":  # the sanitized ones link the plain ones' Catch2 main and the sanitized host library
        return [] if name == "plain" else [("unit-tests", "plain"), ("sanitized-tool", "tpu")]
    if name == "runtime":
        return []
    return [(kind, "runtime", *sanitizer), *([("tpu-new", name)] if made_by_tpu_new(name) else [])]


def with_prerequisites(images: list[Image]) -> list[Image]:
    """The images and everything they need, each once, prerequisites before what needs them."""
    ordered: dict[Image, None] = {}

    def add(image: Image) -> None:
        if image not in ordered:
            for needed in prerequisites(image):
                add(needed)
            ordered[image] = None
    for image in images:
        add(image)
    return list(ordered)


def describe(image: Image) -> str:
    return " ".join(image)
