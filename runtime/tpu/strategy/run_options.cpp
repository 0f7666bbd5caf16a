// RunOptions' check (run_options.hpp).
#include "run_options.hpp"

namespace rt::tpu {

Status check_run_options(const RunOptions& options, Span<const ValueRef> args) {
  if (options.experimental_enable_dynamic_batch_size) return Status::ok();
  for (size_t k = 0; k < args.size(); ++k) {
    if (!args[k].is_distributed()) continue;
    Tensor components[kMaxReplicas];
    for (unsigned r = 0; r < args[k].num_components(); ++r) components[r] = args[k].component(r);
    FixedString<48> operation;
    format_to(operation, "run's argument {}", k);
    RT_RETURN_IF_ERROR(check_same_component_shapes(
        Span<const Tensor>(components, args[k].num_components()), operation.view(),
        "RunOptions(experimental_enable_dynamic_batch_size=False) allows only static shape inputs"));
  }
  return Status::ok();
}

}  // namespace rt::tpu
