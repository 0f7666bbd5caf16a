// The collectives app's reference.cpp, compiled into the soak image as well: the soak runs the very
// random cases (and sequential reference) that make test runs, only many more of them.
#include "firmware/apps/collectives/device/reference.cpp"
