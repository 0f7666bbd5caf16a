// link-bench's host half: the host functions that measure the host link (tests/bench/link_throughput.py):
//   link_source(text "<n>") -> int8[n]   n bytes of the link-bench pattern (host -> board traffic)
//   link_sink(int8[n])      -> float32 n  checks every byte against the pattern (board -> host);
//                                         INVALID_ARGUMENT naming the first wrong byte otherwise
//   echo(tensors...)        -> the same tensors (a round trip with no work on the host)
#include <charconv>
#include <cstdint>
#include <vector>

#include "host-tools/lib/functions/app_host.hpp"

namespace {

constexpr uint64_t kMaxSourceBytes = 1ull << 30;

// The byte at offset i of the pattern (the device half computes the same).
uint8_t pattern_byte(uint64_t i) { return static_cast<uint8_t>((i * 131 + (i >> 12) * 7 + 3) & 0xFF); }

// The pattern's first `size` bytes, computed once per tool run (the benchmark measures the link,
// not how fast the host makes up data).
const std::vector<uint8_t>& pattern_prefix(uint64_t size) {
  static std::vector<uint8_t> pattern;
  for (uint64_t i = pattern.size(); i < size; ++i) pattern.push_back(pattern_byte(i));
  return pattern;
}

uint64_t byte_count(const std::string& text) {
  uint64_t size = 0;
  const char* end = text.data() + text.size();
  const auto parsed = std::from_chars(text.data(), end, size);
  if (parsed.ec != std::errc() || parsed.ptr != end || size > kMaxSourceBytes)
    throw tpu::HostError(rt::StatusCode::kInvalidArgument,
                         "link_source takes a byte count up to 2^30 as its text, got '" + text + "'");
  return size;
}

}  // namespace

TPU_HOST_FUNCTION(link_source, call) {
  const uint64_t size = byte_count(call.text());
  tpu::HostTensor bytes;
  bytes.dtype = rt::DType::kI8;
  bytes.dims = {static_cast<int64_t>(size)};
  const std::vector<uint8_t>& pattern = pattern_prefix(size);
  bytes.bytes.assign(pattern.begin(), pattern.begin() + static_cast<std::ptrdiff_t>(size));
  return bytes;
}

TPU_HOST_FUNCTION(link_sink, call) {
  if (call.size() != 1) throw tpu::HostError(rt::StatusCode::kInvalidArgument, "link_sink takes one tensor");
  const std::vector<uint8_t>& bytes = call.tensor(0).bytes;
  for (size_t i = 0; i < bytes.size(); ++i)
    if (bytes[i] != pattern_byte(i))
      throw tpu::HostError(rt::StatusCode::kInvalidArgument,
                           "link_sink: byte " + std::to_string(i) + " of " + std::to_string(bytes.size()) + " is " +
                               std::to_string(bytes[i]) + ", expected " + std::to_string(pattern_byte(i)));
  return tpu::HostTensor::scalar<float>(static_cast<float>(bytes.size()));
}

TPU_HOST_FUNCTION(echo, call) {
  std::vector<tpu::HostTensor> same;
  for (size_t i = 0; i < call.size(); ++i) same.push_back(call.tensor(i));
  return same;
}
