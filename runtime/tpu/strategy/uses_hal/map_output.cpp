// strategy.map's result array in the program's memory (map_output.hpp).
#include "runtime/tpu/strategy/map_output.hpp"

#include "hal/support/new.hpp"
#include "runtime/tensor/hbm.hpp"

namespace rt::tpu {

Result<Tensor*> allocate_map_results(size_t count) {
  if (count == 0) return static_cast<Tensor*>(nullptr);
  uint8_t* memory = RT_TRY(hbm().allocate(count * sizeof(Tensor), alignof(Tensor), "map's results"));
  Tensor* results = reinterpret_cast<Tensor*>(memory);
  for (size_t i = 0; i < count; ++i) new (results + i) Tensor();
  return results;
}

}  // namespace rt::tpu
