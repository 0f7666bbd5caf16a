// Uneven shards (runtime/tpu/spmd/logical_devices.cpp, padded_piece.cpp), HAL-free, every number
// computed by hand:
//  - split_to_logical_devices' divisibility check skips unknown dimensions (TF's None: here padded
//    ones, Shape::real < dims) and keeps TF's text for known ones; the product check still follows;
//  - a dimension of size D in p pieces gives each ceil(D / p) elements; piece t starts at t ceil(D / p)
//    and holds min(ceil, max(0, R - t ceil)) real elements (R the real size; all of them along an
//    unpadded dimension); shard_view cuts the last pieces where the tensor ends (possibly empty);
//  - zero_fill and copy_into_corner, which build a padded piece.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "runtime/tensor/arena.hpp"
#include "runtime/tpu/spmd/logical_devices.hpp"
#include "runtime/tpu/spmd/padded_piece.hpp"

namespace {

using rt::tpu::Sharding;
using Dims = std::vector<int64_t>;

rt::Span<const int64_t> span(const Dims& dims) { return rt::Span<const int64_t>(dims.data(), dims.size()); }

// A shape with sizes `dims` and real sizes `real` (a dimension replicate padded where they differ).
rt::Shape padded_shape(const Dims& dims, const Dims& real) {
  rt::Shape shape = *rt::Shape::make(span(dims));
  for (unsigned d = 0; d < shape.rank; ++d) REQUIRE(shape.set_real_size(d, real[d]).is_ok());
  return shape;
}

std::string split_error(const rt::Shape& shape, const Dims& partition, unsigned devices) {
  rt::Result<Sharding> sharding = rt::tpu::tile_sharding(shape, span(partition), devices);
  REQUIRE_FALSE(sharding.is_ok());
  CHECK(sharding.status().code() == rt::StatusCode::kInvalidArgument);
  return std::string(sharding.status().message().data(), sharding.status().message().size());
}

struct Piece {
  Dims dims, real;
  Dims offset;
  Dims view_dims, view_real;
};

void check_piece(const rt::Tensor& full, const Sharding& sharding, unsigned device, const Piece& expected) {
  INFO("logical device " << device);
  const rt::Shape piece = rt::tpu::shard_shape(full.shape, sharding, device);
  const rt::Tensor view = *rt::tpu::shard_view(full, sharding, device);
  for (unsigned d = 0; d < full.shape.rank; ++d) {
    INFO("dimension " << d);
    CHECK(piece.dims[d] == expected.dims[d]);
    CHECK(piece.real[d] == expected.real[d]);
    CHECK(rt::tpu::shard_offset(full.shape, sharding, device, d) == expected.offset[d]);
    CHECK(view.shape.dims[d] == expected.view_dims[d]);
    CHECK(view.shape.real[d] == expected.view_real[d]);
  }
}

struct Memory {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(1 << 20);
  rt::Arena arena{0, bytes.data(), bytes.size()};
};

rt::Tensor counting(rt::Arena& arena, const rt::Shape& shape) {
  rt::Tensor t = *arena.allocate_tensor(rt::DType::kI32, shape, "test");
  for (size_t i = 0; i < t.num_elements(); ++i) reinterpret_cast<int32_t*>(t.data)[i] = static_cast<int32_t>(i + 1);
  return t;
}

}  // namespace

TEST_CASE("split_to_logical_devices skips the divisibility of unknown (padded) dimensions", "[uneven_shards]") {
  // [5 (real 3), 4] in [2, 1]: dimension 0 is unknown, so 5 / 2 is no error (TF: `if dim_size is None: continue`).
  REQUIRE(rt::tpu::tile_sharding(padded_shape({5, 4}, {3, 4}), span({2, 1}), 2).is_ok());
  // The same sizes known: TF's text.
  CHECK(split_error(padded_shape({5, 4}, {5, 4}), {2, 1}, 2) ==
        "Tensor shape at `partition_dimensions[0]` must be divisible by corresponding value specified by "
        "`partition_dimensions` (2). Received: 5.");
  // A known dimension after an unknown one is still checked, before the product.
  CHECK(split_error(padded_shape({6, 15}, {5, 15}), {4, 2}, 6) ==
        "Tensor shape at `partition_dimensions[1]` must be divisible by corresponding value specified by "
        "`partition_dimensions` (2). Received: 15.");
  // An unknown dimension split 0 ways: no ZeroDivisionError (TF skips it); the product check reports it.
  CHECK(split_error(padded_shape({5, 4}, {3, 4}), {0, 2}, 2) ==
        "The product of `partition_dimensions` should be the same as the number of logical devices (=2). Received "
        "`partition_dimensions`=[0, 2],and their product is 0.");
  CHECK(split_error(padded_shape({5, 4}, {3, 4}), {3, 1}, 2).find("The product of `partition_dimensions`") == 0);
}

TEST_CASE("uneven shards: ceil(D / p) elements each, real sizes per piece", "[uneven_shards]") {
  Memory memory;
  // c = 3: rows [0, 3) all real; rows [3, 6): row 3 real, row 4 padding, row 5 past the end.
  SECTION("[5 (real 4), 6] in [2, 1]") {
    const rt::Tensor full = counting(memory.arena, padded_shape({5, 6}, {4, 6}));
    const Sharding sharding = *rt::tpu::tile_sharding(full.shape, span({2, 1}), 2);
    CHECK(rt::tpu::has_uneven_shards(full.shape, sharding));
    CHECK(rt::tpu::shard_size(full.shape, sharding, 0) == 3);
    CHECK(rt::tpu::shard_size(full.shape, sharding, 1) == 6);
    check_piece(full, sharding, 0, {{3, 6}, {3, 6}, {0, 0}, {3, 6}, {3, 6}});
    check_piece(full, sharding, 1, {{3, 6}, {1, 6}, {3, 0}, {2, 6}, {1, 6}});
    const rt::Tensor view = *rt::tpu::shard_view(full, sharding, 1);
    CHECK(view.at<int32_t>(0, 0) == 19);  // row 3 of the full tensor
    CHECK(view.at<int32_t>(1, 5) == 30);  // its last element
  }
  SECTION("[7 (real 5)] in [4]: the last pieces hold fewer real elements, then none") {
    const rt::Tensor full = counting(memory.arena, padded_shape({7}, {5}));
    const Sharding sharding = *rt::tpu::tile_sharding(full.shape, span({4}), 4);
    check_piece(full, sharding, 0, {{2}, {2}, {0}, {2}, {2}});
    check_piece(full, sharding, 1, {{2}, {2}, {2}, {2}, {2}});
    check_piece(full, sharding, 2, {{2}, {1}, {4}, {2}, {1}});
    check_piece(full, sharding, 3, {{2}, {0}, {6}, {1}, {0}});
  }
  SECTION("[3 (real 2)] in [4]: more pieces than elements") {
    const rt::Tensor full = counting(memory.arena, padded_shape({3}, {2}));
    const Sharding sharding = *rt::tpu::tile_sharding(full.shape, span({4}), 4);
    check_piece(full, sharding, 0, {{1}, {1}, {0}, {1}, {1}});
    check_piece(full, sharding, 1, {{1}, {1}, {1}, {1}, {1}});
    check_piece(full, sharding, 2, {{1}, {0}, {2}, {1}, {0}});
    check_piece(full, sharding, 3, {{1}, {0}, {3}, {0}, {0}});
  }
  SECTION("[5 (real 3), 4] in [2, 2]: an uneven padded dimension next to an even known one") {
    const rt::Tensor full = counting(memory.arena, padded_shape({5, 4}, {3, 4}));
    const Sharding sharding = *rt::tpu::tile_sharding(full.shape, span({2, 2}), 4);  // [[0, 1], [2, 3]]
    check_piece(full, sharding, 0, {{3, 2}, {3, 2}, {0, 0}, {3, 2}, {3, 2}});
    check_piece(full, sharding, 1, {{3, 2}, {3, 2}, {0, 2}, {3, 2}, {3, 2}});
    check_piece(full, sharding, 2, {{3, 2}, {0, 2}, {3, 0}, {2, 2}, {0, 2}});
    check_piece(full, sharding, 3, {{3, 2}, {0, 2}, {3, 2}, {2, 2}, {0, 2}});
  }
  SECTION("[4 (real 3)] in [2]: an even split of a padded dimension keeps the real sizes too") {
    const rt::Tensor full = counting(memory.arena, padded_shape({4}, {3}));
    const Sharding sharding = *rt::tpu::tile_sharding(full.shape, span({2}), 2);
    CHECK_FALSE(rt::tpu::has_uneven_shards(full.shape, sharding));
    check_piece(full, sharding, 0, {{2}, {2}, {0}, {2}, {2}});
    check_piece(full, sharding, 1, {{2}, {1}, {2}, {2}, {1}});
  }
  SECTION("unpadded even splits are unchanged") {
    const rt::Tensor full = counting(memory.arena, padded_shape({4, 8}, {4, 8}));
    const Sharding sharding = *rt::tpu::tile_sharding(full.shape, span({2, 4}), 8);
    CHECK_FALSE(rt::tpu::has_uneven_shards(full.shape, sharding));
    check_piece(full, sharding, 6, {{2, 2}, {2, 2}, {2, 4}, {2, 2}, {2, 2}});
  }
}

TEST_CASE("piece_real_size: the real share of a block", "[uneven_shards]") {
  const rt::Shape shape = padded_shape({9, 6}, {7, 6});
  CHECK(rt::tpu::piece_real_size(shape, 0, 0, 3) == 3);
  CHECK(rt::tpu::piece_real_size(shape, 0, 6, 3) == 1);
  CHECK(rt::tpu::piece_real_size(shape, 0, 9, 3) == 0);   // wholly past the end
  CHECK(rt::tpu::piece_real_size(shape, 1, 4, 4) == 4);   // unpadded: every element is real, even past the end
}

TEST_CASE("padded pieces: zeros around the part that exists", "[uneven_shards]") {
  Memory memory;
  const rt::Tensor part = counting(memory.arena, padded_shape({2, 3}, {2, 3}));
  const rt::Tensor piece = counting(memory.arena, padded_shape({3, 4}, {3, 4}));  // non-zero before the copy
  REQUIRE(rt::tpu::copy_into_corner(part, piece).is_ok());
  const int32_t expected[3][4] = {{1, 2, 3, 0}, {4, 5, 6, 0}, {0, 0, 0, 0}};
  for (int64_t r = 0; r < 3; ++r)
    for (int64_t c = 0; c < 4; ++c) CHECK(piece.at<int32_t>(r, c) == expected[r][c]);
  // A strided view zeroed in place: column 1 of a [3, 4] tensor.
  const rt::Tensor grid = counting(memory.arena, padded_shape({3, 4}, {3, 4}));
  REQUIRE(rt::tpu::zero_fill(*grid.slice(1, 1, 2)).is_ok());
  for (int64_t r = 0; r < 3; ++r)
    for (int64_t c = 0; c < 4; ++c) CHECK(grid.at<int32_t>(r, c) == (c == 1 ? 0 : static_cast<int32_t>(4 * r + c + 1)));
  // A part larger than the piece is an error.
  CHECK_FALSE(rt::tpu::copy_into_corner(piece, part).is_ok());
}
