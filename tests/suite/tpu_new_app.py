"""The app `tpu new` makes (from host-tools/templates/app), run as its own app.toml says on every
board: its cases are named tpu-new/... The build phase makes the folder with `tpu new` (build_plan.py:
the ("tpu-new", folder) step, once the tool is built), then builds its images like any app's."""
from __future__ import annotations

import app_tests
from qemu_runner import REPO_ROOT

from .app_cases import app_cases
from .case import Case

NEW_APP_FOLDER = REPO_ROOT / "build" / "tpu-new" / "first-app"  # made by `tpu new` in the build phase
NEW_APP_TEMPLATE = REPO_ROOT / "host-tools" / "templates" / "app"


def new_app_cases() -> list[Case]:
    """The app `tpu new` makes, run as its own app.toml says on every board (its cases are named
    tpu-new/...). The case list comes from the template's app.toml, so listing the cases needs no
    tool and no folder."""
    spec = app_tests.load_app(NEW_APP_TEMPLATE)
    spec.name, spec.folder, spec.make_app = NEW_APP_FOLDER.name, NEW_APP_FOLDER, str(NEW_APP_FOLDER)
    if spec.tpu:
        spec.tpu.patterns = [pattern.replace("@NAME@", spec.name) for pattern in spec.tpu.patterns]
    cases = app_cases(spec)
    for case in cases:
        case.name = "tpu-new/" + case.name
    return cases
