// PerReplica's leaves in pod memory (per_replica.hpp).
#include "runtime/tpu/strategy/per_replica.hpp"

#include "hal/support/new.hpp"
#include "runtime/tensor/hbm.hpp"

namespace rt::tpu {

Result<DistributedValue*> allocate_distributed_values(size_t count) {
  if (count == 0) return static_cast<DistributedValue*>(nullptr);
  uint8_t* memory = RT_TRY(hbm().allocate(count * sizeof(DistributedValue), alignof(DistributedValue),
                                          "distributed values"));
  DistributedValue* values = reinterpret_cast<DistributedValue*>(memory);
  for (size_t i = 0; i < count; ++i) new (values + i) DistributedValue();
  return values;
}

}  // namespace rt::tpu
