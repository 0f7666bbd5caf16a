// TPUStrategy's input side (runtime/tpu/strategy_input): the per-replica split of global batches,
// InputContext, datasets as views (from_tensor_slices, shard, batch, element lists), distributed
// datasets and iterators, and TF's texts. Expected values are hand-computed.
#include <catch2/catch.hpp>

#include "tensor_test_helpers.hpp"

#include <cstring>
#include <vector>

#include "runtime/tpu/strategy/strategy_input.hpp"

namespace {

using rt::Tensor;
using rt::tpu::BatchSlice;
using rt::tpu::Dataset;
using rt::tpu::DistributedDataset;
using test_helpers::message;
using test_helpers::shape_of;

std::vector<int64_t> sizes(int64_t batch, unsigned replicas) {
  std::vector<int64_t> out;
  int64_t next_offset = 0;
  for (unsigned r = 0; r < replicas; ++r) {
    const BatchSlice slice = rt::tpu::replica_batch_slice(batch, replicas, r);
    CHECK(slice.offset == next_offset);
    next_offset += slice.size;
    out.push_back(slice.size);
  }
  CHECK(next_offset == batch);
  return out;
}

// Row-major [rows, cols] int32 tensor holding 0, 1, 2, ...
struct Counting {
  std::vector<int32_t> values;
  Tensor tensor;
  Counting(int64_t rows, int64_t cols) : values(static_cast<size_t>(rows * cols)) {
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int32_t>(i);
    tensor = Tensor::contiguous(rt::DType::kI32, shape_of({rows, cols}), values.data());
  }
};

// First column of every row of a [rows, cols] view.
std::vector<int32_t> first_column(const Tensor& t) {
  std::vector<int32_t> out;
  for (int64_t row = 0; row < t.shape.dims[0]; ++row) {
    const int64_t index[] = {row, 0};
    int32_t value;
    std::memcpy(&value, t.at(rt::Span<const int64_t>(index, 2)), sizeof(value));
    out.push_back(value);
  }
  return out;
}

}  // namespace

TEST_CASE("a global batch is split [floor+1]*(B mod N) + [floor]*(N - B mod N)", "[strategy]") {
  CHECK(sizes(8, 4) == std::vector<int64_t>{2, 2, 2, 2});
  CHECK(sizes(10, 4) == std::vector<int64_t>{3, 3, 2, 2});
  CHECK(sizes(7, 3) == std::vector<int64_t>{3, 2, 2});
  CHECK(sizes(3, 8) == std::vector<int64_t>{1, 1, 1, 0, 0, 0, 0, 0});
  CHECK(sizes(5, 1) == std::vector<int64_t>{5});
  CHECK(sizes(0, 2) == std::vector<int64_t>{0, 0});
}

TEST_CASE("InputContext.get_per_replica_batch_size", "[strategy]") {
  const rt::tpu::InputContext context{1, 0, 4};
  CHECK(*context.get_per_replica_batch_size(16) == 4);
  auto bad = context.get_per_replica_batch_size(10);
  REQUIRE_FALSE(bad);
  CHECK(message(bad.status()) == "The `global_batch_size` 10 is not divisible by `num_replicas_in_sync` 4 ");
}

TEST_CASE("datasets: from_tensor_slices, batch with and without remainder, shard", "[strategy]") {
  Counting source(10, 2);  // rows start with 0, 2, 4, ..., 18
  Dataset slices = *Dataset::from_tensor_slices(source.tensor);
  CHECK(slices.cardinality() == 10);
  CHECK(slices.element(3)->shape.rank == 1);
  Dataset batched = *slices.batch(4);
  CHECK(batched.cardinality() == 3);
  CHECK(first_column(*batched.element(2)) == std::vector<int32_t>{16, 18});
  CHECK(slices.batch(4, true)->cardinality() == 2);
  Dataset sharded = *slices.shard(3, 1)->batch(2);  // rows 1, 4, 7
  CHECK(sharded.cardinality() == 2);
  CHECK(first_column(*sharded.element(0)) == std::vector<int32_t>{2, 8});
  CHECK(first_column(*sharded.element(1)) == std::vector<int32_t>{14});
  auto end = batched.element(3);
  REQUIRE_FALSE(end);
  CHECK(end.status().code() == rt::StatusCode::kOutOfRange);
  CHECK(message(end.status()) == "End of sequence");
}

TEST_CASE("experimental_distribute_dataset splits each global batch, the last one too", "[strategy]") {
  Counting source(10, 1);
  Dataset batched = *Dataset::from_tensor_slices(source.tensor)->batch(7);  // batches of 7 and 3
  DistributedDataset distributed = *DistributedDataset::split_batches(batched, 3);
  CHECK(distributed.num_steps() == 2);
  CHECK(first_column(*distributed.element(0, 0)) == std::vector<int32_t>{0, 1, 2});
  CHECK(first_column(*distributed.element(0, 1)) == std::vector<int32_t>{3, 4});
  CHECK(first_column(*distributed.element(0, 2)) == std::vector<int32_t>{5, 6});
  CHECK(first_column(*distributed.element(1, 0)) == std::vector<int32_t>{7});
  CHECK(first_column(*distributed.element(1, 2)) == std::vector<int32_t>{9});
  rt::tpu::DistributedIterator iterator(distributed);
  auto step = iterator.get_next();
  REQUIRE(step);
  CHECK(step->kind() == rt::tpu::ValueKind::kPerReplica);
  CHECK(step->num_components() == 3);
  CHECK(iterator.get_next());
  CHECK_FALSE(iterator.has_next());
  CHECK(message(iterator.get_next().status()) == "End of sequence");
}

TEST_CASE("one replica gets plain values; unbatched datasets are refused", "[strategy]") {
  Counting source(4, 1);
  Dataset batched = *Dataset::from_tensor_slices(source.tensor)->batch(4);
  DistributedDataset one = *DistributedDataset::split_batches(batched, 1);
  rt::tpu::DistributedIterator iterator(one);
  CHECK(iterator.get_next()->kind() == rt::tpu::ValueKind::kPlain);

  int32_t scalars[3] = {1, 2, 3};
  Tensor elements[3];
  for (int i = 0; i < 3; ++i) elements[i] = Tensor::contiguous(rt::DType::kI32, rt::Shape{}, &scalars[i]);
  auto unbatched = DistributedDataset::split_batches(Dataset::from_elements(elements), 8);
  REQUIRE_FALSE(unbatched);
  CHECK(message(unbatched.status()) ==
        "Call the `batch` method on the input Dataset in order to be able to split your input across 8 replicas.\n "
        "Please see the tf.distribute.Strategy guide. Reached a source dataset: TensorSliceDataset without "
        "encountering a batch transformation.");
  int32_t flat[4] = {1, 2, 3, 4};
  const Tensor vector = Tensor::contiguous(rt::DType::kI32, shape_of({4}), flat);
  auto rows = DistributedDataset::split_batches(*Dataset::from_tensor_slices(vector), 2);
  REQUIRE_FALSE(rows);  // a [4] source's elements are scalars
  CHECK(DistributedDataset::split_batches(*Dataset::from_tensor_slices(vector)->batch(2), 2));
}

TEST_CASE("datasets from a function: consecutive elements go to consecutive replicas", "[strategy]") {
  Counting source(10, 1);
  Dataset per_replica = *Dataset::from_tensor_slices(source.tensor)->batch(1);
  DistributedDataset distributed = DistributedDataset::per_replica_elements(per_replica, 4);
  CHECK(distributed.num_steps() == 2);  // 10 elements: 2 full steps of 4
  CHECK(first_column(*distributed.element(1, 2)) == std::vector<int32_t>{6});
  rt::tpu::DistributedIterator iterator(distributed);
  CHECK(iterator.advance(2).is_ok());
  CHECK(iterator.advance(1).code() == rt::StatusCode::kOutOfRange);
}

TEST_CASE("a pod's host pipelines feed their own replicas; the pod agrees on the steps", "[strategy][pod]") {
  // Host 1 of 2, 8 replicas: its replicas are 4..7 (R = 4); step s, local replica j gets element 4 s + j.
  Counting source(14, 1);
  Dataset pipeline = *Dataset::from_tensor_slices(source.tensor)->batch(1);
  DistributedDataset host = *DistributedDataset::per_host_elements(pipeline, 8, 2, 1);
  CHECK(host.host_steps() == 3);  // 14 elements: 3 full steps of 4
  CHECK(first_column(*host.element(1, 6)) == std::vector<int32_t>{6});   // 4 * 1 + 2
  CHECK(first_column(*host.element(2, 4)) == std::vector<int32_t>{8});   // 4 * 2 + 0
  host.agree_on_steps(2);  // another host had fewer
  CHECK(host.num_steps() == 2);
  CHECK(host.element(2, 4).status().code() == rt::StatusCode::kOutOfRange);
  CHECK(message(DistributedDataset::per_host_elements(pipeline, 6, 4, 0).status()) ==
        "tf.distribute expects every worker to have the same number of replicas. However, encountered "
        "`num_replicas_in_sync` (6) that cannot be divided by `num_workers` (4)");
}

TEST_CASE("from_tensor_slices of a structure slices every source together", "[strategy]") {
  Counting images(6, 2), labels(6, 1);
  struct Example {
    Tensor image, label;
  };
  const Dataset slices = *Dataset::from_tensor_slices(Example{images.tensor, labels.tensor});
  CHECK(slices.element_tensors() == 2);
  CHECK(slices.cardinality() == 6);
  Tensor element[2];
  REQUIRE(slices.element(4, rt::Span<Tensor>(element, 2)).is_ok());
  CHECK(*reinterpret_cast<const int32_t*>(element[0].data) == 8);  // images row 4: [8, 9]
  CHECK(*reinterpret_cast<const int32_t*>(element[1].data) == 4);  // labels row 4: [4]
  const Dataset batched = *slices.batch(4);
  REQUIRE(batched.element(1, rt::Span<Tensor>(element, 2)).is_ok());
  CHECK(first_column(element[0]) == std::vector<int32_t>{8, 10});
  CHECK(first_column(element[1]) == std::vector<int32_t>{4, 5});
  // Split over 2 replicas: global batch 0 is rows 0..3, replica 1 gets rows 2, 3 of both sources.
  const DistributedDataset distributed = *DistributedDataset::split_batches(batched, 2);
  REQUIRE(distributed.element(0, 1, rt::Span<Tensor>(element, 2)).is_ok());
  CHECK(first_column(element[0]) == std::vector<int32_t>{4, 6});
  CHECK(first_column(element[1]) == std::vector<int32_t>{2, 3});
  // Asking a structured dataset for one tensor names the count.
  auto single = slices.element(0);
  REQUIRE_FALSE(single);
  CHECK(message(single.status()) ==
        "the dataset's elements hold 2 tensors, asked for 1 (a structure's elements come with get_next<S>() or "
        "element(index, tensors))");
}

TEST_CASE("from_tensor_slices of sources with different row counts is TF's incompatible dimensions", "[strategy]") {
  Counting images(6, 2), labels(5, 1);
  const Tensor sources[] = {images.tensor, labels.tensor};
  auto bad = Dataset::from_tensor_slices_of(rt::Span<const Tensor>(sources, 2));
  REQUIRE_FALSE(bad);
  CHECK(message(bad.status()) == "Dimensions 6 and 5 are not compatible");
}
