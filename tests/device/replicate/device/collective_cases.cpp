// Collectives inside replicated computations: replica ids and placement, TF's cross_replica_sum
// example with groups [[0,2,4,6],[1,3,5,7]] (generalised to even/odd replicas of any even count),
// the other collectives on tensors, a device assignment that reverses replicas and cores, and
// collectives outside replicate (one replica, group [[0]]).
#include "runtime/tensor/hbm.hpp"
#include "runtime/tpu/replicate/cross_replica_ops.hpp"
#include "runtime/tpu/replicate/pod_memory.hpp"
#include "suite.hpp"

namespace replicate_test {
namespace {

using rt::Status;
using rt::Tensor;
using rt::tpu::ReplicaArgs;
using rt::tpu::ReplicaContext;
using rt::tpu::ReplicaOutputs;

// [replica_id, num_replicas, core, logical_core] as int32.
Status identify(ReplicaContext& replica, ReplicaArgs, ReplicaOutputs& outputs) {
  const int64_t four[] = {4};
  const int32_t values[] = {static_cast<int32_t>(replica.replica_id()), static_cast<int32_t>(replica.num_replicas()),
                            static_cast<int32_t>(replica.core()), static_cast<int32_t>(replica.logical_core())};
  rt::Result<Tensor> out = i32_tensor(replica.arena(), four, values);
  if (!out) return out.status();
  return outputs.add(*out);
}

// cross_replica_sum(x, groups) through the free function (the current replica's context).
Status grouped_sum(const rt::GroupAssignment& groups, ReplicaArgs args, ReplicaOutputs& outputs) {
  rt::Result<Tensor> sum = rt::tpu::cross_replica_sum(args[0], groups);
  if (!sum) return sum.status();
  return outputs.add(*sum);
}

// all_gather, all_to_all, collective_permute (a ring), broadcast and a barrier in one computation.
Status collective_tour(ReplicaContext& replica, ReplicaArgs, ReplicaOutputs& outputs) {
  const unsigned n = replica.num_replicas(), r = replica.replica_id();
  const int64_t one[] = {1};
  rt::Result<Tensor> id = i32_tensor(replica.arena(), one, {static_cast<int32_t>(r)});
  if (!id) return id.status();
  int32_t row[rt::tpu::kMaxReplicas];
  for (unsigned j = 0; j < n; ++j) row[j] = static_cast<int32_t>(100 * r + j);
  const int64_t row_shape[] = {1, n};
  rt::Result<Tensor> blocks = i32_tensor(replica.arena(), row_shape, rt::Span<const int32_t>(row, n));
  if (!blocks) return blocks.status();
  int64_t pairs[2 * rt::tpu::kMaxReplicas];
  for (unsigned j = 0; j < n; ++j) pairs[2 * j] = j, pairs[2 * j + 1] = (j + 1) % n;

  rt::Result<Tensor> gathered = replica.all_gather(*id);
  if (!gathered) return gathered.status();
  rt::Result<Tensor> exchanged = replica.all_to_all(*blocks, 0, 1, n);
  if (!exchanged) return exchanged.status();
  rt::Result<Tensor> shifted = replica.collective_permute(*id, rt::Span<const int64_t>(pairs, 2 * n));
  if (!shifted) return shifted.status();
  rt::Result<Tensor> broadcast = replica.broadcast(*id, n - 1);
  if (!broadcast) return broadcast.status();
  RT_RETURN_IF_ERROR(replica.barrier());
  RT_RETURN_IF_ERROR(outputs.add(*gathered));
  RT_RETURN_IF_ERROR(outputs.add(*exchanged));
  RT_RETURN_IF_ERROR(outputs.add(*shifted));
  return outputs.add(*broadcast);
}

const rt::tpu::Computation kIdentify{"identify", identify, {0}};
const rt::tpu::Computation kTour{"collective_tour", collective_tour, {0}};

Status expect_identities(unsigned n, const unsigned* core_of, const char* what) {
  RT_RETURN_IF_ERROR(expect_output_counts(result(), n, 1, what));
  for (unsigned r = 0; r < n; ++r) {
    const Tensor& out = result()[r][0];
    if (i32_at(out, 0) != static_cast<int32_t>(r) || i32_at(out, 1) != static_cast<int32_t>(n) ||
        i32_at(out, 2) != static_cast<int32_t>(core_of[r]) || i32_at(out, 3) != 0)
      return rt::internal_error("{}: replica {} saw replica_id {}, num_replicas {}, core {}, logical core {}; expected "
                                "{}, {}, {}, 0",
                                what, r, i32_at(out, 0), i32_at(out, 1), i32_at(out, 2), i32_at(out, 3), r, n,
                                core_of[r]);
  }
  return Status::ok();
}

Status replica_ids(unsigned cores) {
  const ReplicaArgs no_inputs[rt::tpu::kMaxReplicas] = {};
  unsigned core_of[rt::tpu::kMaxReplicas];
  for (unsigned r = 0; r < cores; ++r) core_of[r] = r;
  RT_RETURN_IF_ERROR(rt::tpu::replicate(kIdentify, rt::Span<const ReplicaArgs>(no_inputs, cores), {}, result()));
  return expect_identities(cores, core_of, "replica_id per replica");
}

// Replica r contributes [10 (r + 1), r]; with 8 replicas the even group sums A+C+E+G = 160 and the
// odd one B+D+F+H = 200 (and 0+2+4+6 = 12, 1+3+5+7 = 16).
Status parity_groups(unsigned cores, const rt::tpu::DeviceAssignment* assignment) {
  const unsigned n = cores;
  uint32_t ids[rt::tpu::kMaxReplicas];
  for (unsigned i = 0; i < n / 2; ++i) ids[i] = 2 * i, ids[n / 2 + i] = 2 * i + 1;
  const uint32_t only_zero[] = {0};
  rt::GroupAssignment groups = n % 2 == 0 ? rt::GroupAssignment{ids, 2, n / 2}
                                          : (n == 1 ? rt::GroupAssignment{only_zero, 1, 1} : rt::GroupAssignment{});
  Tensor tensors[rt::tpu::kMaxReplicas];
  ReplicaArgs inputs[rt::tpu::kMaxReplicas];
  const int64_t two[] = {2};
  for (unsigned r = 0; r < n; ++r) {
    rt::Result<Tensor> x = f32_tensor(rt::hbm(), two, {10.0f * static_cast<float>(r + 1), static_cast<float>(r)});
    if (!x) return x.status();
    tensors[r] = *x;
    inputs[r] = ReplicaArgs(&tensors[r], 1);
  }
  const rt::tpu::Computation sum{
      "grouped_sum",
      [&groups](ReplicaContext&, ReplicaArgs args, ReplicaOutputs& outputs) { return grouped_sum(groups, args, outputs); },
      {1}};
  rt::tpu::ReplicateOptions options;
  options.device_assignment = assignment;
  RT_RETURN_IF_ERROR(rt::tpu::replicate(sum, rt::Span<const ReplicaArgs>(inputs, n), options, result()));
  RT_RETURN_IF_ERROR(expect_output_counts(result(), n, 1, "cross_replica_sum over groups"));
  for (unsigned r = 0; r < n; ++r) {
    float expected0 = 0, expected1 = 0;
    for (unsigned s = 0; s < n; ++s)
      if (n % 2 != 0 || s % 2 == r % 2) expected0 += 10.0f * static_cast<float>(s + 1), expected1 += static_cast<float>(s);
    if (n == 8 && expected0 != (r % 2 == 0 ? 160.0f : 200.0f)) return rt::internal_error("8-replica reference is wrong");
    const Tensor& out = result()[r][0];
    if (out.shape.rank != 1 || out.shape.dims[0] != 2 || f32_at(out, 0) != expected0 || f32_at(out, 1) != expected1)
      return rt::internal_error("cross_replica_sum over groups: replica {} got [{}, {}], expected [{}, {}]", r,
                                f32_at(out, 0), f32_at(out, 1), expected0, expected1);
  }
  return Status::ok();
}

Status tour(unsigned cores) {
  const unsigned n = cores;
  const ReplicaArgs no_inputs[rt::tpu::kMaxReplicas] = {};
  RT_RETURN_IF_ERROR(rt::tpu::replicate(kTour, rt::Span<const ReplicaArgs>(no_inputs, n), {}, result()));
  RT_RETURN_IF_ERROR(expect_output_counts(result(), n, 4, "collective tour"));
  for (unsigned r = 0; r < n; ++r) {
    const Tensor& gathered = result()[r][0];
    const Tensor& exchanged = result()[r][1];
    if (gathered.shape.dims[0] != n || exchanged.shape.dims[0] != n || exchanged.shape.dims[1] != 1)
      return rt::internal_error("collective tour: replica {} got shapes {} and {}", r, gathered.shape.sizes(),
                                exchanged.shape.sizes());
    for (unsigned j = 0; j < n; ++j) {
      if (i32_at(gathered, j) != static_cast<int32_t>(j))
        return rt::internal_error("all_gather: replica {} element {} is {}", r, j, i32_at(gathered, j));
      if (i32_at(exchanged, j) != static_cast<int32_t>(100 * j + r))  // block r of replica j
        return rt::internal_error("all_to_all: replica {} row {} is {}, expected {}", r, j, i32_at(exchanged, j),
                                  100 * j + r);
    }
    const int32_t previous = static_cast<int32_t>((r + n - 1) % n);
    if (i32_at(result()[r][2], 0) != previous)
      return rt::internal_error("collective_permute ring: replica {} got {}, expected {}", r, i32_at(result()[r][2], 0),
                                previous);
    if (i32_at(result()[r][3], 0) != static_cast<int32_t>(n - 1))
      return rt::internal_error("broadcast from replica {}: replica {} got {}", n - 1, r, i32_at(result()[r][3], 0));
  }
  return Status::ok();
}

// An explicit assignment putting replica r on core n-1-r: ids, cores and group sums must follow it.
Status reversed_assignment(unsigned cores) {
  rt::Result<rt::tpu::Topology> topology = rt::tpu::Topology::for_cores(static_cast<int>(cores));
  if (!topology) return topology.status();
  int32_t coordinates[rt::tpu::kMaxReplicas * rt::tpu::kMeshRank];
  unsigned core_of[rt::tpu::kMaxReplicas];
  for (unsigned r = 0; r < cores; ++r) {
    core_of[r] = cores - 1 - r;
    const rt::tpu::MeshCoordinates& at = topology->coordinates_of_core(static_cast<int>(core_of[r]));
    for (int i = 0; i < rt::tpu::kMeshRank; ++i) coordinates[r * rt::tpu::kMeshRank + i] = at[i];
  }
  const int32_t shape[] = {static_cast<int32_t>(cores), 1, rt::tpu::kMeshRank};
  rt::Result<rt::tpu::DeviceAssignment> assignment = rt::tpu::DeviceAssignment::create(
      *topology, rt::Span<const int32_t>(coordinates, cores * rt::tpu::kMeshRank), rt::Span<const int32_t>(shape, 3));
  if (!assignment) return assignment.status();
  const ReplicaArgs no_inputs[rt::tpu::kMaxReplicas] = {};
  rt::tpu::ReplicateOptions options;
  options.device_assignment = &*assignment;
  RT_RETURN_IF_ERROR(rt::tpu::replicate(kIdentify, rt::Span<const ReplicaArgs>(no_inputs, cores), options, result()));
  RT_RETURN_IF_ERROR(expect_identities(cores, core_of, "reversed device assignment"));
  return parity_groups(cores, &*assignment);
}

// Outside replicate: one replica, group [[0]].
Status outside_replicate() {
  const int64_t two[] = {2};
  rt::Result<Tensor> x = f32_tensor(rt::hbm(), two, {1.5f, -2.0f});
  if (!x) return x.status();
  if (rt::tpu::replica_id() != 0 || rt::tpu::num_replicas() != 1)
    return rt::internal_error("outside replicate: replica_id {} of {}", rt::tpu::replica_id(), rt::tpu::num_replicas());
  rt::Result<Tensor> sum = rt::tpu::cross_replica_sum(*x);
  if (!sum) return sum.status();
  rt::Result<Tensor> grouped = rt::tpu::cross_replica_sum(*x, rt::group_assignment({{0}}));
  if (!grouped) return grouped.status();
  if (f32_at(*sum, 0) != 1.5f || f32_at(*sum, 1) != -2.0f || f32_at(*grouped, 1) != -2.0f)
    return rt::internal_error("cross_replica_sum outside replicate changed its input: [{}, {}]", f32_at(*sum, 0),
                              f32_at(*sum, 1));
  return expect_error(rt::tpu::cross_replica_sum(*x, rt::group_assignment({{0, 1}})).status(),
                      rt::StatusCode::kInvalidArgument,
                      "In kCrossReplica mode, replica groups should contain 1 replicas, but found 2: [[0, 1]]",
                      "groups naming a second replica outside replicate");
}

}  // namespace

Status run_collective_cases(unsigned cores) {
  rt::tpu::PodMemoryScope memory(cores);
  RT_RETURN_IF_ERROR(replica_ids(cores));
  RT_RETURN_IF_ERROR(parity_groups(cores, nullptr));
  RT_RETURN_IF_ERROR(tour(cores));
  RT_RETURN_IF_ERROR(reversed_assignment(cores));
  return outside_replicate();
}

}  // namespace replicate_test
