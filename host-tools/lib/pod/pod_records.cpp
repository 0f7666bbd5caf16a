// A pod's rank records and their agreement check (pod_records.hpp).
#include "pod_records.hpp"

#include <cstring>

namespace tpu {
namespace {

template <size_t N>
void copy_text(char (&field)[N], const std::string& text) {
  std::strncpy(field, text.c_str(), N - 1);
  field[N - 1] = '\0';
}

template <size_t N>
std::string text_of(const char (&field)[N]) {
  return std::string(field, strnlen(field, N));
}

std::string cores_text(uint32_t cores) {
  if (cores == 0) return "the board's default cores";
  return std::to_string(cores) + (cores == 1 ? " core" : " cores");
}

// What `a` and `b` (a: rank 0's) disagree on, or "".
std::string difference(const PodRankRecord& a, const PodRankRecord& b) {
  const std::string both = describe_rank(b) + " ";
  const std::string first = ", " + describe_rank(a) + " ";
  if (text_of(a.board) != text_of(b.board) && (a.cores == 0 || b.cores == 0))
    return both + "runs board " + text_of(b.board) + first + "runs " + text_of(a.board) +
           "; boards of different kinds form a pod with the same --cores given to every rank";
  if (a.cores != b.cores)
    return both + "boots " + cores_text(b.cores) + first + "boots " + cores_text(a.cores) +
           "; every board of a pod boots the same number of cores (--cores)";
  if (text_of(a.target) != text_of(b.target))
    return both + "runs " + text_of(b.target) + first + "runs " + text_of(a.target) +
           "; every board of a pod runs the same program";
  if (text_of(a.link) != text_of(b.link))
    return both + "uses the " + text_of(b.link) + " link" + first + "the " + text_of(a.link) +
           " link; every board of a pod uses the same link (--link)";
  return "";
}

}  // namespace

PodRankRecord make_pod_record(unsigned rank, const std::string& host, const std::string& board, unsigned cores,
                              const std::string& target, const std::string& link, const std::string& address) {
  PodRankRecord record;
  record.rank = rank;
  record.cores = cores;
  copy_text(record.host, host);
  copy_text(record.board, board);
  copy_text(record.target, target);
  copy_text(record.link, link);
  copy_text(record.address, address);
  return record;
}

std::vector<std::string> pod_workers(const std::vector<PodRankRecord>& records) {
  std::vector<std::string> workers;
  for (const PodRankRecord& record : records) workers.push_back(text_of(record.address));
  return workers;
}

std::string describe_rank(const PodRankRecord& record) {
  return "rank " + std::to_string(record.rank) + " (host " + text_of(record.host) + ", board " + text_of(record.board) +
         ")";
}

std::string check_pod_records(const std::vector<PodRankRecord>& records) {
  for (size_t rank = 0; rank < records.size(); ++rank)
    if (records[rank].rank != rank)
      return "the pod's rank records are out of order: entry " + std::to_string(rank) + " says rank " +
             std::to_string(records[rank].rank);
  for (const PodRankRecord& record : records)
    if (!record.ready) return describe_rank(record) + " could not build its image (its lines above say why)";
  for (size_t rank = 1; rank < records.size(); ++rank)
    if (const std::string problem = difference(records[0], records[rank]); !problem.empty())
      return "the pod's boards disagree: " + problem;
  return "";
}

}  // namespace tpu
