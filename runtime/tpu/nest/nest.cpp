// tf.nest's error texts (nest.hpp).
#include "nest.hpp"

namespace rt::tpu::nest {

Status pack_count_error(StringView structure, size_t atoms, size_t items, bool structure_is_leaf) {
  if (structure_is_leaf)
    return invalid_argument("Structure is a scalar but len(flat_sequence) == {} > 1", items);
  return invalid_argument("Could not pack sequence. Structure had {} atoms, but flat_sequence had {} items.  "
                          "Structure: {}, flat_sequence: a list of {} tensors.",
                          atoms, items, structure, items);
}

}  // namespace rt::tpu::nest
