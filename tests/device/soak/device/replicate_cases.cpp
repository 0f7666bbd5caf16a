// Random replicate calls for the soak: core 0 replicates a computation over every core, with a
// random shape per call. Each replica scales its input by (replica + 1), adds its replica id and
// sums across replicas with cross_replica_sum; every replica's output is checked against the sum
// computed here in plain loops. Inputs are small integers in float32, so every sum is exact in any
// order and the check is bit for bit.
#include "soak.hpp"

#include "firmware/splitmix.hpp"
#include "firmware/tpu_pod.hpp"

namespace soak {
namespace {

using namespace rt;
using namespace rt::tpu;

Result<Tensor> scaled_sum(ReplicaContext& replica, const Tensor& x) {
  const float id = static_cast<float>(replica.replica_id());
  const Tensor scaled = RT_TRY(rt::mul(replica.arena(), x, id + 1.0f));
  const Tensor shifted = RT_TRY(rt::add(replica.arena(), scaled, id));
  return replica.cross_replica_sum(shifted);
}

float input_value(uint64_t case_seed, unsigned replica, size_t i) {
  return static_cast<float>(static_cast<int>(firmware::splitmix64(case_seed ^ (uint64_t{replica} << 40) ^ i) % 17) - 8);
}

Status replicate_case(unsigned replicas, uint64_t index) {
  uint64_t state = firmware::splitmix64(0x7e511ca7e0000000ull + index);
  const uint64_t case_seed = state;
  int64_t dims[3];
  const unsigned rank = 1 + static_cast<unsigned>((state = firmware::splitmix64(state)) % 3);
  for (unsigned d = 0; d < rank; ++d) dims[d] = 1 + static_cast<int64_t>((state = firmware::splitmix64(state)) % 9);
  const Shape shape = RT_TRY(Shape::make(Span<const int64_t>(dims, rank)));
  Tensor inputs[hal::kMaxCores];
  ReplicaArgs rows[hal::kMaxCores];
  for (unsigned r = 0; r < replicas; ++r) {
    inputs[r] = RT_TRY(hbm().allocate_tensor(DType::kF32, shape, "soak input"));
    for (size_t i = 0; i < inputs[r].num_elements(); ++i) inputs[r].values<float>()[i] = input_value(case_seed, r, i);
    rows[r] = ReplicaArgs(&inputs[r], 1);
  }
  const Replicated output = RT_TRY(replicate(scaled_sum, Span<const ReplicaArgs>(rows, replicas)));
  for (size_t i = 0; i < static_cast<size_t>(shape.num_elements()); ++i) {
    float expected = 0;
    for (unsigned r = 0; r < replicas; ++r) expected += input_value(case_seed, r, i) * static_cast<float>(r + 1) + static_cast<float>(r);
    for (unsigned r = 0; r < replicas; ++r)
      if (output[r][0].values<float>()[i] != expected)
        return internal_error("replicate case {} (shape {}): replica {} element {} is {}, expected {}", index, shape.sizes(),
                              r, i, output[r][0].values<float>()[i], expected);
  }
  return Status::ok();
}

}  // namespace

Status run_replicate_cases(unsigned replicas, unsigned cases, uint64_t first) {
  for (uint64_t index = first; index < first + cases; ++index) {
    PodMemoryScope memory(replicas);
    RT_RETURN_IF_ERROR(replicate_case(replicas, index));
  }
  return Status::ok();
}

}  // namespace soak
