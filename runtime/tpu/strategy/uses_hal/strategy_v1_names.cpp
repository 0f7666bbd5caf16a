// The r1.12 / v1 input names of TPUStrategy that keep a dataset (strategy.hpp): distribute_dataset,
// make_dataset_iterator, make_input_fn_iterator (the distributed dataset in pod memory) and
// experimental_make_numpy_dataset (a copy of the array in the program's memory).
#include "hal/support/new.hpp"
#include "runtime/ops/copy.hpp"
#include "runtime/tensor/hbm.hpp"
#include "runtime/tpu/strategy/strategy.hpp"

namespace rt::tpu {
namespace {

// An iterator over a copy of `dataset` kept in the calling core's arena (freed with its pod memory).
Result<DistributedIterator> iterator_in_pod_memory(const DistributedDataset& dataset) {
  uint8_t* memory = RT_TRY(hbm().allocate(sizeof(DistributedDataset), alignof(DistributedDataset), "an input iterator"));
  const DistributedDataset* kept = new (memory) DistributedDataset(dataset);
  return DistributedIterator(*kept);
}

}  // namespace

Result<DistributedDataset> TPUStrategy::distribute_dataset(const DatasetFactory& dataset_fn) const {
  return distribute_datasets_from_function([&dataset_fn](const InputContext&) { return dataset_fn(); });
}

Result<DistributedIterator> TPUStrategy::make_dataset_iterator(const Dataset& dataset) const {
  return iterator_in_pod_memory(RT_TRY(experimental_distribute_dataset(dataset)));
}

Result<DistributedIterator> TPUStrategy::make_input_fn_iterator(const DatasetFunction& input_fn,
                                                                InputReplicationMode replication_mode) const {
  RT_RETURN_IF_ERROR(check_input_fn_replication_mode(replication_mode));
  return iterator_in_pod_memory(RT_TRY(distribute_datasets_from_function(input_fn)));
}

Result<Dataset> TPUStrategy::experimental_make_numpy_dataset(const Tensor& numpy_input) const {
  const Tensor kept = RT_TRY(hbm().allocate_tensor(numpy_input.dtype, numpy_input.shape, "a numpy dataset"));
  RT_RETURN_IF_ERROR(copy(numpy_input, kept));
  return Dataset::from_tensor_slices(kept);
}

}  // namespace rt::tpu
