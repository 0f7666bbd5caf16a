"""app.toml read as a user writes it (tests/app_tests.py): a [pod] section becomes one case per board,
pod size and network, named as the harness names them, and every mistake in it is an error naming the
file, the key and what is wrong, never a silently skipped test. Pure Python: no board runs."""
from __future__ import annotations

import re
import tempfile
from functools import partial
from pathlib import Path

import app_tests

from .app_cases import app_cases
from .case import Case, Outcome

POD_CASE_NAMES = ["tpu-pod/my-app/host/2x2", "tpu-pod/my-app/host/4x2", "tpu-pod/my-app/host/2x2/tcp",
                  "tpu-pod/my-app/host/4x2/tcp", "tpu-pod/my-app/host+qemu-virt-a53/2x2",
                  "tpu-pod/my-app/host+qemu-virt-a53/4x2", "tpu-pod/my-app/host+qemu-virt-a53/2x2/tcp",
                  "tpu-pod/my-app/host+qemu-virt-a53/4x2/tcp"]

# A [pod] section's body -> the error it must raise (a regex); None: accepted.
POD_SECTIONS: dict[str, tuple[str, str | None]] = {
    "defaults": ("cores = 2", None),
    "cores-missing": ("pods = [2]", r"\[pod\]\.cores must be a core count 1\.\.16"),
    "unknown-key": ("cores = 2\nboard = ['host']", r"\[pod\]: unknown key 'board' \(known: boards, cores,"),
    "pod-of-one": ("cores = 2\npods = [1]", r"\[pod\]\.pods must be a non-empty list of pod sizes 2\.\.16"),
    "pods-not-numbers": ("cores = 2\npods = ['two']", r"\[pod\]\.pods must be .* not \['two'\]"),
    "unknown-network": ("cores = 2\nnetwork = ['infiniband']", r"\[pod\]\.network must list some of shm, tcp"),
    "unknown-board": ("cores = 2\nboards = ['host,qemu-virt-a35']", r"\[pod\]\.boards: unknown board 'qemu-virt-a35'"),
    "fixed-cores": ("cores = 2\nboards = ['host,raspi3b']", r"\[pod\]\.cores: a pod of 'host,raspi3b' has 4 cores a board, not 2"),
    "rank-file-missing": ("cores = 1\npods = [2, 3]\ninfeed = ['0=x_{rank}.npy']", r"\[pod\]\.infeed: no file .*/x_2\.npy"),
    "rank-files": ("cores = 1\npods = [2]\ninfeed = ['0=x_{rank}.npy']", None),
    "too-many-devices": ("cores = 16\npods = [2, 8]", r"\[pod\]: a pod of 8 boards of 16 cores has 128 TPU devices, "
                                                    r"more than a pod's 64"),
    "twice": ("cores = 2\npods = [2, 2]", r"\[pod\]\.pods names \[2, 2\]: each at most once"),
    "check-missing": ("cores = 2\noutfeed-check = 'check.py'", r"\[pod\]\.outfeed-check: no file .*/check\.py"),
}


def load_pod_section(body: str) -> tuple[app_tests.AppSpec | None, str]:
    """The spec of an app folder whose app.toml is `[pod]` + `body` (with x_0.npy and x_1.npy beside
    it), or the error it raised."""
    with tempfile.TemporaryDirectory(prefix="app-toml-") as folder:
        app = Path(folder) / "my-app"
        app.mkdir()
        for rank in (0, 1):
            (app / f"x_{rank}.npy").write_bytes(b"")
        (app / "app.toml").write_text("[pod]\n" + body + "\n")
        try:
            return app_tests.load_app(app), ""
        except app_tests.AppSpecError as error:
            return None, str(error)


def check_pod_section(body: str, error: str | None) -> Outcome:
    spec, raised = load_pod_section(body)
    if error is None:
        return Outcome(True) if spec and spec.pod else Outcome(False, f"refused: {raised}")
    if spec is not None:
        return Outcome(False, f"accepted, expected an error matching {error!r}")
    if not re.search(error, raised) or "app.toml" not in raised:
        return Outcome(False, f"the error {raised!r} does not match {error!r} (or does not name app.toml)")
    return Outcome(True)


def check_pod_case_names() -> Outcome:
    """Every board, pod size and network of a [pod] section is a case of its own, a mixed pod's boards
    taken in turn (4 boards of "host,qemu-virt-a53": host, qemu-virt-a53, host, qemu-virt-a53)."""
    spec, raised = load_pod_section("cores = 2\nboards = ['host', 'host,qemu-virt-a53']\npods = [2, 4]\n"
                                    "network = ['shm', 'tcp']")
    if spec is None:
        return Outcome(False, f"refused: {raised}")
    cases = app_cases(spec)
    names = [case.name for case in cases]
    if sorted(names) != sorted(POD_CASE_NAMES):
        return Outcome(False, f"cases {names}, expected {POD_CASE_NAMES}")
    mixed = next(case for case in cases if case.name == "tpu-pod/my-app/host+qemu-virt-a53/4x2/tcp")
    arguments = mixed.check.args
    if arguments[:3] != ("host,qemu-virt-a53,host,qemu-virt-a53", 4, 2) or arguments[5] != "tcp":
        return Outcome(False, f"the mixed 4-board case runs {arguments}")
    if {image[0] for image in mixed.images} != {"host", "qemu-virt-a53"}:
        return Outcome(False, f"the mixed case builds {mixed.images}")
    return Outcome(True)


def app_toml_cases() -> list[Case]:
    cases = [Case(f"app-toml/pod/{name}", partial(check_pod_section, body, error)) for name, (body, error) in
             POD_SECTIONS.items()]
    return cases + [Case("app-toml/pod/case-names", check_pod_case_names)]
