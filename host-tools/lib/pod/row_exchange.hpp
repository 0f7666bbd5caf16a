// Rows of bytes exchanged among some ranks of a pod without blocking: each rank of `ranks` sends its
// row to every other and receives theirs. MpiPod does it with Open MPI's nonblocking point-to-point
// calls; tests use a fake. The pod's collectives (pod_collectives.hpp) are built on it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tpu {

class RowExchange {
 public:
  virtual ~RowExchange() = default;
  virtual unsigned my_rank() const = 0;
  // Starts an exchange among `ranks` (this rank among them) under `tag`, rank ranks[i] sending
  // sizes[i] bytes (this rank: mine, which is sizes[its index] long); returns its id.
  virtual int start_exchange(const std::vector<unsigned>& ranks, int tag, std::vector<uint8_t> mine,
                             const std::vector<size_t>& sizes) = 0;
  // true once every row arrived (and this rank's went out); false while pending; nullopt and `error`
  // if the transport failed.
  virtual std::optional<bool> exchange_done(int id, std::string& error) = 0;
  // The rows in the order of `ranks` (this rank's own included); ends the exchange.
  virtual std::vector<std::vector<uint8_t>> take_rows(int id) = 0;
};

}  // namespace tpu
