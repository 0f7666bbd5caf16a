// Tests of the host side of `tpu exec` and tracing (host-tools/lib/exec_job.hpp, trace_collector.hpp):
// input files spread over replicas (replica-major or stacked), the op spec text, the exec host
// functions, stacked output files read back; trace batches (kTrace payloads) parsed into events,
// bad batches rejected, the Chrome JSON and the utilisation table.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <sstream>

#include "host-tools/images/exec/host/exec_job.hpp"
#include "host-tools/lib/tensors/npy_read.hpp"
#include "host-tools/lib/session/trace_collector.hpp"
#include "runtime/link/protocol/message.hpp"
#include "scratch_directory.hpp"

namespace {

tpu::HostTensor int32_tensor(std::vector<int64_t> dims, int32_t first) {
  tpu::HostTensor tensor;
  tensor.dtype = rt::DType::kI32;
  tensor.dims = dims;
  size_t count = 1;
  for (int64_t d : dims) count *= static_cast<size_t>(d);
  for (size_t i = 0; i < count; ++i) {
    const int32_t value = first + static_cast<int32_t>(i);
    const auto* bytes = reinterpret_cast<const uint8_t*>(&value);
    tensor.bytes.insert(tensor.bytes.end(), bytes, bytes + 4);
  }
  return tensor;
}

tpu::HostCallRequest call(std::string function, std::string text, std::vector<tpu::HostTensor> tensors = {}) {
  return tpu::HostCallRequest{0, 1, std::move(function), std::move(text), std::move(tensors)};
}

std::vector<uint8_t> trace_payload(const std::vector<rt::link::TraceEvent>& events) {
  std::vector<uint8_t> payload(rt::link::kMaxPayload);
  rt::Result<size_t> size = rt::link::encode_trace(rt::Span<const rt::link::TraceEvent>(events.data(), events.size()),
                                                   rt::Span<uint8_t>(payload.data(), payload.size()));
  REQUIRE(size);
  payload.resize(*size);
  return payload;
}

}  // namespace

TEST_CASE("exec job: per-replica files, spec text and host functions", "[exec]") {
  tpu::ExecParams params;
  params.op = "collective_permute";
  params.replicas = 2;
  params.pairs = {0, 1, 1, 0};
  std::string error;
  std::optional<tpu::ExecJob> job =
      tpu::ExecJob::make(params, {int32_tensor({3}, 0), int32_tensor({3}, 10)}, error);
  REQUIRE(job);
  CHECK(job->spec() == "op=collective_permute replicas=2 inputs=1 pairs=0,1,1,0 t=int32:3 t=int32:3");

  tpu::HostFunctions functions(tpu::HostEnvironment{});
  job->serve_with(functions);
  tpu::HostCallOutcome op = functions.call(call("exec.op", ""));
  REQUIRE(op.code == rt::StatusCode::kOk);
  CHECK(op.results.at(0).as_text() == job->spec());
  tpu::HostCallOutcome input = functions.call(call("exec.input", "1"));
  REQUIRE(input.code == rt::StatusCode::kOk);
  CHECK(input.results.at(0).bytes == int32_tensor({3}, 10).bytes);
  CHECK(functions.call(call("exec.input", "2")).code == rt::StatusCode::kInvalidArgument);
  CHECK(functions.call(call("exec.input", "x")).code == rt::StatusCode::kInvalidArgument);

  CHECK_FALSE(job->complete());
  CHECK(functions.call(call("exec.output", "0 0", {int32_tensor({3}, 10)})).code == rt::StatusCode::kOk);
  CHECK(functions.call(call("exec.output", "7 0", {int32_tensor({3}, 0)})).code == rt::StatusCode::kInvalidArgument);
  CHECK(functions.call(call("exec.output", "1", {int32_tensor({3}, 0)})).code == rt::StatusCode::kInvalidArgument);
  CHECK(functions.call(call("exec.output", "1 0", {int32_tensor({3}, 0)})).code == rt::StatusCode::kOk);
  REQUIRE(job->complete());

  const ScratchDirectory scratch("exec-test");
  const std::filesystem::path& directory = scratch.path();
  std::vector<std::filesystem::path> written;
  REQUIRE(tpu::write_exec_outputs(*job, directory / "out.npy", false, written) == "");
  std::optional<tpu::HostTensor> stacked = tpu::read_npy_file(directory / "out.npy", error);
  REQUIRE(stacked);
  CHECK(stacked->dims == std::vector<int64_t>{2, 3});
  std::vector<uint8_t> expected = int32_tensor({3}, 10).bytes;
  const std::vector<uint8_t> second = int32_tensor({3}, 0).bytes;
  expected.insert(expected.end(), second.begin(), second.end());
  CHECK(stacked->bytes == expected);
  written.clear();
  REQUIRE(tpu::write_exec_outputs(*job, directory / "out.npy", true, written) == "");
  CHECK(written == std::vector<std::filesystem::path>{directory / "out.r0.npy", directory / "out.r1.npy"});
}

TEST_CASE("exec job: stacked inputs split along the replica axis; bad requests", "[exec]") {
  tpu::ExecParams params;
  params.op = "cross_replica_sum";
  params.replicas = 3;
  std::string error;
  std::optional<tpu::ExecJob> job = tpu::ExecJob::make(params, {int32_tensor({3, 2}, 0)}, error);
  REQUIRE(job);
  CHECK(job->spec() == "op=cross_replica_sum replicas=3 inputs=1 t=int32:2 t=int32:2 t=int32:2");

  CHECK_FALSE(tpu::ExecJob::make(params, {int32_tensor({2, 2}, 0)}, error));
  CHECK(error.find("leading axis of 3") != std::string::npos);
  params.op = "matmul";
  params.replicas = 1;
  CHECK_FALSE(tpu::ExecJob::make(params, {int32_tensor({2, 2}, 0)}, error));
  CHECK(error.find("takes 2 input(s)") != std::string::npos);
  params.op = "fft";
  CHECK_FALSE(tpu::ExecJob::make(params, {}, error));
  CHECK(error.find("unknown op 'fft'") != std::string::npos);
}

TEST_CASE("trace collector: batches, JSON, utilisation", "[trace]") {
  tpu::TraceCollector trace(true);
  tpu::HostFunctions functions(tpu::HostEnvironment{});
  trace.serve_with(functions);
  CHECK(functions.call(call("trace.wanted", "")).results.at(0).as_text() == "1");

  const std::vector<uint8_t> payload = trace_payload({
      {1000, 9000, 0, 'X', "app"},
      {2000, 3000, 0, 'X', "matmul"},
      {6000, 1000, 1, 'X', "all_reduce"},
      {10000, 9000, 0, 'C', "total:run"},
      {10000, 3000, 0, 'C', "total:compute"},
      {10000, 1500, 0, 'C', "total:collective"},
      {10000, 0, 0, 'C', "dropped"},
  });
  CHECK(functions.call(call("trace.events", "", {tpu::HostTensor::text(std::string(payload.begin(), payload.end()))})).code ==
        rt::StatusCode::kOk);
  REQUIRE(trace.events().size() == 7);
  CHECK(trace.events()[1].name == "matmul");
  CHECK(trace.events()[2].core == 1);

  const std::string json = trace.chrome_json("host");
  CHECK(json.find("\"name\": \"matmul\", \"cat\": \"compute\", \"ph\": \"X\", \"ts\": 1.000, \"dur\": 3.000") !=
        std::string::npos);
  CHECK(json.find("\"thread_name\"") != std::string::npos);

  std::ostringstream table;
  trace.print_utilisation(table);
  CHECK(table.str().find("33.3") != std::string::npos);  // busy: 3000 of 9000 ns
  CHECK(table.str().find("16.7") != std::string::npos);  // collective: 1500 of 9000 ns

  std::vector<uint8_t> broken = payload;
  broken.resize(broken.size() - 3);
  CHECK_FALSE(trace.add_batch(broken).empty());
  CHECK_FALSE(trace.add_batch({0xff, 0xff}).empty());
  CHECK(trace.events().size() == 7);
  CHECK(tpu::trace_category_of("collective_permute") == "collective");
}
