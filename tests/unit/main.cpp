// Catch2 v2 entry point for the host unit tests of runtime/support (tests/unit/*.cpp).
// Every other file in this directory only contributes TEST_CASEs.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
