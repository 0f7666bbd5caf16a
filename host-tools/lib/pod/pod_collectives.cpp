// A pod's collectives across boards, the host's part (pod_collectives.hpp).
#include "pod_collectives.hpp"

#include <cstring>
#include <sstream>

#include "hal/core.hpp"

namespace tpu {
namespace {

constexpr auto kCallDeadline = std::chrono::seconds(60);  // the board's own collective timeout is shorter
constexpr int kTagSpace = 32768;                          // MPI guarantees tags up to 32767

std::optional<rt::DType> dtype_named(const std::string& name) {
  for (rt::DType type : {rt::DType::kF32, rt::DType::kF64, rt::DType::kI32, rt::DType::kU32})
    if (name == rt::dtype_name(type)) return type;
  return std::nullopt;
}

std::optional<unsigned long> number(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 12) return std::nullopt;
  return std::stoul(text);
}

// Element-wise left fold of `rows` into the first, as T.
template <typename T, typename Op>
void fold(std::vector<uint8_t>& into, const std::vector<std::vector<uint8_t>>& rows, size_t count, Op op) {
  std::vector<T> accumulator(count), next(count);
  std::memcpy(accumulator.data(), rows[0].data(), count * sizeof(T));
  for (size_t row = 1; row < rows.size(); ++row) {
    std::memcpy(next.data(), rows[row].data(), count * sizeof(T));
    for (size_t i = 0; i < count; ++i) accumulator[i] = op(accumulator[i], next[i]);
  }
  into.resize(count * sizeof(T));
  std::memcpy(into.data(), accumulator.data(), into.size());
}

// max and min exactly as the board's reduction takes them (runtime/collectives/reduce.cpp): a NaN in
// the left operand wins, then the strict comparison (so max(+0, -0) is -0, as on the board).
template <typename T>
T maximum(T a, T b) {
  return (a > b || a != a) ? a : b;
}
template <typename T>
T minimum(T a, T b) {
  return (a < b || a != a) ? a : b;
}

template <typename T, typename Wide = T>
void fold_op(const std::string& op, std::vector<uint8_t>& into, const std::vector<std::vector<uint8_t>>& rows, size_t count) {
  if (op == "sum")
    fold<T>(into, rows, count, [](T a, T b) { return static_cast<T>(static_cast<Wide>(a) + static_cast<Wide>(b)); });
  else if (op == "max")
    fold<T>(into, rows, count, maximum<T>);
  else
    fold<T>(into, rows, count, minimum<T>);
}

}  // namespace

std::optional<PodReduceRequest> parse_pod_request(const std::string& text, std::string& error) {
  std::istringstream words(text);
  std::string kind;
  words >> kind;
  if (kind != "all_reduce") {
    error = "the pod's collectives know all_reduce, not '" + kind + "'";
    return std::nullopt;
  }
  PodReduceRequest request;
  std::map<std::string, std::string> fields;
  for (std::string word; words >> word;) {
    const size_t equals = word.find('=');
    if (equals == std::string::npos) {
      error = "'" + word + "' is not key=value";
      return std::nullopt;
    }
    fields[word.substr(0, equals)] = word.substr(equals + 1);
  }
  request.op = fields["op"];
  const std::optional<rt::DType> type = dtype_named(fields["type"]);
  const std::optional<unsigned long> count = number(fields["count"]), sequence = number(fields["seq"]),
                                     first = number(fields["first"]);
  if ((request.op != "sum" && request.op != "max" && request.op != "min") || !type || !count || !sequence || !first) {
    error = "malformed all_reduce request '" + text + "'";
    return std::nullopt;
  }
  request.type = *type;
  request.count = *count;
  request.sequence = static_cast<uint32_t>(*sequence);
  request.first_member = static_cast<uint32_t>(*first);
  std::istringstream tasks(fields["tasks"]);
  for (std::string task; std::getline(tasks, task, ',');) {
    const std::optional<unsigned long> value = number(task);
    if (!value) {
      error = "malformed task list '" + fields["tasks"] + "'";
      return std::nullopt;
    }
    request.tasks.push_back(static_cast<unsigned>(*value));
  }
  if (request.tasks.size() < 2) {
    error = "an all_reduce across boards names at least two tasks, this one '" + fields["tasks"] + "'";
    return std::nullopt;
  }
  return request;
}

std::vector<uint8_t> combine_rows(const PodReduceRequest& request, const std::vector<std::vector<uint8_t>>& rows) {
  std::vector<uint8_t> out;
  switch (request.type) {
    case rt::DType::kF32: fold_op<float>(request.op, out, rows, request.count); break;
    case rt::DType::kF64: fold_op<double>(request.op, out, rows, request.count); break;
    case rt::DType::kI32: fold_op<int32_t, uint32_t>(request.op, out, rows, request.count); break;  // wraps
    case rt::DType::kU32: fold_op<uint32_t>(request.op, out, rows, request.count); break;
    default: break;
  }
  return out;
}

int pod_tag(const PodReduceRequest& request) {
  return static_cast<int>((uint64_t{request.sequence} * hal::kMaxCores + request.first_member) % kTagSpace);
}

void PodCollectives::serve(HostFunctions& functions) {
  functions.add_deferred(".pod", [this](HostCallRequest call, HostFunctions::Reply reply) {
    start(std::move(call), std::move(reply));
  });
}

void PodCollectives::start(HostCallRequest call, HostFunctions::Reply reply) {
  std::string error;
  std::optional<PodReduceRequest> request = parse_pod_request(call.text, error);
  if (request && (call.tensors.size() != 1 || call.tensors[0].dtype != request->type ||
                  call.tensors[0].num_elements() != request->count))
    error = "the partial of '" + call.text + "' is " +
            (call.tensors.empty() ? std::string("missing") : call.tensors[0].describe());
  bool member = false;
  if (request)
    for (unsigned task : request->tasks) member = member || task == exchange_.my_rank();
  if (request && error.empty() && !member) error = "this board's task is not in '" + call.text + "'";
  if (!request || !error.empty()) return reply(HostCallOutcome::error(rt::StatusCode::kInvalidArgument, error));
  const int id = exchange_.start_exchange(request->tasks, pod_tag(*request), std::move(call.tensors[0].bytes));
  pending_.emplace(id, Pending{std::move(*request), std::move(reply), std::chrono::steady_clock::now() + kCallDeadline});
}

void PodCollectives::pump() {
  for (auto it = pending_.begin(); it != pending_.end();) {
    std::string error;
    const std::optional<bool> done = exchange_.exchange_done(it->first, error);
    Pending& call = it->second;
    if (done && !*done && std::chrono::steady_clock::now() < call.deadline) {
      ++it;
      continue;
    }
    if (!done) {
      broken_ = true;
      call.reply(HostCallOutcome::error(rt::StatusCode::kUnavailable, "the pod's MPI exchange failed: " + error));
    } else if (!*done) {
      broken_ = true;
      std::string tasks;
      for (unsigned task : call.request.tasks) tasks += (tasks.empty() ? "" : ", ") + std::to_string(task);
      call.reply(HostCallOutcome::error(rt::StatusCode::kDeadlineExceeded,
                                        "the boards of tasks " + tasks + " did not all send their partial within " +
                                            std::to_string(kCallDeadline.count()) + " s"));
    } else {
      HostTensor result;
      result.dtype = call.request.type;
      result.dims = {static_cast<int64_t>(call.request.count)};
      result.bytes = combine_rows(call.request, exchange_.take_rows(it->first));
      call.reply(HostCallOutcome::ok({std::move(result)}));
    }
    it = pending_.erase(it);
  }
}

}  // namespace tpu
