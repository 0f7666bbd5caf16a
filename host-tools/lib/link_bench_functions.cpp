// The link measuring host functions (link_bench_functions.hpp).
#include "link_bench_functions.hpp"

#include <charconv>
#include <vector>

namespace tpu {
namespace {

constexpr uint64_t kMaxSourceBytes = 1ull << 30;

// The pattern's first `size` bytes, computed once per tool run (the benchmark measures the link,
// not how fast the host makes up data).
const std::vector<uint8_t>& pattern_prefix(uint64_t size) {
  static std::vector<uint8_t> pattern;
  for (uint64_t i = pattern.size(); i < size; ++i) pattern.push_back(link_bench_pattern(i));
  return pattern;
}

HostCallOutcome link_source(const HostCallRequest& request, const HostEnvironment&) {
  uint64_t size = 0;
  const char* end = request.text.data() + request.text.size();
  const auto parsed = std::from_chars(request.text.data(), end, size);
  if (parsed.ec != std::errc() || parsed.ptr != end || size > kMaxSourceBytes)
    return HostCallOutcome::error(rt::StatusCode::kInvalidArgument,
                                  "link_source takes a byte count up to 2^30 as its text, got '" + request.text + "'");
  HostTensor bytes;
  bytes.dtype = rt::DType::kI8;
  bytes.dims = {static_cast<int64_t>(size)};
  const std::vector<uint8_t>& pattern = pattern_prefix(size);
  bytes.bytes.assign(pattern.begin(), pattern.begin() + static_cast<std::ptrdiff_t>(size));
  return HostCallOutcome::ok({std::move(bytes)});
}

HostCallOutcome link_sink(const HostCallRequest& request, const HostEnvironment&) {
  if (request.tensors.size() != 1)
    return HostCallOutcome::error(rt::StatusCode::kInvalidArgument, "link_sink takes one tensor");
  const std::vector<uint8_t>& bytes = request.tensors[0].bytes;
  for (size_t i = 0; i < bytes.size(); ++i)
    if (bytes[i] != link_bench_pattern(i))
      return HostCallOutcome::error(rt::StatusCode::kInvalidArgument,
                                    "link_sink: byte " + std::to_string(i) + " of " + std::to_string(bytes.size()) +
                                        " is " + std::to_string(bytes[i]) + ", expected " +
                                        std::to_string(link_bench_pattern(i)));
  return HostCallOutcome::ok({HostTensor::scalar_f32(static_cast<float>(bytes.size()))});
}

HostCallOutcome echo(const HostCallRequest& request, const HostEnvironment&) { return HostCallOutcome::ok(request.tensors); }

}  // namespace

void add_link_bench_functions(HostFunctions& functions) {
  functions.add("link_source", link_source);
  functions.add("link_sink", link_sink);
  functions.add("echo", echo);
}

}  // namespace tpu
