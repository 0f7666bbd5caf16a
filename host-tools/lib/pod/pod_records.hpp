// What each rank of a pod says about itself before any board starts, and the check that the pod's
// boards agree: every rank exchanges its record with every other (one MPI all-gather of fixed-size
// records) and judges the same table, so all reach the same verdict and none starts a board the
// others refuse. A pod's boards boot the same cores (given with --cores when their kinds differ: a
// host board and a qemu-virt-a53 board may form one pod), run the same app (or image) and use the
// same link.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tpu {

struct PodRankRecord {  // plain bytes on the wire: fixed size, strings NUL-terminated (cut if longer)
  uint32_t rank = 0;
  uint32_t cores = 0;  // --cores (0: the board's default)
  uint32_t ready = 1;  // 0: its image could not be built (it said why)
  char host[64] = {};
  char board[48] = {};
  char target[256] = {};  // the app's name or folder, or the image's path
  char link[8] = {};
  char address[64] = {};  // the worker's "host:port" in the cluster spec (TF_CONFIG's, or host:8470+local rank)
};
// The longest worker address a record holds (a longer one in TF_CONFIG is refused, not cut).
inline constexpr size_t kMaxWorkerAddressChars = sizeof(PodRankRecord::address) - 1;

PodRankRecord make_pod_record(unsigned rank, const std::string& host, const std::string& board, unsigned cores,
                              const std::string& target, const std::string& link, const std::string& address = "");

// The pod's cluster spec from the records: every rank's address in rank order.
std::vector<std::string> pod_workers(const std::vector<PodRankRecord>& records);

// "" when the records (one per rank, in rank order) agree; else what differs, naming both ranks.
std::string check_pod_records(const std::vector<PodRankRecord>& records);

// "rank 1 (host a, board qemu-virt-a53)".
std::string describe_rank(const PodRankRecord& record);

}  // namespace tpu
