// The host board's RAM file (link_ram.hpp).
#include "link_ram.hpp"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hal::host {
namespace {

LinkRam mapped;

[[noreturn]] void refuse(const char* path, const char* problem) {
  fprintf(stderr, "host board: cannot use the link RAM file %s: %s\n", path, problem);
  exit(2);
}

}  // namespace

void map_link_ram(const char* path) {
  const int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) refuse(path, strerror(errno));
  struct stat status {};
  if (fstat(fd, &status) != 0) refuse(path, strerror(errno));
  const size_t window = size_t{BOARD_LINK_WINDOW_MB} << 20;
  const size_t bytes = static_cast<size_t>(status.st_size);
  if (window == 0 || bytes < 2 * window || bytes % 4096 != 0) refuse(path, "its size does not hold the link window");
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
  close(fd);
  if (base == MAP_FAILED) refuse(path, strerror(errno));
  mapped = {static_cast<uint8_t*>(base), bytes, window};
}

LinkRam link_ram() { return mapped; }

}  // namespace hal::host
