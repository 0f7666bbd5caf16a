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

Result<Dataset> Dataset::from_tensor_slices(const Tensor& source) { return from_tensor_slices_of(Span<const Tensor>(&source, 1)); }

Result<Dataset> Dataset::from_tensor_slices_of(Span<const Tensor> sources) {
  if (sources.empty() || sources.size() > kMaxElementTensors)
    return invalid_argument("from_tensor_slices: 1 to {} source tensors, got {}", kMaxElementTensors, sources.size());
  Dataset dataset;
  dataset.source_kind_ = Source::kSlices;
  dataset.num_sources_ = static_cast<unsigned>(sources.size());
  for (unsigned k = 0; k < sources.size(); ++k) {
    if (sources[k].shape.rank == 0)
      return invalid_argument("from_tensor_slices: the source must have a dimension to slice, got a scalar");
    if (sources[k].shape.dims[0] != sources[0].shape.dims[0])  // TF's Dimension.assert_is_compatible_with
      return invalid_argument("Dimensions {} and {} are not compatible", sources[0].shape.dims[0],
                              sources[k].shape.dims[0]);
    dataset.sources_[k] = sources[k];
  }
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
  const int64_t n = sources_[0].shape.dims[0];
  return shard_index_ < n ? (n - shard_index_ + num_shards_ - 1) / num_shards_ : 0;
}

Tensor Dataset::sharded_source(unsigned k) const {
  const Tensor& source = sources_[k];
  Tensor view = rows_of(source, 0, rows());
  if (rows() > 0) view.data = row_of(source, shard_index_).data;
  view.strides[0] = source.strides[0] * num_shards_;
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
  Tensor tensor;
  RT_RETURN_IF_ERROR(element(index, Span<Tensor>(&tensor, 1)));
  return tensor;
}

Status Dataset::element(int64_t index, Span<Tensor> tensors) const {
  if (tensors.size() != num_sources_)
    return invalid_argument("the dataset's elements hold {} tensors, asked for {} (a structure's elements come "
                            "with get_next<S>() or element(index, tensors))",
                            num_sources_, tensors.size());
  if (index < 0 || index >= cardinality()) return end_of_sequence();
  if (source_kind_ == Source::kElements) {
    tensors[0] = elements_[static_cast<size_t>(index)];
    return Status::ok();
  }
  const int64_t begin = index * batch_size_;
  const int64_t end = begin + batch_size_ < rows() ? begin + batch_size_ : rows();
  for (unsigned k = 0; k < num_sources_; ++k) {
    const Tensor source = sharded_source(k);
    tensors[k] = batched() ? rows_of(source, begin, end) : row_of(source, index);
  }
  return Status::ok();
}

Result<DistributedDataset> DistributedDataset::split_batches(const Dataset& dataset, unsigned num_replicas) {
  if (dataset.cardinality() > 0) {
    Tensor first[kMaxElementTensors];
    RT_RETURN_IF_ERROR(dataset.element(0, Span<Tensor>(first, dataset.element_tensors())));
    for (unsigned k = 0; k < dataset.element_tensors(); ++k)
      if (first[k].shape.rank == 0) return unbatched_error(num_replicas);
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
  Tensor tensor;
  RT_RETURN_IF_ERROR(element(step, replica, Span<Tensor>(&tensor, 1)));
  return tensor;
}

Status DistributedDataset::element(int64_t step, unsigned replica, Span<Tensor> tensors) const {
  if (step < 0 || step >= num_steps() || replica >= num_replicas_) return end_of_sequence();
  const unsigned per_host = num_replicas_ / num_hosts_;  // a host's replicas: host * per_host + j
  if (!split_) return dataset_.element(step * per_host + replica % per_host, tensors);
  RT_RETURN_IF_ERROR(dataset_.element(step, tensors));
  for (Tensor& batch : tensors) {
    if (batch.shape.rank == 0) return unbatched_error(num_replicas_);
    const BatchSlice slice = replica_batch_slice(batch.shape.dims[0], num_replicas_, replica);
    batch = rows_of(batch, slice.offset, slice.offset + slice.size);
  }
  return Status::ok();
}

Result<DistributedValue> DistributedIterator::get_next() {
  DistributedValue value;
  RT_RETURN_IF_ERROR(get_next_into(Span<DistributedValue>(&value, 1), "Tensor"));
  return value;
}

Status DistributedIterator::get_next_into(Span<DistributedValue> leaves, StringView structure) {
  const unsigned tensors = dataset_->element_tensors();
  if (leaves.size() != tensors)
    return invalid_argument("the dataset's elements hold {} tensors, but {} has {}", tensors, structure, leaves.size());
  if (!has_next()) return end_of_sequence();
  const unsigned replicas = dataset_->num_replicas();
  Tensor element[kMaxElementTensors];
  for (unsigned r = 0; r < replicas; ++r) {
    RT_RETURN_IF_ERROR(dataset_->element(position_, r, Span<Tensor>(element, tensors)));
    for (unsigned k = 0; k < tensors; ++k) {
      if (r == 0) leaves[k] = replicas == 1 ? DistributedValue::plain(element[k]) : DistributedValue::per_replica_of(replicas);
      if (replicas > 1) leaves[k].set_component(r, element[k]);
    }
  }
  ++position_;
  return Status::ok();
}

Status DistributedIterator::advance(int64_t steps) {
  if (steps < 0 || position_ + steps > dataset_->num_steps()) return end_of_sequence();
  position_ += steps;
  return Status::ok();
}

}  // namespace rt::tpu
