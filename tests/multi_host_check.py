#!/usr/bin/python3
"""A pod across two hosts, the second one emulated on this Linux machine (`make multi-host-check`).

A pod of several machines is launched by the user's own `mpirun --host a,b` (README, "A pod of
boards"); this check runs exactly that, with the second machine made of Linux namespaces: a host of
its own name, network (a veth pair, 10.x.y.1 here and 10.x.y.2 there), System V IPC, and /tmp and
/dev/shm (fresh tmpfs). mpirun reaches it through an rsh agent that enters those namespaces where
ssh would log in, and Open MPI carries the pod's traffic over TCP between the two addresses (its
shared-memory transport cannot: the hosts share no /dev/shm). What the two hosts do share is this
machine's kernel, CPUs and file system (the repository and its build at the same path, as the README
asks of real machines), so this says nothing of a real network's latency.

  /usr/bin/python3 tests/multi_host_check.py [-k SUBSTRING]

Checks (each prints PASS or FAIL, then "N passed, M failed"; exit 0 only if all passed):
  - train-digits on a host board on each host (2 cores each) trains the same bits, every task's final
    weights and every step's loss and accuracy, as `tpu run --boards 2` on one machine; the same with
    a qemu-virt-a53 board on each host, and with a host board here and a qemu-virt-a53 board there;
  - the pod app on both hosts: every rank agrees, and TPUStrategy's cluster spec names both hosts;
  - faults: the second host's QEMU killed mid-training, then its rank's tpu killed: mpirun ends
    non-zero within 30 s, naming the rank (and, for the QEMU, its host and board); then, within 10 s,
    no process of the launch is left on either host, nothing is left in the second host's namespaces,
    its /tmp and /dev/shm are empty, and the launch's RAM files are gone from this host's /dev/shm.
An interrupted check (Ctrl-C, SIGTERM) kills its launch on both hosts before the namespaces go.
Needs root (namespaces, a veth pair), util-linux (unshare, nsenter), iproute2, Open MPI and the
tools built (`make multi-host-check` does all of it).
"""
from __future__ import annotations

import argparse
import ctypes
import functools
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Iterable

ROOT = Path(__file__).resolve().parent.parent
TPU = ROOT / "build" / "host-tools" / "tpu"
WORK = ROOT / "build" / "multi-host"
PREPARE = ROOT / "firmware" / "examples" / "train-digits" / "prepare_digits.py"
SECOND_HOST_NAME = "podhost-b"
RUN_TIMEOUT_S = 300
FAULT_DEADLINE_S = 30
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """In a child before exec: killed when this script dies, however it dies (no namespace left behind)."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def run(command: list[str], **options) -> subprocess.CompletedProcess:
    return subprocess.run(command, check=True, capture_output=True, text=True, **options)


def proc_field(pid: int, index: int) -> int | None:
    """Field `index` (0-based, after the command name) of /proc/PID/stat, or None once it is gone."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[index])
    except (OSError, IndexError, ValueError):
        return None


def processes_where(wanted: Callable[[int], bool]) -> dict[int, str]:
    """Every process `wanted(pid)` accepts: pid -> name (one that ends meanwhile is left out)."""
    found = {}
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and wanted(int(entry.name)):
                found[int(entry.name)] = (entry / "comm").read_text().strip()
        except OSError:
            continue  # it ended meanwhile
    return found


def session_processes(session: int) -> dict[int, str]:
    """Every process of session `session` (a launch: mpirun leads it, and nothing below it starts
    another): pid -> name."""
    return processes_where(lambda pid: proc_field(pid, 3) == session)


def kill_all(pids: Iterable[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass  # it ended meanwhile


class SecondHost:
    """The emulated second host: a process holding its namespaces, and a veth pair to it."""

    def __init__(self) -> None:
        self.subnet = free_subnet()
        self.here, self.there = f"{self.subnet}.1", f"{self.subnet}.2"
        suffix = os.getpid() % 100000
        self.veth_here, self.veth_there = f"tpuh{suffix}a", f"tpuh{suffix}b"
        self.holder: subprocess.Popen | None = None
        self.pid = 0  # the process inside the namespaces
        self.uts = ""  # their UTS namespace, as /proc names it

    def __enter__(self) -> "SecondHost":
        inside = (f"mount -t tmpfs tmpfs /tmp && mount -t tmpfs tmpfs /dev/shm && hostname {SECOND_HOST_NAME} && "
                  "echo ready && exec sleep infinity")
        self.holder = subprocess.Popen(["unshare", "--net", "--uts", "--ipc", "--mount", "--propagation", "private",
                                        "--fork", "--kill-child", "sh", "-c", inside],
                                       stdout=subprocess.PIPE, text=True, preexec_fn=die_with_parent)
        try:
            if self.holder.stdout.readline().strip() != "ready":
                raise RuntimeError("the second host's namespaces could not be made (root and util-linux's unshare needed)")
            self.pid = inner_process(self.holder.pid)
            self.uts = os.readlink(f"/proc/{self.pid}/ns/uts")  # read once: the holder may die first
            run(["ip", "link", "add", self.veth_here, "type", "veth", "peer", "name", self.veth_there])
            run(["ip", "link", "set", self.veth_there, "netns", str(self.pid)])
            run(["ip", "addr", "add", f"{self.here}/24", "dev", self.veth_here])
            run(["ip", "link", "set", self.veth_here, "up"])
            self.enter(["sh", "-c", f"ip addr add {self.there}/24 dev {self.veth_there} && "
                                    f"ip link set {self.veth_there} up && ip link set lo up"])
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *_: object) -> None:
        for _ in range(50):  # what an interrupted check left in the namespaces (orted, tpu, QEMU)
            left = self.processes() if self.uts else {}
            if not left:
                break
            kill_all(left)
            time.sleep(0.1)
        subprocess.run(["ip", "link", "del", self.veth_here], capture_output=True)  # its peer goes with it
        if self.holder is not None and self.holder.poll() is None:
            self.holder.kill()  # unshare --kill-child takes the namespaces' process, its tmpfs with it
            self.holder.wait()

    def enter(self, command: list[str]) -> subprocess.CompletedProcess:
        return run(["nsenter", "-t", str(self.pid), "-n", "-u", "-i", "-m", "--", *command])

    def alive(self) -> bool:
        return self.holder is not None and self.holder.poll() is None

    def processes(self) -> dict[int, str]:
        """Every process in the second host's namespaces but the two holding them: pid -> name."""
        holders = {self.pid, self.holder.pid if self.holder is not None else 0}
        return processes_where(lambda pid: pid not in holders and os.readlink(f"/proc/{pid}/ns/uts") == self.uts)

    def files_left(self) -> list[str]:
        listed = self.enter(["sh", "-c", "ls -A /tmp /dev/shm"]).stdout
        return [line for line in listed.splitlines() if line and not line.endswith(":")]

    def agent(self) -> Path:
        """mpirun's rsh agent ("agent HOST COMMAND..."): the command in the second host's namespaces, or here.
        It lives in the build folder, which both hosts see (the second host's /tmp is its own)."""
        WORK.mkdir(parents=True, exist_ok=True)
        path = WORK / "rsh-agent"
        path.write_text("#!/bin/sh\n# written by tests/multi_host_check.py: mpirun's way onto the emulated host\n"
                        f'host=$1; shift\nif [ "$host" = "{self.there}" ]; then\n'
                        f'  exec nsenter -t {self.pid} -n -u -i -m -- /bin/sh -c "$*"\nfi\nexec /bin/sh -c "$*"\n')
        path.chmod(0o755)
        return path


def free_subnet() -> str:
    used = run(["ip", "-4", "addr"]).stdout
    for third in range(77, 250):
        if f"10.213.{third}." not in used:
            return f"10.213.{third}"
    raise RuntimeError("no free 10.213.x.0/24 subnet for the second host")


def inner_process(unshare_pid: int) -> int:
    children = Path(f"/proc/{unshare_pid}/task/{unshare_pid}/children").read_text().split()
    if len(children) != 1:
        raise RuntimeError(f"unshare {unshare_pid} has children {children}, expected one")
    return int(children[0])


# ---------------------------------------------------------------- launching

def mpirun_two_hosts(host: SecondHost, rank_arguments: list[list[str]]) -> list[str]:
    """mpirun of one tpu per host (MPMD: each rank's own arguments), over TCP between the two addresses."""
    command = ["mpirun", "--mca", "plm_rsh_agent", str(host.agent()), "--mca", "btl", "self,tcp",
               "--mca", "btl_tcp_if_include", f"{host.subnet}.0/24", "--mca", "oob_tcp_if_include",
               f"{host.subnet}.0/24", "--bind-to", "none", "--stdin", "none"]
    for rank, arguments in enumerate(rank_arguments):
        if rank > 0:
            command.append(":")
        command += ["-n", "1", "--host", (host.here, host.there)[rank], str(TPU), *arguments]
    return command


def lingering(session: int, patience_s: float) -> dict[int, str]:
    """The session's processes still there after waiting up to `patience_s` for them to end."""
    deadline = time.monotonic() + patience_s
    while (left := session_processes(session)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


LAUNCHES: set[subprocess.Popen] = set()  # running launches, each the leader of its own session


def start(command: list[str], log: Path) -> subprocess.Popen:
    with open(log, "w") as out:
        launch = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                  env={**os.environ, **MPI_ENV}, preexec_fn=die_with_parent, start_new_session=True)
    LAUNCHES.add(launch)
    return launch


def kill_launch(launch: subprocess.Popen) -> None:
    """Ends the launch: mpirun first, asked (SIGTERM: it stops its job and removes its session folder
    under /tmp), then every process of its session still there, here and on the second host (the
    agent started those), and the session folder if mpirun could not remove it."""
    launch.terminate()
    try:
        launch.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    kill_all(session_processes(launch.pid))
    launch.wait()
    LAUNCHES.discard(launch)
    shutil.rmtree(Path("/tmp") / f"ompi.{os.uname().nodename}.{os.getuid()}" / f"pid.{launch.pid}", ignore_errors=True)


def finish(launch: subprocess.Popen, timeout_s: float) -> int | None:
    """The exit status, or None after killing the whole launch for overstaying."""
    try:
        status = launch.wait(timeout=timeout_s)
        LAUNCHES.discard(launch)
        return status
    except subprocess.TimeoutExpired:
        kill_launch(launch)
        return None


def train_arguments(board: str, folder: Path) -> list[str]:
    return ["run", "--board", board, "--cores", "2", "--timeout", "240", "--outfeed-dir", str(folder),
            "--infeed", f"0={folder / 'infeed_x.npy'},{folder / 'infeed_y.npy'}", "train-digits"]


def prepare(folder: Path, steps: int) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    run(["/usr/bin/python3", str(PREPARE), str(folder), "--batch", "32", "--epochs", str(-(-steps // 44)),
         "--steps", str(steps), "--model", "mlp"])
    return folder


# ---------------------------------------------------------------- checks

def trained_bits(folder: Path) -> dict[str, bytes]:
    """What a pod's training left: every task's outfed weights and the steps' losses and accuracies."""
    bits = {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.glob("task-*/c*_q*_t*_e*.npy"))}
    bits["train.csv"] = "\n".join(",".join(line.split(",")[:3]) for line in
                                  (folder / "train.csv").read_text().splitlines()).encode()
    return bits


def reference_training() -> tuple[dict[str, bytes] | None, str]:
    """train-digits on 2 host boards of 2 cores on this machine alone (`tpu run --boards 2`)."""
    folder = prepare(WORK / "one-machine", 24)
    log = folder / "log.txt"
    status = finish(start([str(TPU), "run", "--boards", "2", *train_arguments("host", folder)[1:]], log), RUN_TIMEOUT_S)
    if status != 0:
        return None, f"exit status {status}; log {log}:\n" + log.read_text(errors="replace")[-3000:]
    return trained_bits(folder), ""


def check_training(host: SecondHost, boards: tuple[str, str],
                   one_machine: Callable[[], tuple[dict[str, bytes] | None, str]]) -> str:
    reference, reference_log = one_machine()
    if reference is None:
        return f"the one-machine reference pod failed: {reference_log}"
    folder = prepare(WORK / f"two-hosts-{boards[0]}-{boards[1]}", 24)
    log = folder / "log.txt"
    status = finish(start(mpirun_two_hosts(host, [train_arguments(board, folder) for board in boards]), log), RUN_TIMEOUT_S)
    if status != 0:
        return f"mpirun exited {status}; log {log}"
    output = log.read_text(errors="replace")
    for task in (0, 1):
        if not re.search(rf"^\[task {task}\] tpu: infeed queue 0 .*: 24 of 24 tuples sent, 24 consumed", output, re.M):
            return f"task {task}'s infeed did not send and consume all 24 steps; log {log}"
    got = trained_bits(folder)
    if got.keys() != reference.keys():
        return f"the pod left {sorted(got)}, one machine's pod {sorted(reference)}"
    differing = [name for name in reference if got[name] != reference[name]]
    return f"{differing} differ from one machine's pod of 2 host boards" if differing else ""


def check_pod_app(host: SecondHost) -> str:
    log = WORK / "pod-app.txt"
    arguments = ["run", "--board", "qemu-virt-a53", "--cores", "2", "--timeout", "120", "pod"]
    status = finish(start(mpirun_two_hosts(host, [arguments, arguments]), log), RUN_TIMEOUT_S)
    output = log.read_text(errors="replace")
    if status != 0:
        return f"mpirun exited {status}; log {log}"
    if not re.search(r"^\[task 0\] tpu: a pod of 2 qemu-virt-a53 boards: every rank agrees", output, re.M):
        return f"rank 0 did not report the pod's agreement; log {log}"
    expected = f"cluster_spec worker: [{os.uname().nodename}:8470, {SECOND_HOST_NAME}:8470]"
    for task in (0, 1):
        if not re.search(rf"^\[task {task}\] \[c0 I\] POD {re.escape(expected)}$", output, re.M):
            return f"task {task} did not print 'POD {expected}'; log {log}"
    return ""


def victim(host: SecondHost, name: str) -> int | None:
    """The second host's QEMU, or its rank's tpu (the one whose parent is Open MPI's orted)."""
    for pid, command in host.processes().items():
        if not command.startswith(name):
            continue
        if name != "tpu":
            return pid
        parent = proc_field(pid, 1)
        try:
            if parent is not None and Path(f"/proc/{parent}/comm").read_text().strip() == "orted":
                return pid
        except OSError:
            continue  # it ended meanwhile
    return None


def check_fault(host: SecondHost, target: str, expected_message: str) -> str:
    """Kills `target` on the second host mid-training; the launch must end loudly and leave nothing."""
    folder = prepare(WORK / f"fault-{target}", 1760)  # minutes on QEMU: ends only by the fault
    log = folder / "log.txt"
    launch = start(mpirun_two_hosts(host, [train_arguments("qemu-virt-a53", folder)] * 2), log)
    started = time.monotonic()
    training = re.compile(r"^\[task 1\] tpu: infeed queue 0: \d+ of \d+ tuples sent", re.M)  # a progress line
    while not training.search(log.read_text(errors="replace")):
        if launch.poll() is not None or time.monotonic() - started > 120:
            kill_launch(launch)
            return f"the pod never started training (mpirun status {launch.returncode}); log {log}"
        time.sleep(0.2)
    pid = victim(host, "qemu-system" if target == "qemu" else "tpu")
    if pid is None:
        kill_launch(launch)
        return f"no {target} process found on the second host among {host.processes()}"
    ram_files = [f"tpu-link-{tpu}-" for tpu, name in session_processes(launch.pid).items() if name == "tpu"]
    os.kill(pid, signal.SIGKILL)
    killed = time.monotonic()
    status = finish(launch, FAULT_DEADLINE_S)
    took = time.monotonic() - killed
    left = lingering(launch.pid, 10.0)  # the ranks' own shutdown (stopping QEMU) may outlast mpirun briefly
    problems = []
    if status is None:
        problems.append(f"mpirun still ran {FAULT_DEADLINE_S} s after the kill")
    elif status == 0:
        problems.append("mpirun exited 0")
    output = log.read_text(errors="replace")
    if expected_message not in output:
        problems.append(f"no line says '{expected_message}'")
    if left_there := host.processes():
        problems.append(f"processes left on the second host: {left_there}")
    if files_there := host.files_left():
        problems.append(f"files left in the second host's /tmp or /dev/shm: {files_there}")
    left_here = [name for name in os.listdir("/dev/shm") if name.startswith(tuple(ram_files))] if ram_files else []
    if left_here:
        problems.append(f"the launch's RAM files left in this host's /dev/shm: {left_here}")
    if left:
        problems.append(f"processes of the launch still there 10 s after it ended: {left}")
    if problems:
        return "; ".join(problems) + f"; log {log}"
    print(f"      (mpirun exited {status} {took:.1f} s after the kill)")
    return ""


def named_checks(host: SecondHost) -> dict[str, Callable[[], str]]:
    one_machine = functools.cache(reference_training)  # run once, by the first training check that asks
    return {
        "train-digits/host+host": lambda: check_training(host, ("host", "host"), one_machine),
        "train-digits/qemu-virt-a53+qemu-virt-a53": lambda: check_training(host, ("qemu-virt-a53",) * 2, one_machine),
        "train-digits/host+qemu-virt-a53": lambda: check_training(host, ("host", "qemu-virt-a53"), one_machine),
        "pod-app/qemu-virt-a53": lambda: check_pod_app(host),
        "fault/qemu-killed-on-second-host": lambda: check_fault(
            host, "qemu", f"rank 1 (host {SECOND_HOST_NAME}, board qemu-virt-a53) failed"),
        "fault/rank-killed-on-second-host": lambda: check_fault(host, "tpu", "process rank 1 with PID"),
    }


def run_check(host: SecondHost, check: Callable[[], str]) -> str:
    """The check's problem ('' if none); an exception is the check's failure, not the script's."""
    if not host.alive():
        return "the second host's namespaces are gone"
    try:
        return check()
    except Exception as error:  # a check that breaks fails alone
        return f"the check broke: {error!r}"
    finally:  # also on Ctrl-C and SIGTERM: the launches go before the namespaces do
        for launch in list(LAUNCHES):
            kill_launch(launch)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-k", dest="substrings", action="append", default=[], help="only checks whose name contains it")
    arguments = parser.parse_args(argv)
    if os.geteuid() != 0:
        print("multi-host-check: needs root (network, UTS, IPC and mount namespaces and a veth pair)", file=sys.stderr)
        return 2
    if not TPU.exists():
        print(f"multi-host-check: {TPU} is missing (make tpu)", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # `timeout`, a CI cancel: clean up as for Ctrl-C
    WORK.mkdir(parents=True, exist_ok=True)
    passed = failed = 0
    with SecondHost() as host:
        print(f"second host: {SECOND_HOST_NAME} at {host.there} (this host {os.uname().nodename} at {host.here})")
        for name, check in named_checks(host).items():
            if arguments.substrings and not any(s in name for s in arguments.substrings):
                continue
            started = time.monotonic()
            problem = run_check(host, check)
            print(f"{'FAIL' if problem else 'PASS'}  {name}  ({time.monotonic() - started:.1f} s)"
                  f"{'  ' + problem if problem else ''}", flush=True)
            passed, failed = passed + (not problem), failed + bool(problem)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:  # the launches and the second host are gone by now (finally, __exit__)
        print("multi-host-check: interrupted", file=sys.stderr)
        sys.exit(130)
