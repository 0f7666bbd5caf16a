// Outfeed tuples to .npy files (see outfeed_sink.hpp).
#include "outfeed_sink.hpp"

#include <string>

#include "host-tools/lib/tensors/npy_file.hpp"

namespace tpu {

void OutfeedSink::deliver(unsigned core, uint16_t queue, const std::vector<HostTensor>& tuple) {
  const size_t number = next_tuple_[{core, queue}]++;
  ++delivered_;
  const std::string stem =
      "c" + std::to_string(core) + "_q" + std::to_string(queue) + "_t" + std::to_string(number) + "_e";
  std::string line = "tpu: outfeed core " + std::to_string(core) + " queue " + std::to_string(queue) + " tuple " +
                     std::to_string(number) + ":";
  for (size_t element = 0; element < tuple.size(); ++element) {
    line += " " + tuple[element].describe();
    if (!directory_) continue;
    const std::filesystem::path path = *directory_ / (stem + std::to_string(element) + ".npy");
    const std::string problem = write_npy_file(path, tuple[element]);
    if (problem.empty()) {
      line += " -> " + path.string();
    } else {
      line += " (NOT SAVED: " + problem + ")";
      ++failed_;
    }
  }
  notes_ << line << std::endl;
}

}  // namespace tpu
