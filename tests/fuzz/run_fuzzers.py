#!/usr/bin/env python3
"""Runs the libFuzzer targets (`make fuzz`, and briefly in `make test`) and reports per target.

Each target (build/fuzz/<target>, built by `make fuzz-targets`) starts from its checked-in seed
corpus (tests/fuzz/corpus/<target>/) plus what earlier runs found (build/fuzz/corpus/<target>/, where
new inputs go, so the checked-in corpus never changes by itself), with its dictionary
(tests/fuzz/<target>.dict). It runs for --seconds or --runs inputs, under ASan and UBSan; a crash,
a sanitizer report, a leak, a timeout (10 s per input) or running out of memory (2 GiB) fails it,
and libFuzzer saves the input to build/fuzz/crashes/<target>/.

libFuzzer's own output goes to build/fuzz/logs/<target>.log while it runs (`tail -f` it to watch a
long campaign). One JSON line per target goes to stdout and to build/fuzz/report.jsonl:
  {"target", "executions", "seconds", "exec_per_s", "coverage", "corpus", "crashes", "crash_input"}
The exit status is 1 if any target failed. Reproduce a crash: build/fuzz/<target> <crash file>.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FUZZ = ROOT / "tests" / "fuzz"
BUILD = ROOT / "build" / "fuzz"
SANITIZER_ENV = {"ASAN_OPTIONS": "halt_on_error=1:detect_leaks=1:allocator_may_return_null=1",
                 "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1"}


def targets() -> list[str]:
    return sorted(path.stem for path in FUZZ.glob("*.cpp"))


def last_int(pattern: str, text: str) -> int | None:
    found = re.findall(pattern, text)
    return int(found[-1]) if found else None


def run_target(target: str, limit: list[str], timeout_s: float) -> dict:
    program = BUILD / target
    if not program.exists():
        raise SystemExit(f"run_fuzzers: {program} is missing (make fuzz-targets)")
    seeds = FUZZ / "corpus" / target
    found = BUILD / "corpus" / target
    crashes = BUILD / "crashes" / target
    for folder in (found, crashes):
        folder.mkdir(parents=True, exist_ok=True)
    dictionary = FUZZ / f"{target}.dict"
    command = [str(program), *limit, "-print_final_stats=1", "-timeout=10", "-rss_limit_mb=2048",
               f"-artifact_prefix={crashes}/", *([f"-dict={dictionary}"] if dictionary.exists() else []),
               str(found), *([str(seeds)] if seeds.is_dir() else [])]
    log = BUILD / "logs" / f"{target}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    with open(log, "w") as sink:
        try:
            status = subprocess.run(command, stdout=sink, stderr=subprocess.STDOUT, timeout=timeout_s,
                                    env=os.environ | SANITIZER_ENV).returncode
        except subprocess.TimeoutExpired:
            status = "hung"
    output = log.read_text(errors="replace")
    seconds = time.monotonic() - start
    executions = last_int(r"stat::number_of_executed_units: (\d+)", output) or last_int(r"#(\d+)\s", output) or 0
    crash_input = re.findall(r"Test unit written to (\S+)", output)
    result = {"target": target, "executions": executions, "seconds": round(seconds, 1),
              "exec_per_s": round(executions / seconds) if seconds > 0 else 0,
              "coverage": last_int(r"cov: (\d+)", output), "corpus": last_int(r"corp: (\d+)", output),
              "crashes": 0 if status == 0 else 1, "crash_input": crash_input[-1] if crash_input else None}
    if status != 0:
        reason = "did not finish in time" if status == "hung" else f"exit status {status}"
        tail = "\n".join(output.rstrip().split("\n")[-40:])
        print(f"run_fuzzers: {target} FAILED ({reason}); reproduce: {program} {result['crash_input'] or ''}\n{tail}",
              file=sys.stderr)
    return result


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--seconds", type=float, default=60, help="time per target (default 60)")
    group.add_argument("--runs", type=int, help="inputs per target instead of a time")
    parser.add_argument("targets", nargs="*", help=f"targets to run (default all: {', '.join(targets())})")
    arguments = parser.parse_args(argv)
    chosen = arguments.targets or targets()
    unknown = [name for name in chosen if name not in targets()]
    if unknown:
        print(f"run_fuzzers: unknown target {unknown[0]!r} (targets: {', '.join(targets())})", file=sys.stderr)
        return 2
    if arguments.runs is not None:
        limit, timeout_s = [f"-runs={arguments.runs}"], None
    else:
        limit, timeout_s = [f"-max_total_time={int(max(1, arguments.seconds))}"], arguments.seconds * 3 + 120
    BUILD.mkdir(parents=True, exist_ok=True)
    failed = 0
    with open(BUILD / "report.jsonl", "a") as report:
        for target in chosen:
            result = run_target(target, limit, timeout_s)
            line = json.dumps(result)
            print(line, flush=True)
            report.write(line + "\n")
            failed += result["crashes"]
    print(f"{len(chosen) - failed} targets clean, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
