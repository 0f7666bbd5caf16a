// The standard library headers the host tools use, precompiled once per build of the tools (the
// Makefile's HOST_STD_PCH) and included first in every host-tools source (-include): parsing them
// again was a quarter to a third of each file's compile time. Adding a header here is never needed
// for correctness (each source includes what it uses); it only makes the compile faster.
#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>
