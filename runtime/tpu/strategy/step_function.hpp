// run_steps_on_dataset's step function: StepFunction (one step on one replica, as the runtime calls it)
// made from a lambda (StepContext& step, const S& inputs) by step_function_of, and kStepsPerRun.
#pragma once
#include "runtime/tpu/replicate/replicate.hpp"

namespace rt::tpu {

// run_steps_on_dataset's `iterations` meaning "the strategy's steps_per_run".
inline constexpr unsigned kStepsPerRun = 0;

class StepContext;  // strategy_steps.hpp
// run_steps_on_dataset's function: one step on one replica, with the replica's element of the step
// (its tensors: one, or a structure's leaves).
struct StepFunction {
  StringView name;
  InplaceFunction<Status(StepContext& step, ReplicaArgs inputs)> fn;  // stored by value
  unsigned num_inputs = 1;  // the tensors of an element the function takes
};

// run_steps_on_dataset's function as a lambda: (StepContext& step, const S& inputs) -> Status, S a
// Tensor or a structure of the dataset's element (struct Batch { Tensor x, y; }: TF's (x, y) element).
template <class F>
StepFunction step_function_of(StringView name, F fn) {
  using Params = typename detail::CallTraits<F>::Params;
  static_assert(detail::Count<Params>::value == 2, "a step function takes (StepContext&, const S& inputs)");
  using Inputs = remove_cvref_t<typename detail::TypeAt<1, Params>::type>;
  constexpr unsigned kInputs = static_cast<unsigned>(nest::leaf_count_v<Inputs>);
  auto body = [fn](StepContext& step, ReplicaArgs inputs) -> Status {
    if constexpr (nest::is_leaf_v<Inputs>) return fn(step, inputs[0]);
    else return fn(step, nest::build<Inputs>([&](size_t leaf) { return inputs[leaf]; }));
  };
  return StepFunction{name, body, kInputs};
}

}  // namespace rt::tpu
