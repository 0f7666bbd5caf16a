"""Cases run by scripts that drive tpu and check its results with NumPy (started with Debian's
/usr/bin/python3, which has it): infeed and outfeed (tests/infeed_check.py), bulk infeed bit for bit
(tests/infeed_bulk_check.py), tpu exec's operations (tests/exec_check.py) and the digits classifiers
(tests/train_digits_check.py)."""
from __future__ import annotations

import re
import shlex
from functools import partial

from qemu_runner import describe_exit, run_image

from .case import BOARDS, Case, Outcome
from .tpu_tool import TPU_RUN_BOARDS, link_transports, tpu_not_built

SCRIPT_TIMEOUT_S = 600


def check_tpu_script(arguments: list[str], pattern: str) -> Outcome:
    """Runs a NumPy-checking script that drives `tpu` (tests/*_check.py) and requires its pass line."""
    missing = tpu_not_built()
    if missing:
        return missing
    command = ["/usr/bin/python3", *arguments]
    result = run_image(command, SCRIPT_TIMEOUT_S)
    log = f"$ {shlex.join(command)}\n{result.output}"
    if result.timed_out or result.exit_code != 0 or not re.search(pattern, result.output, re.MULTILINE):
        return Outcome(False, f"{describe_exit(result)}; expected {pattern!r}", log)
    return Outcome(True, "", log)


def script_case(name: str, arguments: list[str], pattern: str, images: tuple, estimate_s: float) -> Case:
    return Case(name, partial(check_tpu_script, arguments, pattern), images=images, estimate_s=estimate_s)


def infeed_cases() -> list[Case]:
    cases = []
    for board, cores in (("qemu-virt-a53", 8), ("qemu-virt-rv64", 4), ("host", 8)):
        for link in link_transports(board):
            cases.append(script_case(f"tpu-infeed/{board}/{cores}/{link}",
                                     ["tests/infeed_check.py", "--board", board, "--cores", str(cores), "--link", link],
                                     r"^PASS infeed", ((board, "infeed"),), 5))
    # A pod's per-host input: each board's tpu streams its own rows; every replica's shard checked.
    for board in ("host", "qemu-virt-a53"):
        cases.append(script_case(f"tpu-infeed/pod/{board}/2x2",
                                 ["tests/infeed_check.py", "--board", board, "--cores", "2", "--boards", "2", "--steps",
                                  "12"],
                                 r"^PASS infeed .* x 2 boards", ((board, "infeed"),), 5))
    # An element sharded along its columns (dimension 1): on one board, and in pods, where each board's
    # tpu streams its block of the columns (strided in the file); a file whose columns do not split
    # over the boards is refused, naming it.
    for name, board, cores, boards, extra in (("host/4", "host", 4, 1, []), ("pod/host/2x2", "host", 2, 2, []),
                                              ("pod/qemu-virt-a53/2x2", "qemu-virt-a53", 2, 2, []),
                                              ("pod/host/2x2/odd-columns", "host", 2, 2, ["--odd-columns"])):
        cases.append(script_case(f"tpu-infeed/columns/{name}",
                                 ["tests/infeed_check.py", "--app", "infeed-columns", "--board", board, "--cores",
                                  str(cores), "--boards", str(boards), "--steps", "12", *extra],
                                 r"^PASS infeed-columns", ((board, "tests/device/infeed-columns"),), 5))
    # A file of the queue's bytes in another dtype or shape: refused by the board on every link, the
    # shared-memory one too, where the tuples are placed in memory without their dtype.
    for board, link, kind in (("host", "shm", "int32"), ("qemu-virt-a53", "shm", "flat"), ("host", "uart", "int32")):
        cases.append(script_case(f"tpu-infeed/same-size-as-{kind}/{board}/{link}",
                                 ["tests/infeed_check.py", "--board", board, "--cores", "4", "--link", link, "--steps",
                                  "4", "--same-size-as", kind],
                                 r"^PASS infeed .* refused by the board", ((board, "infeed"),), 3))
    # 64 MiB through infeed and back out, bit for bit (the UART takes ~1 min per MiB: small runs only).
    for board, cores, steps, link, estimate_s in (("qemu-virt-a53", 8, 64, "shm", 12), ("qemu-virt-rv64", 4, 16, "shm", 6),
                                                  ("host", 8, 8, "uart", 8), ("qemu-virt-a53", 1, 1, "uart", 60)):
        cases.append(script_case(f"tpu-infeed-bulk/{board}/{cores}/{link}/{steps}MiB",
                                 ["tests/infeed_bulk_check.py", "--board", board, "--cores", str(cores),
                                  "--steps", str(steps), "--link", link],
                                 r"^PASS infeed-bulk", ((board, "infeed-bulk"),), estimate_s))
    return cases


def exec_cases(board: str) -> list[Case]:
    return [script_case(f"tpu-exec/{board}/{link}", ["tests/exec_check.py", "--board", board, "--link", link],
                        r"\b0 failed", ((board, "exec"),), 60)
            for link in link_transports(board)]


def exec_boards() -> tuple[str, ...]:
    return TPU_RUN_BOARDS[:3]


def train_cases() -> list[Case]:
    """The digits classifiers (firmware/examples/train-digits: MLP, CNN, wide MLP) against NumPy, across replica
    counts and boards, their full runs' test accuracy, and hostile input."""
    train, cases = ["tests/train_digits_check.py"], []
    for model in ("mlp", "cnn"):
        for cores in (1, 2, 4, 8):
            cases.append(script_case(f"tpu-train/{model}/host/{cores}/24-steps",
                                     [*train, "--model", model, "--board", "host", "--cores", str(cores), "--steps", "24"],
                                     r"^PASS train-digits", (("host", "train-digits"),), 5))
        cases.append(script_case(f"tpu-train/{model}/same-bits/4",
                                 [*train, "--model", model, "--same-bits", ",".join(BOARDS), "--cores", "4", "--steps", "16"],
                                 r"^PASS train-digits.*bit-identical", tuple((board, "train-digits") for board in BOARDS), 15))
        # The proof of issue 22: a pod trains what one board trains; a pod of a host and a qemu-virt-a53
        # board gives the same bits as a pod of two host boards.
        # Also the issue's own proof, 2 boards x 4 cores against 1 board x 8, on host and on QEMU boards.
        pods = ((("host", 2, 1), ("host", 2, 2), ("host", 2, 4), ("qemu-virt-a53", 2, 4), ("host,qemu-virt-a53", 2, 2))
                if model == "mlp" else (("host", 2, 2),))
        for board, boards, cores in pods:
            cases.append(script_case(f"tpu-train/{model}/pod/{board.replace(',', '+')}/{boards}x{cores}",
                                     [*train, "--model", model, "--board", board, "--boards", str(boards), "--cores",
                                      str(cores), "--steps", "16"],
                                     r"^PASS train-digits.*every board holds the same weights",
                                     tuple((kind, "train-digits") for kind in board.split(",")), 10))
        for board in ("host", "qemu-virt-a53"):
            cases.append(script_case(f"tpu-train/{model}/{board}/4/full",
                                     [*train, "--model", model, "--board", board, "--cores", "4", "--steps", "0",
                                      "--epochs", "10", "--min-accuracy", "0.95"],
                                     r"^PASS train-digits.*test accuracy", ((board, "train-digits"),), 30))
    # The compute-bound model of the training benchmark (1024 hidden units, global batch 256) checked
    # like the others, on 1, 2 and 8 replicas.
    for cores in (1, 2, 8):
        cases.append(script_case(f"tpu-train/mlp-wide/host/{cores}/24-steps",
                                 [*train, "--model", "mlp-wide", "--board", "host", "--cores", str(cores), "--steps", "24"],
                                 r"^PASS train-digits", (("host", "train-digits"),), 5))
    # Its gradients (307 KB) are above the size from which tpu splits an all_reduce across boards into
    # pieces written straight into the boards' outputs (host-tools/lib/pod/pod_collectives.hpp): a pod
    # of 2 boards of 1 core must still train the bits 1 board of 2 cores trains, QEMU boards too.
    for board in ("host", "host,qemu-virt-a53"):
        cases.append(script_case(f"tpu-train/mlp-wide/pod/{board.replace(',', '+')}/2x1",
                                 [*train, "--model", "mlp-wide", "--board", board, "--boards", "2", "--cores", "1",
                                  "--steps", "8"],
                                 r"^PASS train-digits.*the same bits as 1 board x 2 cores",
                                 tuple((kind, "train-digits") for kind in board.split(",")), 10))
    for board in ("host", "qemu-virt-a53"):
        cases.append(script_case(f"tpu-train/cnn/model-parallel/{board}",
                                 [*train, "--model-parallel", "--board", board, "--steps", "16"],
                                 r"^PASS train-digits: cnn model parallel", ((board, "train-digits"),), 10))
    for kind in ("batch", "dtype", "nan", "replicas", "pod-replicas"):
        cases.append(script_case(f"tpu-train/bad-input/{kind}", [*train, "--board", "host", "--bad", kind],
                                 r"^PASS train-digits: bad input", (("host", "train-digits"),), 3))
    return cases
