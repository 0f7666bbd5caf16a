"""The app `tpu new` makes (from host-tools/templates/app), run as its own app.toml says on every
board: its cases are named tpu-new/... The build phase makes the folder with `tpu new` (build_plan.py:
the ("tpu-new", folder) step, once the tool is built), then builds its images like any app's."""
from __future__ import annotations

import tempfile
from functools import partial
from pathlib import Path

import app_tests
from qemu_runner import REPO_ROOT

from .app_cases import app_cases
from .case import Case
from .tpu_tool import check_tpu_command

NEW_APP_FOLDER = REPO_ROOT / "build" / "tpu-new" / "first-app"  # made by `tpu new` in the build phase
NEW_APP_TEMPLATE = REPO_ROOT / "host-tools" / "templates" / "app"


def new_app_cases() -> list[Case]:
    """The app `tpu new` makes, run as its own app.toml says on every board (its cases are named
    tpu-new/...). The case list comes from the template's app.toml, so listing the cases needs no
    tool and no folder."""
    spec = app_tests.load_app(NEW_APP_TEMPLATE)
    spec.name, spec.folder, spec.make_app = NEW_APP_FOLDER.name, NEW_APP_FOLDER, str(NEW_APP_FOLDER)
    for section in (spec.tpu, spec.pod):
        if section:
            section.patterns = [pattern.replace("@NAME@", spec.name) for pattern in section.patterns]
    cases = app_cases(spec)
    for case in cases:
        case.name = "tpu-new/" + case.name
        if case.name.startswith("tpu-new/tpu-pod/"):  # a user's app on a pod, from a folder of the user's
            case.check = partial(case.check, cwd=Path(tempfile.gettempdir()))
    return cases + [outside_the_repository_case(cases)]


def outside_the_repository_case(cases: list[Case]) -> Case:
    """A user's app runs from a folder outside the repository: the app's tool (built in the app's
    folder) must find the repository by itself, not through the current folder."""
    host_case = next(case for case in cases if "/host/" in case.name)
    return Case(f"tpu-new/tpu-run/{NEW_APP_FOLDER.name}/host/4/from-outside-the-repository",
                partial(check_tpu_command, ["run", "--board", "host", "--cores", "4", str(NEW_APP_FOLDER)], 0,
                        [r"^tpu: 4 of 4 cores reported a result, all OK"], cwd=Path(tempfile.gettempdir())),
                images=host_case.images, estimate_s=host_case.estimate_s)
