#!/usr/bin/env python3
"""What `make test` runs of each app: the app's own app.toml, read and checked.

Every app folder holds an app.toml (the repository's apps live by purpose: firmware/examples,
tests/device, tests/faults, tests/bench, host-tools/images; `make print-app-folders` lists them; an
out-of-tree app is a folder anywhere) that says how its tests run and what it builds with; the
harness discovers the apps through these files instead of a list of its own. Every section and key is optional; an unknown key or a value of the wrong type is an
error naming the file, so a typo never turns into a silently skipped test.

  [run]                      `make run` on each board, the console judged (tests/qemu_runner.py)
  cores = [1, 2, 4]          core counts (a board with a fixed count, raspi3b, runs its own once)
  boards = ["host", ...]     default: every board
  expect = "pass"            "pass": exit 0 and every core prints PASS <app>;
                             "fault": exit 3 and every regex of `patterns` in the console;
                             "boot-failure": exit 4 naming exactly `missing-cores`
  patterns = ['regex', ...]
  missing-cores = [2]
  icount = 4                 also under QEMU -icount (instruction counting) with this many cores
  tsan = 8                   also under ThreadSanitizer on the host board with this many cores
  same-hash = "MXU-HASH"     the console's "<marker> 0x<hex>" must be equal on every board

  [tpu]                      `tpu run` (the host tool serves the link and the host functions)
  cores = 4                  (raspi3b: its fixed count)
  boards = [...]             default: every board
  patterns = ['regex', ...]  besides "<n> of <n> cores reported a result, all OK"
  skip = ["raspi3b/uart"]    board/link pairs left out (the host board has only its byte stream)
  outfeed-check = "f.py"     run as `python3 <app>/f.py OUTFEED_DIR CORES`; must exit 0
  infeed = ["0=x.npy,y.npy"] `tpu run --infeed` for every run: QUEUE=FILE[,FILE...], the files
                             relative to the app's folder (each must exist)

  [pod]                      `tpu run --boards K`: a pod of K boards, one Open MPI rank each
  cores = 2                  each board's cores (a raspi3b: its fixed count)
  boards = ["host", ...]     each a pod of that board, or "host,qemu-virt-a53" for a mixed pod (the
                             names taken in turn: task t runs name t mod n); default ["host"]
  pods = [2, 4]              pod sizes in boards, 2..16 (default [2])
  network = ["shm", "tcp"]   Open MPI over shared memory, and/or over TCP, the path a network between
                             machines takes (tpu run --pod-network); default ["shm"]
  patterns = ['regex', ...]  each must match every task's own output (its "[task t] " lines, the
                             prefix taken off), besides "<n> of <n> cores reported a result, all OK";
                             {task}, {boards}, {cores} and {replicas} (boards x cores) in a pattern
                             stand for the run's numbers
  infeed = ["0=x.npy,y.npy"] as in [tpu]; "{rank}" in a name stands for each task's own file
  outfeed-check = "f.py"     run as `python3 <app>/f.py OUTFEED_DIR CORES BOARDS` (each task's tuples
                             in OUTFEED_DIR/task-<t>/); must exit 0

  [build]                    what the Makefile compiles into the app besides device/*.cpp
  libraries = ["../lib"]     device libraries: folders of *.cpp, relative to the app's folder
"""
from __future__ import annotations

import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import boards

REPO_ROOT = Path(__file__).resolve().parent.parent
BOARDS = boards.NAMES  # boards/<name>/board.mk, the one list of boards
EXPECTATIONS = ("pass", "fault", "boot-failure")


class AppSpecError(ValueError):
    """An app.toml that cannot be used; the message names the file and the key."""


@dataclass
class RunSpec:
    cores: list[int]
    boards: list[str] = field(default_factory=lambda: list(BOARDS))
    expect: str = "pass"
    patterns: list[str] = field(default_factory=list)
    missing_cores: list[int] = field(default_factory=list)
    icount: int = 0
    tsan: int = 0
    same_hash: str = ""


@dataclass
class TpuSpec:
    cores: int
    boards: list[str] = field(default_factory=lambda: list(BOARDS))
    patterns: list[str] = field(default_factory=list)
    skip: list[str] = field(default_factory=list)
    outfeed_check: Path | None = None
    infeed: list[str] = field(default_factory=list)  # --infeed values, their files made absolute


@dataclass
class PodSpec:
    cores: int
    boards: list[str] = field(default_factory=lambda: ["host"])  # a board, or "a,b" for a mixed pod
    pods: list[int] = field(default_factory=lambda: [2])
    network: list[str] = field(default_factory=lambda: ["shm"])
    patterns: list[str] = field(default_factory=list)
    infeed: list[str] = field(default_factory=list)  # --infeed values, their files made absolute
    outfeed_check: Path | None = None


@dataclass
class AppSpec:
    name: str          # the folder's name (what the image prints in "PASS <name>")
    folder: Path
    make_app: str      # what APP= names: the name in this repository, else the folder's path
    run: RunSpec | None = None
    tpu: TpuSpec | None = None
    pod: PodSpec | None = None


_RUN_KEYS = {"cores": list, "boards": list, "expect": str, "patterns": list, "missing-cores": list, "icount": int,
             "tsan": int, "same-hash": str}
_TPU_KEYS = {"cores": int, "boards": list, "patterns": list, "skip": list, "outfeed-check": str, "infeed": list}
_POD_KEYS = {"cores": int, "boards": list, "pods": list, "network": list, "patterns": list, "infeed": list,
             "outfeed-check": str}
_BUILD_KEYS = {"libraries": list}
POD_NETWORKS = ("shm", "tcp")  # tpu run --pod-network
POD_SIZES = range(2, 17)       # tpu run --boards
POD_MAX_DEVICES = 64           # rt::kMaxPodDevices (runtime/pod/pod_devices.hpp): boards x cores


def _checked(table: object, keys: dict[str, type], where: str) -> dict[str, object]:
    if not isinstance(table, dict):
        raise AppSpecError(f"{where} must be a table")
    for key, value in table.items():
        if key not in keys:
            raise AppSpecError(f"{where}: unknown key '{key}' (known: {', '.join(sorted(keys))})")
        if not isinstance(value, keys[key]) or isinstance(value, bool):
            raise AppSpecError(f"{where}.{key} must be a {keys[key].__name__}, not {value!r}")
    return {key.replace("-", "_"): value for key, value in table.items()}


def _check_boards(boards: list[str], where: str) -> None:
    unknown = [board for board in boards if board not in BOARDS]
    if unknown:
        raise AppSpecError(f"{where}.boards: unknown board '{unknown[0]}' (boards: {', '.join(BOARDS)})")


def _run_spec(table: object, where: str) -> RunSpec:
    values = _checked(table, _RUN_KEYS, where)
    if "cores" not in values or not values["cores"] or not all(isinstance(c, int) and 1 <= c <= 16 for c in values["cores"]):
        raise AppSpecError(f"{where}.cores must be a non-empty list of core counts 1..16")
    spec = RunSpec(**values)
    _check_boards(spec.boards, where)
    if spec.expect not in EXPECTATIONS:
        raise AppSpecError(f"{where}.expect must be one of {', '.join(EXPECTATIONS)}, not '{spec.expect}'")
    if spec.expect == "fault" and not spec.patterns:
        raise AppSpecError(f"{where}: expect = \"fault\" needs the patterns the fault must print")
    if spec.expect == "boot-failure" and not spec.missing_cores:
        raise AppSpecError(f"{where}: expect = \"boot-failure\" needs missing-cores")
    return spec


def _tpu_spec(table: object, where: str, folder: Path) -> TpuSpec:
    values = _checked(table, _TPU_KEYS, where)
    if not 1 <= int(values.get("cores", 0)) <= 16:
        raise AppSpecError(f"{where}.cores must be a core count 1..16")
    check = values.pop("outfeed_check", None)
    infeed = [_infeed_argument(item, f"{where}.infeed", folder) for item in values.pop("infeed", [])]
    spec = TpuSpec(**values, outfeed_check=folder / check if check else None, infeed=infeed)
    _check_boards(spec.boards, where)
    if spec.outfeed_check and not spec.outfeed_check.is_file():
        raise AppSpecError(f"{where}.outfeed-check: no file {spec.outfeed_check}")
    return spec


def _pod_spec(table: object, where: str, folder: Path) -> PodSpec:
    values = _checked(table, _POD_KEYS, where)
    if not 1 <= int(values.get("cores", 0)) <= 16:
        raise AppSpecError(f"{where}.cores must be a core count 1..16")
    check = values.pop("outfeed_check", None)
    spec = PodSpec(**{key: value for key, value in values.items() if key != "infeed"},
                   outfeed_check=folder / check if check else None)
    if not spec.boards or not all(isinstance(kind, str) for kind in spec.boards):
        raise AppSpecError(f"{where}.boards must be a non-empty list of boards (\"host\", \"host,qemu-virt-a53\")")
    for kind in spec.boards:
        _check_boards(kind.split(","), where)
        fixed = {boards.FIXED_CORES[board] for board in kind.split(",") if board in boards.FIXED_CORES}
        if fixed and fixed != {spec.cores}:
            raise AppSpecError(f"{where}.cores: a pod of '{kind}' has {sorted(fixed)[0]} cores a board, not {spec.cores}")
    if not spec.pods or not all(isinstance(size, int) and size in POD_SIZES for size in spec.pods):
        raise AppSpecError(f"{where}.pods must be a non-empty list of pod sizes 2..16 (boards), not {spec.pods!r}")
    if max(spec.pods) * spec.cores > POD_MAX_DEVICES:
        raise AppSpecError(f"{where}: a pod of {max(spec.pods)} boards of {spec.cores} cores has "
                           f"{max(spec.pods) * spec.cores} TPU devices, more than a pod's {POD_MAX_DEVICES}")
    if not spec.network or not all(network in POD_NETWORKS for network in spec.network):
        raise AppSpecError(f"{where}.network must list some of {', '.join(POD_NETWORKS)}, not {spec.network!r}")
    for key in ("boards", "pods", "network"):
        listed = getattr(spec, key)
        if len(set(listed)) != len(listed):
            raise AppSpecError(f"{where}.{key} names {listed!r}: each at most once (each is a run of its own)")
    ranks = range(max(spec.pods))
    spec.infeed = [_infeed_argument(item, f"{where}.infeed", folder, ranks) for item in values.get("infeed", [])]
    if spec.outfeed_check and not spec.outfeed_check.is_file():
        raise AppSpecError(f"{where}.outfeed-check: no file {spec.outfeed_check}")
    return spec


def _infeed_argument(item: object, where: str, folder: Path, ranks: range = range(1)) -> str:
    """'0=x.npy,y.npy' -> '0=<folder>/x.npy,<folder>/y.npy' (what `tpu run --infeed` takes); in a pod,
    a name with "{rank}" must exist for every rank in `ranks`."""
    queue, _, files = item.partition("=") if isinstance(item, str) else ("", "", "")
    if not queue.isdigit() or not files:
        raise AppSpecError(f"{where}: {item!r} is not QUEUE=FILE[,FILE...] (e.g. \"0=x.npy,y.npy\")")
    paths = [folder / name for name in files.split(",")]
    for path in paths:
        for rank in ranks if "{rank}" in path.name else range(1):
            file = path.with_name(path.name.replace("{rank}", str(rank)))
            if not file.is_file():
                raise AppSpecError(f"{where}: no file {file}")
    return queue + "=" + ",".join(str(path) for path in paths)


def _check_build(table: object, where: str, folder: Path) -> None:
    values = _checked(table, _BUILD_KEYS, where)
    for library in values.get("libraries", []):
        if not isinstance(library, str) or not list((folder / library).glob("*.cpp")):
            raise AppSpecError(f"{where}.libraries: {library!r} is not a folder of *.cpp (relative to {folder})")


def load_app(folder: Path, root: Path = REPO_ROOT) -> AppSpec:
    """The spec of the app in `folder`; a folder without app.toml is not an app (AppSpecError)."""
    folder = folder.resolve()
    in_tree = folder in repository_app_folders(root)
    spec = AppSpec(folder.name, folder, folder.name if in_tree else str(folder))
    path = folder / "app.toml"
    if not path.exists():
        raise AppSpecError(f"{folder}: not an app (no app.toml; `tpu new` makes one)")
    try:
        document = tomllib.loads(path.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise AppSpecError(f"{path}: {error}") from None
    unknown = set(document) - {"run", "tpu", "pod", "build"}
    if unknown:
        raise AppSpecError(f"{path}: unknown section '{sorted(unknown)[0]}' (known: build, pod, run, tpu)")
    if "run" in document:
        spec.run = _run_spec(document["run"], f"{path} [run]")
    if "tpu" in document:
        spec.tpu = _tpu_spec(document["tpu"], f"{path} [tpu]", folder)
    if "pod" in document:
        spec.pod = _pod_spec(document["pod"], f"{path} [pod]", folder)
    if "build" in document:
        _check_build(document["build"], f"{path} [build]", folder)
    return spec


_app_folders: dict[Path, list[Path]] = {}


def repository_app_folders(root: Path = REPO_ROOT) -> list[Path]:
    """The repository's app folders, as the Makefile finds them (`make print-app-folders`)."""
    root = root.resolve()
    if root not in _app_folders:
        listed = subprocess.run(["make", "-s", "-C", str(root), "print-app-folders"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, check=False)
        if listed.returncode != 0:
            raise AppSpecError(f"make print-app-folders failed: {listed.stderr.strip()}")
        _app_folders[root] = [(root / name).resolve() for name in listed.stdout.split()]
    return _app_folders[root]


def app_folder(name: str, root: Path = REPO_ROOT) -> Path:
    """The folder of the repository's app `name` (firmware/examples/hello for "hello")."""
    for folder in repository_app_folders(root):
        if folder.name == name:
            return folder
    raise AppSpecError(f"no app named '{name}' in this repository")


def repository_apps(root: Path = REPO_ROOT) -> list[AppSpec]:
    """Every app of the repository, in name order."""
    return sorted((load_app(folder, root) for folder in repository_app_folders(root)), key=lambda spec: spec.name)
