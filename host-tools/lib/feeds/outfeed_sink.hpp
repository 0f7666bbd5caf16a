// Where complete outfeed tuples go: one .npy file per element in the outfeed directory, named
// c<core>_q<queue>_t<tuple>_e<element>.npy (tuple counts from 0 per core and queue, in the order
// the core enqueued them), plus one line per tuple on the notes stream. Without a directory the
// tuples are only described.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <utility>
#include <vector>

#include "host-tools/lib/tensors/host_tensor.hpp"

namespace tpu {

class OutfeedSink {
 public:
  OutfeedSink(std::optional<std::filesystem::path> directory, std::ostream& notes)
      : directory_(std::move(directory)), notes_(notes) {}

  void deliver(unsigned core, uint16_t queue, const std::vector<HostTensor>& tuple);
  size_t tuples_delivered() const { return delivered_; }
  size_t files_failed() const { return failed_; }

 private:
  std::optional<std::filesystem::path> directory_;
  std::ostream& notes_;
  std::map<std::pair<unsigned, uint16_t>, size_t> next_tuple_;
  size_t delivered_ = 0;
  size_t failed_ = 0;
};

}  // namespace tpu
