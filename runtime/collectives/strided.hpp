// StridedBytes: `rows` runs of `row_bytes` bytes, `stride` bytes apart; the shape of every buffer a
// collective moves (a contiguous buffer is one row; an all_to_all block is many).
#pragma once
#include <string.h>

#include "hal/support/types.hpp"

namespace rt {

struct StridedBytes {
  const uint8_t* base = nullptr;
  size_t rows = 0;
  size_t row_bytes = 0;
  size_t stride = 0;

  static StridedBytes contiguous(const void* data, size_t bytes) {
    return StridedBytes{static_cast<const uint8_t*>(data), bytes == 0 ? 0u : 1u, bytes, bytes};
  }
  size_t total() const { return rows * row_bytes; }

  // Copies `count` bytes starting at logical byte `offset` to `out`.
  void gather(size_t offset, uint8_t* out, size_t count) const {
    while (count > 0) {
      const size_t row = offset / row_bytes;
      const size_t within = offset % row_bytes;
      const size_t run = row_bytes - within < count ? row_bytes - within : count;
      memcpy(out, base + row * stride + within, run);
      out += run;
      offset += run;
      count -= run;
    }
  }
  // Copies `count` bytes from `in` to logical byte `offset` (base must point at writable memory).
  void scatter(size_t offset, const uint8_t* in, size_t count) const {
    while (count > 0) {
      const size_t row = offset / row_bytes;
      const size_t within = offset % row_bytes;
      const size_t run = row_bytes - within < count ? row_bytes - within : count;
      memcpy(const_cast<uint8_t*>(base) + row * stride + within, in, run);
      in += run;
      offset += run;
      count -= run;
    }
  }
};

}  // namespace rt
