// Sharding algebra (runtime/tpu/spmd/sharding_algebra.cpp) and partially replicated tilings
// (runtime/tpu/spmd/logical_devices.cpp): the result shardings of reductions, matmuls and
// convolutions over an operand's device grid, and the replica groups of the all-reduces that combine
// partial results along grid dimensions, written out by hand for small grids.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "runtime/tpu/spmd/sharding_algebra.hpp"

namespace {

using rt::tpu::Sharding;
using rt::tpu::ShardingKind;
using Dims = std::vector<int64_t>;
using Groups = std::vector<std::vector<uint32_t>>;

rt::Span<const int64_t> span(const Dims& dims) { return rt::Span<const int64_t>(dims.data(), dims.size()); }

Sharding tiled(const Dims& shape, const Dims& partition, unsigned devices) {
  return *rt::tpu::tile_sharding(*rt::Shape::make(span(shape)), span(partition), devices);
}

Groups groups_of(const rt::tpu::GridGroups& groups) {
  const rt::GroupAssignment& a = groups.assignment();
  Groups result(a.num_groups);
  for (unsigned g = 0; g < a.num_groups; ++g) result[g].assign(a.ids + g * a.group_size, a.ids + (g + 1) * a.group_size);
  return result;
}

std::string text(const Sharding& sharding) { return std::string(rt::tpu::sharding_text(sharding).view().data()); }

}  // namespace

TEST_CASE("grid groups: devices differing only along the chosen grid dimensions, ascending", "[sharding_algebra]") {
  const Sharding grid = tiled({4, 8}, {2, 4}, 8);  // [[0, 1, 2, 3], [4, 5, 6, 7]]
  CHECK(groups_of(rt::tpu::GridGroups(grid, 0b10)) == Groups{{0, 1, 2, 3}, {4, 5, 6, 7}});
  CHECK(groups_of(rt::tpu::GridGroups(grid, 0b01)) == Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  CHECK(groups_of(rt::tpu::GridGroups(grid, 0b11)) == Groups{{0, 1, 2, 3, 4, 5, 6, 7}});
  const Sharding cube = tiled({2, 2, 2}, {2, 2, 2}, 8);
  CHECK(groups_of(rt::tpu::GridGroups(cube, 0b101)) == Groups{{0, 1, 4, 5}, {2, 3, 6, 7}});
  const bool rows[] = {true, false};
  CHECK(rt::tpu::grid_mask_of(grid, rows) == 0b01);
  CHECK(rt::tpu::GridGroups(tiled({4}, {1}, 1), 0b1).assignment().is_default());  // one device
}

TEST_CASE("a reduction's result: reduced split dimensions become replication", "[sharding_algebra]") {
  const Sharding grid = tiled({4, 8}, {2, 4}, 8);
  const bool over_columns[] = {false, true};
  const Sharding rows = rt::tpu::without_dims(grid, over_columns, false);  // [4] tiled [2], 4 copies each
  REQUIRE(rows.kind == ShardingKind::kTiled);
  CHECK(rows.rank == 1);
  CHECK(rows.partitions[0] == 2);
  CHECK(rows.replication() == 4);
  CHECK(text(rows) == "tiled [2] over 8 logical devices, each tile on 4 of them");
  int64_t tile[rt::kMaxRank];
  for (unsigned device = 0; device < 8; ++device) {
    rows.tile_of(device, tile);
    CHECK(tile[0] == device / 4);
  }
  const bool over_rows[] = {true, false};
  const Sharding columns = rt::tpu::without_dims(grid, over_rows, true);  // [1, 8] tiled [1, 4], 2 copies each
  CHECK(columns.rank == 2);
  CHECK(columns.partitions[0] == 1);
  CHECK(columns.partitions[1] == 4);
  for (unsigned device = 0; device < 8; ++device) {
    columns.tile_of(device, tile);
    CHECK(tile[1] == device % 4);
  }
  CHECK(columns.device_at(tile) == 3);  // the lowest device holding column tile 3
  CHECK(columns.device_stride(1) == 1);
  const bool both[] = {true, true};
  CHECK(rt::tpu::without_dims(grid, both, false).kind == ShardingKind::kReplicated);
  CHECK(!(rows == rt::tpu::without_dims(grid, over_rows, false)));  // same partitions, other grid dimension
}

TEST_CASE("results over an operand's grid (matmul, conv2d)", "[sharding_algebra]") {
  const Sharding a = tiled({4, 6}, {2, 2}, 4);  // A [M, K] tiled rows x K
  const int8_t rows_only[] = {a.grid_dim[0], Sharding::kNoGridDim};
  const Sharding c = rt::tpu::on_grid(a, 2, rows_only);
  CHECK(c.partitions[0] == 2);
  CHECK(c.partitions[1] == 1);
  CHECK(c.replication() == 2);
  const int8_t none[] = {Sharding::kNoGridDim, Sharding::kNoGridDim};
  CHECK(rt::tpu::on_grid(a, 2, none).kind == ShardingKind::kReplicated);
  CHECK(tiled({8, 4}, {8, 1}, 8) == tiled({8, 4}, {8, 1}, 8));
}
