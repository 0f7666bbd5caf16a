// Catch2 v2 entry point of every Catch2 program: the runtime's unit tests (tests/unit/*.cpp) and the
// host tool's tests (host-tools/tests), compiled once (the Makefile's CATCH2_MAIN).
// Every other file in this directory only contributes TEST_CASEs.
#define CATCH_CONFIG_MAIN
// GCC 12 with -fsanitize=address,undefined reports a false -Wmaybe-uninitialized inside
// libstdc++'s <regex>, which catch.hpp pulls in; it is not about code of this project.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <catch2/catch.hpp>
#pragma GCC diagnostic pop

#include <cstdio>
#include <cstdlib>

#include "hal/support/panic.hpp"

// The unit tests' panic: what the firmware would print, then abort (a test that panics fails loudly).
void rt::panic(const char* message) {
  std::fprintf(stderr, "*** PANIC: %s\n", message);
  std::abort();
}
