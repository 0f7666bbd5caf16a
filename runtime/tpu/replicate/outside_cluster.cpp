// The board's register_outside_cluster: records nothing (outside_cluster.hpp). The app's tool links
// its own definition, which wins over this weak one.
#include "outside_cluster.hpp"

namespace rt::tpu {

__attribute__((weak)) bool register_outside_cluster(StringView, OutsideClusterEntry) { return false; }

}  // namespace rt::tpu
