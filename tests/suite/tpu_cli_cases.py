"""The tpu tool's own cases: its Catch2 tests (plain and under ASan+UBSan), its command line (plain and
sanitized), the firmware shell through `tpu console`, hostile files and values given to it, and an
app whose host function clashes with a built-in."""
from __future__ import annotations

import re
import shlex
import shutil
import struct
import subprocess
from functools import partial

import qemu_runner as runner
from qemu_runner import REPO_ROOT, describe_exit, make_command, run_image

from .case import COMPILE_TIMEOUT_S, Case, Outcome
from .collecting import start_collecting, stop_collecting
from .npy_bytes import npy_bytes
from .sanitizers import SANITIZER_ENV, SANITIZERS
from .tpu_tool import (SANITIZED_TPU_BINARY, TPU_BINARY, TPU_RUN_BOARDS, TPU_TIMEOUT_S, check_tpu_command,
                       tpu_not_built)

def check_sanitized_tool_tests() -> Outcome:
    """The tool's Catch2 tests (link session, .npy, app host functions) built and run under ASan+UBSan."""
    command = make_command("tpu-tests", HOST_SANITIZE=SANITIZERS)
    result = run_image(command, COMPILE_TIMEOUT_S, env=runner.make_env() | SANITIZER_ENV)
    ok = result.exit_code == 0 and not result.timed_out and "Sanitizer" not in result.output
    reason = "" if ok else "; ".join(filter(None, [describe_exit(result), runner.telling_line(result.output)]))
    return Outcome(ok, reason, f"$ {shlex.join(command)}\n{result.output}")


def check_host_function_clash() -> Outcome:
    """An app whose host half defines a function named like a built-in must stop before the board runs."""
    folder = REPO_ROOT / "build" / "tpu-new" / "clashing-app"
    shutil.rmtree(folder, ignore_errors=True)
    created = check_tpu_command(["new", str(folder)], 0, [r"created app clashing-app"])
    if not created.ok:
        return created
    (folder / "host" / "functions.cpp").write_text(
        '#include "host-tools/lib/functions/app_host.hpp"\n'
        'TPU_HOST_FUNCTION(print, call) { return call.tensor(0); }\n')
    return check_tpu_command(["run", "--board", "host", "--cores", "1", str(folder)], 2,
                             [r"the app's host function 'print' is already defined \(a built-in\)"])


def check_new_app_named_like_a_repository_app() -> Outcome:
    """`tpu new` of an app named like one of the repository's says which one `tpu run NAME` will mean."""
    folder = REPO_ROOT / "build" / "tpu-new" / "named-like-repo" / "hello"
    shutil.rmtree(folder.parent, ignore_errors=True)
    return check_tpu_command(["new", str(folder)], 0,
                             [r"created app hello", r"note: the repository also has an app named hello: `tpu run hello` "
                              r"runs this one in .*named-like-repo, the repository's anywhere else"])


CLI_CASES = {
    "help": (["--help"], 0, [r"Subcommands:", r"^\s+run\b", r"^\s+exec\b", r"^\s+new\b", r"^\s+test\b"]),
    "run-help": (["run", "--help"], 0, [r"Usage: tpu run", r"--infeed", r"--link"]),
    "exec-help": (["exec", "--help"], 0, [r"Usage: tpu exec", r"matmul", r"--replicas"]),
    "no-command": ([], 2, [r"A subcommand is required"]),
    "unknown-command": (["fly"], 2, [r"fly"]),
    "cores-out-of-range": (["run", "--cores", "17", "hello"], 2, [r"--cores: takes one whole number from 1 to 16 .*got '17'"]),
    # A list, as --board takes one: one count for every board, said in words.
    "cores-list": (["run", "--boards", "2", "--board", "host,qemu-virt-a53", "--cores", "2,4", "hello"], 2,
                   [r"--cores: takes one whole number from 1 to 16 \(in a pod, every board boots the same count\), "
                    r"got '2,4'"]),
    "boards-word": (["run", "--boards", "two", "hello"], 2, [r"--boards: takes one whole number from 2 to 16 .*got 'two'"]),
    "bad-link": (["run", "--link", "wifi", "hello"], 2, [r"--link: wifi not in \{auto,shm,uart\}"]),
    "bad-timeout": (["run", "--timeout", "-3", "hello"], 2, [r"positive number of seconds .*got '-3'"]),
    "chainboot-without-attach": (["run", "--board", "raspi3b", "--chainboot", "hello"], 2,
                                 [r"--chainboot sends the image to a raspi3b's UART chainloader: it needs --board "
                                  r"raspi3b and --serial DEV or --socket PATH"]),
    "shm-with-serial": (["run", "--board", "raspi3b", "--link", "shm", "--serial", "/dev/null", "hello"], 2,
                        [r"\Atpu: --link shm needs a board tpu launches .*--serial has only its serial line"]),
    "unknown-board": (["run", "--board", "pi5", "hello"], 2, [r"--board: unknown board 'pi5' \(boards: host, qemu-virt-a53, qemu-virt-rv64, raspi3b\)"]),
    # make's reason first, not "the host half of nosuchapp did not build"
    "unknown-app": (["run", "--board", "host", "nosuchapp"], 2, [r"\Atpu: unknown APP 'nosuchapp'.*valid apps: .*hello"]),
    # A typo gets a "did you mean" (host-tools/lib/text/closest_name.hpp); nosuchapp and pi5 above get none.
    "board-typo": (["run", "--board", "qemu-virt-a35", "hello"], 2, [r"unknown board 'qemu-virt-a35' \(boards: .*; did "
                                                                    r"you mean 'qemu-virt-a53'\?\)"]),
    "app-typo": (["run", "--board", "host", "trian-digits"], 2, [r"\Atpu: unknown APP 'trian-digits' \(did you mean "
                                                                 r"'train-digits'\?\): .*valid apps: "]),
    # An unknown option is named with the command's nearest one (checked before CLI11 parses), not as
    # CLI11's "arguments were not expected: hello --core" (its value 2 taken for the APP, the APP left over).
    "option-typo": (["run", "--board", "host", "--core", "2", "hello"], 2,
                    [r"\Atpu run: unknown option '--core' \(did you mean '--cores'\?\)$"]),
    "unknown-option": (["run", "--board", "host", "--frobnicate", "hello"], 2,
                       [r"\Atpu run: unknown option '--frobnicate' \(tpu run --help lists the options\)$"]),
    # The same before CLI11 validates: exec's OP would otherwise be the option's value ("OP: 2 not in").
    "exec-option-typo": (["exec", "--replica", "2", "matmul", "a.npy", "b.npy", "-o", "c.npy"], 2,
                         [r"\Atpu exec: unknown option '--replica' \(did you mean '--replicas'\?\)$"]),
    "exec-bad-op": (["exec", "fly", "-o", "x.npy"], 2, [r"OP: fly not in \{matmul"]),
    "new-bad-name": (["new", "build/tpu-new/9lives"], 2, [r"'9lives' is not an app name"]),
    "new-existing-folder": (["new", "firmware/examples/hello"], 2, [r"already exists and is not an empty folder"]),
    # Found by the command-line fuzz target: `tpu new ""` died of an uncaught filesystem_error.
    "new-empty-folder": (["new", ""], 2, [r"FOLDER: must not be empty"]),
    "empty-outfeed-dir": (["run", "--outfeed-dir", "", "hello"], 2, [r"--outfeed-dir: must not be empty"]),
}


SHELL_COMMANDS = "help\ncores\nmem\nbench\nstats\ntrace off\nexit\n"
SHELL_ANSWERS = (r"MFLOP/s", r"trace recording off", r"PASS shell")
# The lines after a reboot go to the board launched again: its `cores` answer follows the restart.
REBOOT_COMMANDS = "reboot\ncores\nexit\n"
REBOOT_ANSWERS = (r"the board rebooted; starting it again(.|\n)*core 1: hw id(.|\n)*PASS shell",)


def check_shell_console(board: str, commands: str = SHELL_COMMANDS, answers: tuple[str, ...] = SHELL_ANSWERS) -> Outcome:
    """Types `commands` into `tpu console` (the firmware shell) and checks their answers. The input stays
    open until the shell has ended (its `exit`): tpu console stops 2 s after its input ends if the board
    is quiet, which a slow `bench` on a busy machine would otherwise hit."""
    missing = tpu_not_built()
    if missing:
        return missing
    command = [TPU_BINARY, "console", "--board", board, "--cores", "2"]
    process, lines, reader = start_collecting(command, stdin=subprocess.PIPE)
    try:
        process.stdin.write(commands)
        process.stdin.flush()
        try:
            code = process.wait(timeout=TPU_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            code = None
        process.stdin.close()
        reader.join(timeout=5)
    finally:
        stop_collecting(process)
    output = "".join(lines)
    log = f"$ printf {commands!r} | {shlex.join(command)}\n{output}"
    if code is None:
        return Outcome(False, f"tpu console did not end within {TPU_TIMEOUT_S} s", log)
    for pattern in answers:
        if not re.search(pattern, output):
            return Outcome(False, f"exit {code}, output lacks {pattern!r}", log)
    if code != 0:
        return Outcome(False, f"exit {code}", log)
    return Outcome(True, "", log)


def check_hostile_input(case: str, expect_exit: int, pattern: str) -> Outcome:
    """tpu given hostile files or values: a clear error (or a normal run) and the expected exit status,
    never a crash."""
    missing = tpu_not_built()
    if missing:
        return missing
    # A folder per case: cases run in parallel, and one rewriting a shared a.npy (truncate, then
    # write) while another read it failed a run with "a.npy: .npy file of 0 bytes".
    work = REPO_ROOT / "build" / "tpu-input" / case
    work.mkdir(parents=True, exist_ok=True)
    (work / "wraps.npy").write_bytes(npy_bytes((1 << 40, 1 << 22)))  # 2^64 bytes: wraps to 0
    (work / "huge.npy").write_bytes(npy_bytes((1 << 32, 1 << 30)))
    (work / "a.npy").write_bytes(npy_bytes((2, 3), struct.pack("<6f", *range(6))))
    (work / "b.npy").write_bytes(npy_bytes((3, 1), struct.pack("<3f", 1, 2, 3)))
    (work / "dir.npy").mkdir(exist_ok=True)
    (work / "text.elf").write_text("not an image\n")
    raspi_fault = str(REPO_ROOT / "build" / "raspi3b" / "fault-null" / "firmware.elf")
    commands = {
        "image-not-elf": ["run", str(work / "text.elf")],
        "image-for-another-board": ["run", "--board", "qemu-virt-a53", raspi_fault],
        "image-runs-on-its-board": ["run", "--board", "raspi3b", "--cores", "4", raspi_fault],
        "image-board-from-its-tag": ["run", "--cores", "4", raspi_fault],
        "cores-the-board-lacks": ["run", "--board", "raspi3b", "--cores", "2", "hello"],
        "fault-named-on-host": ["run", "--board", "host", "--cores", "4", "fault-null"],
        "exec-on-raspi3b": ["exec", "--board", "raspi3b", "matmul", str(work / "a.npy"), str(work / "b.npy"), "-o",
                            str(work / "o-raspi3b.npy")],
        "infeed-wrapping-shape": ["run", "--infeed", f"0={work / 'wraps.npy'},{work / 'wraps.npy'}", "infeed"],
        "exec-huge-shape": ["exec", "matmul", str(work / "huge.npy"), str(work / "huge.npy"), "-o", str(work / "o.npy")],
        "exec-directory": ["exec", "matmul", str(work / "dir.npy"), str(work / "b.npy"), "-o", str(work / "o.npy")],
        "exec-huge-timeout": ["exec", "--timeout", "1e10", "matmul", str(work / "a.npy"), str(work / "b.npy"), "-o",
                              str(work / "o.npy")],
        "exec-infinite-timeout": ["exec", "--timeout", "inf", "matmul", str(work / "a.npy"), str(work / "b.npy"), "-o",
                                  str(work / "o.npy")],
    }
    command = [TPU_BINARY, *commands[case]]
    result = run_image(command, TPU_TIMEOUT_S)
    log = f"$ {shlex.join(command)}\n{result.output}"
    if result.timed_out or result.exit_code != expect_exit:
        return Outcome(False, f"expected exit {expect_exit}, got {describe_exit(result)}", log)
    if not re.search(pattern, result.output):
        return Outcome(False, f"output lacks {pattern!r}", log)
    return Outcome(True, "", log)


HOSTILE_INPUTS = {
    "infeed-wrapping-shape": (2, r"shape \[1099511627776, 4194304\] of float32 needs more than 2\^64 bytes"),
    "exec-huge-shape": (2, r"needs more than 2\^64 bytes"),
    "exec-directory": (2, r"dir.npy is not a regular file"),
    "exec-huge-timeout": (0, r"tpu exec: wrote .*o.npy"),
    "exec-infinite-timeout": (0, r"tpu exec: wrote .*o.npy"),
    "image-not-elf": (2, r"text.elf is not an ELF file"),
    "image-for-another-board": (2, r"was built for raspi3b, not for --board qemu-virt-a53"),
    # not the default app's kernel8.img; the pc named by function and line (addr2line on the given ELF)
    "image-runs-on-its-board": (3, r"app fault-null[\s\S]*FAULT on core 3[\s\S]*tpu: core 3 faulted in \S.* at "
                                   r"tests/faults/fault-null/device/fault_null\.cpp:\d+"),
    # the host board's image is position independent: its report gives the pc's offset in the image
    "fault-named-on-host": (3, r"core 3 pc 0x[0-9a-f]+ syndrome 0x[0-9a-f]+ \(image\+0x[0-9a-f]+\)\n"
                               r"tpu: core 3 faulted in \S.* at tests/faults/fault-null/device/fault_null\.cpp:\d+"),
    "image-board-from-its-tag": (3, r"runtime on raspi3b: 4 cores, app fault-null"),
    "cores-the-board-lacks": (2, r"board raspi3b boots 4 cores, not 2"),
    "exec-on-raspi3b": (0, r"tpu exec: wrote .*o-raspi3b.npy"),
}
HOSTILE_IMAGES = {"image-runs-on-its-board": (("raspi3b", "fault-null"),),
                  "fault-named-on-host": (("host", "fault-null"),),
                  "image-board-from-its-tag": (("raspi3b", "fault-null"),),
                  "image-for-another-board": (("raspi3b", "fault-null"),),
                  "exec-on-raspi3b": (("raspi3b", "exec"),),
                  # tpu may build the app before it reads the infeed: built first, never by the case
                  "infeed-wrapping-shape": (("qemu-virt-a53", "exec"), ("qemu-virt-a53", "infeed"))}


def cli_images(arguments: list[str]) -> tuple:
    """`tpu exec` runs the exec app's tool (even for --help): built first, never by the case."""
    return (("app-tool", "exec"),) if arguments[:1] == ["exec"] else ()


def tpu_tool_cases() -> list[Case]:
    """Catch2 tests, command line, host-function clash (in today's table order)."""
    # The Catch2 binary is built in the build phase (compiled under ASan beside other cases it took
    # over 600 s from a clean clone), and run only under ASan+UBSan: the plain tool (-O2) is what the
    # hundreds of tpu cases run, so a plain build of the same tests found nothing more for its ~45
    # CPU-s (`make tpu-tests` still builds and runs it).
    cases = [Case("asan/tpu-tests/host", partial(check_sanitized_tool_tests),
                  images=(("sanitized-tool", "tpu-tests"),), estimate_s=8)]
    cases += [Case(f"asan/tpu-cli/{name}", partial(check_tpu_command, *arguments, binary=SANITIZED_TPU_BINARY))
              for name, arguments in CLI_CASES.items() if arguments[0][:1] != ["exec"]]
    cases += [Case(f"tpu-cli/{name}", partial(check_tpu_command, *arguments), images=cli_images(arguments[0]))
              for name, arguments in CLI_CASES.items()]
    cases.append(Case("tpu-cli/new-named-like-a-repository-app", check_new_app_named_like_a_repository_app))
    cases.append(Case("tpu-cli/host-function-clash", check_host_function_clash, images=(("host", "runtime"),),
                      estimate_s=10))
    return cases


def console_cases() -> list[Case]:
    cases = [Case(f"tpu-console/shell/{board}/2", partial(check_shell_console, board), images=((board, "shell"),),
                  estimate_s=15) for board in TPU_RUN_BOARDS[:3]]
    board = TPU_RUN_BOARDS[0]
    cases.append(Case(f"tpu-console/reboot/{board}/2", partial(check_shell_console, board, REBOOT_COMMANDS, REBOOT_ANSWERS),
                      images=((board, "shell"),), estimate_s=10))
    return cases


def hostile_input_cases() -> list[Case]:
    return [Case(f"tpu-input/{name}", partial(check_hostile_input, name, code, pattern),
                 images=HOSTILE_IMAGES.get(name, (("qemu-virt-a53", "exec"),)), estimate_s=5)
            for name, (code, pattern) in HOSTILE_INPUTS.items()]
