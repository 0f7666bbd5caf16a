// The collectives across boards by the members' own buffers, checked (across_boards.hpp). Replica r
// of N (task-major: r on board r / C, core r % C) contributes:
//   mean     float32 [3]: [1e8 if r = 0, -1e8 if r = 2, else 1;  0.1 (r + 1);  1 / (r + 1)], all_reduce mean
//   bf16     bfloat16 [3]: [256 if r = 0, else 1;  0.1 (r + 1);  3.3 - r], all_reduce sum
//   f16      float16 [2]: [0.1 (r + 1);  1000 - 7.3 r], all_reduce mean
//   scatter  float32 [2N]: 0.37 (r + 1) + i, reduce_scatter sum (member p: elements 2p, 2p + 1)
//   to_all   int32 [2, N]: 1000 r + 10 a + c at [a, c], all_to_all split 1, concat 0 -> [2N, 1]
//   permute  float32 [2]: [r + 0.5, -r], collective_permute r -> r + 1 for r < N - 1 (replica 0: zeros)
// Element 0 of the mean is (((1e8 + 1) - 1e8) + 1 + ...) / N = (N - 3) / N for N >= 3 (1e8 + 1 rounds
// to 1e8; the boards' partials (1e8 + 1) + (-1e8 + 1) would give 0 on 2 boards of 2); element 0 of the bf16 sum is 256 + N - 1 rounded once to bfloat16:
// 256, 260, 264 for N = 2, 4, 8 (rounding each board's part would give 258 on 2 boards of 2).
#include "across_boards.hpp"

#include <string.h>


namespace pod_app {
namespace {

using namespace rt;
using namespace rt::tpu;

// Where each collective's output lies in a replica's output bytes.
struct Layout {
  unsigned n = 0;
  size_t mean = 0, bf16 = 0, f16 = 0, scatter = 0, to_all = 0, permute = 0, bytes = 0;
};

constexpr Layout layout_for(unsigned n) {
  Layout at;
  at.n = n;
  at.bf16 = at.mean + 3 * sizeof(float);
  at.f16 = at.bf16 + 3 * sizeof(uint16_t);
  at.scatter = at.f16 + 2 * sizeof(uint16_t);
  at.to_all = at.scatter + 2 * sizeof(float);
  at.permute = at.to_all + 2 * n * sizeof(int32_t);
  at.bytes = at.permute + 2 * sizeof(float);
  return at;
}

void mean_input(unsigned r, float* x) {
  x[0] = r == 0 ? 1e8f : r == 2 ? -1e8f : 1.0f;
  x[1] = 0.1f * static_cast<float>(r + 1);
  x[2] = 1.0f / static_cast<float>(r + 1);
}

void bf16_input(unsigned r, uint16_t* x) {
  x[0] = to_bfloat16(r == 0 ? 256.0f : 1.0f).bits;
  x[1] = to_bfloat16(0.1f * static_cast<float>(r + 1)).bits;
  x[2] = to_bfloat16(3.3f - static_cast<float>(r)).bits;
}

void f16_input(unsigned r, uint16_t* x) {
  x[0] = to_float16(0.1f * static_cast<float>(r + 1)).bits;
  x[1] = to_float16(1000.0f - 7.3f * static_cast<float>(r)).bits;
}

void scatter_input(unsigned r, unsigned n, float* x) {
  for (unsigned i = 0; i < 2 * n; ++i) x[i] = 0.37f * static_cast<float>(r + 1) + static_cast<float>(i);
}

void to_all_input(unsigned r, unsigned n, int32_t* x) {
  for (unsigned a = 0; a < 2; ++a)
    for (unsigned c = 0; c < n; ++c) x[a * n + c] = static_cast<int32_t>(1000 * r + 10 * a + c);
}

void permute_input(unsigned r, float* x) {
  x[0] = static_cast<float>(r) + 0.5f;
  x[1] = -static_cast<float>(r);
}

// r -> r + 1 for r < N - 1, flattened.
int64_t permute_pairs[2 * kMaxReplicas];
unsigned cores_per_board = 1;

Span<const int64_t> pairs_for(unsigned n) {
  for (unsigned r = 0; r + 1 < n; ++r) {
    permute_pairs[2 * r] = r;
    permute_pairs[2 * r + 1] = r + 1;
  }
  return Span<const int64_t>(permute_pairs, 2 * (n - 1));
}

Result<Tensor> vector(Arena& arena, DType type, int64_t elements, StringView what) {
  return arena.allocate_tensor(type, RT_TRY(Shape::make(Span<const int64_t>(&elements, 1))), what);
}

Result<Tensor> collectives_across_boards(ReplicaContext& replica) {
  Arena& arena = replica.arena();
  const unsigned n = replica.num_replicas(), r = replica.replica_id();
  if (replica.core() != r % cores_per_board)
    return internal_error("replica {} runs on core {}, expected {} (task-major placement)", r, replica.core(),
                          r % cores_per_board);
  const Tensor mean_x = RT_TRY(vector(arena, DType::kF32, 3, "mean input"));
  const Tensor bf16_x = RT_TRY(vector(arena, DType::kBF16, 3, "bfloat16 input"));
  const Tensor f16_x = RT_TRY(vector(arena, DType::kF16, 2, "float16 input"));
  const Tensor scatter_x = RT_TRY(vector(arena, DType::kF32, 2 * n, "reduce_scatter input"));
  const int64_t to_all_shape[] = {2, n};
  const Tensor to_all_x = RT_TRY(arena.allocate_tensor(DType::kI32, RT_TRY(Shape::make(to_all_shape)), "all_to_all input"));
  const Tensor permute_x = RT_TRY(vector(arena, DType::kF32, 2, "permute input"));
  mean_input(r, reinterpret_cast<float*>(mean_x.data));
  bf16_input(r, reinterpret_cast<uint16_t*>(bf16_x.data));
  f16_input(r, reinterpret_cast<uint16_t*>(f16_x.data));
  scatter_input(r, n, reinterpret_cast<float*>(scatter_x.data));
  to_all_input(r, n, reinterpret_cast<int32_t*>(to_all_x.data));
  permute_input(r, reinterpret_cast<float*>(permute_x.data));

  const Tensor mean = RT_TRY(replica.all_reduce(ReduceOp::kMean, mean_x));
  const Tensor bf16 = RT_TRY(replica.all_reduce(ReduceOp::kSum, bf16_x));
  const Tensor f16 = RT_TRY(replica.all_reduce(ReduceOp::kMean, f16_x));
  const Tensor scattered = RT_TRY(replica.reduce_scatter(ReduceOp::kSum, scatter_x));
  const Tensor to_all = RT_TRY(replica.all_to_all(to_all_x, 0, 1, n));
  const Tensor permuted = RT_TRY(replica.collective_permute(permute_x, pairs_for(n)));

  const Layout at = layout_for(n);
  const Tensor out = RT_TRY(vector(arena, DType::kI8, static_cast<int64_t>(at.bytes), "outputs"));
  memcpy(out.data + at.mean, mean.data, at.bf16 - at.mean);
  memcpy(out.data + at.bf16, bf16.data, at.f16 - at.bf16);
  memcpy(out.data + at.f16, f16.data, at.scatter - at.f16);
  memcpy(out.data + at.scatter, scattered.data, at.to_all - at.scatter);
  memcpy(out.data + at.to_all, to_all.data, at.permute - at.to_all);
  memcpy(out.data + at.permute, permuted.data, at.bytes - at.permute);
  return out;
}

// ---------------------------------------------------------------- what one board computes
// Every replica's inputs of one reduction, then the board's kernel over them in group (replica) order.
constexpr size_t kMaxInputBytes = 2 * kMaxReplicas * sizeof(float);
uint8_t reference_inputs[kMaxReplicas][kMaxInputBytes];

void reduce_reference(ReduceOp op, DType type, unsigned n, size_t offset, size_t count, uint8_t* out) {
  const uint8_t* inputs[kMaxReplicas];
  for (unsigned j = 0; j < n; ++j) inputs[j] = reference_inputs[j] + offset;
  reduce_many(op, type, inputs, n, &out, 1, count);
}

// What replica p's outputs must be, into `out` (layout_for(n).bytes).
void expected_outputs(unsigned n, unsigned p, uint8_t* out) {
  const Layout at = layout_for(n);
  for (unsigned j = 0; j < n; ++j) mean_input(j, reinterpret_cast<float*>(reference_inputs[j]));
  reduce_reference(ReduceOp::kMean, DType::kF32, n, 0, 3, out + at.mean);
  for (unsigned j = 0; j < n; ++j) bf16_input(j, reinterpret_cast<uint16_t*>(reference_inputs[j]));
  reduce_reference(ReduceOp::kSum, DType::kBF16, n, 0, 3, out + at.bf16);
  for (unsigned j = 0; j < n; ++j) f16_input(j, reinterpret_cast<uint16_t*>(reference_inputs[j]));
  reduce_reference(ReduceOp::kMean, DType::kF16, n, 0, 2, out + at.f16);
  for (unsigned j = 0; j < n; ++j) scatter_input(j, n, reinterpret_cast<float*>(reference_inputs[j]));
  reduce_reference(ReduceOp::kSum, DType::kF32, n, 2 * p * sizeof(float), 2, out + at.scatter);
  for (unsigned j = 0; j < n; ++j)  // block p of member j: its column p, rows 2j and 2j + 1 of the output
    for (unsigned a = 0; a < 2; ++a) {
      const int32_t value = static_cast<int32_t>(1000 * j + 10 * a + p);
      memcpy(out + at.to_all + (2 * j + a) * sizeof(int32_t), &value, sizeof value);
    }
  float permuted[2] = {0, 0};  // replica 0 is no target
  if (p > 0) permute_input(p - 1, permuted);
  memcpy(out + at.permute, permuted, sizeof permuted);
}

// The values worked out by hand (see the top of this file) where the order of summation shows.
Status check_by_hand(unsigned n, const uint8_t* out) {
  const Layout at = layout_for(n);
  float mean0 = 0;
  memcpy(&mean0, out + at.mean, sizeof mean0);
  const float expected_mean0 = n >= 3 ? static_cast<float>(n - 3) / static_cast<float>(n) : 1e8f / static_cast<float>(n);
  uint16_t bf16_0 = 0;
  memcpy(&bf16_0, out + at.bf16, sizeof bf16_0);
  const float bf16_by_hand = n == 2 ? 256.0f : n == 4 ? 260.0f : n == 8 ? 264.0f : to_float(to_bfloat16(255.0f + float(n)));
  if (mean0 != expected_mean0 || to_float(BFloat16{bf16_0}) != bf16_by_hand)
    return internal_error("mean element 0 is {} (expected {}), bfloat16 sum element 0 is {} (expected {})", mean0,
                          expected_mean0, to_float(BFloat16{bf16_0}), bf16_by_hand);
  return Status::ok();
}

uint32_t fnv1a(uint32_t hash, const uint8_t* bytes, size_t size) {
  for (size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * 16777619u;
  return hash;
}

}  // namespace

Status check_collectives_across_boards(const PodMembership& pod, unsigned cores) {
  const unsigned n = pod.num_tasks * cores;
  cores_per_board = cores;
  ReplicaArgs inputs[kMaxReplicas];
  const Replicated result = RT_TRY(replicate(collectives_across_boards, Span<const ReplicaArgs>(inputs, n)));
  const Layout at = layout_for(n);
  uint8_t expected[layout_for(kMaxReplicas).bytes];
  uint32_t hash = 2166136261u;
  for (unsigned p = 0; p < n; ++p) {
    if (result[p].size() != 1 || result[p][0].num_elements() != at.bytes)
      return internal_error("replica {}: {} outputs, expected one of {} bytes", p, result[p].size(), at.bytes);
    const uint8_t* out = result[p][0].data;
    expected_outputs(n, p, expected);
    for (size_t i = 0; i < at.bytes; ++i)
      if (out[i] != expected[i])
        return internal_error("replica {}: output byte {} is {:#x}, one board computes {:#x} (layout: mean 0, bfloat16 {}, "
                              "float16 {}, reduce_scatter {}, all_to_all {}, permute {})",
                              p, i, out[i], expected[i], at.bf16, at.f16, at.scatter, at.to_all, at.permute);
    RT_RETURN_IF_ERROR(check_by_hand(n, out));
    hash = fnv1a(hash, out, at.bytes);
  }
  log_info("POD across boards: all_reduce mean float32, sum bfloat16, mean float16, reduce_scatter, all_to_all, "
           "collective_permute on {} replicas: every output checked, hash {:08x}",
           n, hash);
  return Status::ok();
}

}  // namespace pod_app
