// Rows of bytes exchanged among some ranks of a pod without blocking: each rank of `ranks` sends a
// row to every other (the same or one per destination) and receives theirs, straight from and into
// buffers the caller owns (the board's
// own memory where the link maps it: no copy on this side). MpiPod does it with Open MPI's nonblocking
// point-to-point calls; tests use a fake. The pod's collectives (pod_collectives.hpp) are built on it.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tpu {

class RowExchange {
 public:
  virtual ~RowExchange() = default;
  virtual unsigned my_rank() const = 0;
  static constexpr size_t kMaxSignature = 1024;  // the longest signature kept (a board's call text fits)
  // Starts an exchange among `ranks` (this rank among them) under `tag`: out[i] goes to rank
  // ranks[i], and rank ranks[i]'s row for this one arrives in into[i] (of that row's size); this
  // rank's own entries are not used. The caller leaves every buffer alone until the exchange is done
  // or ended; returns its id. A `signature` (at most kMaxSignature bytes; "" for none) goes to every
  // other rank ahead of the row: what this rank takes the exchange to be (a collective's text), so
  // that ranks that disagree find out (disagreement) instead of trading rows of different meaning.
  virtual int start_exchange(const std::vector<unsigned>& ranks, int tag, const std::string& signature,
                             std::vector<std::span<const uint8_t>> out, std::vector<std::span<uint8_t>> into) = 0;
  // true once every row arrived (and this rank's went out); false while pending; nullopt and `error`
  // if the transport failed.
  virtual std::optional<bool> exchange_done(int id, std::string& error) = 0;
  // A rank whose signature arrived (as exchange_done last saw) and differs from this one's, and its
  // signature; nothing while every signature that arrived agrees (or the exchange has none).
  struct Disagreement {
    unsigned rank;
    std::string signature;
  };
  virtual std::optional<Disagreement> disagreement(int id) = 0;
  // The ranks whose rows have not arrived (as exchange_done last saw), ascending.
  virtual std::vector<unsigned> silent_ranks(int id) const = 0;
  // Forgets a finished exchange.
  virtual void end_exchange(int id) = 0;
  // Gives up an unfinished exchange: once this returns, none of its rows arrives in `into` any more
  // (its receives are cancelled, or had finished); its rows going out may still be read.
  virtual void cancel_exchange(int id) = 0;
};

}  // namespace tpu
