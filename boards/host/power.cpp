// host exit: the process exit status is the run's status. _exit skips static destructors, which
// other core threads may still be using.
#include <unistd.h>

#include "hal/power.hpp"

namespace hal {

void power_exit(int status) { _exit(status); }

}  // namespace hal
