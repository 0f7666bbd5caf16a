"""Checks many cases share: run a built image the way `make run` would and judge its console, run a
command that must succeed, judge a tool's exit status and output."""
from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Callable

import qemu_runner as runner
from qemu_runner import RunResult, describe_exit, run_image

from .case import IMAGE_TIMEOUT_S, MAKE_TIMEOUT_S, Outcome


def outcome_of(verdict: runner.Verdict, command: list[str], result: RunResult) -> Outcome:
    return Outcome(verdict.ok, verdict.reason, f"$ {shlex.join(command)}\n{result.output}")


def check_image(board: str, app: str, cores: int, judge: Callable[[RunResult], runner.Verdict],
                extra_args: tuple[str, ...] = (), timeout_s: float = IMAGE_TIMEOUT_S) -> Outcome:
    """Runs the (already built) image the way `make run` would, plus extra_args, and judges it."""
    command, made = runner.image_command(board, app, cores, MAKE_TIMEOUT_S)
    if command is None:
        return Outcome(False, f"make print-run-command: {describe_exit(made)}", made.output)
    command += extra_args
    result = run_image(command, timeout_s)
    if "\x00" in result.output:  # no host on the line: the console must stay plain text (fault reports too)
        return outcome_of(runner.Verdict(False, "a NUL byte on the console of a board no host spoke to"), command, result)
    return outcome_of(judge(result), command, result)


def check_command_succeeds(command: list[str], timeout_s: float) -> Outcome:
    result = run_image(command, timeout_s)
    ok = result.exit_code == 0 and not result.timed_out
    reason = "" if ok else "; ".join(filter(None, [describe_exit(result), runner.telling_line(result.output)]))
    return Outcome(ok, reason, f"$ {shlex.join(command)}\n{result.output}")


def judge_exit_and_output(result: RunResult, log: str, expect_exit: int, patterns: list[str]) -> Outcome:
    """A tool run passes with exit status `expect_exit` and every regex of `patterns` in its output."""
    if result.timed_out or result.exit_code != expect_exit:
        return Outcome(False, f"expected exit {expect_exit}, got {describe_exit(result)}", log)
    missing = [pattern for pattern in patterns if not re.search(pattern, result.output, re.MULTILINE)]
    if missing:
        return Outcome(False, f"output lacks {missing[0]!r}", log)
    return Outcome(True, "", log)


def ram_file_folder(output: str) -> Path | None:
    """The folder of this run's shared RAM file, from the QEMU command line tpu prints (mem-path=<folder>/
    board-ram); None when the run had none (the host board, the UART link). tpu must remove it on exit."""
    found = re.search(r"mem-path=(\S+)/board-ram", output)
    return Path(found.group(1)) if found else None
