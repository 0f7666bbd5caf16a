// A pod's collectives across boards, the host's part (pod_collectives.hpp).
#include "pod_collectives.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "hal/core.hpp"

namespace tpu {
namespace {

constexpr auto kCallDeadline = std::chrono::seconds(60);  // the board's own collective timeout is shorter
constexpr int kTagSpace = 32768;                          // MPI guarantees tags up to 32767

std::optional<rt::DType> dtype_named(const std::string& name) {
  for (rt::DType type : {rt::DType::kF32, rt::DType::kF64, rt::DType::kI32, rt::DType::kU32, rt::DType::kI8})
    if (name == rt::dtype_name(type)) return type;
  return std::nullopt;
}

std::optional<unsigned long> number(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 12) return std::nullopt;
  return std::stoul(text);
}

// "0,1,2" -> {0, 1, 2} ("" -> {}); nullopt if an entry is not a number.
std::optional<std::vector<unsigned long>> numbers(const std::string& text) {
  std::vector<unsigned long> values;
  std::istringstream entries(text);
  for (std::string entry; std::getline(entries, entry, ',');) {
    const std::optional<unsigned long> value = number(entry);
    if (!value) return std::nullopt;
    values.push_back(*value);
  }
  return values;
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

std::vector<unsigned> PodRequest::tasks() const {
  std::vector<unsigned> order;
  for (unsigned task : member_tasks)
    if (std::find(order.begin(), order.end(), task) == order.end()) order.push_back(task);
  return order;
}

size_t PodRequest::row_bytes(unsigned task) const {
  const size_t block = count * rt::dtype_size(type);
  if (kind == "rows") return task < sizes.size() ? sizes[task] : 0;
  if (kind == "all_reduce") return block;
  if (kind == "all_gather") return block * static_cast<size_t>(std::count(member_tasks.begin(), member_tasks.end(), task));
  if (kind == "broadcast") return member_tasks[source] == task ? block : 0;
  return 0;
}

size_t PodRequest::result_bytes() const {
  const size_t block = count * rt::dtype_size(type);
  if (kind == "rows") {
    size_t total = 0;
    for (size_t size : sizes) total += size;
    return total;
  }
  if (kind == "all_gather") return block * member_tasks.size();
  return kind == "barrier" ? 0 : block;
}

std::optional<PodRequest> parse_pod_request(const std::string& text, std::string& error) {
  std::istringstream words(text);
  PodRequest request;
  words >> request.kind;
  if (request.kind != "all_reduce" && request.kind != "all_gather" && request.kind != "broadcast" &&
      request.kind != "barrier" && request.kind != "rows") {
    error = "the pod's collectives are all_reduce, all_gather, broadcast, barrier and rows, not '" + request.kind + "'";
    return std::nullopt;
  }
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
                                     first = number(fields["first"]), source = number(fields["source"]);
  const bool reduction = request.kind == "all_reduce";
  if ((reduction && request.op != "sum" && request.op != "max" && request.op != "min") ||
      (request.kind != "barrier" && !type) || !count || !sequence || !first || !source) {
    error = "malformed request '" + text + "'";
    return std::nullopt;
  }
  request.type = type.value_or(rt::DType::kF32);
  request.count = *count;
  request.sequence = static_cast<uint32_t>(*sequence);
  request.first_member = static_cast<uint32_t>(*first);
  request.source = static_cast<unsigned>(*source);
  const std::optional<std::vector<unsigned long>> sizes = numbers(request.kind == "rows" ? fields["sizes"] : "");
  const std::optional<std::vector<unsigned long>> members = numbers(fields["members"]);
  if (!sizes || !members) {
    error = "malformed " + std::string(sizes ? "member" : "size") + " list '" + fields[sizes ? "members" : "sizes"] + "'";
    return std::nullopt;
  }
  for (const unsigned long size : *sizes) {  // rows: every task, in order, each with its row's size
    request.member_tasks.push_back(static_cast<unsigned>(request.sizes.size()));
    request.sizes.push_back(size);
  }
  for (const unsigned long task : *members) request.member_tasks.push_back(static_cast<unsigned>(task));
  if (request.tasks().size() < 2) {
    error = "a collective across boards has members on at least two tasks, this one '" + fields["members"] + "'";
    return std::nullopt;
  }
  if (request.source >= request.member_tasks.size()) {
    error = "source position " + fields["source"] + " is outside the group of " +
            std::to_string(request.member_tasks.size());
    return std::nullopt;
  }
  return request;
}

std::vector<uint8_t> combine_rows(const PodRequest& request, const std::vector<std::vector<uint8_t>>& rows) {
  std::vector<uint8_t> out;
  if (request.kind == "all_reduce") {
    switch (request.type) {
      case rt::DType::kF32: fold_op<float>(request.op, out, rows, request.count); break;
      case rt::DType::kF64: fold_op<double>(request.op, out, rows, request.count); break;
      case rt::DType::kI32: fold_op<int32_t, uint32_t>(request.op, out, rows, request.count); break;  // wraps
      case rt::DType::kU32: fold_op<uint32_t>(request.op, out, rows, request.count); break;
      default: break;
    }
    return out;
  }
  const std::vector<unsigned> tasks = request.tasks();
  const size_t block = request.count * rt::dtype_size(request.type);
  if (request.kind == "rows") {
    for (const std::vector<uint8_t>& row : rows) out.insert(out.end(), row.begin(), row.end());
    return out;
  }
  if (request.kind == "broadcast") {
    const size_t row = static_cast<size_t>(std::find(tasks.begin(), tasks.end(), request.member_tasks[request.source]) -
                                           tasks.begin());
    return rows[row];
  }
  if (request.kind == "all_gather") {  // position p's block: the next unread block of its task's row
    std::vector<size_t> taken(tasks.size(), 0);
    out.reserve(block * request.member_tasks.size());
    for (unsigned task : request.member_tasks) {
      const size_t row = static_cast<size_t>(std::find(tasks.begin(), tasks.end(), task) - tasks.begin());
      const uint8_t* begin = rows[row].data() + taken[row] * block;
      out.insert(out.end(), begin, begin + block);
      ++taken[row];
    }
  }
  return out;
}

int pod_tag(const PodRequest& request) {
  return static_cast<int>((uint64_t{request.sequence} * hal::kMaxCores + request.first_member) % kTagSpace);
}

void PodCollectives::serve(HostFunctions& functions) {
  functions.add_deferred(".pod", [this](HostCallRequest call, HostFunctions::Reply reply) {
    start(std::move(call), std::move(reply));
  });
}

void PodCollectives::start(HostCallRequest call, HostFunctions::Reply reply) {
  std::string error;
  std::optional<PodRequest> request = parse_pod_request(call.text, error);
  if (request) {
    const std::vector<unsigned>& members = request->member_tasks;
    const size_t expected = request->row_bytes(exchange_.my_rank());
    const size_t given = call.tensors.empty() ? 0 : call.tensors[0].bytes.size();
    if (std::find(members.begin(), members.end(), exchange_.my_rank()) == members.end())
      error = "this board's task is not in '" + call.text + "'";
    else if (call.tensors.size() > 1 || given != expected || (!call.tensors.empty() && call.tensors[0].dtype != request->type))
      error = "this board's part of '" + call.text + "' should be " + std::to_string(expected) + " bytes of " +
              rt::dtype_name(request->type) + ", it is " +
              (call.tensors.empty() ? std::string("nothing") : call.tensors[0].describe());
  }
  if (!request || !error.empty()) return reply(HostCallOutcome::error(rt::StatusCode::kInvalidArgument, error));
  std::vector<size_t> sizes;
  for (unsigned task : request->tasks()) sizes.push_back(request->row_bytes(task));
  std::vector<uint8_t> mine = call.tensors.empty() ? std::vector<uint8_t>() : std::move(call.tensors[0].bytes);
  const int id = exchange_.start_exchange(request->tasks(), pod_tag(*request), std::move(mine), sizes);
  const auto now = std::chrono::steady_clock::now();
  pending_.emplace(id, Pending{std::move(*request), std::move(reply), now + kCallDeadline, now});
}

std::chrono::milliseconds PodCollectives::poll_interval() const {
  const auto now = std::chrono::steady_clock::now();
  for (const auto& [id, call] : pending_)
    if (now - call.started < kSpinFor) return std::chrono::milliseconds(0);
  return std::chrono::milliseconds(1);
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
      for (unsigned task : call.request.tasks()) tasks += (tasks.empty() ? "" : ", ") + std::to_string(task);
      call.reply(HostCallOutcome::error(rt::StatusCode::kDeadlineExceeded,
                                        "the boards of tasks " + tasks + " did not all send their partial within " +
                                            std::to_string(kCallDeadline.count()) + " s"));
    } else if (call.request.kind == "barrier") {
      exchange_.take_rows(it->first);
      call.reply(HostCallOutcome::ok());
    } else {
      HostTensor result;
      result.dtype = call.request.type;
      result.bytes = combine_rows(call.request, exchange_.take_rows(it->first));
      result.dims = {static_cast<int64_t>(result.bytes.size() / rt::dtype_size(call.request.type))};
      call.reply(HostCallOutcome::ok({std::move(result)}));
    }
    it = pending_.erase(it);
  }
}

}  // namespace tpu
