// broadcast (replica 0's value wins) and mirrored variables: create_mirrored_variable puts a copy of
// the initial value in every replica's arena, update(var, fn, args) runs fn on every copy on its own
// replica (an in-place assign_add here), and the copies stay equal; run reads them back per replica.
#include "runtime/ops/elementwise.hpp"
#include "runtime/tensor/hbm.hpp"
#include "suite.hpp"

namespace strategy_test {
namespace {

using rt::tpu::MirroredVariable;

Status assign_add(StrategyReplicaContext&, const Tensor& variable, ReplicaArgs args) {
  return rt::binary(rt::BinaryOp::kAdd, variable, args[0], variable);
}

// Returns the replica's copy of the variable (argument 0) plus its replica id.
Status read_plus_id(StrategyReplicaContext& context, ReplicaArgs args, ReplicaOutputs& out) {
  Result<Tensor> id = f32_scalar(context.arena(), static_cast<float>(context.replica_id_in_sync_group()));
  if (!id) return id.status();
  Result<Tensor> sum = add(context.arena(), args[0], *id);
  if (!sum) return sum.status();
  return out.add(*sum);
}

Status expect_copies(const MirroredVariable& variable, unsigned n, std::initializer_list<float> expected,
                     const char* what) {
  if (variable.copies.kind() != rt::tpu::ValueKind::kMirrored || variable.copies.num_components() != n)
    return rt::internal_error("{}: a {} with {} copies, expected a Mirrored with {}", what,
                              rt::tpu::value_kind_name(variable.copies.kind()), variable.copies.num_components(), n);
  for (unsigned r = 0; r < n; ++r) {
    RT_RETURN_IF_ERROR(expect_f32(variable.copy(r), expected, what));
    for (unsigned other = 0; other < r; ++other)
      if (variable.copy(other).data == variable.copy(r).data)
        return rt::internal_error("{}: replicas {} and {} share one copy", what, other, r);
  }
  return Status::ok();
}

// Per-replica x_r = [r + 1, 10(r + 1)]: broadcast gives every replica [1, 10].
Result<DistributedValue> per_replica_values(unsigned n) {
  Tensor xs[rt::tpu::kMaxReplicas];
  const int64_t two[] = {2};
  for (unsigned r = 0; r < n; ++r) {
    const float r1 = static_cast<float>(r + 1);
    Result<Tensor> x = f32_tensor(rt::hbm(), two, {r1, 10 * r1});
    if (!x) return x.status();
    xs[r] = *x;
  }
  return DistributedValue::per_replica(rt::Span<const Tensor>(xs, n));
}

}  // namespace

Status run_variable_cases(unsigned cores) {
  Result<TPUStrategy> strategy = TPUStrategy::for_board();
  if (!strategy) return strategy.status();
  Result<DistributedValue> xs = per_replica_values(cores);
  if (!xs) return xs.status();
  Result<DistributedValue> broadcast = strategy->broadcast(*xs);
  if (!broadcast) return broadcast.status();
  MirroredVariable as_variable{*broadcast};
  RT_RETURN_IF_ERROR(expect_copies(as_variable, cores, {1, 10}, "broadcast of a PerReplica value"));

  const int64_t two[] = {2};
  Result<Tensor> initial = f32_tensor(rt::hbm(), two, {1, 2});
  Result<Tensor> delta = f32_tensor(rt::hbm(), two, {10, 20});
  if (!initial || !delta) return !initial ? initial.status() : delta.status();
  MirroredVariable variable;
  RT_RETURN_IF_ERROR(strategy->create_mirrored_variable(*initial, variable));
  RT_RETURN_IF_ERROR(expect_copies(variable, cores, {1, 2}, "create_mirrored_variable"));
  const DistributedValue plain_delta[] = {DistributedValue::plain(*delta)};
  RT_RETURN_IF_ERROR(strategy->update(variable, assign_add, plain_delta));
  RT_RETURN_IF_ERROR(expect_copies(variable, cores, {11, 22}, "update(assign_add([10, 20]))"));
  RT_RETURN_IF_ERROR(strategy->update(variable, assign_add, rt::Span<const DistributedValue>(&*broadcast, 1)));
  RT_RETURN_IF_ERROR(expect_copies(variable, cores, {12, 32}, "update(assign_add(broadcast value))"));
  if (f32_at(*initial, 0) != 1.0f) return rt::internal_error("update changed the initial value");
  // contrib's read_var: the value (replica 0's copy) in the program's memory, not a view of a copy.
  const Tensor read = RT_TRY(strategy->read_var(variable));
  RT_RETURN_IF_ERROR(expect_f32(read, {12, 32}, "read_var after two updates"));
  if (read.data == variable.copy(0).data) return rt::internal_error("read_var returned replica 0's copy itself");
  if (&strategy->value_container(variable.copies) != &variable.copies)
    return rt::internal_error("value_container of a mirrored value is not the value itself");

  const rt::Span<const DistributedValue> copies(&variable.copies, 1);
  RT_RETURN_IF_ERROR(strategy->run({"read_plus_id", read_plus_id}, copies, outputs()));
  for (unsigned r = 0; r < cores; ++r) {
    const float id = static_cast<float>(r);
    RT_RETURN_IF_ERROR(expect_f32(outputs()[0].component(r), {12.0f + id, 32.0f + id},
                                  "reading the mirrored variable on every replica"));
  }
  // update with a lambda capturing the learning rate: var -= 0.5 * grad, grad the plain [10, 20].
  const float learning_rate = 0.5f;
  auto sgd = [learning_rate](StrategyReplicaContext& context, const Tensor& var, const Tensor& grad) -> Status {
    const Tensor step = RT_TRY(rt::mul(context.arena(), grad, learning_rate));
    return rt::binary(rt::BinaryOp::kSub, var, step, var);
  };
  RT_RETURN_IF_ERROR(strategy->update(variable, sgd, *delta));
  RT_RETURN_IF_ERROR(expect_copies(variable, cores, {7, 22}, "update(sgd lambda, [10, 20]) of [12, 32]"));
  // Its arity comes from the lambda: no gradient given is an error naming both counts.
  RT_RETURN_IF_ERROR(expect_error(strategy->update(variable, sgd), rt::StatusCode::kInvalidArgument,
                                  "update: the function takes 1 arguments besides the variable, update gave it 0",
                                  "update with a missing argument"));
  MirroredVariable not_mirrored{DistributedValue::plain(*initial)};
  rt::FixedString<128> text;
  rt::format_to(text, "update: the variable has 1 copies of kind Tensor, expected a Mirrored value with {} copies",
                cores);
  return expect_error(strategy->update(not_mirrored, assign_add, plain_delta), rt::StatusCode::kInvalidArgument,
                      text.view(), "update of a plain value");
}

}  // namespace strategy_test
