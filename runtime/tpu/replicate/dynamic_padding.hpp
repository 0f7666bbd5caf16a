// Dynamic shapes and padding for replicate (TF_BEHAVIOUR.md section 1, TF's _pad_all_input), pure:
// deciding which input dimensions are padded and to what size, and making the padded copies.
// Only used when replicate gets maximum_shapes.
//
// Static and runtime sizes: an input tensor's dimension d is static with size dims[d] when its
// real size equals dims[d]; a tensor that already carries a smaller real size (e.g. the output of a
// padded computation) has an unknown static size there (TF's None) and runtime size real[d].
//
// Rules, for input k and dimension i:
//  1. (k, i) needs padding iff there are 2+ replicas and the static size differs across replicas
//     or is unknown on some replica. One replica: nothing is padded. Equal static sizes: not padded,
//     whatever maximum_shapes says. An input whose maximum_shapes entry is None (MaximumShape::none())
//     is never padded.
//  2. Target size: maximum_shapes gives a static size S -> max(S, 2); unknown (-1) -> max(runtime
//     maximum over the replicas, 2), rounded up to a power of two under PaddingSpec::kPowerOfTwo
//     (never for a static S). kAuto rounds nothing. Dimensions that need no padding keep their size.
//  3. Padding is zeros at the end of each padded dimension.
//  4. Padding maps are listed in ascending k, then i (padding_arg_index = number of inputs + the
//     map's position, where TF appends the real-size scalars); the real size travels in the padded
//     tensor's Shape (Shape::real, set_real_size), and the computation keeps its number of arguments.
//  5. A replica's input larger than its target size in a padded dimension (a static maximum smaller
//     than the input) is an error naming the replica, input, dimension and sizes. Dimensions that are
//     not padded ignore maximum_shapes, as in TF.
// maximum_shapes must have the structure of inputs[0]: one entry per input, each of its rank.
#pragma once
#include "computation.hpp"
#include "runtime/tensor/arena.hpp"

namespace rt::tpu {

enum class PaddingSpec : uint8_t { kAuto, kPowerOfTwo };

inline constexpr int64_t kUnknownSize = -1;  // TF's None in a TensorShape

// One entry of maximum_shapes: a TensorShape whose sizes may be unknown, or None.
struct MaximumShape {
  bool given = false;
  uint8_t rank = 0;
  int64_t dims[kMaxRank] = {};

  static MaximumShape none() { return MaximumShape{}; }
  // Sizes >= 0 or kUnknownSize (checked by plan_padding); a rank above kMaxRank is kept as an error.
  static MaximumShape of(Span<const int64_t> sizes);
};

// TF's dynamic_padding.PaddingMap: dimension shape_index of argument arg_index is dynamic.
struct PaddingMap {
  unsigned arg_index;
  unsigned shape_index;
  unsigned padding_arg_index;
};

// What happens to one input on every replica.
struct InputPadding {
  bool padded = false;           // a copy with the target shape is made
  uint8_t rank = 0;
  bool dynamic[kMaxRank] = {};   // dimensions that need padding (their real size is recorded)
  int64_t target[kMaxRank] = {}; // every dimension's size after padding (valid when padded)
  // The padded copy records the input's real sizes (XLA's dynamic padder, the default); false
  // (replicate's xla_options.enable_xla_dynamic_padder=False) leaves it a plain tensor of the padded size.
  bool record_real_sizes = true;
};

struct PaddingPlan {
  unsigned num_inputs = 0;
  InputPadding inputs[kMaxReplicaInputs];
  unsigned num_maps = 0;
  PaddingMap maps[kMaxReplicaInputs * kMaxRank];

  bool any() const { return num_maps > 0; }
};

// Rule 2 for one dimension: the target size given the maximum_shapes size (or kUnknownSize) and
// the largest runtime size over the replicas.
int64_t padded_dimension_size(int64_t maximum, int64_t runtime_maximum, PaddingSpec spec);
// The smallest power of two >= value (value >= 1): 3 -> 4, 5 -> 8, 8 -> 8.
int64_t next_power_of_two(int64_t value);

// Rules 1, 2, 4 and 5 over inputs[replica][input] (every replica with the same number of inputs,
// already checked by replicate). An empty maximum_shapes means none were given: nothing pads.
// `names` optionally names the inputs for messages.
Result<PaddingPlan> plan_padding(Span<const ReplicaArgs> inputs, Span<const MaximumShape> maximum_shapes,
                                 PaddingSpec spec, Span<const StringView> names = {});

// Rule 3: `input` padded as `padding` says, in a new contiguous tensor from `arena` (zeros at the
// end of every padded dimension, real sizes recorded); `input` itself when it is not padded.
Result<Tensor> pad_input(const Tensor& input, const InputPadding& padding, Arena& arena);

// TF's TensorShape text: "(None, 4)", "(3,)", "()".
using ShapeText = FixedString<96>;
ShapeText tensor_shape_text(const MaximumShape& shape);

}  // namespace rt::tpu
