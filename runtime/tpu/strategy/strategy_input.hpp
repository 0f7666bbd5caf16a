// TPUStrategy's input side, pure (no HAL): host-side datasets, how a global batch is split over the
// replicas, InputContext, and distributed datasets with their iterators (TF's tf.data +
// tf.distribute input_lib, reduced to what a board needs: a dataset is a sequence of elements, each
// a tensor or a structure of tensors).
//
// Dataset: from_tensor_slices(source) (elements are source's rows; with a structure of sources, such
// as TF's from_tensor_slices((images, labels)), an element is the structure of their rows, and every
// source must have the same number of rows: "Dimensions 3 and 4 are not compatible"), optionally shard(n, i) (rows i,
// i + n, i + 2n, ... as a strided view) then batch(B, drop_remainder) (element k = rows [kB, kB + B),
// the last one shorter unless drop_remainder); or from_elements(list) (e.g. the global batches of an
// array). Elements are views: nothing is copied.
//
// experimental_distribute_dataset (DistributedDataset::split_batches): every element is a global
// batch [B, ...]; replica r of the step gets rows [offset_r, offset_r + size_r) along dimension 0,
// sizes [floor + 1] * (B mod N) + [floor] * (N - B mod N), floor = B / N (TF's
// batch_sizes_for_worker with one worker; replicas of a batch smaller than N get empty slices).
// Elements of rank 0 have no batch dimension to split: TF's error
//   "Call the `batch` method on the input Dataset in order to be able to split your input across
//    8 replicas.\n Please see the tf.distribute.Strategy guide. Reached a source dataset:
//    TensorSliceDataset without encountering a batch transformation."
// distribute_datasets_from_function (DistributedDataset::per_replica_elements): the board is one
// host, so one input pipeline (InputContext{1, 0, N}); its elements are per-replica batches and go to
// the replicas in turn: step s, replica r gets element s * N + r; a step exists only if every replica
// has an element. In a pod of K boards each board is a host with its own pipeline
// (InputContext{K, task, N}), feeding its own R = N / K replicas (replicas task*R .. task*R + R - 1,
// the default placement): step s, local replica j gets element s * R + j; the pod's step count is the
// smallest of every board's (agreed before the first step), and TF's error when N % K != 0:
//   "tf.distribute expects every worker to have the same number of replicas. However, encountered
//    `num_replicas_in_sync` (N) that cannot be divided by `num_workers` (K)"
// A replica of another board reads its value there; here its component is a stand-in of the same
// shape (the local replica j's), which replicate never reads.
// InputContext::get_per_replica_batch_size(B) = B / N, else TF's error (with its trailing space):
//   "The `global_batch_size` 10 is not divisible by `num_replicas_in_sync` 4 "
// Iterators: get_next() gives one step's values (regrouped: a plain tensor with one replica) and
// "End of sequence" (OUT_OF_RANGE) at the end; get_next<S>() the step's structure S (PerReplica<S>,
// its leaves in pod memory) for datasets whose elements are structures.
#pragma once
#include "distributed_value.hpp"
#include "per_replica.hpp"

namespace rt::tpu {

// The most tensors in one dataset element (a structure's leaves).
inline constexpr unsigned kMaxElementTensors = 8;

// tf.distribute.InputContext.
struct InputContext {
  unsigned num_input_pipelines = 1;
  unsigned input_pipeline_id = 0;
  unsigned num_replicas_in_sync = 1;

  Result<int64_t> get_per_replica_batch_size(int64_t global_batch_size) const;
};

// Rows [offset, offset + size) of a global batch.
struct BatchSlice {
  int64_t offset = 0;
  int64_t size = 0;
};
// Replica `replica`'s part of a global batch of `global_batch_size` rows split over `num_replicas`.
BatchSlice replica_batch_slice(int64_t global_batch_size, unsigned num_replicas, unsigned replica);

class Dataset {
 public:
  Dataset() = default;  // empty
  // Elements are the rows of `source` (rank >= 1).
  static Result<Dataset> from_tensor_slices(const Tensor& source);
  // Elements are structures S of the sources' rows (TF's from_tensor_slices((x, y))).
  template <class S>
    requires(nest::is_structure_v<S> && !nest::is_leaf_v<S>)
  static Result<Dataset> from_tensor_slices(const S& sources) {
    static_assert(nest::leaf_count_v<S> <= kMaxElementTensors, "a dataset element holds at most kMaxElementTensors tensors");
    return from_tensor_slices_of(nest::flatten(sources).span());
  }
  // The same from the structure's leaves, in flatten order.
  static Result<Dataset> from_tensor_slices_of(Span<const Tensor> sources);
  // Elements are the given tensors; the list must outlive the dataset.
  static Dataset from_elements(Span<const Tensor> elements);
  // Slices datasets only, shard before batch (the usual input-pipeline order).
  Result<Dataset> shard(unsigned num_shards, unsigned index) const;
  Result<Dataset> batch(int64_t batch_size, bool drop_remainder = false) const;

  int64_t cardinality() const;
  // The tensors of one element: 1, or a structure's leaves.
  unsigned element_tensors() const { return num_sources_; }
  // Element `index` of a dataset of single tensors (an error for structures: use the form below).
  Result<Tensor> element(int64_t index) const;
  // Element `index`'s tensors into `tensors` (element_tensors() of them).
  Status element(int64_t index, Span<Tensor> tensors) const;
  bool batched() const { return batch_size_ > 0; }

 private:
  enum class Source : uint8_t { kNone, kSlices, kElements };
  int64_t rows() const;  // rows of the (sharded) sources
  Tensor sharded_source(unsigned k) const;

  Source source_kind_ = Source::kNone;
  Tensor sources_[kMaxElementTensors];
  unsigned num_sources_ = 1;
  Span<const Tensor> elements_;
  unsigned num_shards_ = 1;
  unsigned shard_index_ = 0;
  int64_t batch_size_ = 0;
  bool drop_remainder_ = false;
};

class DistributedDataset {
 public:
  DistributedDataset() = default;
  // experimental_distribute_dataset: elements are global batches, split over the replicas.
  static Result<DistributedDataset> split_batches(const Dataset& dataset, unsigned num_replicas);
  // distribute_datasets_from_function's dataset for the board's one input pipeline; in a pod, the
  // pipeline of host `host` of `num_hosts`, whose boards agreed on `pod_steps` steps.
  static DistributedDataset per_replica_elements(const Dataset& pipeline, unsigned num_replicas);
  static Result<DistributedDataset> per_host_elements(const Dataset& pipeline, unsigned num_replicas,
                                                      unsigned num_hosts, unsigned host);
  // The steps this host's pipeline has for its replicas (before the pod's agreement), and the agreement.
  int64_t host_steps() const;
  void agree_on_steps(int64_t pod_steps) { pod_steps_ = pod_steps; }

  unsigned num_replicas() const { return num_replicas_; }
  int64_t num_steps() const;
  unsigned element_tensors() const { return dataset_.element_tensors(); }
  // Replica `replica`'s value at step `step` (a view), for elements of one tensor.
  Result<Tensor> element(int64_t step, unsigned replica) const;
  // Its tensors (element_tensors() of them: a structure's leaves).
  Status element(int64_t step, unsigned replica, Span<Tensor> tensors) const;

 private:
  Dataset dataset_;
  unsigned num_replicas_ = 1;
  bool split_ = false;  // true: split global batches; false: consecutive elements per replica
  unsigned num_hosts_ = 1;
  unsigned host_ = 0;
  int64_t pod_steps_ = -1;  // a pod's agreed step count (-1: not a pod)
};

// iter(distributed_dataset); the dataset must outlive the iterator.
class DistributedIterator {
 public:
  explicit DistributedIterator(const DistributedDataset& dataset) : dataset_(&dataset) {}
  // It refers to the dataset, which must outlive it: a temporary dataset is refused at compile time.
  explicit DistributedIterator(const DistributedDataset&& dataset) = delete;

  bool has_next() const { return position_ < dataset_->num_steps(); }
  // The next step's values: replica r's element as component r (a plain value with one replica).
  Result<DistributedValue> get_next();
  // The next step's structure S (elements that are structures): each leaf's replica values, regrouped.
  template <class S>
  Result<PerReplica<S>> get_next() {
    DistributedValue* leaves = RT_TRY(allocate_distributed_values(nest::leaf_count_v<S>));
    RT_RETURN_IF_ERROR(get_next_into(Span<DistributedValue>(leaves, nest::leaf_count_v<S>), nest::structure_text<S>().view()));
    return PerReplica<S>(leaves);
  }
  // The next step's element tensors into `leaves` (a structure `structure` of that many tensors).
  Status get_next_into(Span<DistributedValue> leaves, StringView structure);
  // Consumes `steps` steps (run_steps_on_dataset ran them on the device); "End of sequence" if fewer remain.
  Status advance(int64_t steps);
  // v1's InputIterator.initialize(): back to the first step (TF re-initializes the iterator: eagerly
  // it resets it). Nothing to run afterwards: OK.
  Status initialize() {
    position_ = 0;
    return Status::ok();
  }
  int64_t position() const { return position_; }
  const DistributedDataset& dataset() const { return *dataset_; }

 private:
  const DistributedDataset* dataset_;
  int64_t position_ = 0;
};

// TF's OutOfRangeError at the end of a dataset: "End of sequence".
Status end_of_sequence();

// distribute_datasets_from_function's function, called once per input pipeline.
using DatasetFunction = InplaceFunction<Result<Dataset>(const InputContext& context)>;
// r1.12's distribute_dataset(dataset_fn): dataset_fn takes nothing.
using DatasetFactory = InplaceFunction<Result<Dataset>()>;

}  // namespace rt::tpu
