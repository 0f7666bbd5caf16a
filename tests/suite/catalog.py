"""Every case of the repository, in table order (the scheduler starts the slow ones first and keeps
this order among equals): unit tests, fuzzers, the freestanding check, each app's app.toml, the tpu
tool's cases, then make's own."""
from __future__ import annotations

import app_tests

from .api_compile_cases import api_compile_cases
from .app_cases import app_cases
from .app_toml_cases import app_toml_cases
from .bench_build_cases import bench_build_cases
from .case import Case
from .fuzz_cases import fuzz_cases
from .hang_triage import hang_triage_cases
from .host_faults import host_fault_cases
from .make_cases import freestanding_cases, make_cases
from .pod_cases import pod_cases
from .readme_cases import readme_cases
from .tpu_attach_cases import attach_cases
from .tpu_cli_cases import console_cases, hostile_input_cases, tpu_tool_cases
from .tpu_faults import fault_matrix_cases
from .tpu_new_app import new_app_cases
from .tpu_run_cases import (bench_infeed_cases, bind_to_core_cases, faulty_image_cases, link_bench_cases,
                            link_corrupt_cases)
from .tpu_scripts import exec_boards, exec_cases, infeed_cases, train_cases
from .unit_tests import unit_cases


def tpu_cases() -> list[Case]:
    cases = tpu_tool_cases() + readme_cases() + new_app_cases() + infeed_cases()
    for board in exec_boards():
        cases += exec_cases(board)
        cases += [case for case in console_cases() if f"/{board}/" in case.name]
    cases += faulty_image_cases() + train_cases() + link_corrupt_cases() + link_bench_cases() + bench_infeed_cases() + bind_to_core_cases()
    cases += attach_cases()
    cases += hostile_input_cases() + fault_matrix_cases() + host_fault_cases() + hang_triage_cases()
    return cases + pod_cases()


def all_cases(apps: list[app_tests.AppSpec]) -> list[Case]:
    cases = unit_cases() + fuzz_cases() + freestanding_cases() + app_toml_cases()
    for spec in apps:
        cases += app_cases(spec)
    return cases + tpu_cases() + make_cases() + api_compile_cases() + bench_build_cases()
