// Dynamic shapes: replicate with maximum_shapes pads what differs across replicas
// (runtime/tpu/TF_BEHAVIOUR.md section 1, "Dynamic shapes and padding"). The computation reports
// what it received: the padded sizes, the real sizes it can ask its tensor for, the sum of every
// element (padding must be zeros) and whether the data was copied into its own core's arena.
// Then the ops on padded inputs: the replicate page's reduce_mean(x + 1) over inputs of a different
// length on every replica gives each replica the mean of its own unpadded values, and a matmul over
// a padded contraction dimension sums only the real part.
#include "firmware/tpu_pod.hpp"
#include "runtime/tensor/hbm.hpp"
#include "runtime/tpu/replicate/pod_memory.hpp"
#include "suite.hpp"

namespace replicate_test {
namespace {

using rt::Status;
using rt::Tensor;
using rt::tpu::MaximumShape;
using rt::tpu::ReplicaArgs;
using rt::tpu::ReplicaContext;
using rt::tpu::ReplicaOutputs;
constexpr int64_t kNone = rt::tpu::kUnknownSize;

// [dims0, dims1, real0, real1, sum of all elements, 1 if x is a copy in this core's arena].
// `originals` holds every replica's original input data. A padded copy is the last allocation in the replica's
// arena before the computation runs, so the next allocation starts right after it (64-byte aligned).
const uint8_t* originals[rt::tpu::kMaxReplicas];

Status describe(ReplicaContext& replica, ReplicaArgs args, ReplicaOutputs& outputs) {
  const Tensor& x = args[0];
  int32_t sum = 0;
  for (size_t i = 0; i < x.num_elements(); ++i) sum += i32_at(x, i);
  rt::Result<Tensor> probe = replica.arena().allocate_tensor(rt::DType::kI32, rt::Shape{}, "a probe");
  if (!probe) return probe.status();
  const size_t bytes = (x.num_elements() * x.element_size() + 63) & ~size_t{63};
  const bool own_copy = x.data != originals[replica.replica_id()] && probe->data == x.data + bytes;
  const int64_t six[] = {6};
  const int32_t values[] = {static_cast<int32_t>(x.shape.dims[0]), static_cast<int32_t>(x.shape.dims[1]),
                            static_cast<int32_t>(x.shape.real[0]), static_cast<int32_t>(x.shape.real[1]), sum,
                            own_copy ? 1 : 0};
  rt::Result<Tensor> out = i32_tensor(replica.arena(), six, values);
  if (!out) return out.status();
  return outputs.add(*out);
}

const rt::StringView kArgNames[] = {"x"};
const rt::tpu::Computation kDescribe{"describe", describe, {1, 0, false, kArgNames}};

struct Case {
  const char* what;
  unsigned replicas;
  int64_t rows_base;  // replica r's input is [rows_base + r * rows_step, 2], elements 1, 2, 3, ...
  int64_t rows_step;
  MaximumShape maximum;
  rt::tpu::PaddingSpec spec;
};

int64_t rows_of(const Case& c, unsigned r) { return c.rows_base + static_cast<int64_t>(r) * c.rows_step; }

Status run_case(const Case& c, Status* error = nullptr) {
  rt::tpu::PodMemoryScope memory(hal::core_count());
  Tensor tensors[rt::tpu::kMaxReplicas];
  ReplicaArgs inputs[rt::tpu::kMaxReplicas];
  for (unsigned r = 0; r < c.replicas; ++r) {
    const int64_t dims[] = {rows_of(c, r), 2};
    int32_t values[64];
    for (int32_t i = 0; i < dims[0] * 2; ++i) values[i] = i + 1;
    rt::Result<Tensor> x = i32_tensor(rt::hbm(), dims, rt::Span<const int32_t>(values, dims[0] * 2));
    if (!x) return x.status();
    tensors[r] = *x;
    inputs[r] = ReplicaArgs(&tensors[r], 1);
    originals[r] = x->data;
  }
  rt::tpu::ReplicateOptions options;
  options.maximum_shapes = rt::Span<const MaximumShape>(&c.maximum, 1);
  options.padding_spec = c.spec;
  const Status status = rt::tpu::replicate(kDescribe, rt::Span<const ReplicaArgs>(inputs, c.replicas), options, result());
  if (error != nullptr) {
    *error = status;
    return Status::ok();
  }
  return status;
}

// Checks what replica r saw: padded to `rows` rows (or not padded), its real rows, the sum of its
// real elements 1..2*real (the padding adds nothing).
Status expect_seen(const Case& c, int64_t padded_rows, bool padded) {
  RT_RETURN_IF_ERROR(expect_output_counts(result(), c.replicas, 1, c.what));
  for (unsigned r = 0; r < c.replicas; ++r) {
    const Tensor& out = result()[r][0];
    const int64_t real = rows_of(c, r);
    const int32_t expected[] = {static_cast<int32_t>(padded ? padded_rows : real), 2, static_cast<int32_t>(real), 2,
                                static_cast<int32_t>(real * 2 * (real * 2 + 1) / 2), padded ? 1 : 0};
    for (unsigned i = 0; i < 6; ++i)
      if (i32_at(out, i) != expected[i])
        return rt::internal_error("{}: replica {} saw [dims {} {}, real {} {}, sum {}, own copy {}], expected [{} {}, {} "
                                  "{}, {}, {}]",
                                  c.what, r, i32_at(out, 0), i32_at(out, 1), i32_at(out, 2), i32_at(out, 3),
                                  i32_at(out, 4), i32_at(out, 5), expected[0], expected[1], expected[2], expected[3],
                                  expected[4], expected[5]);
  }
  return Status::ok();
}

MaximumShape maximum(int64_t rows, int64_t columns) {
  const int64_t dims[] = {rows, columns};
  return MaximumShape::of(rt::Span<const int64_t>(dims, 2));
}

// Replica r's input for the ops cases: r + 1 consecutive values from 10 r + 1, so a padded
// element (a 0, 1 after x + 1) or a division by the padded count would change the results.
int64_t op_length(unsigned r) { return static_cast<int64_t>(r) + 1; }
float op_first(unsigned r) { return 10.0f * static_cast<float>(r) + 1.0f; }

// Every replica's input [rows, length_r] (rows 1: a vector when `vector`), padded by
// maximum_shapes (None, ...) under POWER_OF_TWO, runs `computation`; the replicas' scalars
// must be `expected(r)`.
template <class F, class Expected>
Status run_ops_case(unsigned replicas, bool vector, const F& computation, const Expected& expected, const char* what) {
  rt::tpu::PodMemoryScope memory(hal::core_count());
  Tensor tensors[rt::tpu::kMaxReplicas];
  ReplicaArgs inputs[rt::tpu::kMaxReplicas];
  for (unsigned r = 0; r < replicas; ++r) {
    float values[rt::tpu::kMaxReplicas];
    for (int64_t i = 0; i < op_length(r); ++i) values[i] = op_first(r) + static_cast<float>(i);
    const int64_t dims[] = {1, op_length(r)};
    const rt::Span<const int64_t> shape =
        vector ? rt::Span<const int64_t>(dims + 1, 1) : rt::Span<const int64_t>(dims, 2);
    tensors[r] = RT_TRY(f32_tensor(rt::hbm(), shape, rt::Span<const float>(values, op_length(r))));
    inputs[r] = ReplicaArgs(&tensors[r], 1);
  }
  const MaximumShape limit = vector ? MaximumShape::of(rt::Span<const int64_t>(&kNone, 1)) : maximum(kNone, kNone);
  rt::tpu::ReplicateOptions options;
  options.maximum_shapes = rt::Span<const MaximumShape>(&limit, 1);
  options.padding_spec = rt::tpu::PaddingSpec::kPowerOfTwo;
  const rt::tpu::Replicated output =
      RT_TRY(rt::tpu::replicate(computation, rt::Span<const ReplicaArgs>(inputs, replicas), options));
  RT_RETURN_IF_ERROR(expect_output_counts(output.result(), replicas, 1, what));
  for (unsigned r = 0; r < replicas; ++r) {
    const Tensor& out = output[r][0];
    if (out.num_elements() != 1 || out.dtype != rt::DType::kF32 || out.scalar<float>() != expected(r))
      return rt::internal_error("{}: replica {} (real length {}) returned {}, expected the float32 {}", what, r,
                                op_length(r), f32_at(out, 0), expected(r));
  }
  return Status::ok();
}

// tpu.replicate's dynamic-shape example: reduce_mean(x + 1) on inputs of different lengths. The
// mean of n consecutive values from a, plus 1, is a + (n - 1) / 2 + 1: exact in float32.
Status padded_mean_case(unsigned replicas) {
  const auto computation = [](ReplicaContext& replica, const Tensor& x) -> rt::Result<Tensor> {
    const Tensor x1 = RT_TRY(rt::add(replica.arena(), x, 1.0f));
    return rt::reduce_mean(replica.arena(), x1);
  };
  const auto expected = [](unsigned r) {
    return op_first(r) + static_cast<float>(op_length(r) - 1) / 2.0f + 1.0f;
  };
  return run_ops_case(replicas, true, computation, expected, "reduce_mean(x + 1) of padded inputs");
}

// x [1, K] x ones [K, 1] with K padded: the sum of the real values only, n a + n (n - 1) / 2.
Status padded_matmul_case(unsigned replicas) {
  const auto computation = [](ReplicaContext& replica, const Tensor& x) -> rt::Result<Tensor> {
    const int64_t dims[] = {x.shape.dims[1], 1};
    Tensor ones = RT_TRY(replica.arena().allocate_tensor(rt::DType::kF32, RT_TRY(rt::Shape::make(dims)), "ones"));
    for (float& one : ones.values<float>()) one = 1.0f;
    return rt::matmul(replica.arena(), x, ones);
  };
  const auto expected = [](unsigned r) {
    const float n = static_cast<float>(op_length(r));
    return n * op_first(r) + n * (n - 1.0f) / 2.0f;
  };
  return run_ops_case(replicas, false, computation, expected, "matmul over a padded contraction");
}

}  // namespace

Status run_dynamic_shape_cases(unsigned cores) {
  const unsigned n = cores;
  // One replica: nothing is padded, whatever the maximum.
  const Case single{"one replica", 1, 3, 0, maximum(8, kNone), rt::tpu::PaddingSpec::kPowerOfTwo};
  RT_RETURN_IF_ERROR(run_case(single));
  RT_RETURN_IF_ERROR(expect_seen(single, 3, false));
  if (result().padding.any()) return rt::internal_error("one replica: a padding map was recorded");
  if (n < 2) return padded_mean_case(1);

  // Equal sizes are not padded, even under a larger maximum.
  const Case equal{"equal sizes", n, 2, 0, maximum(8, 8), rt::tpu::PaddingSpec::kAuto};
  RT_RETURN_IF_ERROR(run_case(equal));
  RT_RETURN_IF_ERROR(expect_seen(equal, 2, false));

  // Replica r has r + 1 rows: dimension 0 pads to the runtime maximum n (AUTO, at least 2) or its
  // next power of two (POWER_OF_TWO); dimension 1 (always 2) does not pad.
  const Case automatic{"AUTO, unknown maximum", n, 1, 1, maximum(kNone, kNone), rt::tpu::PaddingSpec::kAuto};
  RT_RETURN_IF_ERROR(run_case(automatic));
  RT_RETURN_IF_ERROR(expect_seen(automatic, n, true));
  const Case power{"POWER_OF_TWO, unknown maximum", n, 1, 1, maximum(kNone, kNone), rt::tpu::PaddingSpec::kPowerOfTwo};
  RT_RETURN_IF_ERROR(run_case(power));
  RT_RETURN_IF_ERROR(expect_seen(power, rt::tpu::next_power_of_two(n), true));
  const rt::tpu::PaddingPlan& plan = result().padding;
  if (plan.num_maps != 1 || plan.maps[0].arg_index != 0 || plan.maps[0].shape_index != 0 ||
      plan.maps[0].padding_arg_index != 1)
    return rt::internal_error("POWER_OF_TWO: padding maps {} (first {} {} {}), expected one map (0, 0, 1)",
                              plan.num_maps, plan.maps[0].arg_index, plan.maps[0].shape_index,
                              plan.maps[0].padding_arg_index);

  // A static maximum wins and is never rounded: n + 3 rows.
  const Case fixed{"POWER_OF_TWO, static maximum", n, 1, 1, maximum(n + 3, kNone), rt::tpu::PaddingSpec::kPowerOfTwo};
  RT_RETURN_IF_ERROR(run_case(fixed));
  RT_RETURN_IF_ERROR(expect_seen(fixed, n + 3, true));

  // The ops honour the real sizes (a one-replica board runs the mean case unpadded above).
  RT_RETURN_IF_ERROR(padded_mean_case(n));
  RT_RETURN_IF_ERROR(padded_matmul_case(n));

  // An input larger than its static maximum: replica r has r + 3 rows, the maximum allows 2.
  const Case too_large{"too large", n, 3, 1, maximum(2, kNone), rt::tpu::PaddingSpec::kAuto};
  Status error;
  RT_RETURN_IF_ERROR(run_case(too_large, &error));
  return expect_error(error, rt::StatusCode::kInvalidArgument,
                      "Input 0 ('x') of replica 0 has size 3 in dimension 0, larger than its maximum shape (2, None) "
                      "allows (2): an input cannot be padded to a smaller size",
                      "input larger than its maximum shape");
}

}  // namespace replicate_test
