// Model parallelism's HAL-free parts:
//  - Sharding (runtime/tpu/spmd/logical_devices.cpp): TF's experimental_split_to_logical_devices checks
//    word for word and in TF's order, the assign_to_logical_device text, the row-major device layout
//    over the partition grid, shard views;
//  - PodPlacement (runtime/tpu/mesh/pod_placement.cpp): replicas x logical cores from DeviceAssignment,
//    the core sets of cross-replica and intra-replica collectives, the default placement's text;
//  - HaloPlan (runtime/tpu/spmd/spmd_halo.cpp): every logical device's extended tile built by running the
//    plan's steps with a simulated collective_permute (all devices in one thread, zeros for devices
//    that are no target), then a VALID conv2d per tile; the tiles must equal the unsplit SAME conv2d
//    bit for bit, for several image shapes, partition grids and kernel sizes (odd and even).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "runtime/ops/conv2d.hpp"
#include "runtime/ops/copy.hpp"
#include "runtime/tpu/mesh/pod_placement.hpp"
#include "runtime/tpu/spmd/spmd_halo.hpp"

namespace {

using rt::tpu::Sharding;
using rt::tpu::ShardingKind;
using Dims = std::vector<int64_t>;

std::string text_of(const rt::Status& status) { return std::string(status.message().data(), status.message().size()); }

rt::Span<const int64_t> span(const Dims& dims) { return rt::Span<const int64_t>(dims.data(), dims.size()); }

rt::Shape shape_of(const Dims& dims) { return *rt::Shape::make(span(dims)); }

std::string split_error(const Dims& shape, const Dims& partition, unsigned devices) {
  rt::Result<Sharding> sharding = rt::tpu::tile_sharding(shape_of(shape), span(partition), devices);
  REQUIRE_FALSE(sharding.is_ok());
  CHECK(sharding.status().code() == rt::StatusCode::kInvalidArgument);
  return text_of(sharding.status());
}

struct Memory {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(64 << 20);
  rt::Arena arena{0, bytes.data(), bytes.size()};
};

rt::Tensor random_tensor(rt::Arena& arena, const Dims& dims, uint32_t seed) {
  rt::Tensor t = *arena.allocate_tensor(rt::DType::kF32, shape_of(dims), "test");
  float* values = reinterpret_cast<float*>(t.data);
  uint32_t state = seed * 2654435761u + 1;
  for (size_t i = 0; i < t.num_elements(); ++i) {
    state = state * 1664525u + 1013904223u;
    values[i] = static_cast<float>(static_cast<int32_t>(state >> 8) - (1 << 23)) / static_cast<float>(1 << 22);
  }
  return t;
}

}  // namespace

TEST_CASE("split_to_logical_devices checks in TF's order with TF's texts", "[logical_devices]") {
  CHECK(split_error({8, 4}, {1, 2, 4}, 8) ==
        "Length of `partition_dimensions` must equal to the rank of `tensor.shape` (2). Received "
        "len(partition_dimensions)=3.");
  // Divisibility comes before the product (4 * 3 = 12 is also wrong), dimension by dimension.
  CHECK(split_error({6, 15}, {4, 3}, 8) ==
        "Tensor shape at `partition_dimensions[0]` must be divisible by corresponding value specified by "
        "`partition_dimensions` (4). Received: 6.");
  CHECK(split_error({8, 15}, {2, 4}, 8) ==
        "Tensor shape at `partition_dimensions[1]` must be divisible by corresponding value specified by "
        "`partition_dimensions` (4). Received: 15.");
  CHECK(split_error({8, 16, 4}, {1, 2, 2}, 8) ==
        "The product of `partition_dimensions` should be the same as the number of logical devices (=8). Received "
        "`partition_dimensions`=[1, 2, 2],and their product is 4.");
  CHECK(split_error({}, {}, 2) ==
        "The product of `partition_dimensions` should be the same as the number of logical devices (=2). Received "
        "`partition_dimensions`=[],and their product is 1.0.");  // np.prod([]) is 1.0
  CHECK(split_error({8, 4}, {0, 1}, 8).find("`partition_dimensions[0]` is 0") == 0);
  CHECK(split_error({8, 4}, {-2, -4}, 8).find("`partition_dimensions` must be positive") == 0);
  REQUIRE(rt::tpu::tile_sharding(shape_of({2, 8, 16, 3}), span({1, 2, 4, 1}), 8).is_ok());
}

TEST_CASE("assign_to_logical_device's logical_core_id check", "[logical_devices]") {
  for (int64_t id : {int64_t{8}, int64_t{-1}, int64_t{100}}) {
    rt::Result<Sharding> sharding = rt::tpu::maximal_sharding(id, 8);
    REQUIRE_FALSE(sharding.is_ok());
    CHECK(text_of(sharding.status()) ==
          "`logical_core_id` to assign must be lower then total number of logical devices per replica. Received "
          "logical device id " + std::to_string(id) + " but there are only total of 8 logical devices in replica.");
  }
  Sharding on_three = *rt::tpu::maximal_sharding(3, 8);
  CHECK(on_three.kind == ShardingKind::kMaximal);
  CHECK(on_three.holds(3));
  CHECK_FALSE(on_three.holds(2));
  CHECK(std::string(rt::tpu::sharding_text(on_three).view().data()) == "maximal on logical device 3 of 8");
}

TEST_CASE("logical devices are laid out row-major over the partition grid", "[logical_devices]") {
  Sharding sharding = *rt::tpu::tile_sharding(shape_of({4, 8}), span({2, 4}), 8);  // [[0, 1, 2, 3], [4, 5, 6, 7]]
  for (unsigned device = 0; device < 8; ++device) {
    int64_t tile[rt::kMaxRank];
    sharding.tile_of(device, tile);
    CHECK(tile[0] == device / 4);
    CHECK(tile[1] == device % 4);
    CHECK(sharding.device_at(tile) == device);
  }
  CHECK(sharding.device_stride(0) == 4);
  CHECK(sharding.device_stride(1) == 1);
  Memory memory;
  rt::Tensor full = *memory.arena.allocate_tensor(rt::DType::kI32, shape_of({4, 8}), "full");
  for (int i = 0; i < 32; ++i) reinterpret_cast<int32_t*>(full.data)[i] = i;
  for (unsigned device = 0; device < 8; ++device) {  // device d holds rows [2 (d / 4), +2), columns [2 (d % 4), +2)
    rt::Tensor piece = *rt::tpu::shard_view(full, sharding, device);
    REQUIRE(piece.shape.dims[0] == 2);
    REQUIRE(piece.shape.dims[1] == 2);
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t c = 0; c < 2; ++c) {
        const int64_t index[] = {r, c};
        int32_t value;
        std::memcpy(&value, piece.at(rt::Span<const int64_t>(index, 2)), 4);
        CHECK(value == (2 * (device / 4) + r) * 8 + 2 * (device % 4) + c);
      }
  }
  const Sharding replicated = rt::tpu::replicated_sharding(8);
  CHECK(rt::tpu::shard_view(full, replicated, 5)->data == full.data);
  CHECK_FALSE(rt::tpu::shard_view(full, *rt::tpu::maximal_sharding(1, 8), 2).is_ok());
}

TEST_CASE("pod placement: replicas x logical cores and their collective groups", "[logical_devices]") {
  const int32_t seed_shape[] = {1, 2, 2, 2};
  rt::tpu::Topology eight = *rt::tpu::Topology::for_cores(8);
  rt::tpu::DeviceAssignment seed = *rt::tpu::DeviceAssignment::build(eight, seed_shape);
  rt::tpu::PodPlacement one = *rt::tpu::place_computation(1, &seed, 8);
  CHECK(one.num_replicas == 1);
  CHECK(one.cores_per_replica == 8);
  std::vector<bool> used(8);
  for (unsigned l = 0; l < 8; ++l) {
    CHECK(one.core_of(0, l) == static_cast<unsigned>(seed.core_of(0, static_cast<int>(l))));
    used[one.core_of(0, l)] = true;
  }
  CHECK(std::count(used.begin(), used.end(), true) == 8);

  const int32_t four_cores[] = {1, 1, 2, 2};
  rt::tpu::DeviceAssignment two_by_four = *rt::tpu::DeviceAssignment::build(eight, four_cores, {}, 2);
  rt::tpu::PodPlacement pod = *rt::tpu::place_computation(2, &two_by_four, 8);
  REQUIRE(pod.num_tasks() == 8);
  for (unsigned l = 0; l < 4; ++l) {
    const rt::ReplicaSet across = pod.replicas_on_logical_core(l);
    REQUIRE(across.count == 2);
    for (unsigned r = 0; r < 2; ++r) CHECK(across.core_of[r] == two_by_four.core_of(static_cast<int>(r), static_cast<int>(l)));
  }
  for (unsigned r = 0; r < 2; ++r) {
    const rt::ReplicaSet within = pod.logical_cores_of_replica(r);
    REQUIRE(within.count == 4);
    for (unsigned l = 0; l < 4; ++l) CHECK(within.core_of[l] == two_by_four.core_of(static_cast<int>(r), static_cast<int>(l)));
  }
  CHECK(text_of(rt::tpu::place_computation(3, nullptr, 8).status()) == "'num_replicas' must be equal to 1 or 8, got 3");
  CHECK(text_of(rt::tpu::place_computation(2, &seed, 8).status()) ==
        "Length of device_assignment attribute must be equal to num_replicas (2) * num_cores_per_replica (8) * 4 got 32");
  CHECK(text_of(rt::tpu::place_computation(1, &seed, 4).status()).find("but the board runs 4 cores") !=
        std::string::npos);
  rt::tpu::PodPlacement every_core = *rt::tpu::place_computation(8, nullptr, 8);
  CHECK(every_core.cores_per_replica == 1);
  CHECK(every_core.core_of(5, 0) == 5);
}

TEST_CASE("pod placement across the boards of a pod: tasks, local cores, replicas inside one board", "[logical_devices][pod]") {
  // Task 1 of two boards of 4 cores: replica r on pod core r, i.e. task r / 4, that board's core r % 4.
  const rt::tpu::PodShape task1{1, 2};
  rt::tpu::PodPlacement eight = *rt::tpu::place_computation(8, nullptr, 4, task1);
  for (unsigned r = 0; r < 8; ++r) {
    CHECK(eight.task_of(r, 0) == r / 4);
    CHECK(eight.local_core_of(r, 0) == r % 4);
    CHECK(eight.is_local(r, 0) == (r >= 4));
  }
  const rt::ReplicaSet all = eight.replicas_on_logical_core(0);
  CHECK(all.local_task == 1);
  CHECK(all.task_of[2] == 0);
  CHECK(all.core_of[6] == 2);
  CHECK(all.task_of[6] == 1);
  CHECK(text_of(rt::tpu::place_computation(4, nullptr, 4, task1).status()) ==
        "'num_replicas' must be equal to 1 or 8, got 4");
  // The pod's topology (two [1,1,2,2] boards stacked: [1,1,4,2]); a replica of a whole board (shape
  // [1,1,2,2]) stays on one task; a replica of shape [1,1,4,1] would span both and is refused.
  const rt::tpu::Topology pod = *rt::tpu::Topology::for_pod(2, 4);
  const int32_t board_shape[] = {1, 1, 2, 2};
  const rt::tpu::DeviceAssignment boards = *rt::tpu::DeviceAssignment::build(pod, board_shape, {}, 2);
  rt::tpu::PodPlacement whole = *rt::tpu::place_computation(2, &boards, 4, task1);
  CHECK(whole.task_of(0, 0) == 0);
  CHECK(whole.task_of(1, 3) == 1);
  const int32_t column[] = {1, 1, 4, 1};
  const rt::tpu::DeviceAssignment spanning = *rt::tpu::DeviceAssignment::build(pod, column, {}, 2);
  CHECK(text_of(rt::tpu::place_computation(2, &spanning, 4, task1).status()) ==
        "replica 0 spans tasks 0 and 1 (logical cores 0 and 2): a replica's logical cores must stay inside one board of "
        "the pod; choose a computation_shape that fits one board's mesh");
}

namespace {

// The convolution of `image` tiled by `partition`, computed the way every logical device does
// (extended tile from the halo plan, VALID conv2d of the device's window), with the permutes
// simulated, gathered whole. Channel splits are not simulated here (partition[3] == 1).
rt::Tensor split_convolution(rt::Mxu& mxu, rt::Arena& arena, const rt::Tensor& image, const Dims& partition,
                             const rt::Tensor& filter, const rt::Shape& out_shape, const rt::Conv2dOptions& options) {
  const unsigned devices = static_cast<unsigned>(std::accumulate(partition.begin(), partition.end(), int64_t{1},
                                                                 std::multiplies<int64_t>()));
  const Sharding sharding = *rt::tpu::tile_sharding(image.shape, span(partition), devices);
  const rt::Result<rt::tpu::HaloPlan> planned =
      rt::tpu::plan_conv_halo(image.shape, sharding, filter.shape.dims[0], filter.shape.dims[1], options);
  REQUIRE(planned.is_ok());
  const rt::tpu::HaloPlan& plan = *planned;
  std::vector<rt::Tensor> tiles(devices);
  for (unsigned d = 0; d < devices; ++d) {
    tiles[d] = *arena.allocate_tensor(rt::DType::kF32, plan.extended, "tile");
    std::memset(tiles[d].data, 0, tiles[d].num_elements() * 4);
    REQUIRE(rt::copy(*rt::tpu::shard_view(image, sharding, d), *rt::tpu::halo_interior(plan, tiles[d])).is_ok());
  }
  for (unsigned s = 0; s < plan.num_steps; ++s) {  // collective_permute: every source's strip, then delivery
    const rt::tpu::HaloStep& step = plan.steps[s];
    std::vector<rt::Tensor> strips(devices);
    for (unsigned d = 0; d < devices; ++d) {
      const rt::Tensor outgoing = *rt::tpu::halo_send_strip(plan, step, tiles[d]);
      strips[d] = *arena.allocate_tensor(rt::DType::kF32, outgoing.shape, "strip");
      REQUIRE(rt::copy(outgoing, strips[d]).is_ok());
    }
    for (unsigned p = 0; p < step.num_pairs; ++p) {
      const unsigned source = static_cast<unsigned>(step.pairs[2 * p]), target = static_cast<unsigned>(step.pairs[2 * p + 1]);
      REQUIRE(rt::copy(strips[source], *rt::tpu::halo_receive_strip(plan, step, tiles[target])).is_ok());
    }
  }
  rt::Tensor whole = *arena.allocate_tensor(rt::DType::kF32, out_shape, "whole");
  const Sharding out_sharding = *rt::tpu::tile_sharding(out_shape, span(partition), devices);
  rt::Conv2dOptions valid;
  for (unsigned s = 0; s < 2; ++s) valid.strides[s] = options.strides[s], valid.dilations[s] = options.dilations[s];
  for (unsigned d = 0; d < devices; ++d) {
    const rt::Tensor destination = *rt::tpu::shard_view(whole, out_sharding, d);
    rt::Tensor piece = *arena.allocate_tensor(rt::DType::kF32, destination.shape, "piece");
    const rt::Tensor window = *rt::tpu::halo_window(plan, sharding, d, tiles[d]);
    REQUIRE(rt::conv2d(mxu, arena, window, filter, valid, piece).is_ok());
    REQUIRE(rt::copy(piece, destination).is_ok());
  }
  return whole;
}

rt::Conv2dOptions conv_options(rt::ConvPadding padding, int64_t stride, int64_t dilation) {
  rt::Conv2dOptions options;
  options.padding = padding;
  options.strides[0] = options.strides[1] = stride;
  options.dilations[0] = options.dilations[1] = dilation;
  return options;
}

}  // namespace

TEST_CASE("halo exchange: split SAME convolutions equal the unsplit one bit for bit", "[logical_devices]") {
  struct Case {
    Dims image, partition;
    int64_t kernel_h, kernel_w, out_channels;
  };
  const Case cases[] = {
      {{2, 8, 16, 3}, {1, 2, 4, 1}, 3, 3, 8},  // the seed example's split
      {{1, 6, 6, 2}, {1, 3, 2, 1}, 3, 3, 4},
      {{1, 8, 8, 2}, {1, 2, 2, 1}, 2, 2, 3},   // even kernel: SAME puts the extra tap after
      {{1, 8, 12, 1}, {1, 2, 3, 1}, 5, 4, 2},  // halos of 2 = a shard's width/height where it fits
      {{2, 4, 4, 3}, {2, 1, 2, 1}, 1, 3, 2},   // batch split, no height halo
      {{1, 16, 16, 4}, {1, 4, 4, 1}, 3, 3, 4},
      {{1, 2, 8, 2}, {1, 1, 8, 1}, 3, 3, 1},   // one-pixel-wide shards
  };
  Memory memory;
  auto mxu = std::make_unique<rt::Mxu>(16);  // small tile: the patch chains span several K tiles
  uint32_t seed = 1;
  for (const Case& c : cases) {
    INFO("image " << c.image[1] << "x" << c.image[2] << " partition " << c.partition[1] << "x" << c.partition[2]
                  << " kernel " << c.kernel_h << "x" << c.kernel_w);
    rt::ArenaScope scope(memory.arena);
    const rt::Tensor image = random_tensor(memory.arena, c.image, seed++);
    const rt::Tensor filter = random_tensor(memory.arena, {c.kernel_h, c.kernel_w, c.image[3], c.out_channels}, seed++);
    rt::Conv2dOptions same;
    same.padding = rt::ConvPadding::kSame;
    const rt::Shape out_shape = *rt::conv2d_output_shape(image.shape, filter.shape, same);
    rt::Tensor expected = *memory.arena.allocate_tensor(rt::DType::kF32, out_shape, "expected");
    REQUIRE(rt::conv2d(*mxu, memory.arena, image, filter, same, expected).is_ok());
    const rt::Tensor actual = split_convolution(*mxu, memory.arena, image, c.partition, filter, out_shape, same);
    CHECK(std::memcmp(actual.data, expected.data, expected.num_elements() * 4) == 0);
  }
}

TEST_CASE("halo exchange: VALID, strided, dilated and explicitly padded split convolutions equal the unsplit one",
          "[logical_devices]") {
  struct Case {
    Dims image, partition;
    int64_t kernel_h, kernel_w;
    rt::Conv2dOptions options;
  };
  rt::Conv2dOptions explicit_pad = conv_options(rt::ConvPadding::kExplicit, 1, 1);
  explicit_pad.explicit_padding[0][0] = 2, explicit_pad.explicit_padding[0][1] = 0;
  explicit_pad.explicit_padding[1][0] = 0, explicit_pad.explicit_padding[1][1] = 1;
  const Case cases[] = {
      // VALID 3x3 over 8 rows in 2 tiles: 6 output rows, 3 per tile; tile 1's window starts 1 row
      // into tile 0 (a halo before), tile 0's reaches 1 row into tile 1 (a halo after).
      {{1, 8, 8, 2}, {1, 2, 2, 1}, 3, 3, conv_options(rt::ConvPadding::kValid, 1, 1)},
      {{1, 10, 12, 2}, {1, 2, 2, 1}, 3, 3, conv_options(rt::ConvPadding::kValid, 1, 1)},  // 8 x 10 out
      {{1, 8, 8, 3}, {1, 2, 2, 1}, 3, 3, conv_options(rt::ConvPadding::kSame, 2, 1)},     // 4 x 4 out
      {{2, 16, 8, 1}, {1, 4, 2, 1}, 3, 3, conv_options(rt::ConvPadding::kSame, 2, 1)},
      {{1, 8, 8, 1}, {1, 2, 2, 1}, 2, 2, conv_options(rt::ConvPadding::kValid, 2, 1)},    // 4 x 4 out, no halo
      {{1, 12, 12, 2}, {1, 2, 2, 1}, 3, 3, conv_options(rt::ConvPadding::kSame, 1, 2)},   // dilated: halo 2
      {{1, 8, 6, 2}, {1, 2, 3, 1}, 3, 2, explicit_pad},                                   // 8 x 6 out
      {{1, 9, 9, 1}, {1, 3, 3, 1}, 3, 3, conv_options(rt::ConvPadding::kSame, 3, 1)},     // 3 x 3 out
  };
  Memory memory;
  auto mxu = std::make_unique<rt::Mxu>(16);
  uint32_t seed = 100;
  for (const Case& c : cases) {
    INFO("image " << c.image[1] << "x" << c.image[2] << " partition " << c.partition[1] << "x" << c.partition[2]
                  << " kernel " << c.kernel_h << "x" << c.kernel_w << " stride " << c.options.strides[0]);
    rt::ArenaScope scope(memory.arena);
    const rt::Tensor image = random_tensor(memory.arena, c.image, seed++);
    const rt::Tensor filter = random_tensor(memory.arena, {c.kernel_h, c.kernel_w, c.image[3], 3}, seed++);
    const rt::Shape out_shape = *rt::conv2d_output_shape(image.shape, filter.shape, c.options);
    rt::Tensor expected = *memory.arena.allocate_tensor(rt::DType::kF32, out_shape, "expected");
    REQUIRE(rt::conv2d(*mxu, memory.arena, image, filter, c.options, expected).is_ok());
    const rt::Tensor actual = split_convolution(*mxu, memory.arena, image, c.partition, filter, out_shape, c.options);
    CHECK(std::memcmp(actual.data, expected.data, expected.num_elements() * 4) == 0);
  }
}

TEST_CASE("windowed halo plans: per-tile windows, and outputs that do not split evenly", "[logical_devices]") {
  const Dims image = {1, 8, 8, 2};
  const Sharding two_by_two = *rt::tpu::tile_sharding(shape_of(image), span({1, 2, 2, 1}), 4);
  const rt::tpu::HaloPlan valid =
      *rt::tpu::plan_conv_halo(shape_of(image), two_by_two, 3, 3, conv_options(rt::ConvPadding::kValid, 1, 1));
  CHECK(valid.before[0] == 1);  // tile 1 reads rows [3, 8): one row of tile 0
  CHECK(valid.after[0] == 1);   // tile 0 reads rows [0, 5): one row of tile 1
  CHECK(valid.out_tile[0] == 3);
  CHECK(valid.window[0] == 5);
  CHECK(valid.window_begin(0, 0) == 1);  // extended rows [-1, 5) of the image: row 0 is at 1
  CHECK(valid.window_begin(0, 1) == 0);  // tile 1's extended tile starts at image row 3
  const Sharding rows = *rt::tpu::tile_sharding(shape_of({1, 3, 4, 1}), span({1, 3, 1, 1}), 3);
  rt::Result<rt::tpu::HaloPlan> uneven =
      rt::tpu::plan_conv_halo(shape_of({1, 3, 4, 1}), rows, 3, 3, conv_options(rt::ConvPadding::kSame, 2, 1));
  REQUIRE_FALSE(uneven.is_ok());
  CHECK(uneven.status().code() == rt::StatusCode::kUnimplemented);
  CHECK(text_of(uneven.status()) ==
        "conv2d over logical devices: the output's height (2) does not split evenly into the input's 3 pieces along "
        "it");
}

TEST_CASE("halo plans refuse what one neighbour cannot supply", "[logical_devices]") {
  const Sharding narrow = *rt::tpu::tile_sharding(shape_of({1, 4, 8, 2}), span({1, 4, 1, 1}), 4);
  rt::Result<rt::tpu::HaloPlan> wide_kernel = rt::tpu::plan_halo(shape_of({1, 4, 8, 2}), narrow, 5, 3);
  REQUIRE_FALSE(wide_kernel.is_ok());
  CHECK(text_of(wide_kernel.status()) ==
        "conv2d over logical devices: a 5-tap kernel needs a halo of 2 before and 2 after along the height, wider "
        "than a shard's 1 (split the height into fewer pieces)");
  // A split channel dimension is no obstacle: the strips carry each device's channels.
  const Sharding channels = *rt::tpu::tile_sharding(shape_of({1, 4, 4, 2}), span({1, 2, 1, 2}), 4);
  const rt::tpu::HaloPlan channel_plan = *rt::tpu::plan_halo(shape_of({1, 4, 4, 2}), channels, 3, 3);
  CHECK(channel_plan.extended.dims[3] == 1);
  CHECK(channel_plan.steps[0].pairs[1] == 2);  // height, downwards: device 0 -> 2 (same channel tile)
  const rt::tpu::HaloPlan seed =
      *rt::tpu::plan_halo(shape_of({2, 8, 16, 3}), *rt::tpu::tile_sharding(shape_of({2, 8, 16, 3}), span({1, 2, 4, 1}), 8), 3, 3);
  CHECK(seed.num_steps == 4);
  CHECK(seed.extended.dims[1] == 6);
  CHECK(seed.extended.dims[2] == 6);
  CHECK(seed.steps[0].num_pairs == 4);  // height, downwards: devices 0..3 -> 4..7
  CHECK(seed.steps[0].pairs[0] == 0);
  CHECK(seed.steps[0].pairs[1] == 4);
  CHECK(seed.steps[2].num_pairs == 6);  // width, rightwards: 3 per row of the grid
}
