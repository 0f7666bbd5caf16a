"""What the device API refuses or warns about when an app is compiled, checked by compiling small
programs against firmware/tpu_pod.hpp (g++ -fsyntax-only, the runtime's freestanding flags):

  api-compile/outside-compilation-capture   a lambda with captures given to outside_compilation:
                                            a warning at the call (it cannot run on the PC, so a
                                            QEMU or Pi board refuses it), on every board's build
  api-compile/outside-compilation-plain     a captureless lambda of tensors and scalars: no warning
  api-compile/iterator-of-temporary         a DistributedIterator made from a temporary dataset (it
                                            would dangle): an error
"""
from __future__ import annotations

import subprocess
import tempfile
from functools import partial
from pathlib import Path

from qemu_runner import REPO_ROOT

from .case import COMPILE_TIMEOUT_S, Case, Outcome

FLAGS = ["-std=c++20", "-fsyntax-only", "-ffreestanding", "-nostdinc++", "-fno-exceptions", "-fno-rtti", "-Wall",
         f"-I{REPO_ROOT}", f"-I{REPO_ROOT / 'hal' / 'include'}"]
PRELUDE = '#include "firmware/tpu_pod.hpp"\nusing namespace rt;\nusing namespace rt::tpu;\n'

CAPTURING = """
Result<float> scaled(float k, const Tensor& x) {
  return outside_compilation([k](const Tensor& v) -> Result<float> { return k * v.scalar<float>(); }, x);
}
"""
CAPTURELESS = """
Result<float> first(const Tensor& x) {
  return outside_compilation([](const Tensor& v, int32_t n) -> Result<float> { return v.scalar<float>() + n; }, x, 2);
}
"""
TEMPORARY_DATASET = """
Status steps(TPUStrategy& strategy, const Dataset& batches) {
  DistributedIterator iterator(RT_TRY(strategy.experimental_distribute_dataset(batches)));
  return Status::ok();
}
"""


def compile_snippet(body: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="tpu-api-compile-") as folder:
        source = Path(folder) / "app.cpp"
        source.write_text(PRELUDE + body)
        return subprocess.run(["g++", *FLAGS, str(source)], capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S)


def check_compiles(body: str, ok: bool, needles: tuple[str, ...], absent: tuple[str, ...] = ()) -> Outcome:
    result = compile_snippet(body)
    log = f"$ g++ {' '.join(FLAGS)} app.cpp\n{result.stderr}"
    if (result.returncode == 0) != ok:
        return Outcome(False, f"expected the program to {'compile' if ok else 'be refused'}, g++ exited "
                              f"{result.returncode}", log)
    for needle in needles:
        if needle not in result.stderr:
            return Outcome(False, f"g++'s output lacks {needle!r}", log)
    for needle in absent:
        if needle in result.stderr:
            return Outcome(False, f"g++'s output has {needle!r}", log)
    return Outcome(True, "", log)


def api_compile_cases() -> list[Case]:
    return [
        Case("api-compile/outside-compilation-capture",
             partial(check_compiles, CAPTURING, True,
                     ("app.cpp:6:", "this callable cannot run on the PC", "on a QEMU or Pi board the call returns "
                                                                         "UNIMPLEMENTED")), estimate_s=3),
        Case("api-compile/outside-compilation-plain",
             partial(check_compiles, CAPTURELESS, True, (), ("warning",)), estimate_s=3),
        Case("api-compile/iterator-of-temporary",
             partial(check_compiles, TEMPORARY_DATASET, False, ("app.cpp:6:", "use of deleted function",
                                                               "DistributedIterator")), estimate_s=3),
    ]
