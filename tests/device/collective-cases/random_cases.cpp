// Random collective cases: kind, dtype, size (0, 1, odd, larger than a ring, several segments),
// group layout and algorithm all drawn from a seed every core shares; each core checks its own
// output bit for bit against the sequential reference.
#include <string.h>

#include "reference.hpp"
#include "suite.hpp"

namespace collectives_test {
namespace {

using rt::DType;
using rt::Status;

const DType kReducible[] = {DType::kF32, DType::kBF16, DType::kF16, DType::kI32, DType::kU32, DType::kF64};
const DType kMovable[] = {DType::kF32, DType::kBF16, DType::kI32, DType::kF64, DType::kI8};
const size_t kCounts[] = {0, 1, 2, 3, 7, 17, 64, 255, 1000, 2049, 4099, 20000, 40000};
const rt::ReduceOp kOps[] = {rt::ReduceOp::kSum, rt::ReduceOp::kMean, rt::ReduceOp::kMax, rt::ReduceOp::kMin};
const char* const kAlgorithmNames[] = {"auto", "latency", "bandwidth", "eager"};

struct Case {
  uint64_t index;
  uint64_t seed;
  rt::FixedString<200> description;
  uint32_t ids[hal::kMaxCores];
  rt::CollectiveOptions options;
  rt::Group group;
};

uint64_t draw(uint64_t& state, uint64_t bound) {
  state = mix(state);
  return bound == 0 ? 0 : state % bound;
}

// A random partition of the replicas into equal groups (sometimes the default single group).
void draw_groups(Case& c, uint64_t& state, unsigned replicas) {
  unsigned divisors[hal::kMaxCores] = {};
  unsigned divisor_count = 0;
  for (unsigned d = 1; d <= replicas; ++d)
    if (replicas % d == 0) divisors[divisor_count++] = d;
  const unsigned group_size = divisors[draw(state, divisor_count)];
  if (group_size == replicas && draw(state, 2) == 0) return;  // default groups
  for (unsigned r = 0; r < replicas; ++r) c.ids[r] = r;
  for (unsigned r = replicas; r > 1; --r) {
    const unsigned j = static_cast<unsigned>(draw(state, r));
    const uint32_t t = c.ids[r - 1];
    c.ids[r - 1] = c.ids[j];
    c.ids[j] = t;
  }
  c.options.groups = rt::GroupAssignment{c.ids, replicas / group_size, group_size};
}

Status mismatch(const Case& c, size_t element, const uint8_t* got, const uint8_t* expected, size_t size) {
  uint64_t got_bits = 0;
  uint64_t expected_bits = 0;
  memcpy(&got_bits, got, size);
  memcpy(&expected_bits, expected, size);
  return rt::internal_error("case {} ({}): element {} is {:#x}, expected {:#x}", c.index, c.description, element,
                            got_bits, expected_bits);
}

Status check_reduction(rt::Collectives& collectives, Case& c, uint64_t& state, bool scatter) {
  const rt::ReduceOp op = kOps[draw(state, 4)];
  const DType type = kReducible[draw(state, 6)];
  const unsigned n = c.group.size;
  size_t count = kCounts[draw(state, sizeof(kCounts) / sizeof(kCounts[0]))];
  if (scatter) count = count / n * n;
  auto algorithm = static_cast<rt::Algorithm>(draw(state, 4));
  if (algorithm == rt::Algorithm::kEager && count * rt::dtype_size(type) > rt::kEagerAlgorithmMaxBytes)
    algorithm = rt::Algorithm::kAuto;  // the eager algorithm carries small payloads only
  c.options.algorithm = algorithm;
  rt::format_to(c.description, "{} {} {} x{} algorithm {} group {} of {}", scatter ? "reduce_scatter" : "all_reduce",
                rt::reduce_op_name(op), rt::dtype_name(type), count, kAlgorithmNames[static_cast<int>(algorithm)],
                c.group.position, n);
  // In place on some cores and not on others within the same call (all_reduce only).
  const bool in_place = !scatter && mix(c.seed ^ collectives.replica_id()) % 3 == 0;
  if (in_place) c.description.append(" in place");
  CoreBuffers& b = buffers();
  const size_t skew = misalignment(c.seed, collectives.replica_id());
  uint8_t* output = b.output + skew;
  uint8_t* input = in_place ? output : b.input + (7 - skew);
  fill_input(type, c.seed, collectives.replica_id(), count, input);
  const Status status = scatter ? collectives.reduce_scatter(op, type, input, output, count, c.options)
                                : collectives.all_reduce(op, type, input, output, count, c.options);
  if (!status.is_ok()) return rt::internal_error("case {} ({}): {}", c.index, c.description, status.message());
  const size_t size = rt::dtype_size(type);
  const size_t out_count = scatter ? count / n : count;
  const size_t offset = scatter ? c.group.position * out_count : 0;
  uint8_t expected[8];
  for (size_t i = 0; i < out_count; ++i) {
    expected_reduction(op, type, c.seed, c.group.members, n, offset + i, expected);
    if (memcmp(expected, output + i * size, size) != 0) return mismatch(c, i, output + i * size, expected, size);
  }
  return Status::ok();
}

Status check_all_gather(rt::Collectives& collectives, Case& c, uint64_t& state) {
  const DType type = kMovable[draw(state, 5)];
  const size_t count = kCounts[draw(state, sizeof(kCounts) / sizeof(kCounts[0]))] / c.group.size;
  rt::format_to(c.description, "all_gather {} x{} group of {}", rt::dtype_name(type), count, c.group.size);
  CoreBuffers& b = buffers();
  const size_t skew = misalignment(c.seed, collectives.replica_id());
  fill_input(type, c.seed, collectives.replica_id(), count, b.input + skew);
  RT_RETURN_IF_ERROR(collectives.all_gather(type, b.input + skew, b.output + 3, count, c.options));
  const size_t size = rt::dtype_size(type);
  uint8_t expected[8];
  for (unsigned j = 0; j < c.group.size; ++j)
    for (size_t i = 0; i < count; ++i) {
      input_element(type, c.seed, c.group.members[j], i, expected);
      const uint8_t* got = b.output + 3 + (j * count + i) * size;
      if (memcmp(expected, got, size) != 0) return mismatch(c, j * count + i, got, expected, size);
    }
  return Status::ok();
}

Status check_broadcast(rt::Collectives& collectives, Case& c, uint64_t& state) {
  const DType type = kMovable[draw(state, 5)];
  const size_t count = kCounts[draw(state, sizeof(kCounts) / sizeof(kCounts[0]))];
  const unsigned source = c.group.members[draw(state, c.group.size)];
  rt::format_to(c.description, "broadcast {} x{} from replica {}", rt::dtype_name(type), count, source);
  CoreBuffers& b = buffers();
  fill_input(type, c.seed, collectives.replica_id(), count, b.output);
  RT_RETURN_IF_ERROR(collectives.broadcast(source, type, b.output, count, c.options));
  const size_t size = rt::dtype_size(type);
  uint8_t expected[8];
  for (size_t i = 0; i < count; ++i) {
    input_element(type, c.seed, source, i, expected);
    if (memcmp(expected, b.output + i * size, size) != 0) return mismatch(c, i, b.output + i * size, expected, size);
  }
  return Status::ok();
}

Status check_all_to_all(rt::Collectives& collectives, Case& c, uint64_t& state) {
  const DType type = kMovable[draw(state, 5)];
  const unsigned n = c.group.size;
  const unsigned rank = 1 + static_cast<unsigned>(draw(state, 4));
  const unsigned split = static_cast<unsigned>(draw(state, rank));
  const unsigned concat = static_cast<unsigned>(draw(state, rank));
  int64_t shape[4];
  for (unsigned d = 0; d < rank; ++d) shape[d] = 1 + static_cast<int64_t>(draw(state, 5));
  shape[split] = static_cast<int64_t>(n) * (1 + static_cast<int64_t>(draw(state, 3)));
  rt::format_to(c.description, "all_to_all {} shape {} split {} concat {} group of {}", rt::dtype_name(type),
                rt::Span<const int64_t>(shape, rank), split, concat, n);
  size_t total = 1;
  for (unsigned d = 0; d < rank; ++d) total *= static_cast<size_t>(shape[d]);
  CoreBuffers& b = buffers();
  fill_input(type, c.seed, collectives.replica_id(), total, b.input);
  RT_RETURN_IF_ERROR(collectives.all_to_all(type, b.input, b.output, rt::Span<const int64_t>(shape, rank), concat,
                                            split, n, c.options));
  // Output shape: split dimension / n, concat dimension * n. Walk it row-major.
  int64_t block[4];
  int64_t out_shape[4];
  for (unsigned d = 0; d < rank; ++d) block[d] = out_shape[d] = shape[d];
  block[split] /= n;
  out_shape[split] /= n;
  out_shape[concat] *= n;
  const size_t size = rt::dtype_size(type);
  uint8_t expected[8];
  for (size_t flat = 0; flat < total; ++flat) {
    int64_t index[4];
    size_t rest = flat;
    for (unsigned d = rank; d-- > 0;) {
      index[d] = static_cast<int64_t>(rest % static_cast<size_t>(out_shape[d]));
      rest /= static_cast<size_t>(out_shape[d]);
    }
    const unsigned from = static_cast<unsigned>(index[concat] / block[concat]);  // block j came from member j
    index[concat] %= block[concat];
    index[split] += static_cast<int64_t>(c.group.position) * block[split];  // which of its blocks it sent us
    size_t source_flat = 0;
    for (unsigned d = 0; d < rank; ++d) source_flat = source_flat * static_cast<size_t>(shape[d]) + static_cast<size_t>(index[d]);
    input_element(type, c.seed, c.group.members[from], source_flat, expected);
    if (memcmp(expected, b.output + flat * size, size) != 0) return mismatch(c, flat, b.output + flat * size, expected, size);
  }
  return Status::ok();
}

Status check_permute(rt::Collectives& collectives, Case& c, uint64_t& state) {
  const DType type = kMovable[draw(state, 5)];
  const size_t count = kCounts[draw(state, sizeof(kCounts) / sizeof(kCounts[0]))];
  const unsigned replicas = collectives.num_replicas();
  uint32_t sources[hal::kMaxCores];
  uint32_t targets[hal::kMaxCores];
  for (unsigned r = 0; r < replicas; ++r) sources[r] = targets[r] = r;
  for (unsigned r = replicas; r > 1; --r) {
    const unsigned i = static_cast<unsigned>(draw(state, r));
    const unsigned j = static_cast<unsigned>(draw(state, r));
    uint32_t t = sources[r - 1]; sources[r - 1] = sources[i]; sources[i] = t;
    t = targets[r - 1]; targets[r - 1] = targets[j]; targets[j] = t;
  }
  const unsigned pair_count = static_cast<unsigned>(draw(state, replicas + 1));
  int64_t pairs[2 * hal::kMaxCores];
  int source_of_me = -1;
  for (unsigned p = 0; p < pair_count; ++p) {
    pairs[2 * p] = sources[p];
    pairs[2 * p + 1] = targets[p];
    if (targets[p] == collectives.replica_id()) source_of_me = static_cast<int>(sources[p]);
  }
  rt::format_to(c.description, "collective_permute {} x{} pairs {}", rt::dtype_name(type), count,
                rt::Span<const int64_t>(pairs, 2 * pair_count));
  CoreBuffers& b = buffers();
  fill_input(type, c.seed, collectives.replica_id(), count, b.input);
  memset(b.output, 0xa5, count * rt::dtype_size(type));  // must be overwritten, with zeros if no source
  RT_RETURN_IF_ERROR(collectives.collective_permute(type, b.input, b.output, count,
                                                    rt::Span<const int64_t>(pairs, 2 * pair_count), c.options));
  const size_t size = rt::dtype_size(type);
  uint8_t expected[8] = {};
  for (size_t i = 0; i < count; ++i) {
    if (source_of_me >= 0) input_element(type, c.seed, static_cast<unsigned>(source_of_me), i, expected);
    if (memcmp(expected, b.output + i * size, size) != 0) return mismatch(c, i, b.output + i * size, expected, size);
  }
  return Status::ok();
}

}  // namespace

Status run_random_cases(rt::Collectives& collectives, unsigned cases, uint64_t first) {
  for (uint64_t index = first; index < first + cases; ++index) {
    Case c{};
    c.index = index;
    c.seed = mix(0x5eed0000u + index);
    uint64_t state = c.seed;
    draw_groups(c, state, collectives.num_replicas());
    c.group = rt::group_of(c.options.groups, collectives.num_replicas(), collectives.replica_id());
    Status status;
    switch (draw(state, 7)) {
      case 0: case 1: status = check_reduction(collectives, c, state, false); break;
      case 2: status = check_reduction(collectives, c, state, true); break;
      case 3: status = check_all_gather(collectives, c, state); break;
      case 4: status = check_broadcast(collectives, c, state); break;
      case 5: status = check_all_to_all(collectives, c, state); break;
      default: status = check_permute(collectives, c, state); break;
    }
    RT_RETURN_IF_ERROR(status);
  }
  return Status::ok();
}

}  // namespace collectives_test
