#!/usr/bin/env python3
"""`make soak`: the soak app (firmware/apps/soak) run many times on 16 cores, round robin over
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
The exit status is 1 if any run failed or hung.

    python3 tests/soak.py [--runs 60] [--cores 16] [--timeout 300]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "soak"
COLLECTIVE_CASES, REPLICATE_CASES = 100, 20  # per run (firmware/apps/soak/device/soak.cpp)
CONFIGS = {
    "qemu-virt-a53-mttcg": {"BOARD": "qemu-virt-a53", "extra": ["-accel", "tcg,thread=multi"]},
    "qemu-virt-rv64-mttcg": {"BOARD": "qemu-virt-rv64", "extra": ["-accel", "tcg,thread=multi"]},
    "host-tsan": {"BOARD": "host", "SANITIZE": "thread", "extra": []},
}


def make_variables(config: dict) -> list[str]:
    return [f"{key}={value}" for key, value in config.items() if key != "extra"]


def build(config: dict) -> None:
    subprocess.run(["make", "-s", "-j2", "image", "APP=soak", *make_variables(config)], cwd=ROOT, check=True)


def run_command(config: dict, cores: int) -> list[str]:
    printed = subprocess.run(["make", "-s", "print-run-command", "APP=soak", f"CORES={cores}", *make_variables(config)],
                             cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return printed.split() + config["extra"]


def one_run(command: list[str], cores: int, timeout_s: float) -> tuple[str, str]:
    """'pass', 'fail' or 'hang', and the output."""
    env = os.environ | {"TSAN_OPTIONS": "halt_on_error=1"}
    process = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, errors="replace", env=env, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, 9)
        output, _ = process.communicate()
        return "hang", output
    passed = len(set(re.findall(r"\[c(\d+) I\] PASS soak", output)))
    ok = process.returncode == 0 and passed == cores and "ThreadSanitizer" not in output
    return ("pass" if ok else "fail"), output


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=60, help="runs in all, round robin over the configurations")
    parser.add_argument("--cores", type=int, default=16)
    parser.add_argument("--timeout", type=float, default=300, help="seconds before a run counts as hung")
    parser.add_argument("--config", action="append", choices=sorted(CONFIGS), help="only these (repeatable)")
    arguments = parser.parse_args(argv)
    names = arguments.config or list(CONFIGS)
    OUT.mkdir(parents=True, exist_ok=True)
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
    with open(OUT / "report.jsonl", "a") as report:
        for line in lines:
            print(json.dumps(line))
            report.write(json.dumps(line) + "\n")
    return 1 if total["failures"] or total["hangs"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
