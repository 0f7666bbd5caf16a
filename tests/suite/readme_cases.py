"""The README shows what the tests run: every example block of the readme-examples app appears in it as
a code block, and its training commands run as written with a python3 first on PATH that lacks NumPy."""
from __future__ import annotations

import re
import textwrap
from pathlib import Path

import app_tests
import qemu_runner as runner
from qemu_runner import REPO_ROOT, describe_exit, run_image

from .case import Case, Outcome

def check_readme_examples() -> Outcome:
    """Every "// example: NAME ... // end" block of the readme-examples app appears, dedented,
    as a code block of README.md (the README shows the code the tests run)."""
    source = (app_tests.app_folder("readme-examples") / "device" / "examples.cpp").read_text()
    readme = (REPO_ROOT / "README.md").read_text()
    blocks = re.findall(r"// example: (\w+)\n(.*?)\n\s*// end", source, re.S)
    if not blocks:
        return Outcome(False, "examples.cpp has no // example: blocks")
    stale = [name for name, code in blocks if f"```cpp\n{textwrap.dedent(code)}\n```" not in readme]
    if stale:
        return Outcome(False, f"README.md does not show the current code of example(s) {', '.join(stale)}")
    return Outcome(True)


def python3_without_numpy() -> Path:
    """A folder whose `python3` cannot import NumPy (Debian's interpreter without site-packages), to
    put first on PATH as pyenv, conda or a venv would."""
    folder = REPO_ROOT / "build" / "python3-without-numpy"
    folder.mkdir(parents=True, exist_ok=True)
    shim = folder / "python3"
    shim.write_text('#!/bin/sh\n# A python3 without NumPy (no site-packages), first on PATH in a test.\n'
                    'exec /usr/bin/python3 -S "$@"\n')
    shim.chmod(0o755)
    return folder


def check_readme_training_commands() -> Outcome:
    """The README's training commands (the sh block that runs prepare_digits.py), run as written with
    a python3 first on PATH that lacks NumPy: they must not depend on which python3 comes first; the
    last of them, evaluate.py, must report the final weights' test accuracy (at least 95%)."""
    readme = (REPO_ROOT / "README.md").read_text()
    blocks = [block for block in re.findall(r"```sh\n(.*?)```", readme, re.S) if "prepare_digits.py" in block]
    if len(blocks) != 1:
        return Outcome(False, f"README.md has {len(blocks)} sh blocks running prepare_digits.py, expected 1")
    env = runner.make_env()
    env["PATH"] = f"{python3_without_numpy()}:{env.get('PATH', '')}"
    probe = run_image(["python3", "-c", "import numpy"], 30, env=env)
    if probe.exit_code == 0:
        return Outcome(False, "the python3 put first on PATH can import numpy: the case would prove nothing")
    result = run_image(["bash", "-e", "-o", "pipefail", "-c", blocks[0]], 300, env=env)
    log = f"$ PATH=build/python3-without-numpy:$PATH bash -e -c <README block>\n{blocks[0]}\n{result.output}"
    if result.timed_out or result.exit_code != 0:
        return Outcome(False, f"the README's training commands failed: {describe_exit(result)}", log)
    if not re.search(r"^tpu: (\d+) of \1 cores reported a result, all OK", result.output, re.M):
        return Outcome(False, "the training run did not end with every core OK", log)
    accuracy = re.search(r"^train-digits: test accuracy ([\d.]+)% \(\d+ of 360 held-out images\)", result.output, re.M)
    if not accuracy or float(accuracy.group(1)) < 95:  # the README's claim is 98.3% for this run
        return Outcome(False, "evaluate.py did not report a test accuracy of at least 95%", log)
    return Outcome(True, "", log)


def readme_cases() -> list[Case]:
    return [Case("readme/api-examples", check_readme_examples),
            Case("tpu-readme/training-commands/python3-without-numpy", check_readme_training_commands,
                 images=(("qemu-virt-a53", "train-digits"),), estimate_s=20)]
