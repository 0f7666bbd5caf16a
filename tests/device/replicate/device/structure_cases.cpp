// tpu.replicate with structures (nest.hpp): every replica's inputs as one structure whose leaves are
// the computation's arguments (a Tensor and a Pair here), a computation returning a struct read back
// with outputs_as<S>(replica), maximum_shapes given per leaf, and tf.nest's text when the structure
// asked for does not match what the computation returned. Replica r: x = r + 1, pair = (10r, [r, 2r]);
// the expected values are the hand formulas in the comments.
#include "runtime/ops/arena_ops.hpp"
#include "runtime/tensor/hbm.hpp"
#include "suite.hpp"

namespace replicate_test {
namespace {

using rt::Result;
using rt::Status;
using rt::Tensor;
using rt::tpu::ReplicaContext;
using rt::tpu::Replicated;

struct Pair {
  Tensor scale, values;
};
struct Example {  // the computation's two arguments
  Tensor x;
  Pair pair;
};
struct Out {
  Tensor sum;  // x + scale
  Pair scaled;  // (scale, values * x)
};

Result<Out> computation(ReplicaContext& replica, const Tensor& x, const Pair& pair) {
  rt::Arena& arena = replica.arena();
  return Out{RT_TRY(rt::add(arena, x, pair.scale)), Pair{pair.scale, RT_TRY(rt::mul(arena, pair.values, x))}};
}

// values = [r, 2r, .., length * r].
Result<Example> example_of(unsigned r, int64_t length) {
  const float fr = static_cast<float>(r);
  const int64_t dims[] = {length};
  float values[rt::tpu::kMaxReplicas];
  for (int64_t k = 0; k < length; ++k) values[k] = static_cast<float>(k + 1) * fr;
  return Example{RT_TRY(f32_tensor(rt::hbm(), {}, {fr + 1.0f})),
                 Pair{RT_TRY(f32_tensor(rt::hbm(), {}, {10.0f * fr})),
                      RT_TRY(f32_tensor(rt::hbm(), dims, rt::Span<const float>(values, static_cast<size_t>(length))))}};
}

Status structured_inputs_and_outputs(unsigned replicas) {
  Example inputs[rt::tpu::kMaxReplicas];
  for (unsigned r = 0; r < replicas; ++r) inputs[r] = RT_TRY(example_of(r, 2));
  const Replicated out = RT_TRY(rt::tpu::replicate(computation, rt::Span<const Example>(inputs, replicas)));
  for (unsigned r = 0; r < replicas; ++r) {
    const float fr = static_cast<float>(r);
    const Out mine = RT_TRY(out.outputs_as<Out>(r));
    if (f32_at(mine.sum, 0) != 11.0f * fr + 1.0f) return rt::internal_error("replica {}: x + scale is not 11r + 1", r);
    if (f32_at(mine.scaled.scale, 0) != 10.0f * fr) return rt::internal_error("replica {}: scale is not 10r", r);
    if (f32_at(mine.scaled.values, 0) != fr * (fr + 1.0f) || f32_at(mine.scaled.values, 1) != 2.0f * fr * (fr + 1.0f))
      return rt::internal_error("replica {}: values * x is not [r(r + 1), 2r(r + 1)]", r);
  }
  // Asking for the outputs as a structure of another size: tf.nest's text.
  return expect_error(out.outputs_as<Pair>(0).status(), rt::StatusCode::kInvalidArgument,
                      "Could not pack sequence. Structure had 2 atoms, but flat_sequence had 3 items.  Structure: "
                      "replicate_test::{anonymous}::Pair(Tensor, Tensor), flat_sequence: a list of 3 tensors.",
                      "outputs_as<Pair> of a computation returning Out");
}

// Replica r's values hold r + 1 elements, padded to the longest by maximum_shapes (None: the
// largest): the entry for pair.values is the third leaf. The padded product keeps r + 1 real
// elements (x is a scalar), and its real part is [r(r + 1), .., (r + 1) r (r + 1)].
Status structured_inputs_with_maximum_shapes(unsigned replicas) {
  Example inputs[rt::tpu::kMaxReplicas];
  for (unsigned r = 0; r < replicas; ++r) inputs[r] = RT_TRY(example_of(r, r + 1));
  const int64_t none[] = {-1};
  const rt::tpu::MaximumShape shapes[] = {rt::tpu::MaximumShape::of({}), rt::tpu::MaximumShape::of({}),
                                          rt::tpu::MaximumShape::of(none)};
  rt::tpu::ReplicateOptions options;
  options.maximum_shapes = shapes;
  const Replicated out = RT_TRY(rt::tpu::replicate(computation, rt::Span<const Example>(inputs, replicas), options));
  for (unsigned r = 0; r < replicas; ++r) {
    const Out mine = RT_TRY(out.outputs_as<Out>(r));
    if (mine.scaled.values.shape.real[0] != r + 1 || mine.scaled.values.shape.dims[0] < replicas)
      return rt::internal_error("replica {}: the padded product has real size {} of {}, expected {} of at least {}", r,
                                mine.scaled.values.shape.real[0], mine.scaled.values.shape.dims[0], r + 1, replicas);
    const float fr = static_cast<float>(r);
    for (unsigned k = 0; k <= r; ++k)
      if (f32_at(mine.scaled.values, k) != static_cast<float>(k + 1) * fr * (fr + 1.0f))
        return rt::internal_error("replica {}: element {} of the padded product is wrong", r, k);
  }
  return Status::ok();
}

}  // namespace

Status run_structure_cases(unsigned cores) {
  RT_RETURN_IF_ERROR(structured_inputs_and_outputs(cores));
  return structured_inputs_with_maximum_shapes(cores);
}

}  // namespace replicate_test
