"""The sanitizers the host tools and the unit tests are also built with, and the environment that
makes any report fail the run."""
SANITIZERS = "address,undefined"
SANITIZER_FOLDER_SUFFIX = "-" + SANITIZERS.replace(",", "-")  # build/host-tools-address-undefined, ...
SANITIZER_ENV = {"ASAN_OPTIONS": "halt_on_error=1:detect_leaks=1", "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1"}
