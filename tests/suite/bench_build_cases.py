"""The benchmarks' own builds, which only `make bench` runs (it installs OpenBLAS and oneDNN first), checked
in `make test` as far as they go without those libraries:

  bench-build/gemm-sources-link   the runtime sources the GEMM baseline compiles (tests/bench/benchmarks.py,
                                  GEMM_SOURCES, less the baseline's own file) link into a program that
                                  runs one matmul: a source the MXU comes to need but the list lacks
                                  fails here, not in the next `make bench` (as commit 9c199be's did)
"""
from __future__ import annotations

import importlib.util
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

from qemu_runner import REPO_ROOT

from .case import COMPILE_TIMEOUT_S, Case, Outcome

PROBE = """// One matmul through the MXU, linked from the GEMM baseline's runtime sources alone.
#include <cstdio>
#include <cstdlib>
#include "runtime/mxu/mxu.hpp"
#include "hal/support/panic.hpp"

void rt::panic(const char* message) {
  std::fprintf(stderr, "probe: *** PANIC: %s\\n", message);
  std::abort();
}

int main() {
  float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4] = {};
  const int64_t dims[] = {2, 2};
  const rt::Shape shape = *rt::Shape::make(dims);
  rt::Mxu mxu(rt::kMaxMxuTile);
  const rt::Status status = rt::matmul(mxu, rt::Tensor::contiguous(rt::DType::kF32, shape, a),
                                       rt::Tensor::contiguous(rt::DType::kF32, shape, b),
                                       rt::Tensor::contiguous(rt::DType::kF32, shape, c));
  const bool right = status.is_ok() && c[0] == 19 && c[1] == 22 && c[2] == 43 && c[3] == 50;  // by hand
  std::printf("%s\\n", right ? "matmul ok" : "matmul wrong");
  return right ? 0 : 1;
}
"""


def gemm_sources() -> list[str]:
    spec = importlib.util.spec_from_file_location("bench_benchmarks", REPO_ROOT / "tests" / "bench" / "benchmarks.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return [source for source in module.GEMM_SOURCES if not source.endswith("gemm_baselines.cpp")]


def check_gemm_sources_link() -> Outcome:
    with tempfile.TemporaryDirectory(prefix="tpu-bench-build-") as folder:
        probe, binary = Path(folder) / "probe.cpp", Path(folder) / "probe"
        probe.write_text(PROBE)
        x86 = ["-mavx2", "-mfma"] if platform.machine() in ("x86_64", "AMD64") else []  # as the bench builds it there
        command = ["g++", "-std=c++20", "-O0", *x86, "-I.", "-Ihal/include", str(probe), *gemm_sources(), "-o", str(binary)]
        built = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S)
        log = f"$ {' '.join(command)}\n{built.stdout}{built.stderr}"
        if built.returncode != 0:
            return Outcome(False, "the GEMM baseline's sources do not link: "
                                  + (built.stderr.strip().splitlines() or ["(no output)"])[-1], log)
        ran = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60)
        log += f"$ probe\n{ran.stdout}{ran.stderr}"
        if ran.returncode != 0 or "matmul ok" not in ran.stdout:
            return Outcome(False, f"the probe's matmul failed (exit {ran.returncode})", log)
        return Outcome(True, "", log)


def bench_build_cases() -> list[Case]:
    return [Case("bench-build/gemm-sources-link", check_gemm_sources_link, estimate_s=20)]
