// The pure parts of TPUStrategy's replica side: merge_call's sync-point rule
// (runtime/tpu/replica_context_merge_sync), last-step outputs (multi_step_context), DistributedValue
// regrouping and the board's cluster resolver (strategy_cluster), with TF's texts.
#include <catch2/catch.hpp>

#include "tensor_test_helpers.hpp"

#include <vector>

#include "runtime/tpu/strategy/multi_step_context.hpp"
#include "runtime/tpu/strategy/step_output_specs.hpp"
#include "runtime/tpu/strategy/replica_context_merge_sync.hpp"
#include "runtime/tpu/strategy/strategy_cluster.hpp"

namespace {

using rt::tpu::SyncKind;
using rt::tpu::SyncPoint;
using rt::tpu::SyncVerdict;
using test_helpers::message;

SyncPoint point(SyncKind kind, uint32_t step = 0, uint32_t merge = 0) {
  SyncPoint p;
  p.kind = static_cast<uint32_t>(kind);
  p.step = step;
  p.merge = merge;
  return p;
}

SyncVerdict verdict(std::vector<SyncPoint> points) {
  return rt::tpu::judge_sync(rt::Span<const SyncPoint>(points.data(), points.size())).verdict;
}

rt::Tensor scalar(float* value) { return rt::Tensor::contiguous(rt::DType::kF32, rt::Shape{}, value); }

}  // namespace

TEST_CASE("merge_call sync points: all merge, all done, mismatch, failed peer", "[strategy]") {
  CHECK(verdict({point(SyncKind::kMerge, 0, 1), point(SyncKind::kMerge, 0, 1)}) == SyncVerdict::kMerge);
  CHECK(verdict({point(SyncKind::kDone, 2), point(SyncKind::kDone, 2), point(SyncKind::kDone, 2)}) ==
        SyncVerdict::kDone);
  CHECK(verdict({point(SyncKind::kMerge), point(SyncKind::kDone)}) == SyncVerdict::kMismatch);
  CHECK(verdict({point(SyncKind::kDone), point(SyncKind::kMerge)}) == SyncVerdict::kMismatch);
  CHECK(verdict({point(SyncKind::kMerge, 0, 0), point(SyncKind::kMerge, 1, 0)}) == SyncVerdict::kMismatch);
  CHECK(verdict({point(SyncKind::kMerge, 0, 0), point(SyncKind::kMerge, 0, 1)}) == SyncVerdict::kMismatch);
  CHECK(verdict({point(SyncKind::kMerge)}) == SyncVerdict::kMerge);
  std::vector<SyncPoint> failed = {point(SyncKind::kMerge), point(SyncKind::kDone), point(SyncKind::kFailed),
                                   point(SyncKind::kFailed)};
  const auto outcome = rt::tpu::judge_sync(rt::Span<const SyncPoint>(failed.data(), failed.size()));
  CHECK(outcome.verdict == SyncVerdict::kPeerFailed);
  CHECK(outcome.failed_replica == 2);
  CHECK(message(rt::tpu::merge_call_count_mismatch()) ==
        "Some replicas made a different number of replica_context().merge_call() calls.");
  CHECK(message(rt::tpu::not_in_replica_context()) == "Need to be inside `call_for_each_replica()`");
}

TEST_CASE("DistributedValue: regroup, PerReplica, Mirrored", "[strategy]") {
  float values[3] = {1, 2, 3};
  const rt::Tensor components[3] = {scalar(&values[0]), scalar(&values[1]), scalar(&values[2])};
  const auto one = rt::tpu::DistributedValue::regroup(rt::Span<const rt::Tensor>(components, 1));
  CHECK(one.kind() == rt::tpu::ValueKind::kPlain);
  CHECK(one.component(5).data == components[0].data);  // a plain value is every replica's
  const auto three = rt::tpu::DistributedValue::regroup(components);
  CHECK(three.kind() == rt::tpu::ValueKind::kPerReplica);
  CHECK(three.component(2).data == components[2].data);
  CHECK(three.local_results().size() == 3);
  CHECK_FALSE(rt::tpu::DistributedValue::mirrored(rt::Span<const rt::Tensor>()));
}

TEST_CASE("last step outputs: per-replica, reduced, replaced, mismatched names", "[strategy]") {
  float a0 = 1, a1 = 2, loss = 7, b = 9;
  rt::tpu::StepOutputTable replica0, replica1;
  REQUIRE(replica0.record({"a", false, rt::ReduceOp::kSum}, scalar(&b)).is_ok());
  REQUIRE(replica0.record({"a", false, rt::ReduceOp::kSum}, scalar(&a0)).is_ok());  // replaced
  REQUIRE(replica0.record({"loss", true, rt::ReduceOp::kMean}, scalar(&loss)).is_ok());
  REQUIRE(replica1.record({"a", false, rt::ReduceOp::kSum}, scalar(&a1)).is_ok());
  REQUIRE(replica1.record({"loss", true, rt::ReduceOp::kMean}, scalar(&loss)).is_ok());
  const rt::tpu::StepOutputTable* tables[] = {&replica0, &replica1};
  rt::tpu::MultiStepContext context;
  REQUIRE(context.assemble(tables, 5).is_ok());
  CHECK(context.steps_run() == 5);
  CHECK(context.num_last_step_outputs() == 2);
  auto a = context.last_step_output("a");
  REQUIRE(a);
  CHECK(a->kind() == rt::tpu::ValueKind::kPerReplica);
  CHECK(a->component(1).data == reinterpret_cast<uint8_t*>(&a1));
  auto reduced = context.last_step_output("loss");
  REQUIRE(reduced);
  CHECK(reduced->kind() == rt::tpu::ValueKind::kPlain);
  CHECK(message(context.last_step_output("nope").status()) == "no last step output named 'nope'");
  rt::tpu::StepOutputTable other;
  REQUIRE(other.record({"b", false, rt::ReduceOp::kSum}, scalar(&b)).is_ok());
  const rt::tpu::StepOutputTable* mismatched[] = {&replica0, &other};
  CHECK(message(context.assemble(mismatched, 1)) ==
        "replica 1 set different last step outputs than replica 0 (names, order or reduce ops)");
}

TEST_CASE("the board's cluster resolver and num_replicas_in_sync", "[strategy]") {
  auto resolver = rt::tpu::TPUClusterResolver::for_cores(8);
  REQUIRE(resolver);
  CHECK(rt::tpu::strategy_num_replicas(*resolver, nullptr) == 8);
  auto topology = resolver->initialize_tpu_system();
  REQUIRE(topology);
  const int32_t two[] = {1, 1, 1, 2};
  auto assignment = rt::tpu::DeviceAssignment::build(*topology, two, {}, 4);
  REQUIRE(assignment);
  CHECK(rt::tpu::strategy_num_replicas(*resolver, &*assignment) == 4);
  CHECK_FALSE(rt::tpu::TPUClusterResolver::for_cores(0));
  CHECK_FALSE(rt::tpu::TPUClusterResolver::for_cores(17));
}

TEST_CASE("last step output specs cross the boards as bytes and come back, garbage refused", "[strategy]") {
  float value = 1;
  rt::tpu::StepOutputTable table;
  REQUIRE(table.record({"loss", true, rt::ReduceOp::kMean}, scalar(&value)).is_ok());
  REQUIRE(table.record({"acc", false, rt::ReduceOp::kSum}, scalar(&value)).is_ok());
  alignas(64) static uint8_t memory[4096];
  rt::Arena arena(0, memory, sizeof memory);
  const rt::Tensor encoded = *rt::tpu::encode_step_output_specs(table, arena);
  // By hand: count 2; loss: reduced, kMean (1), 4 characters; acc: not reduced, kSum (0), 3 characters.
  const std::vector<uint8_t> expected = {2, 1, 1, 4, 'l', 'o', 's', 's', 0, 0, 3, 'a', 'c', 'c'};
  REQUIRE(encoded.shape.dims[0] == static_cast<int64_t>(expected.size()));
  CHECK(std::vector<uint8_t>(static_cast<uint8_t*>(encoded.data), static_cast<uint8_t*>(encoded.data) + expected.size()) ==
        expected);
  rt::tpu::LastStepOutputSpec specs[2];
  REQUIRE(rt::tpu::decode_step_output_specs(encoded, 2, 5, specs).is_ok());
  CHECK(specs[0].name == rt::StringView("loss"));
  CHECK(specs[0].reduced);
  CHECK(specs[0].reduce_op == rt::ReduceOp::kMean);
  CHECK(specs[1].name == rt::StringView("acc"));
  CHECK_FALSE(specs[1].reduced);
  // Another count, a cut name, an unknown op, bytes past the end: each refused naming the replica.
  CHECK(message(rt::tpu::decode_step_output_specs(encoded, 1, 5, specs)).find("replica 5's") != std::string::npos);
  rt::Tensor cut = encoded;
  cut.shape.dims[0] = 6;
  CHECK_FALSE(rt::tpu::decode_step_output_specs(cut, 2, 5, specs).is_ok());
  uint8_t bad_op[] = {1, 1, 9, 1, 'x'};
  const int64_t five[] = {5};
  CHECK_FALSE(rt::tpu::decode_step_output_specs(rt::Tensor::contiguous(rt::DType::kI8, *rt::Shape::make(five), bad_op), 1,
                                                0, specs).is_ok());
  uint8_t trailing[] = {1, 0, 0, 1, 'x', 0};
  const int64_t six[] = {6};
  CHECK_FALSE(rt::tpu::decode_step_output_specs(rt::Tensor::contiguous(rt::DType::kI8, *rt::Shape::make(six), trailing), 1,
                                                0, specs).is_ok());
  // A name too long for one length byte is refused when encoding.
  const std::string long_name(256, 'n');
  rt::tpu::StepOutputTable long_table;
  REQUIRE(long_table.record({rt::StringView(long_name.data(), long_name.size()), false, rt::ReduceOp::kSum},
                            scalar(&value)).is_ok());
  CHECK_FALSE(rt::tpu::encode_step_output_specs(long_table, arena));
}
