// Every replica's outputs on every board of a pod (pod_outputs.hpp).
#include "pod_outputs.hpp"

#include <string.h>

#include "pod_program.hpp"
#include "runtime/ops/copy.hpp"
#include "runtime/tensor/hbm.hpp"

namespace rt::tpu {
namespace {

// One replica's outputs described in fixed-size words: count, then per output dtype, rank, dims.
constexpr unsigned kWordsPerOutput = 2 + kMaxRank;
constexpr unsigned kRecordWords = 1 + kMaxReplicaOutputs * kWordsPerOutput;

// How many replicas board `task` runs.
unsigned replicas_on(const PodPlacement& placement, unsigned task) {
  unsigned count = 0;
  for (unsigned r = 0; r < placement.num_replicas; ++r) count += placement.task_of(r, 0) == task;
  return count;
}

void describe(const ReplicaOutputs& outputs, int64_t* record) {
  record[0] = outputs.size();
  for (unsigned k = 0; k < outputs.size(); ++k) {
    int64_t* words = record + 1 + k * kWordsPerOutput;
    words[0] = static_cast<int64_t>(outputs[k].dtype);
    words[1] = outputs[k].shape.rank;
    for (unsigned d = 0; d < outputs[k].shape.rank; ++d) words[2 + d] = outputs[k].shape.dims[d];
  }
}

size_t output_bytes(const int64_t* record) {
  size_t bytes = 0;
  for (int64_t k = 0; k < record[0]; ++k) {
    const int64_t* words = record + 1 + k * kWordsPerOutput;
    size_t elements = 1;
    for (int64_t d = 0; d < words[1]; ++d) elements *= static_cast<size_t>(words[2 + d]);
    bytes += elements * dtype_size(static_cast<DType>(words[0]));
  }
  return bytes;
}

}  // namespace

Status gather_pod_outputs(const PodPlacement& placement, unsigned num_tasks, ReplicateResult& result) {
  const unsigned replicas = placement.num_replicas;
  const size_t record_bytes = kRecordWords * sizeof(int64_t);
  size_t sizes[kMaxPodTasks];
  for (unsigned t = 0; t < num_tasks; ++t) sizes[t] = replicas_on(placement, t) * record_bytes;
  // 1. every replica's output dtypes and shapes, in replica order within each board
  const Tensor records = RT_TRY(pod_byte_vector(sizes[placement.local_task], "this board's output shapes"));
  unsigned written = 0;
  for (unsigned r = 0; r < replicas; ++r)
    if (placement.is_local(r, 0)) {
      int64_t record[kRecordWords] = {};
      describe(result.replicas[r], record);
      memcpy(static_cast<uint8_t*>(records.data) + written++ * record_bytes, record, record_bytes);
    }
  const Tensor all_records = RT_TRY(exchange_rows_between_boards(records, Span<const size_t>(sizes, num_tasks)));
  // The records in task order: where each replica's record and bytes sit.
  const int64_t* record_of[kMaxReplicas];
  size_t data_sizes[kMaxPodTasks] = {};
  for (unsigned t = 0, next = 0; t < num_tasks; ++t)
    for (unsigned r = 0; r < replicas; ++r)
      if (placement.task_of(r, 0) == t) {
        record_of[r] = reinterpret_cast<const int64_t*>(static_cast<const uint8_t*>(all_records.data) + next++ * record_bytes);
        data_sizes[t] += output_bytes(record_of[r]);
      }
  // 2. the bytes
  const Tensor data = RT_TRY(pod_byte_vector(data_sizes[placement.local_task], "this board's outputs"));
  size_t offset = 0;
  for (unsigned r = 0; r < replicas; ++r)
    if (placement.is_local(r, 0))
      for (unsigned k = 0; k < result.replicas[r].size(); ++k) {
        const Tensor& output = result.replicas[r][k];
        RT_RETURN_IF_ERROR(copy(output, Tensor::contiguous(output.dtype, output.shape,
                                                           static_cast<uint8_t*>(data.data) + offset)));
        offset += static_cast<size_t>(output.num_elements()) * dtype_size(output.dtype);
      }
  const Tensor all_data = RT_TRY(exchange_rows_between_boards(data, Span<const size_t>(data_sizes, num_tasks)));
  // The other boards' replicas' outputs, as tensors in pod memory.
  size_t at = 0;
  for (unsigned t = 0; t < num_tasks; ++t)
    for (unsigned r = 0; r < replicas; ++r) {
      if (placement.task_of(r, 0) != t) continue;
      const int64_t* record = record_of[r];
      for (int64_t k = 0; k < record[0]; ++k) {
        const int64_t* words = record + 1 + k * kWordsPerOutput;
        const DType type = static_cast<DType>(words[0]);
        const Shape shape = RT_TRY(Shape::make(Span<const int64_t>(words + 2, static_cast<size_t>(words[1]))));
        const size_t bytes = static_cast<size_t>(shape.num_elements()) * dtype_size(type);
        if (t != placement.local_task) {
          const Tensor copy_of = RT_TRY(hbm().allocate_tensor(type, shape, "another board's replica output"));
          memcpy(copy_of.data, static_cast<const uint8_t*>(all_data.data) + at, bytes);
          RT_RETURN_IF_ERROR(result.replicas[r].add(copy_of));
        }
        at += bytes;
      }
    }
  return Status::ok();
}

}  // namespace rt::tpu
