"""The test suite behind `make test` (tests/harness.py is its command line), one module per area:

  case.py            what a case is (Case, Outcome, Image) and the harness's time limits
  checks.py          checks shared by many cases: run an image, run a command, judge a tool's output
  build_needs.py     what a case needs built (images, tools), how each is built and in what order
  build_plan.py      the build phase: sub-makes sharing one jobserver, each result as soon as it is done
  scheduler.py       runs the cases as soon as what they need is built, two at a time, and reports
  catalog.py         every case of the repository, in table order
  unit_tests.py      the Catch2 unit tests of the runtime (tests/unit), plain and under ASan+UBSan
  app_cases.py       what each app's app.toml declares ([run], [tpu])
  tpu_tool.py        the tpu tool as cases use it: `tpu run` and its command line, judged
  tpu_cli_cases.py   tpu's command line, Catch2 tests, console, hostile input and host-function clash
  tpu_new_app.py     the app `tpu new` makes, run as its own app.toml says
  tpu_scripts.py     NumPy-checking scripts that drive tpu: infeed, infeed-bulk, exec, train-digits
  tpu_faults.py      the fault matrix: signals to QEMU or tpu at random points of a workload
  host_faults.py     a user's host functions that crash, hang or throw
  hang_triage.py     what tpu says about every core when a run times out
  readme_cases.py    the README shows the code and the commands the tests run
  fuzz_cases.py      the fuzz targets replaying their corpora and mutants (ASan, UBSan)
  make_cases.py      make itself: bad arguments, make debug, chainboot, the freestanding check
  api_compile_cases.py  what the device API refuses or warns about at compile time
  bench_build_cases.py  the benchmarks' own builds, as far as make test can link them
  npy_bytes.py       .npy files written by hand (even ones whose header lies)
  collecting.py      a command whose output is read while it runs (to signal it mid-run)
  sanitizers.py      the sanitizers' names and the environment that makes a report fail
  tpu_run_cases.py   tpu run of a faulting image, a dead core, a corrupting link, the link benchmark
"""
