// The nest facility (runtime/tpu/nest): leaf counts, flatten order (depth first, declaration order, as
// tf.nest flattens tuples and namedtuples), pack_sequence_as with tf.nest's texts, map_structure over
// one and two structures, and the structure text. Expected orders and texts are written by hand.
#include <catch2/catch.hpp>

#include "tensor_test_helpers.hpp"

#include "runtime/tpu/nest/nest.hpp"

namespace {

using rt::Array;
using rt::Tensor;
using test_helpers::message;
namespace nest = rt::tpu::nest;

struct Dense {
  Tensor kernel, bias;
};
struct Model {
  Dense hidden;
  Array<Dense, 2> heads;
  Tensor scale;
};
struct Empty {};

// A tensor whose data pointer encodes `id` (a label to follow through flatten and pack).
Tensor labelled(uintptr_t id) {
  Tensor t;
  t.data = reinterpret_cast<uint8_t*>(id);
  return t;
}
uintptr_t label(const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data); }

Model numbered_model() {
  return Model{{labelled(1), labelled(2)}, {{{labelled(3), labelled(4)}, {labelled(5), labelled(6)}}}, labelled(7)};
}

}  // namespace

TEST_CASE("nest counts the leaves of tensors, lists and aggregates", "[nest]") {
  STATIC_REQUIRE(nest::leaf_count_v<Tensor> == 1);
  STATIC_REQUIRE(nest::leaf_count_v<Dense> == 2);
  STATIC_REQUIRE(nest::leaf_count_v<Array<Tensor, 3>> == 3);
  STATIC_REQUIRE(nest::leaf_count_v<Dense[4]> == 8);
  STATIC_REQUIRE(nest::leaf_count_v<Model> == 7);
  STATIC_REQUIRE(nest::leaf_count_v<Empty> == 0);
  STATIC_REQUIRE(nest::field_count_v<Model> == 3);
  STATIC_REQUIRE(nest::is_structure_v<Model>);
  STATIC_REQUIRE(!nest::is_structure_v<float>);
}

TEST_CASE("nest flattens depth first in declaration order", "[nest]") {
  const Model model = numbered_model();
  const auto flat = nest::flatten(model);
  REQUIRE(flat.size() == 7);
  for (size_t i = 0; i < flat.size(); ++i) CHECK(label(flat[i]) == i + 1);
}

TEST_CASE("nest packs a flat list into the structure, inverse of flatten", "[nest]") {
  Tensor flat[7];
  for (unsigned i = 0; i < 7; ++i) flat[i] = labelled(10 + i);
  rt::Result<Model> packed = nest::pack_sequence_as<Model>(rt::Span<const Tensor>(flat, 7));
  REQUIRE(packed.is_ok());
  CHECK(label(packed->hidden.kernel) == 10);
  CHECK(label(packed->hidden.bias) == 11);
  CHECK(label(packed->heads[0].kernel) == 12);
  CHECK(label(packed->heads[1].bias) == 15);
  CHECK(label(packed->scale) == 16);
}

TEST_CASE("pack_sequence_as gives tf.nest's texts when the counts differ", "[nest]") {
  Tensor flat[3];
  rt::Result<Dense> dense = nest::pack_sequence_as<Dense>(rt::Span<const Tensor>(flat, 3));
  REQUIRE(!dense.is_ok());
  CHECK(message(dense.status()) ==
        "Could not pack sequence. Structure had 2 atoms, but flat_sequence had 3 items.  "
        "Structure: {anonymous}::Dense(Tensor, Tensor), flat_sequence: a list of 3 tensors.");
  rt::Result<Tensor> leaf = nest::pack_sequence_as<Tensor>(rt::Span<const Tensor>(flat, 2));
  REQUIRE(!leaf.is_ok());
  CHECK(message(leaf.status()) == "Structure is a scalar but len(flat_sequence) == 2 > 1");
}

TEST_CASE("nest's structure text shows lists and aggregates", "[nest]") {
  CHECK(std::string(nest::structure_text<Array<Tensor, 2>>().c_str()) == "[Tensor, Tensor]");
  CHECK(std::string(nest::structure_text<Model>().c_str()) ==
        "{anonymous}::Model({anonymous}::Dense(Tensor, Tensor), "
        "[{anonymous}::Dense(Tensor, Tensor), {anonymous}::Dense(Tensor, Tensor)], Tensor)");
}

TEST_CASE("map_structure applies a function to every leaf, keeping the structure", "[nest]") {
  const Model model = numbered_model();
  const Model shifted = nest::map_structure([](const Tensor& t) { return labelled(label(t) * 10); }, model);
  CHECK(label(shifted.hidden.kernel) == 10);
  CHECK(label(shifted.heads[1].kernel) == 50);
  CHECK(label(shifted.scale) == 70);

  const Model sums = nest::map_structure([](const Tensor& a, const Tensor& b) { return labelled(label(a) + label(b)); },
                                         model, shifted);
  CHECK(label(sums.heads[0].bias) == 44);
}

TEST_CASE("map_structure with a Result-returning function stops at the first error", "[nest]") {
  const Model model = numbered_model();
  unsigned calls = 0;
  rt::Result<Model> failed = nest::map_structure(
      [&](const Tensor& t) -> rt::Result<Tensor> {
        ++calls;
        if (label(t) == 3) return rt::invalid_argument("leaf {} refused", label(t));
        return t;
      },
      model);
  REQUIRE(!failed.is_ok());
  CHECK(message(failed.status()) == "leaf 3 refused");
  CHECK(calls == 3);
  rt::Result<Model> copied = nest::map_structure([](const Tensor& t) -> rt::Result<Tensor> { return t; }, model);
  REQUIRE(copied.is_ok());
  CHECK(label(copied->scale) == 7);
}
