// A minimal flattened device tree (DTB) reader: enough to count the CPUs a board was started with.
// Works on untrusted input: every offset is bounds-checked against the blob's own size.
#pragma once
#include <stdint.h>

namespace hal {

// Number of "cpu@..." nodes directly under "/cpus", or 0 if `blob` is not a valid device tree.
// `max_size` bounds how far the reader may look (the header's totalsize is also honoured).
unsigned fdt_count_cpus(const void* blob, uint32_t max_size);

}  // namespace hal
