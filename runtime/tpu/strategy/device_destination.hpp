// One device as a destination of reduce_to (Destinations::device(name)), pure (no HAL): TF's device
// strings, full or partial ("/job:localhost/replica:0/task:0/device:TPU:1", "/device:TPU:1",
// "/replica:0/task:0/device:CPU:0", "/cpu:0"), read as TF's DeviceSpec reads them. On a board it is
// the host's CPU (CPU:0: the program's memory) or one of its TPU cores (TPU:k, k < the board's cores:
// core k's memory); a job, replica or task given must be the board's (job "localhost", or "worker" in a
// pod; replica 0; its own task). Any other device is NOT_FOUND naming the devices there are
// (the runtime's text: TF fails later, when it places the copy).
#pragma once
#include "strategy_cluster.hpp"

namespace rt::tpu {

struct DeviceDestination {
  bool host = true;   // the host CPU
  unsigned core = 0;  // else this TPU core of the board
};

Result<DeviceDestination> parse_device_destination(StringView name, const TPUClusterResolver& resolver);

}  // namespace rt::tpu
