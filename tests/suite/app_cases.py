"""The cases each app declares in its app.toml (tests/app_tests.py reads it): [run] is `make run` on
each board and core count, judged by its console (plus -icount, ThreadSanitizer and same-hash runs);
[tpu] is `tpu run` on each board and link, every core reporting OK; [pod] is `tpu run --boards K` on
each pod, every task's cores reporting OK."""
from __future__ import annotations

import re
import shlex
from functools import partial
from typing import Callable

import app_tests
import qemu_runner as runner
from qemu_runner import RunResult, describe_exit, make_command, run_image

from .case import BOARDS, FIXED_CORE_BOARDS, IMAGE_TIMEOUT_S, MAKE_TIMEOUT_S, QEMU_BOARDS, Case, Outcome
from .checks import check_image, outcome_of
from .tpu_tool import check_tpu_pod, check_tpu_run, link_transports


def check_sanitized(sanitizer: str, app: str, cores: int, name: str) -> Outcome:
    """Runs `app` built for the host board with a sanitizer (the image is built before the case
    starts): every core must pass and the sanitizer must report nothing (halt_on_error turns a report
    into a failing exit)."""
    listed = run_image(make_command("print-run-command", BOARD="host", APP=app, CORES=cores, SANITIZE=sanitizer),
                       MAKE_TIMEOUT_S)
    command = listed.output.split()
    env = runner.make_env()
    env["TSAN_OPTIONS"] = "halt_on_error=1"
    env["ASAN_OPTIONS"] = "halt_on_error=1"
    env["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1"
    result = run_image(command, IMAGE_TIMEOUT_S, env=env)
    verdict = runner.expect_pass(result, cores=cores, app=name)
    if verdict.ok and "Sanitizer" in result.output:
        verdict = runner.Verdict(False, "the sanitizer reported a problem")
    return outcome_of(verdict, command, result)


def check_same_hash(app: str, cores: int, marker: str) -> Outcome:
    """Runs `app` on every board and requires the same "<marker> <hex>" line from each: the
    boards' compilers and ISAs must produce bit-identical results."""
    hashes, logs = {}, []
    for board in BOARDS:
        command, made = runner.image_command(board, app, cores, MAKE_TIMEOUT_S)
        if command is None:
            return Outcome(False, f"{board}: make print-run-command: {describe_exit(made)}", made.output)
        result = run_image(command, IMAGE_TIMEOUT_S)
        logs.append(f"$ {shlex.join(command)}\n{result.output}")
        found = re.findall(rf"{marker} (0x[0-9a-f]+)", result.output)
        if result.exit_code != 0 or not found:
            return Outcome(False, f"{board}: {describe_exit(result)}, no {marker} line", "\n".join(logs))
        hashes[board] = found[-1]
    if len(set(hashes.values())) != 1:
        return Outcome(False, "results differ between boards: " + ", ".join(f"{b} {h}" for b, h in hashes.items()),
                       "\n".join(logs))
    return Outcome(True)


def image_case(name: str, board: str, app: str, cores: int, judge: Callable[[RunResult], runner.Verdict],
               extra_args: tuple[str, ...] = (), estimate_s: float = 2.0) -> Case:
    return Case(f"{name}/{board}/{cores}", partial(check_image, board, app, cores, judge, extra_args),
                images=((board, app),), estimate_s=estimate_s)


def core_counts_for(board: str, counts: tuple[int, ...]) -> tuple[int, ...]:
    """The core counts a case list uses on `board`: all of them, or the board's one fixed count."""
    return (FIXED_CORE_BOARDS[board],) if board in FIXED_CORE_BOARDS else tuple(counts)


def run_judge(spec: app_tests.AppSpec, cores: int) -> Callable[[RunResult], runner.Verdict]:
    """How one `make run` of the app is judged, from its app.toml's expect."""
    run = spec.run
    if run.expect == "fault":
        return partial(runner.expect_fault, patterns=run.patterns)
    if run.expect == "boot-failure":
        return partial(runner.expect_boot_failure, missing_cores=run.missing_cores)
    return partial(runner.expect_pass, cores=cores, app=spec.name)


def run_cases(spec: app_tests.AppSpec) -> list[Case]:
    """The [run] section: make run per board and core count, plus -icount, TSan and same-hash runs."""
    run, app, cases = spec.run, spec.make_app, []
    slow = 11.0 if run.expect == "boot-failure" else 2.0  # a boot failure waits out the boot timeout
    for board in run.boards:
        cases += [image_case(spec.name, board, app, cores, run_judge(spec, cores), estimate_s=slow)
                  for cores in dict.fromkeys(core_counts_for(board, run.cores))]
        if run.icount and board in QEMU_BOARDS:
            cases.append(image_case(f"{spec.name}-icount", board, app, run.icount, run_judge(spec, run.icount),
                                    extra_args=("-icount", "shift=0"), estimate_s=5))
    if run.same_hash:
        cases.append(Case(f"{spec.name}-bit-identical/all-boards/4", partial(check_same_hash, app, 4, run.same_hash),
                          images=tuple((board, app) for board in BOARDS), estimate_s=5))
    if run.tsan:
        cases.append(Case(f"tsan/{spec.name}/host/{run.tsan}", partial(check_sanitized, "thread", app, run.tsan, spec.name),
                          images=(("host", app, "thread"),), estimate_s=20))
    return cases


def tpu_run_cases(spec: app_tests.AppSpec) -> list[Case]:
    """The [tpu] section: tpu run on each board and link, every core reporting OK."""
    tpu, cases = spec.tpu, []
    for board in tpu.boards:
        cores = FIXED_CORE_BOARDS.get(board, tpu.cores)
        for link in link_transports(board):
            if f"{board}/{link}" in tpu.skip:
                continue
            patterns = tpu.patterns + [rf"{cores} of {cores} cores reported a result, all OK"]
            cases.append(Case(f"tpu-run/{spec.name}/{board}/{cores}/{link}",
                              partial(check_tpu_run, board, cores, spec.make_app, 0, patterns,
                                      extra=tuple(f"--infeed={value}" for value in tpu.infeed),
                                      outfeed_check=tpu.outfeed_check, link=link),
                              images=((board, spec.make_app),), estimate_s=4))
    return cases


def tpu_pod_cases(spec: app_tests.AppSpec) -> list[Case]:
    """The [pod] section: tpu run --boards K on each board (or mixed pod), pod size and network."""
    pod, cases = spec.pod, []
    for board in pod.boards:
        kinds = board.split(",")
        for boards in pod.pods:
            for network in pod.network:
                name = f"tpu-pod/{spec.name}/{board.replace(',', '+')}/{boards}x{pod.cores}"
                each_board = ",".join(kinds[task % len(kinds)] for task in range(boards)) if len(kinds) > 1 else board
                cases.append(Case(name + ("/tcp" if network == "tcp" else ""),
                                  partial(check_tpu_pod, each_board, boards, pod.cores, spec.make_app, pod.patterns, network,
                                          extra=tuple(f"--infeed={value}" for value in pod.infeed),
                                          outfeed_check=pod.outfeed_check),
                                  images=tuple((kind, spec.make_app) for kind in dict.fromkeys(kinds)),
                                  estimate_s=6 if kinds == ["host"] else 6 + 3 * boards))
    return cases


def app_cases(spec: app_tests.AppSpec) -> list[Case]:
    return ((run_cases(spec) if spec.run else []) + (tpu_run_cases(spec) if spec.tpu else [])
            + (tpu_pod_cases(spec) if spec.pod else []))
