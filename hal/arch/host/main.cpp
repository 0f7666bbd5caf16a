// Host board entry: `firmware --cores N [--link-ram FILE]` runs the firmware with N threads as
// cores, its RAM and link window in FILE when given (link_ram.hpp). The process main thread is
// core 0; the C++ runtime has already run static constructors.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal/board.hpp"
#include "hal/boot.hpp"
#include "hal/core.hpp"
#include "link_ram.hpp"
#include "thread_core.hpp"

namespace hal::host {
void set_core_count(unsigned cores);
}

namespace {

[[noreturn]] void usage_error(const char* program, const char* problem) {
  fprintf(stderr, "%s: %s\nusage: %s [--cores N] [--link-ram FILE]   (N = 1..%u, default 8)\n", program, problem, program,
          hal::kMaxCores);
  exit(2);
}

struct Options {
  unsigned cores = 8;
  const char* link_ram = nullptr;
};

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--link-ram") == 0) {
      if (i + 1 >= argc) usage_error(argv[0], "--link-ram needs a file");
      options.link_ram = argv[++i];
      continue;
    }
    if (strcmp(argv[i], "--cores") != 0) usage_error(argv[0], "unknown argument");
    if (i + 1 >= argc) usage_error(argv[0], "--cores needs a value");
    char* end = nullptr;
    const long value = strtol(argv[++i], &end, 10);
    if (*end != '\0' || value < 1 || value > static_cast<long>(hal::kMaxCores))
      usage_error(argv[0], "invalid core count");
    options.cores = static_cast<unsigned>(value);
  }
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    fprintf(stderr, "%s: this CPU lacks AVX2/FMA, which the host board build requires (MXU numerics)\n", argv[0]);
    return 2;
  }
  const Options options = parse_options(argc, argv);
  if (options.link_ram != nullptr) hal::host::map_link_ram(options.link_ram);
  hal::host::set_core_count(options.cores);
  hal::host::install_fault_handlers();
  hal::host::become_core(0);
  hal::board::init();
  hal::board::init_core(0);
  firmware_main();
}
