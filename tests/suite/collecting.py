"""A command started in a session of its own whose output lines are collected as they come, for the
cases that act while it runs (send a signal mid-run, look at its children); Ctrl-C kills it with
every other process the harness started (qemu_runner.kill_all_running)."""
from __future__ import annotations

import os
import signal
import subprocess
import threading

import qemu_runner as runner
from qemu_runner import REPO_ROOT


def start_collecting(command: list[str], stdin: int = subprocess.DEVNULL, env: dict[str, str] | None = None
                     ) -> tuple[subprocess.Popen, list[str], threading.Thread]:
    """Starts `command`; a thread appends its output lines to the list as they come."""
    process = subprocess.Popen(command, cwd=REPO_ROOT, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, errors="replace", start_new_session=True, env=env)
    runner.track(process)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True)
    reader.start()
    return process, lines, reader


def stop_collecting(process: subprocess.Popen) -> None:
    """Kills the command's whole session if it still runs, and forgets it."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    runner.forget(process)
