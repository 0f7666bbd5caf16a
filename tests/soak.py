#!/usr/bin/python3
"""`make soak`: the soak app (tests/device/soak) run many times on 16 cores, round robin over
  qemu-virt-a53 and qemu-virt-rv64 under multi-threaded TCG (-accel tcg,thread=multi: every guest
  core a host thread, so the guest's memory ordering is really exercised), and the host board built
  with ThreadSanitizer (any report fails the run).
Each run draws a fresh range of case indices from the board's clock and runs 100 random collectives
(bit for bit against the sequential reference) and 20 random replicate calls on every core. A run
fails if it exits non-zero, a core does not print PASS soak, or TSan reports anything; it hangs if it
does not end within --timeout seconds (then it is killed). Failing and hanging runs' output goes to
build/soak/<config>-<run>.log (the log names the case indices: each index alone reproduces its case).

One JSON line per configuration and a total go to stdout and build/soak/report.jsonl:
  {"soak", "runs", "passed", "failures", "hangs", "collective_cases", "replicate_calls", "seconds"}

Then --concurrent-rounds rounds (default 5) of 8 `build/host-tools/tpu run` of 8 different apps at
once (CONCURRENT_RUNS: host, qemu-virt-a53 and qemu-virt-rv64, shared memory and UART links,
outfeed, infeed, host functions, a short training; images and app tools built first), each into
its own folder build/soak/concurrent/<round>/<run>/ (its log beside it). Each must exit 0 with
"N of N cores reported a result, all OK", a PASS line from every core and its own patterns; its
outfeed folder must hold only the files it makes, checked with NumPy (Debian's /usr/bin/python3);
no run's console may name another run's app; and each shared-memory run must have used a link
folder (/dev/shm/tpu-link-* or the temporary directory's, seen in its processes) of its own, the
UART runs none. Once all ended: no process of theirs may be left (each runs in its own session,
killed whole on a timeout) and no tpu-link-* folder they made. One JSON line per run and one for
the whole go to stdout and the report:
  {"soak": "concurrent", "rounds", "runs", "passed", "failures", "hangs", "leftover_processes",
   "leftover_files", "link_folders", "seconds"}

The exit status is 1 if any run failed or hung or anything was left over. Every command has a
timeout: the soak ends on its own.

    /usr/bin/python3 tests/soak.py [--runs 60] [--cores 16] [--timeout 300]
                                   [--concurrent-rounds 5] [--no-concurrent | --concurrent-only]
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import app_tests

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "soak"
COLLECTIVE_CASES, REPLICATE_CASES = 100, 20  # per run (tests/device/soak/device/soak.cpp)
CONFIGS = {
    "qemu-virt-a53-mttcg": {"BOARD": "qemu-virt-a53", "extra": ["-accel", "tcg,thread=multi"]},
    "qemu-virt-rv64-mttcg": {"BOARD": "qemu-virt-rv64", "extra": ["-accel", "tcg,thread=multi"]},
    "host-tsan": {"BOARD": "host", "SANITIZE": "thread", "extra": []},
}


def make_variables(config: dict) -> list[str]:
    return [f"{key}={value}" for key, value in config.items() if key != "extra"]


BUILD_TIMEOUT_S = 1800


def build(config: dict) -> None:
    subprocess.run(["make", "-s", "-j2", "image", "APP=soak", *make_variables(config)], cwd=ROOT, check=True,
                   timeout=BUILD_TIMEOUT_S)


def run_command(config: dict, cores: int) -> list[str]:
    printed = subprocess.run(["make", "-s", "print-run-command", "APP=soak", f"CORES={cores}", *make_variables(config)],
                             cwd=ROOT, check=True, capture_output=True, text=True, timeout=120).stdout
    return printed.split() + config["extra"]


def one_run(command: list[str], cores: int, timeout_s: float) -> tuple[str, str]:
    """'pass', 'fail' or 'hang', and the output."""
    env = os.environ | {"TSAN_OPTIONS": "halt_on_error=1"}
    process = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, errors="replace", env=env, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        try:
            output, _ = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:  # something outside the group holds the pipe: give up on it
            output = "(no output: the pipe stayed open after the kill)"
        return "hang", output
    passed = len(set(re.findall(r"\[c(\d+) I\] PASS soak", output)))
    ok = process.returncode == 0 and passed == cores and "ThreadSanitizer" not in output
    return ("pass" if ok else "fail"), output



def serial_soak(arguments: argparse.Namespace) -> list[dict]:
    """The soak app --runs times, round robin over the configurations; one line each and a total."""
    names = arguments.config or list(CONFIGS)
    commands = {}
    for name in names:
        build(CONFIGS[name])
        commands[name] = run_command(CONFIGS[name], arguments.cores)
    tally = {name: {"runs": 0, "passed": 0, "failures": 0, "hangs": 0, "seconds": 0.0} for name in names}
    for run in range(arguments.runs):
        name = names[run % len(names)]
        start = time.monotonic()
        verdict, output = one_run(commands[name], arguments.cores, arguments.timeout)
        entry = tally[name]
        entry["runs"] += 1
        entry["seconds"] += time.monotonic() - start
        entry[{"pass": "passed", "fail": "failures", "hang": "hangs"}[verdict]] += 1
        if verdict != "pass":
            log = OUT / f"{name}-{run}.log"
            log.write_text(f"$ {' '.join(commands[name])}\n{output}")
            print(f"soak: run {run} on {name}: {verdict.upper()} (output: {log})", file=sys.stderr, flush=True)
    lines = []
    for name, entry in tally.items():
        lines.append({"soak": name, "cores": arguments.cores, **entry, "seconds": round(entry["seconds"], 1),
                      "collective_cases": entry["runs"] * COLLECTIVE_CASES, "replicate_calls": entry["runs"] * REPLICATE_CASES})
    total = {key: sum(line[key] for line in lines)
             for key in ("runs", "passed", "failures", "hangs", "collective_cases", "replicate_calls", "seconds")}
    total["seconds"] = round(total["seconds"], 1)
    lines.append({"soak": "total", "cores": arguments.cores, **total})
    return lines


# ---------------------------------------------------------------- 8 different apps at once through `tpu run`
PYTHON = "/usr/bin/python3"  # Debian's, with python3-numpy and python3-sklearn (never the first python3 on PATH)
TPU = ROOT / "build" / "host-tools" / "tpu"
CONCURRENT = OUT / "concurrent"
LINK_FOLDER = re.compile(r"tpu-link-\d+-[A-Za-z0-9]{6}")  # host-tools/lib/board/shm_link.cpp: "tpu-link-<pid>-XXXXXX"
TRAIN_STEPS, INFEED_STEPS = 24, 40


def numpy_helper(code: str, *arguments: object) -> str:
    """Runs `code` under Debian's python3 with tests/ importable; '' if it printed OK, else what it printed."""
    ran = subprocess.run([PYTHON, "-c", f"import sys; sys.path.insert(0, 'tests')\n{code}", *map(str, arguments)],
                         cwd=ROOT, capture_output=True, text=True, errors="replace", timeout=300)
    said = (ran.stdout + ran.stderr).strip()
    return "" if ran.returncode == 0 and said.endswith("OK") else (said.splitlines() or ["no output"])[-1]


def prepare_infeed(folder: Path) -> list[str]:
    """tests/infeed_check.py's dataset: x float32 [S, 8, 3], labels int32 [S, 8]."""
    problem = numpy_helper("import infeed_check, pathlib; infeed_check.make_dataset(pathlib.Path(sys.argv[1]), "
                           "int(sys.argv[2]), 7, 'infeed'); print('OK')", folder, INFEED_STEPS)
    if problem:
        raise RuntimeError(f"infeed dataset: {problem}")
    return ["--infeed", f"0={folder / 'x.npy'},{folder / 'labels.npy'}"]


def check_infeed(folder: Path, cores: int) -> str:
    return numpy_helper("import infeed_check, pathlib, numpy as np; d = pathlib.Path(sys.argv[1]); "
                        "p = infeed_check.check_outfeed(d, np.load(d / 'x.npy'), np.load(d / 'labels.npy'), int(sys.argv[2])); "
                        "print(p or 'OK')", folder, cores)


def prepare_training(folder: Path) -> list[str]:
    """A short MLP run, prepared as tests/train_digits_check.py does (prepare_digits.py, fixed seeds)."""
    ran = subprocess.run([PYTHON, "firmware/examples/train-digits/prepare_digits.py", str(folder), "--batch", "32",
                          "--epochs", "1", "--steps", str(TRAIN_STEPS)], cwd=ROOT, capture_output=True, text=True,
                         errors="replace", timeout=300)
    if ran.returncode != 0:
        raise RuntimeError(f"prepare_digits.py: {(ran.stdout + ran.stderr).strip()[-300:]}")
    return ["--infeed", f"0={folder / 'infeed_x.npy'},{folder / 'infeed_y.npy'}"]


def check_training(folder: Path, cores: int) -> str:
    """Every step's loss and the final weights against tests/train_digits_check.py's NumPy training."""
    return numpy_helper("import train_digits_check, pathlib; "
                        "print(train_digits_check.compare_with_numpy(pathlib.Path(sys.argv[1])) or 'OK')", folder)


def check_link_selftest(folder: Path, cores: int) -> str:
    return numpy_helper("import runpy; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')",
                        ROOT / "tests/device/link-selftest/check_outfeed.py", folder, cores)


@dataclass
class AppRun:
    """One `tpu run` of the concurrent soak and what it must show."""
    app: str
    board: str
    cores: int
    link: str = ""                       # "" = tpu's choice: shm on the QEMU boards, the byte stream on host
    patterns: tuple[str, ...] = ()       # besides "N of N cores reported a result, all OK" and the PASS lines
    outfeed: str = r"$^"                 # every file in its folder must match (default: it writes none)
    prepare: Callable[[Path], list[str]] | None = None   # makes its inputs in its folder; returns tpu options
    check: Callable[[Path, int], str] | None = None      # '' if its folder holds the right outfeed
    inputs: tuple[str, ...] = ()         # files `prepare` makes (allowed in the folder besides the outfeed)

    @property
    def name(self) -> str:
        return f"{self.app}-{self.board}-{self.cores}-{self.link or 'auto'}"

    @property
    def shared_memory(self) -> bool:  # every board's default link is the shared-memory one
        return self.link != "uart"


# A mix of boards and links. The UART runs are apps that use the link while they run (host calls,
# outfeed): an app that never does says hello on the UART only as it ends, and that hello can be cut
# off by QEMU's exit ("the board never said hello on the link", exit 1: replicate, strategy and
# model-parallel with --link uart on qemu-virt-rv64 every time, on qemu-virt-a53 now and then).
CONCURRENT_RUNS = (
    AppRun("hello", "host", 4),
    AppRun("strategy", "host", 8),
    AppRun("train-digits", "host", 2, prepare=prepare_training, check=check_training,
           outfeed=r"c0_q0_t0_e[0-3]\.npy|train\.csv|train\.png",
           inputs=("train_x.npy", "train_y.npy", "test_x.npy", "test_y.npy", "infeed_x.npy", "infeed_y.npy",
                   "model.txt", "init_w1.npy", "init_b1.npy", "init_w2.npy", "init_b2.npy")),
    AppRun("infeed", "qemu-virt-a53", 8, "shm", prepare=prepare_infeed, check=check_infeed,
           patterns=(rf"infeed queue 0 .*: {INFEED_STEPS} of {INFEED_STEPS} tuples sent, {INFEED_STEPS} consumed",),
           outfeed=r"c[0-7]_q0_t\d+_e[0-2]\.npy", inputs=("x.npy", "labels.npy")),
    AppRun("model-parallel", "qemu-virt-a53", 8, "shm"),
    AppRun("link-selftest", "qemu-virt-a53", 4, "uart", check=check_link_selftest,
           outfeed=r"c0_q0_t0_e[01]\.npy|summary\.csv"),
    AppRun("outside-compilation", "qemu-virt-rv64", 4, "uart",
           patterns=(r"outside_compilation: 4 replicas each got", r"called the app.s host functions, errors arrived as Status")),
    AppRun("replicate", "qemu-virt-rv64", 8, "shm"),
)


def processes() -> dict[int, tuple[int, str]]:
    """Every process: {pid: (session id, command line)}."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:  # it ended meanwhile
            continue
        session = int(stat.rsplit(")", 1)[1].split()[3])
        found[int(entry.name)] = (session, cmdline)
    return found


def link_folders_used(pid: int, cmdline: str) -> set[str]:
    """tpu-link-* folders a process names on its command line, has open or mapped."""
    names = set(LINK_FOLDER.findall(cmdline))
    try:
        names |= set(LINK_FOLDER.findall((Path("/proc") / str(pid) / "maps").read_text()))
        for fd in (Path("/proc") / str(pid) / "fd").iterdir():
            names |= set(LINK_FOLDER.findall(os.readlink(fd)))
    except OSError:
        pass
    return names


def temp_entries() -> set[Path]:
    """The tpu-* entries of the places tpu makes its temporary folders (/dev/shm, the temporary directory)."""
    places = {Path("/dev/shm"), Path(tempfile.gettempdir()), Path("/tmp")}
    return {entry for place in places if place.is_dir() for entry in place.glob("tpu-*")}


def kill_session(session: int) -> None:
    for pid, (owner, _) in processes().items():
        if owner == session:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


@dataclass
class Started:
    run: AppRun
    folder: Path
    command: list[str]
    process: subprocess.Popen
    start: float
    seconds: float = 0.0
    timed_out: bool = False
    link_folders: set[str] = field(default_factory=set)


def prebuild(runs: tuple[AppRun, ...]) -> None:
    """tpu and every image and app tool first (one at a time), so the concurrent runs only run."""
    subprocess.run(["make", "-s", "tpu"], cwd=ROOT, check=True, timeout=BUILD_TIMEOUT_S)
    for run in runs:
        targets = ["image", *(["app-tool"] if (app_tests.app_folder(run.app) / "host").is_dir() else [])]
        subprocess.run(["make", "-s", "-j2", *targets, f"BOARD={run.board}", f"APP={run.app}"], cwd=ROOT, check=True,
                       timeout=BUILD_TIMEOUT_S)


def prepare_run(run: AppRun, round_folder: Path, timeout_s: float) -> tuple[Path, list[str]]:
    """Makes the run's folder and its inputs there; its `tpu run` command line."""
    folder = round_folder / run.name
    folder.mkdir(parents=True)
    extra = run.prepare(folder) if run.prepare else []
    link = ["--link", run.link] if run.link else []
    return folder, [str(TPU), "run", "--board", run.board, "--cores", str(run.cores), *link, "--timeout",
                    f"{timeout_s:g}", "--outfeed-dir", str(folder), *extra, run.app]


def start_run(run: AppRun, folder: Path, command: list[str]) -> Started:
    """Starts `tpu run` in a session of its own (all it starts is found and killed by it), output to <folder>.log."""
    with folder.with_suffix(".log").open("w") as log:
        log.write(f"$ {' '.join(command)}\n")
        log.flush()
        process = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    return Started(run, folder, command, process, time.monotonic())


def watch(started: list[Started], deadline_s: float) -> None:
    """Waits for every run, noting the link folders its processes use; kills a run's session at the deadline."""
    by_session = {s.process.pid: s for s in started}
    while any(s.process.poll() is None for s in started):
        for pid, (session, cmdline) in processes().items():
            if session in by_session:
                by_session[session].link_folders |= link_folders_used(pid, cmdline)
        now = time.monotonic()
        for s in started:
            if s.process.poll() is not None:
                s.seconds = s.seconds or now - s.start
            elif now - s.start > deadline_s:
                s.timed_out = True
                kill_session(s.process.pid)
        time.sleep(0.2)
    for s in started:
        s.process.wait(timeout=60)
        s.seconds = s.seconds or time.monotonic() - s.start
        # The board's command line in the run's log names its link folder too: a board that lives a
        # few tens of milliseconds (the host board's hello) ends between two looks at /proc.
        s.link_folders |= set(LINK_FOLDER.findall(s.folder.with_suffix(".log").read_text(errors="replace")))


def verdict(s: Started, started: list[Started]) -> str:
    """'' if the run did all it must, else the first thing it did not."""
    run = s.run
    others = [other for other in started if other is not s]
    output = s.folder.with_suffix(".log").read_text(errors="replace")
    if s.timed_out:
        return "hang: killed at the soak's deadline"
    if s.process.returncode != 0:
        return f"tpu run exited with status {s.process.returncode}"
    link_up = rf"tpu: link up: board {re.escape(run.board)}, app {re.escape(run.app)}, {run.cores} cores"
    for pattern in (link_up, rf"{run.cores} of {run.cores} cores reported a result, all OK", *run.patterns):
        if not re.search(pattern, output, re.MULTILINE):
            return f"output lacks {pattern!r}"
    passed = set(re.findall(rf"\[c(\d+) I\] PASS {re.escape(run.app)}\s*$", output, re.MULTILINE))
    if len(passed) != run.cores:
        return f"{len(passed)} of {run.cores} cores printed PASS {run.app}"
    foreign = [o.run.app for o in others
               if o.run.app != run.app and re.search(rf"\b(PASS|app) {re.escape(o.run.app)}\b", output)]
    if foreign:
        return f"its console names another run's app: {foreign[0]}"
    allowed = re.compile(run.outfeed)
    strays = sorted(p.name for p in s.folder.iterdir() if p.name not in run.inputs and not allowed.fullmatch(p.name))
    if strays:
        return f"unexpected files in its outfeed folder: {strays[:3]}"
    if run.shared_memory and len(s.link_folders) != 1:
        return f"used {len(s.link_folders)} shared-memory link folders (expected 1): {sorted(s.link_folders)}"
    if not run.shared_memory and s.link_folders:
        return f"a UART run used shared-memory link folders: {sorted(s.link_folders)}"
    shared = s.link_folders & set().union(*(o.link_folders for o in others))
    if shared:
        return f"its link folder {sorted(shared)[0]} was used by another run too"
    return run.check(s.folder, run.cores) if run.check else ""


def leftovers(started: list[Started], before: set[Path]) -> tuple[list[str], list[str]]:
    """Processes of the runs' sessions still alive (killed now) and tpu-* temporary entries they left."""
    sessions = {s.process.pid for s in started}
    alive: dict[int, tuple[int, str]] = {}
    for _ in range(50):  # up to 10 s for the last ones to go
        alive = {pid: info for pid, info in processes().items() if info[0] in sessions}
        if not alive:
            break
        time.sleep(0.2)
    for session in sessions:
        kill_session(session)
    ours = set().union(*(s.link_folders for s in started))
    in_use = set()  # folders live processes of others (anyone else running tpu on this machine) still use
    for pid, (session, cmdline) in processes().items():
        if session not in sessions:
            in_use |= link_folders_used(pid, cmdline)
    files = [str(entry) for entry in sorted(temp_entries())
             if entry.name in ours or (entry not in before and entry.name not in in_use)]
    return [f"{pid} {cmdline[:120]}" for pid, (_, cmdline) in alive.items()], files


def concurrent_round(number: int, timeout_s: float) -> tuple[list[Started], list[str], list[str]]:
    """The 8 runs of CONCURRENT_RUNS at once, in build/soak/concurrent/<number>/; the runs and what they left."""
    folder = CONCURRENT / str(number)
    commands = {run.name: prepare_run(run, folder, timeout_s) for run in CONCURRENT_RUNS}  # inputs first, then all at once
    before = temp_entries()
    started: list[Started] = []
    try:
        for run in CONCURRENT_RUNS:
            started.append(start_run(run, *commands[run.name]))
        watch(started, timeout_s + 120)  # tpu's own --timeout first; the soak's deadline a little later
    finally:  # interrupted (^C reaches only this process: the runs have sessions of their own)
        for s in started:
            if s.process.poll() is None:
                kill_session(s.process.pid)
    stray_processes, stray_files = leftovers(started, before)
    for what, items in (("process", stray_processes), ("temporary file", stray_files)):
        for item in items:
            print(f"soak: concurrent round {number}: leftover {what}: {item}", file=sys.stderr, flush=True)
    return started, stray_processes, stray_files


def concurrent_soak(rounds: int, timeout_s: float) -> list[dict]:
    """`rounds` rounds of the 8 concurrent runs; a line per run and one for the whole."""
    prebuild(CONCURRENT_RUNS)
    subprocess.run(["rm", "-rf", str(CONCURRENT)], check=True, timeout=120)
    start = time.monotonic()
    lines: list[dict] = []
    tally = {"runs": 0, "passed": 0, "failures": 0, "hangs": 0, "leftover_processes": 0, "leftover_files": 0,
             "link_folders": 0}
    for number in range(rounds):
        started, stray_processes, stray_files = concurrent_round(number, timeout_s)
        tally["leftover_processes"] += len(stray_processes)
        tally["leftover_files"] += len(stray_files)
        for s in started:
            problem = verdict(s, started)
            state = "PASS" if not problem else "HANG" if s.timed_out else "FAIL"
            tally["runs"] += 1
            tally[{"PASS": "passed", "FAIL": "failures", "HANG": "hangs"}[state]] += 1
            tally["link_folders"] += len(s.link_folders)
            print(f"soak: concurrent round {number} {s.run.name}: {state} in {s.seconds:.1f} s"
                  f"{': ' + problem if problem else ''} (log: {s.folder.with_suffix('.log').relative_to(ROOT)})",
                  file=sys.stderr, flush=True)
            lines.append({"soak": f"concurrent/{s.run.name}", "round": number, "passed": not problem,
                          "exit": s.process.returncode, "seconds": round(s.seconds, 1),
                          "link_folders": sorted(s.link_folders), **({"problem": problem} if problem else {})})
    lines.append({"soak": "concurrent", "rounds": rounds, **tally, "seconds": round(time.monotonic() - start, 1)})
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=60, help="runs in all, round robin over the configurations")
    parser.add_argument("--cores", type=int, default=16)
    parser.add_argument("--timeout", type=float, default=300, help="seconds before a run counts as hung")
    parser.add_argument("--config", action="append", choices=sorted(CONFIGS), help="only these (repeatable)")
    parser.add_argument("--concurrent-rounds", type=int, default=5,
                        help="rounds of 8 concurrent tpu runs (default 5)")
    parser.add_argument("--concurrent-timeout", type=float, default=900,
                        help="tpu run --timeout of each concurrent run (default 900 s; the soak kills it 120 s later)")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--no-concurrent", action="store_true", help="only the soak app's runs")
    which.add_argument("--concurrent-only", action="store_true", help="only the 8 concurrent tpu runs")
    arguments = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    lines = [] if arguments.concurrent_only else report(serial_soak(arguments))
    if not arguments.no_concurrent:
        try:
            lines += report(concurrent_soak(arguments.concurrent_rounds, arguments.concurrent_timeout))
        except (OSError, RuntimeError, subprocess.SubprocessError) as error:  # a build or an input could not be made
            print(f"soak: concurrent: could not run: {error}", file=sys.stderr)
            lines += report([{"soak": "concurrent", "runs": 0, "failures": 1, "hangs": 0, "error": str(error)}])
    bad = [line for line in lines if line["soak"] in ("total", "concurrent") and
           (line["failures"] or line["hangs"] or line.get("leftover_processes") or line.get("leftover_files"))]
    return 1 if bad else 0


def report(lines: list[dict]) -> list[dict]:
    """Prints the lines and appends them to build/soak/report.jsonl."""
    with open(OUT / "report.jsonl", "a") as out:
        for line in lines:
            print(json.dumps(line), flush=True)
            out.write(json.dumps(line) + "\n")
    return lines


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
