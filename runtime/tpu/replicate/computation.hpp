// Computation: what tpu.replicate runs on every replica, as the runtime sees a TF Python function:
// a callable stored by value (an InplaceFunction), and a declared signature (how many arguments it takes,
// how many of them have defaults, whether it takes *args, optionally their names) that replicate
// checks the supplied inputs against with TF's check_function_argument_count rules.
//
// A computation receives its replica's context (replica id, core, arena, collectives), its
// arguments (the replica's inputs, padded if maximum_shapes asked for it, then any infeed tuple
// elements) and an empty ReplicaOutputs it appends its results to, in order. TF's conventions:
// appending nothing is the empty result (TF's NoOp); one value is a one-element tuple.
// Output tensors should live in the replica's arena (ReplicaContext::arena()) or other memory that
// outlives the replicate call; inputs may be returned as they are (they are views).
#pragma once
#include "hal/core.hpp"
#include "hal/support/inplace_function.hpp"
#include "hal/support/string_view.hpp"
#include "runtime/pod/pod_devices.hpp"
#include "runtime/tensor/tensor.hpp"

namespace rt::tpu {

class ReplicaContext;

// Replicas of one replicate call: a whole pod's devices (a board runs at most hal::kMaxCores of them).
// Tables indexed by replica id are sized by it; a Tensor[kMaxReplicas] is 10.5 KiB: the big tables
// (a launch's inputs and outputs) are static or per-call pod memory; a DistributedValue and a few
// scratch tables of the strategy's cross-replica calls sit in frames, which the bare-metal main
// stacks are sized for (hal/common/baremetal/stack_layout.h has the measured chains).
inline constexpr unsigned kMaxReplicas = kMaxPodDevices;
// A replica's tensors in and out: the leaves of its arguments (regular inputs plus infeed tuple
// elements) and of its result. Room for a model of tens of parameters with its batch and metrics;
// the per-replica tables these size are static (never on a core's stack).
inline constexpr unsigned kMaxReplicaInputs = 64;
inline constexpr unsigned kMaxReplicaOutputs = 64;

// One replica's arguments, and replicate's inputs indexed [replica][input].
using ReplicaArgs = Span<const Tensor>;

// The values one replica returns, in order.
class ReplicaOutputs {
 public:
  // Appends a result; an error past kMaxReplicaOutputs.
  Status add(const Tensor& value);
  unsigned size() const { return count_; }
  bool empty() const { return count_ == 0; }
  const Tensor& operator[](unsigned index) const { return values_[index]; }
  Span<const Tensor> span() const { return Span<const Tensor>(values_, count_); }
  void clear() { count_ = 0; }

 private:
  Tensor values_[kMaxReplicaOutputs];
  unsigned count_ = 0;
};

// The computation's body as the runtime calls it: the replica's context, its arguments, its outputs.
// computation_of (callable_computation.hpp) makes one from a lambda taking typed tensors.
using ComputationBody = InplaceFunction<Status(ReplicaContext& replica, ReplicaArgs args, ReplicaOutputs& outputs)>;

// The Python signature TF inspects (tf_inspect.getargspec): positional parameters, how many of
// them have defaults, and *args.
struct Signature {
  unsigned num_args = 0;
  unsigned num_defaults = 0;
  bool varargs = false;
  Span<const StringView> arg_names;  // optional, for messages; entries past its end are unnamed

  StringView arg_name(unsigned index) const { return index < arg_names.size() ? arg_names[index] : StringView(); }
};

struct Computation {
  StringView name;  // for messages ("computation 'step'")
  // Stored by value: every Launch copies the Computation, so a replica that outlives a timed-out
  // replicate calls its own copy, never a dead stack frame of the caller.
  ComputationBody fn;
  Signature signature;
};

// TF's check_function_argument_count: false when `supplied` arguments can call a function with this
// signature; otherwise true, with what it needs in `needs`: "exactly 2 arguments", "at least 1
// argument", "at most 3 arguments" (TF's format_error: singular only for 1).
using ArityText = FixedString<48>;
bool argument_count_error(const Signature& signature, unsigned supplied, ArityText& needs);

}  // namespace rt::tpu
