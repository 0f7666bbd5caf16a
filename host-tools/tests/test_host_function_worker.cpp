// The host-function worker (host-tools/lib/functions/host_function_worker.hpp) and its wire records
// (host_call_wire.hpp): records survive a round trip and garbage is refused; the worker serves the
// calls in order and keeps its state, a throw answers the caller and the worker goes on, an abort
// and a missed deadline are failures naming the function, the call and the core. This binary links
// the repository's apps' host halves, so the worker serves host-function-faults' functions
// (tests/faults/host-function-faults: HOST_FAULT says how `misbehave` misbehaves).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <sstream>
#include <thread>

#include "host-tools/lib/functions/host_call_wire.hpp"
#include "host-tools/lib/functions/host_function_worker.hpp"

namespace {

using rt::StatusCode;
using namespace std::chrono_literals;

tpu::HostCallRequest request_of(const std::string& function, unsigned core, uint32_t id,
                                std::vector<tpu::HostTensor> tensors = {}) {
  tpu::HostCallRequest request;
  request.core = core;
  request.id = id;
  request.function = function;
  request.tensors = std::move(tensors);
  return request;
}

// A worker started with HOST_FAULT set to `fault` (the worker reads it when misbehave runs).
struct Worker {
  std::ostringstream out;
  tpu::HostFunctions functions{tpu::HostEnvironment{std::nullopt, &out}};
  std::unique_ptr<tpu::HostFunctionWorker> worker;
  std::vector<std::pair<uint32_t, tpu::HostCallOutcome>> replies;

  explicit Worker(const char* fault, std::chrono::milliseconds deadline = 5000ms) {
    setenv("HOST_FAULT", fault, 1);
    std::string error;
    worker = tpu::HostFunctionWorker::start(functions.environment(), deadline, error);
    unsetenv("HOST_FAULT");
    REQUIRE(worker);
    REQUIRE(worker->serve_app_functions(functions).empty());
  }
  void call(const std::string& function, unsigned core, uint32_t id, std::vector<tpu::HostTensor> tensors = {},
            std::optional<unsigned> replica = std::nullopt) {
    tpu::HostCallRequest request = request_of(function, core, id, std::move(tensors));
    request.replica = replica;
    functions.call(std::move(request),
                   [this, id](tpu::HostCallOutcome outcome) { replies.emplace_back(id, std::move(outcome)); });
  }
  // Pumps until `count` replies arrived or the worker failed (at most 20 s).
  void wait_for(size_t count) {
    const auto give_up = std::chrono::steady_clock::now() + 20s;
    while (replies.size() < count && !worker->failure() && std::chrono::steady_clock::now() < give_up) worker->pump(10ms);
  }
};

}  // namespace

TEST_CASE("host-call wire records survive a round trip and garbage is refused", "[host_function_worker]") {
  tpu::HostCallRequest request = request_of("weighted_sum", 3, 77,
                                            {tpu::HostTensor::of<float>({2, 2}, {1, 2, 3, 4}), tpu::HostTensor::text("hi")});
  request.text = std::string("with\0zero", 9);
  request.replica = 6;
  const std::vector<uint8_t> bytes = tpu::host_call_wire::encode_request(request).flatten();
  REQUIRE(tpu::host_call_wire::body_length(bytes) == bytes.size() - tpu::host_call_wire::kPrefixBytes);
  std::string error;
  const auto decoded = tpu::host_call_wire::decode_request(bytes.data() + 8, bytes.size() - 8, error);
  REQUIRE(decoded);
  CHECK(decoded->core == 3);
  CHECK(decoded->id == 77);
  CHECK(decoded->replica == 6u);
  CHECK(decoded->function == "weighted_sum");
  CHECK(decoded->text == request.text);
  REQUIRE(decoded->tensors.size() == 2);
  CHECK(decoded->tensors[0].dims == std::vector<int64_t>{2, 2});
  CHECK(decoded->tensors[0].values<float>() == std::vector<float>{1, 2, 3, 4});
  CHECK(decoded->tensors[1].as_text() == "hi");

  const tpu::HostCallOutcome outcome = tpu::HostCallOutcome::error(StatusCode::kOutOfRange, "too far");
  const std::vector<uint8_t> reply = tpu::host_call_wire::encode_outcome(outcome).flatten();
  const auto back = tpu::host_call_wire::decode_outcome(reply.data() + 8, reply.size() - 8, error);
  REQUIRE(back);
  CHECK(back->code == StatusCode::kOutOfRange);
  CHECK(back->message == "too far");
  for (unsigned code = 1; code <= static_cast<unsigned>(rt::kLastStatusCode); ++code) {  // every error a function may throw
    const auto status = static_cast<StatusCode>(code);
    const std::vector<uint8_t> failed = tpu::host_call_wire::encode_outcome(tpu::HostCallOutcome::error(status, "x")).flatten();
    const auto decoded_failure = tpu::host_call_wire::decode_outcome(failed.data() + 8, failed.size() - 8, error);
    REQUIRE(decoded_failure);
    CHECK(decoded_failure->code == status);
  }

  // Every cut is refused, and so are a request read as an outcome and a status code out of range.
  for (size_t size = 0; size + 8 < bytes.size(); ++size)
    CHECK_FALSE(tpu::host_call_wire::decode_request(bytes.data() + 8, size, error));
  CHECK_FALSE(tpu::host_call_wire::decode_outcome(bytes.data() + 8, bytes.size() - 8, error));
  std::vector<uint8_t> bad_code = reply;
  bad_code[12] = 200;
  CHECK_FALSE(tpu::host_call_wire::decode_outcome(bad_code.data() + 8, bad_code.size() - 8, error));
  std::vector<uint8_t> huge_length = bytes;  // the function name claims more bytes than the record has
  huge_length[28] = 0xFF;
  CHECK_FALSE(tpu::host_call_wire::decode_request(huge_length.data() + 8, huge_length.size() - 8, error));
}

TEST_CASE("the worker serves calls in order, keeps its state, and answers a throw", "[host_function_worker]") {
  Worker worker("throw");
  worker.call("count", 2, 10);
  worker.call("count", 2, 11);  // queued behind the first
  worker.call("count", 5, 12);
  worker.call("misbehave", 2, 13, {tpu::HostTensor::of<float>({2}, {1, 2})});
  worker.call("count", 2, 14);  // the worker goes on after the throw
  worker.call("format", 2, 15);  // a built-in answers at once, in tpu
  worker.wait_for(6);
  REQUIRE_FALSE(worker.worker->failure());
  REQUIRE(worker.replies.size() == 6);
  CHECK(worker.replies[0].first == 15);  // the built-in came first: it did not wait for the worker
  const std::vector<std::pair<uint32_t, int32_t>> counts = {{10, 1}, {11, 2}, {12, 1}, {14, 3}};
  size_t next = 0;
  for (const auto& [id, outcome] : worker.replies) {
    if (id == 15 || id == 13) continue;
    REQUIRE(outcome.code == StatusCode::kOk);
    CHECK(id == counts[next].first);
    CHECK(outcome.results.at(0).values<int32_t>() == std::vector<int32_t>{counts[next].second});
    ++next;
  }
  const auto thrown = std::find_if(worker.replies.begin(), worker.replies.end(), [](auto& reply) { return reply.first == 13; });
  REQUIRE(thrown != worker.replies.end());
  CHECK(thrown->second.code == StatusCode::kInternal);
  CHECK(thrown->second.message == "host function 'misbehave' failed: misbehave threw on purpose");
}

TEST_CASE("a worker whose function aborts fails, naming the function, the call and the core", "[host_function_worker]") {
  Worker worker("abort");
  worker.call("count", 1, 4);
  worker.call("misbehave", 1, 5, {tpu::HostTensor::of<float>({2}, {1, 2})});
  worker.call("count", 1, 6);  // never served: the run ends with the failure
  worker.wait_for(3);
  REQUIRE(worker.worker->failure());
  CHECK(*worker.worker->failure() ==
        "host function 'misbehave' crashed with SIGABRT (Aborted) during call 1 to it, from core 1 (host call 5)");
  CHECK(worker.replies.size() == 1);
  CHECK_FALSE(worker.worker->busy());
}

TEST_CASE("a function past its deadline is killed and named", "[host_function_worker]") {
  Worker worker("hang", 300ms);
  worker.call("misbehave", 3, 9, {tpu::HostTensor::of<float>({2}, {1, 2})}, 2);
  worker.worker->pump(50ms);
  CHECK(worker.worker->busy());
  CHECK_THAT(worker.worker->describe_running(),
             Catch::StartsWith("host function 'misbehave' had run for") && Catch::EndsWith("in call 1 to it, from replica 2 on core 3 (host call 9)"));
  const auto started = std::chrono::steady_clock::now();
  worker.wait_for(1);
  CHECK(std::chrono::steady_clock::now() - started < 5s);
  REQUIRE(worker.worker->failure());
  CHECK(*worker.worker->failure() ==
        "host function 'misbehave' did not return within its deadline of 0.3 s in call 1 to it, from replica 2 on core 3 "
        "(host call 9); "
        "tpu killed it");
  CHECK(worker.replies.empty());
}
