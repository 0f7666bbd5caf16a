// Mirrored variables for a whole structure (TF: a model's trainable_variables, created in the
// strategy's scope): create_mirrored_variables(strategy, initial) makes one mirrored variable per
// leaf of `initial` (a copy in every replica's arena) and gives them back as a PerReplica<S> whose
// leaves are Mirrored values, ready to pass to strategy.run (replica r gets the structure of its
// copies, which a step updates in place). read_values gives this host's copies (TF's read_value()).
//
//   struct Params { Tensor w, b; };
//   PerReplica<Params> weights = RT_TRY(create_mirrored_variables(strategy, initial));
//   RT_TRY(strategy.run(train_steps, weights));
//   Params trained = read_values(weights);
//
// The leaves live in pod memory (the calling core's arena): create the variables outside any
// PodMemoryScope that ends before they do.
#pragma once
#include "runtime/tpu/mesh/pod_membership.hpp"
#include "strategy.hpp"

namespace rt::tpu {

template <class S>
Result<PerReplica<S>> create_mirrored_variables(TPUStrategy& strategy, const S& initial) {
  DistributedValue* leaves = RT_TRY(allocate_distributed_values(nest::leaf_count_v<S>));
  Status status;
  size_t leaf = 0;
  nest::for_each_leaf(initial, [&](const Tensor& value) {
    MirroredVariable variable;
    if (status.is_ok()) status = strategy.create_mirrored_variable(value, variable);
    leaves[leaf++] = variable.copies;
  });
  RT_RETURN_IF_ERROR(status);
  return PerReplica<S>(leaves);
}

// Every variable's value on this host: its first replica's copies (replica 0's on a single board).
template <class S>
S read_values(const PerReplica<S>& variables) {
  const unsigned copies = nest::leaf_count_v<S> > 0 ? variables.leaf(0).num_components() : 1;
  return variables.local(pod_membership().first_local_replica(copies));
}

}  // namespace rt::tpu
