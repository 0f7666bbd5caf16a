// Datasets as tensor views, the per-replica split of global batches, InputContext and iterators.
#include "strategy_input.hpp"

namespace rt::tpu {
namespace {

// Row `row` of `t` (rank >= 1) as a view of rank - 1.
Tensor row_of(const Tensor& t, int64_t row) {
  Tensor out;
  out.dtype = t.dtype;
  out.shape.rank = static_cast<uint8_t>(t.shape.rank - 1);
  for (unsigned d = 1; d < t.shape.rank; ++d) {
    out.shape.dims[d - 1] = t.shape.dims[d];
    out.shape.real[d - 1] = t.shape.real[d];
    out.strides[d - 1] = t.strides[d];
  }
  out.data = t.data + row * t.strides[0] * static_cast<int64_t>(t.element_size());
  return out;
}

// Rows [begin, end) of `t` along dimension 0 (an empty range keeps the data pointer).
Tensor rows_of(const Tensor& t, int64_t begin, int64_t end) {
  Tensor out = t;
  out.shape.dims[0] = out.shape.real[0] = end - begin;
  if (end > begin) out.data = t.data + begin * t.strides[0] * static_cast<int64_t>(t.element_size());
  return out;
}

Status unbatched_error(unsigned num_replicas) {
  return invalid_argument("Call the `batch` method on the input Dataset in order to be able to split your input across "
                          "{} replicas.\n Please see the tf.distribute.Strategy guide. Reached a source dataset: "
                          "TensorSliceDataset without encountering a batch transformation.",
                          num_replicas);
}

}  // namespace

Status end_of_sequence() { return Status::error(StatusCode::kOutOfRange, "End of sequence"); }

Result<int64_t> InputContext::get_per_replica_batch_size(int64_t global_batch_size) const {
  if (num_replicas_in_sync == 0 || global_batch_size % num_replicas_in_sync != 0)
    return invalid_argument("The `global_batch_size` {} is not divisible by `num_replicas_in_sync` {} ",
                            global_batch_size, num_replicas_in_sync);
  return global_batch_size / num_replicas_in_sync;
}

BatchSlice replica_batch_slice(int64_t global_batch_size, unsigned num_replicas, unsigned replica) {
  const int64_t floor = global_batch_size / num_replicas;
  const int64_t num_ceil = global_batch_size % num_replicas;  // the first num_ceil replicas get floor + 1
  const int64_t r = replica;
  BatchSlice slice;
  slice.size = floor + (r < num_ceil ? 1 : 0);
  slice.offset = r * floor + (r < num_ceil ? r : num_ceil);
  return slice;
}

Result<Dataset> Dataset::from_tensor_slices(const Tensor& source) {
  if (source.shape.rank == 0)
    return invalid_argument("from_tensor_slices: the source must have a dimension to slice, got a scalar");
  Dataset dataset;
  dataset.source_kind_ = Source::kSlices;
  dataset.source_ = source;
  return dataset;
}

Dataset Dataset::from_elements(Span<const Tensor> elements) {
  Dataset dataset;
  dataset.source_kind_ = Source::kElements;
  dataset.elements_ = elements;
  return dataset;
}

Result<Dataset> Dataset::shard(unsigned num_shards, unsigned index) const {
  if (source_kind_ != Source::kSlices || batched() || num_shards_ != 1)
    return Status::error(StatusCode::kUnimplemented,
                         "shard: only a from_tensor_slices dataset can be sharded here, once and before batch");
  if (num_shards == 0 || index >= num_shards)
    return invalid_argument("shard: index {} must be in [0, num_shards = {})", index, num_shards);
  Dataset sharded = *this;
  sharded.num_shards_ = num_shards;
  sharded.shard_index_ = index;
  return sharded;
}

Result<Dataset> Dataset::batch(int64_t batch_size, bool drop_remainder) const {
  if (source_kind_ != Source::kSlices || batched())
    return Status::error(StatusCode::kUnimplemented,
                         "batch: only a from_tensor_slices dataset can be batched here, once");
  if (batch_size <= 0) return invalid_argument("batch_size must be greater than zero, got {}", batch_size);
  Dataset batched_dataset = *this;
  batched_dataset.batch_size_ = batch_size;
  batched_dataset.drop_remainder_ = drop_remainder;
  return batched_dataset;
}

int64_t Dataset::rows() const {
  const int64_t n = source_.shape.dims[0];
  return shard_index_ < n ? (n - shard_index_ + num_shards_ - 1) / num_shards_ : 0;
}

Tensor Dataset::sharded_source() const {
  Tensor view = rows_of(source_, 0, rows());
  if (rows() > 0) view.data = row_of(source_, shard_index_).data;
  view.strides[0] = source_.strides[0] * num_shards_;
  return view;
}

int64_t Dataset::cardinality() const {
  switch (source_kind_) {
    case Source::kNone: return 0;
    case Source::kElements: return static_cast<int64_t>(elements_.size());
    case Source::kSlices:
      if (!batched()) return rows();
      return drop_remainder_ ? rows() / batch_size_ : (rows() + batch_size_ - 1) / batch_size_;
  }
  return 0;
}

Result<Tensor> Dataset::element(int64_t index) const {
  if (index < 0 || index >= cardinality()) return end_of_sequence();
  if (source_kind_ == Source::kElements) return elements_[static_cast<size_t>(index)];
  const Tensor source = sharded_source();
  if (!batched()) return row_of(source, index);
  const int64_t begin = index * batch_size_;
  const int64_t end = begin + batch_size_ < rows() ? begin + batch_size_ : rows();
  return rows_of(source, begin, end);
}

Result<DistributedDataset> DistributedDataset::split_batches(const Dataset& dataset, unsigned num_replicas) {
  if (dataset.cardinality() > 0) {
    Result<Tensor> first = dataset.element(0);
    if (!first) return first.status();
    if (first->shape.rank == 0) return unbatched_error(num_replicas);
  }
  DistributedDataset distributed;
  distributed.dataset_ = dataset;
  distributed.num_replicas_ = num_replicas;
  distributed.split_ = true;
  return distributed;
}

DistributedDataset DistributedDataset::per_replica_elements(const Dataset& pipeline, unsigned num_replicas) {
  DistributedDataset distributed;
  distributed.dataset_ = pipeline;
  distributed.num_replicas_ = num_replicas;
  distributed.split_ = false;
  return distributed;
}

Result<DistributedDataset> DistributedDataset::per_host_elements(const Dataset& pipeline, unsigned num_replicas,
                                                                  unsigned num_hosts, unsigned host) {
  if (num_hosts == 0 || num_replicas % num_hosts != 0)
    return invalid_argument("tf.distribute expects every worker to have the same number of replicas. However, "
                            "encountered `num_replicas_in_sync` ({}) that cannot be divided by `num_workers` ({})",
                            num_replicas, num_hosts);
  DistributedDataset distributed = per_replica_elements(pipeline, num_replicas);
  distributed.num_hosts_ = num_hosts;
  distributed.host_ = host;
  return distributed;
}

int64_t DistributedDataset::host_steps() const {
  return split_ ? dataset_.cardinality() : dataset_.cardinality() / (num_replicas_ / num_hosts_);
}

int64_t DistributedDataset::num_steps() const { return pod_steps_ >= 0 ? pod_steps_ : host_steps(); }

Result<Tensor> DistributedDataset::element(int64_t step, unsigned replica) const {
  if (step < 0 || step >= num_steps() || replica >= num_replicas_) return end_of_sequence();
  const unsigned per_host = num_replicas_ / num_hosts_;  // a host's replicas: host * per_host + j
  if (!split_) return dataset_.element(step * per_host + replica % per_host);
  Result<Tensor> batch = dataset_.element(step);
  if (!batch) return batch;
  if (batch->shape.rank == 0) return unbatched_error(num_replicas_);
  const BatchSlice slice = replica_batch_slice(batch->shape.dims[0], num_replicas_, replica);
  return rows_of(*batch, slice.offset, slice.offset + slice.size);
}

Result<DistributedValue> DistributedIterator::get_next() {
  if (!has_next()) return end_of_sequence();
  Tensor components[kMaxReplicas];
  for (unsigned r = 0; r < dataset_->num_replicas(); ++r) {
    Result<Tensor> element = dataset_->element(position_, r);
    if (!element) return element.status();
    components[r] = *element;
  }
  ++position_;
  return DistributedValue::regroup(Span<const Tensor>(components, dataset_->num_replicas()));
}

Status DistributedIterator::advance(int64_t steps) {
  if (steps < 0 || position_ + steps > dataset_->num_steps()) return end_of_sequence();
  position_ += steps;
  return Status::ok();
}

}  // namespace rt::tpu
