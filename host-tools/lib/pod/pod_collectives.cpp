// A pod's collectives across boards, the host's part (pod_collectives.hpp).
#include "pod_collectives.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "hal/core.hpp"
#include "pod_members.hpp"
#include "host-tools/lib/text/numbered_list.hpp"
#include "runtime/collectives/reduce.hpp"

namespace tpu {
namespace {

constexpr auto kCallDeadline = std::chrono::seconds(60);  // the board's own collective timeout is shorter
constexpr int kTagSpace = 32768;                          // MPI guarantees tags up to 32767

std::optional<rt::DType> dtype_named(const std::string& name) {
  for (rt::DType type : {rt::DType::kF32, rt::DType::kF64, rt::DType::kBF16, rt::DType::kF16, rt::DType::kI8,
                         rt::DType::kI32, rt::DType::kU32, rt::DType::kI64, rt::DType::kBool, rt::DType::kC64})
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

// The rows folded left into `out` (rows[0] op rows[1] op ...) by the board's own kernel
// (rt::reduce_many: the same rounding, wrapping and NaN rules as one board), at most its operand
// count at a time, the running result first. `out` may be one of the rows.
void fold_rows(rt::ReduceOp op, rt::DType type, const std::vector<std::span<const uint8_t>>& rows, std::span<uint8_t> out,
               size_t count) {
  constexpr size_t kOperands = rt::kMaxReduceOperands;  // what reduce_many takes
  uint8_t* output = out.data();
  for (size_t next = 0; next < rows.size();) {
    std::vector<const uint8_t*> inputs;
    if (next != 0) inputs.push_back(out.data());
    while (next < rows.size() && inputs.size() < kOperands) inputs.push_back(rows[next++].data());
    if (inputs.size() == 1) {  // one row: it is the result
      if (inputs[0] != output) std::memmove(output, inputs[0], count * rt::dtype_size(type));
      continue;
    }
    rt::reduce_many(op, type, inputs.data(), static_cast<unsigned>(inputs.size()), &output, 1, count);
  }
}

size_t position_of(const std::vector<unsigned>& tasks, unsigned task) {
  return static_cast<size_t>(std::find(tasks.begin(), tasks.end(), task) - tasks.begin());
}

// How a split all_reduce cuts a row: piece p of the K tasks' is elements [p count / K, (p + 1) count / K);
// `me` is this task's position, so piece `me` is the one it folds.
struct RowPieces {
  RowPieces(const PodRequest& request, unsigned my_rank)
      : tasks(request.tasks()), count(request.count), element(rt::dtype_size(request.type)), me(position_of(tasks, my_rank)) {}
  size_t k() const { return tasks.size(); }
  template <typename Byte>
  std::span<Byte> of(std::span<Byte> row, size_t p) const {
    const size_t first = p * count / k(), end = (p + 1) * count / k();
    return row.subspan(first * element, (end - first) * element);
  }
  std::vector<unsigned> tasks;
  size_t count, element, me;
};

bool known_kind(const std::string& kind) {
  for (const char* name : {"all_reduce", "all_gather", "broadcast", "barrier", "reduce_scatter", "all_to_all",
                           "collective_permute", "rows"})
    if (kind == name) return true;
  return false;
}

// Which op, dtype and form each kind takes: all_reduce by partials sum, max and min of the 32- and
// 64-bit types (pod_collectives.hpp), by members also mean and the 16-bit floats; reduce_scatter,
// all_to_all and collective_permute only by members.
bool form_fits(const PodRequest& request) {
  const bool reduction = request.kind == "all_reduce" || request.kind == "reduce_scatter";
  const bool member_kind = request.kind == "reduce_scatter" || request.kind == "all_to_all" ||
                           request.kind == "collective_permute";
  if (member_kind && !request.by_members) return false;
  if (request.by_members && !member_kind && request.kind != "all_reduce") return false;
  if (!reduction) return true;
  const std::string& op = request.op;
  if (op != "sum" && op != "max" && op != "min" && op != "mean") return false;
  if (request.by_members) return rt::reducible(request.type);
  return op != "mean" && rt::reducible_by_partials(rt::ReduceOp::kSum, request.type);
}

// "1:2" -> (1, 2); nullopt if malformed.
std::optional<std::pair<unsigned, unsigned>> pair_of(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos) return std::nullopt;
  const std::optional<unsigned long> source = number(text.substr(0, colon)), target = number(text.substr(colon + 1));
  if (!source || !target) return std::nullopt;
  return std::make_pair(static_cast<unsigned>(*source), static_cast<unsigned>(*target));
}

// all_to_all's "blocks=a,b,c,d" and collective_permute's "pairs=s:t,...".
bool read_member_fields(std::map<std::string, std::string>& fields, PodRequest& request) {
  if (request.kind == "all_to_all") {
    const std::optional<std::vector<unsigned long>> blocks = numbers(fields["blocks"]);
    if (!blocks || blocks->size() != 4) return false;
    request.blocks = rt::BlockGeometry{(*blocks)[0], (*blocks)[1], (*blocks)[2], (*blocks)[3]};
  }
  if (request.kind == "collective_permute") {
    std::istringstream entries(fields["pairs"]);
    for (std::string entry; std::getline(entries, entry, ',');) {
      const std::optional<std::pair<unsigned, unsigned>> pair = pair_of(entry);
      if (!pair) return false;
      request.pairs.push_back(*pair);
    }
  }
  return true;
}

// A by-members request whose sizes do not add up ("" if they do).
std::string check_member_layout(const PodRequest& request) {
  const size_t n = request.member_tasks.size();
  const size_t input = request.count * rt::dtype_size(request.type);
  if (request.kind == "reduce_scatter" && request.count % n != 0)
    return "reduce_scatter of " + std::to_string(request.count) + " elements does not split over a group of " +
           std::to_string(n);
  const rt::BlockGeometry& g = request.blocks;
  if (request.kind == "all_to_all" &&
      (g.split_rows * g.split_row_bytes != g.concat_rows * g.concat_row_bytes || g.split_rows * g.split_row_bytes * n != input))
    return "all_to_all's blocks " + std::to_string(g.split_rows) + "x" + std::to_string(g.split_row_bytes) + " and " +
           std::to_string(g.concat_rows) + "x" + std::to_string(g.concat_row_bytes) + " do not make inputs of " +
           std::to_string(input) + " bytes over a group of " + std::to_string(n);
  std::vector<bool> source(n, false), target(n, false);
  for (const auto& [from, to] : request.pairs) {
    if (from >= n || to >= n || source[from] || target[to])
      return "collective_permute's pair " + std::to_string(from) + ":" + std::to_string(to) +
             " is outside the " + std::to_string(n) + " replicas or repeats a source or target";
    source[from] = target[to] = true;
  }
  return "";
}

}  // namespace

std::vector<unsigned> PodRequest::tasks() const {
  std::vector<unsigned> order;
  for (unsigned task : member_tasks)
    if (std::find(order.begin(), order.end(), task) == order.end()) order.push_back(task);
  return order;
}

std::vector<unsigned> PodRequest::members_on(unsigned task) const {
  std::vector<unsigned> positions;
  for (unsigned j = 0; j < member_tasks.size(); ++j)
    if (member_tasks[j] == task) positions.push_back(j);
  return positions;
}

size_t PodRequest::row_bytes(unsigned from, unsigned to) const {
  const size_t block = count * rt::dtype_size(type);
  if (by_members) return row_pieces(*this, from, to).size() * piece_bytes(*this);
  if (kind == "rows") return from < sizes.size() ? sizes[from] : 0;
  if (kind == "all_reduce") return block;
  if (kind == "all_gather") return block * static_cast<size_t>(std::count(member_tasks.begin(), member_tasks.end(), from));
  if (kind == "broadcast") return member_tasks[source] == from ? block : 0;
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
  if (kind == "reduce_scatter") return block / member_tasks.size();
  return kind == "barrier" ? 0 : block;
}

std::optional<PodRequest> parse_pod_request(const std::string& text, std::string& error) {
  std::istringstream words(text);
  PodRequest request;
  words >> request.kind;
  if (!known_kind(request.kind)) {
    error = "the pod's collectives are all_reduce, all_gather, broadcast, barrier, reduce_scatter, all_to_all, "
            "collective_permute and rows, not '" + request.kind + "'";
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
  request.text = text;
  request.op = fields["op"];
  request.shape = fields["shape"];
  const std::optional<rt::DType> type = dtype_named(fields["type"]);
  const std::optional<unsigned long> count = number(fields["count"]), sequence = number(fields["seq"]),
                                     first = number(fields["first"]), source = number(fields["source"]),
                                     logical_core = fields.count("lc") ? number(fields["lc"]) : 0ul;
  request.by_members = fields["by"] == "members";
  request.type = type.value_or(rt::DType::kF32);
  if (!form_fits(request) || (request.kind != "barrier" && !type) || !count || !sequence || !first || !source ||
      !logical_core || *logical_core >= hal::kMaxCores || !read_member_fields(fields, request)) {
    error = "malformed request '" + text + "'";
    return std::nullopt;
  }
  request.count = *count;
  request.sequence = static_cast<uint32_t>(*sequence);
  request.first_member = static_cast<uint32_t>(*first);
  request.logical_core = static_cast<uint32_t>(*logical_core);
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
  error = check_member_layout(request);
  if (!error.empty()) return std::nullopt;
  return request;
}

void combine_rows_into(const PodRequest& request, const std::vector<std::span<const uint8_t>>& rows, std::span<uint8_t> out) {
  // A row inside `out` (the board's own part where the board keeps its result) is read before `out`
  // is written only by the reduction's fold, and only where it is `out` exactly; otherwise go through a copy.
  for (const std::span<const uint8_t>& row : rows) {
    const bool overlap = !row.empty() && !out.empty() && row.data() < out.data() + out.size() && out.data() < row.data() + row.size();
    const bool same = row.data() == out.data() && row.size() == out.size() && request.kind == "all_reduce";
    if (overlap && !same) {
      std::vector<uint8_t> separate(out.size());
      combine_rows_into(request, rows, separate);
      std::memcpy(out.data(), separate.data(), out.size());
      return;
    }
  }
  if (request.kind == "all_reduce") return fold_rows(reduce_op_named(request.op), request.type, rows, out, request.count);
  const std::vector<unsigned> tasks = request.tasks();
  const size_t block = request.count * rt::dtype_size(request.type);
  auto put = [&out](size_t at, const uint8_t* begin, size_t bytes) {
    if (bytes != 0) std::memcpy(out.data() + at, begin, bytes);
  };
  if (request.kind == "rows") {
    size_t at = 0;
    for (const std::span<const uint8_t>& row : rows) put(at, row.data(), row.size()), at += row.size();
  } else if (request.kind == "broadcast") {
    const size_t row = position_of(tasks, request.member_tasks[request.source]);
    put(0, rows[row].data(), rows[row].size());
  } else if (request.kind == "all_gather") {  // position p's block: the next unread block of its task's row
    std::vector<size_t> taken(tasks.size(), 0);
    for (size_t p = 0; p < request.member_tasks.size(); ++p) {
      const size_t row = position_of(tasks, request.member_tasks[p]);
      put(p * block, rows[row].data() + taken[row]++ * block, block);
    }
  }
}

std::vector<uint8_t> combine_rows(const PodRequest& request, const std::vector<std::vector<uint8_t>>& rows) {
  std::vector<std::span<const uint8_t>> views(rows.begin(), rows.end());
  std::vector<uint8_t> out(request.result_bytes());
  combine_rows_into(request, views, out);
  return out;
}

std::string describe_pod_request(const PodRequest& request) {
  const bool reduces = request.kind == "all_reduce" || request.kind == "reduce_scatter";
  std::string text = request.kind + (reduces ? " " + request.op : "");
  if (request.kind == "barrier") return text;
  text += " of " + std::to_string(request.count) + " " + rt::dtype_name(request.type);
  if (request.shape.empty()) return text;
  std::string shape;  // "[2,2]" -> "[2, 2]", as the board writes a shape
  for (const char c : request.shape) shape += c == ',' ? std::string(", ") : std::string(1, c);
  return text + " shaped " + shape;
}

std::string pod_mismatch(const PodRequest& mine, unsigned task, const std::string& their_text) {
  std::string ignored;
  const std::optional<PodRequest> theirs = parse_pod_request(their_text, ignored);
  const std::string here = describe_pod_request(mine), there = theirs ? describe_pod_request(*theirs) : "";
  const std::string start = "collective mismatch with task " + std::to_string(task) + ": ";
  if (theirs && here != there) return start + here + " here, " + there + " there";
  return start + "'" + mine.text + "' here, '" + their_text + "' there";
}

int pod_tag(const PodRequest& request) {
  // first_member is a replica id of the pod (0 .. kMaxPodDevices - 1) and logical_core a core of one
  // board (0 .. kMaxCores - 1): unique per sequence number. A wrap of kTagSpace needs 32 calls in
  // flight of one group on one logical core, whose calls come one at a time.
  const uint64_t slot = uint64_t{request.sequence} * hal::kMaxCores + request.logical_core;
  return static_cast<int>((slot * rt::kMaxPodDevices + request.first_member) % kTagSpace);
}

void PodCollectives::write_results_in_place(ClaimResult claim, ReleaseResult release, size_t split_from,
                                            std::chrono::milliseconds claim_hold) {
  claim_ = std::move(claim);
  release_ = std::move(release);
  split_from_ = split_from;
  claim_hold_ = claim_hold;
}

void PodCollectives::serve(HostFunctions& functions) {
  functions.add_deferred(
      ".pod", [this](HostCallRequest call, HostFunctions::Reply reply) { start(std::move(call), std::move(reply)); },
      HostFunctions::ArgumentsIn::kBoardMemory);
}

std::span<uint8_t> PodCollectives::Buffers::take(size_t bytes) {
  Buffer* best = nullptr;  // the smallest free buffer that holds `bytes`
  for (Buffer& buffer : buffers_)
    if (!buffer.in_use && buffer.capacity >= bytes && (best == nullptr || buffer.capacity < best->capacity)) best = &buffer;
  if (best == nullptr) {
    // At most kMaxKept buffers and kMaxKeptBytes in them: free ones go, the largest first, rather
    // than the pool growing for ever (what is in use stays, since MPI may be writing into it).
    constexpr size_t kMaxKept = 16, kMaxKeptBytes = size_t{1} << 30;
    for (;;) {
      size_t kept = bytes;
      for (const Buffer& buffer : buffers_) kept += buffer.capacity;
      if (buffers_.size() < kMaxKept && kept <= kMaxKeptBytes) break;
      auto largest = buffers_.end();
      for (auto it = buffers_.begin(); it != buffers_.end(); ++it)
        if (!it->in_use && (largest == buffers_.end() || it->capacity > largest->capacity)) largest = it;
      if (largest == buffers_.end()) break;
      buffers_.erase(largest);
    }
    buffers_.push_back(Buffer{std::make_unique_for_overwrite<uint8_t[]>(std::max<size_t>(bytes, 1)), bytes, false});
    best = &buffers_.back();
  }
  best->in_use = true;
  return std::span<uint8_t>(best->bytes.get(), bytes);
}

void PodCollectives::Buffers::give_back(std::span<uint8_t> buffer) {
  for (Buffer& kept : buffers_)
    if (kept.bytes.get() == buffer.data()) kept.in_use = false;
}

std::string PodCollectives::check_part(const PodRequest& request, const HostCallRequest& call) const {
  const unsigned me = exchange_.my_rank();
  const std::vector<unsigned>& members = request.member_tasks;
  if (std::find(members.begin(), members.end(), me) == members.end()) return "this board's task is not in '" + call.text + "'";
  std::string given;
  for (const HostTensor& tensor : call.tensors) given += (given.empty() ? "" : ", ") + tensor.describe();
  if (given.empty()) given = "nothing";
  if (request.by_members) {  // one input per member here
    const size_t here = request.members_on(me).size(), input = request.count * rt::dtype_size(request.type);
    bool fits = call.tensors.size() == here;
    for (size_t i = 0; fits && i < call.tensors.size(); ++i)
      fits = call.bytes_of(i).size() == input && call.tensors[i].dtype == request.type;
    if (fits) return "";
    return "this board's part of '" + call.text + "' should be " + std::to_string(here) + " inputs of " +
           std::to_string(input) + " bytes of " + rt::dtype_name(request.type) + " (one per member here), it is " + given;
  }
  const size_t expected = request.row_bytes(me, me);  // the same row for every board
  const size_t bytes = call.tensors.empty() ? 0 : call.bytes_of(0).size();
  if (call.tensors.size() <= 1 && bytes == expected && (call.tensors.empty() || call.tensors[0].dtype == request.type))
    return "";
  return "this board's part of '" + call.text + "' should be " + std::to_string(expected) + " bytes of " +
         rt::dtype_name(request.type) + ", it is " + given;
}

void PodCollectives::start(HostCallRequest call, HostFunctions::Reply reply) {
  std::string error;
  std::optional<PodRequest> request = parse_pod_request(call.text, error);
  if (request) error = check_part(*request, call);
  if (!request || !error.empty()) return reply(HostCallOutcome::error(rt::StatusCode::kInvalidArgument, error));
  const auto now = std::chrono::steady_clock::now();
  Pending pending{std::move(*request), {}, {}, {}, {}, {}, std::move(reply), now + kCallDeadline, now};
  const unsigned me = exchange_.my_rank();
  const std::vector<unsigned> tasks = pending.request.tasks();
  std::span<const uint8_t> mine;  // this board's row (by the board's part): where the board keeps it, else a copy
  if (pending.request.by_members) {
    for (size_t i = 0; i < call.tensors.size(); ++i) {
      const std::span<const uint8_t> input = call.bytes_of(i);
      pending.inputs_here.emplace_back(input.begin(), input.end());
    }
    for (unsigned task : tasks)  // a row of its own for every other board: what that board needs
      pending.packed.push_back(task == me ? std::vector<uint8_t>()
                                          : pack_member_row(pending.request, me, task, pending.inputs_here));
  } else if (!call.tensors.empty()) {
    if (call.in_board.empty() || call.in_board[0].empty()) pending.own_copy = std::move(call.tensors[0].bytes);
    mine = pending.own_copy.empty() ? call.bytes_of(0) : std::span<const uint8_t>(pending.own_copy);
  }
  if (splits(pending.request)) {
    pending.split = true;
    pending.core = call.core;
    pending.call_id = call.id;
    return start_piece_gather(std::move(pending), mine);
  }
  std::vector<std::span<const uint8_t>> out;
  std::vector<std::span<uint8_t>> into;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const bool own = tasks[i] == me;
    out.push_back(pending.request.by_members ? std::span<const uint8_t>(pending.packed[i]) : mine);
    into.push_back(own ? std::span<uint8_t>() : buffers_.take(pending.request.row_bytes(tasks[i], me)));
    pending.rows.push_back(own ? mine : std::span<const uint8_t>(into.back()));
    if (!own) pending.received.push_back(into.back());
  }
  const int id = exchange_.start_exchange(tasks, pod_tag(pending.request), pending.request.text, std::move(out),
                                          std::move(into));
  pending_.emplace(id, std::move(pending));
}

bool PodCollectives::splits(const PodRequest& request) const {
  return !request.by_members && request.kind == "all_reduce" && request.result_bytes() >= split_from_ &&
         request.count >= request.tasks().size();
}

void PodCollectives::place_split_output(Pending& call) {
  const size_t bytes = call.request.result_bytes();
  call.output = claim_ ? claim_(call.core, call.call_id, bytes) : nullptr;
  call.output_claimed = call.output != nullptr;
  call.claimed_at = std::chrono::steady_clock::now();
  if (call.output_claimed) return;
  call.output_buffer = buffers_.take(bytes);
  call.output = call.output_buffer.data();
}

bool PodCollectives::overdue(const Pending& call, std::chrono::steady_clock::time_point now) const {
  return now >= call.deadline || (call.output_claimed && now - call.claimed_at > claim_hold_);
}

void PodCollectives::abandon(int id, Pending& call) {
  if (!call.output_claimed) return;  // the receives write only buffers of ours, kept in use
  exchange_.cancel_exchange(id);     // none writes into the board's output after this
  release_output(call);
}

void PodCollectives::start_piece_gather(Pending call, std::span<const uint8_t> mine) {
  const RowPieces pieces(call.request, exchange_.my_rank());
  const std::span<const uint8_t> my_piece = pieces.of(mine, pieces.me);
  std::vector<std::span<const uint8_t>> out;
  std::vector<std::span<uint8_t>> into;
  for (size_t i = 0; i < pieces.k(); ++i) {
    out.push_back(pieces.of(mine, i));  // task i's piece of this part
    into.push_back(i == pieces.me ? std::span<uint8_t>() : buffers_.take(my_piece.size()));
    call.rows.push_back(i == pieces.me ? my_piece : std::span<const uint8_t>(into.back()));
    if (i != pieces.me) call.received.push_back(into.back());
  }
  const int id = exchange_.start_exchange(pieces.tasks, pod_tag(call.request), call.request.text, std::move(out),
                                          std::move(into));
  pending_.emplace(id, std::move(call));
}

void PodCollectives::exchange_folded_pieces(Pending call) {
  const RowPieces pieces(call.request, exchange_.my_rank());
  const size_t k = pieces.k();
  std::vector<std::span<const uint8_t>> out;
  std::vector<std::span<uint8_t>> into;
  out.reserve(k);  // nothing of ours is allocated between the claim and the exchange that carries it
  into.reserve(k);
  place_split_output(call);
  const std::span<uint8_t> output(call.output, call.request.result_bytes());
  const std::span<uint8_t> folded = pieces.of(output, pieces.me);
  PodRequest piece = call.request;
  piece.count = folded.size() / pieces.element;
  combine_rows_into(piece, call.rows, folded);  // may be this part's own piece, in place
  give_back_received(call);  // folded in: done with
  call.rows.clear();
  out.assign(k, folded);
  for (size_t i = 0; i < k; ++i) into.push_back(i == pieces.me ? std::span<uint8_t>() : pieces.of(output, i));
  call.pieces_folded = true;  // the signatures agreed as the pieces came
  const int id = exchange_.start_exchange(pieces.tasks, pod_tag(call.request), "", std::move(out), std::move(into));
  pending_.emplace(id, std::move(call));
}

void PodCollectives::release_output(const Pending& call) {
  if (call.output_claimed && release_) release_(call.core, call.call_id);
}

// The call's results from every board's row: the group's result, folded straight into the board's
// output where it can be (a split all_reduce: already there), or (by members) every member's here.
void PodCollectives::answer(Pending& call) {
  const PodRequest& request = call.request;
  if (request.kind == "barrier") return call.reply(HostCallOutcome::ok());
  auto shaped = [&request](size_t bytes) {
    HostTensor result;
    result.dtype = request.type;
    result.dims = {static_cast<int64_t>(bytes / rt::dtype_size(request.type))};
    return result;
  };
  if (call.output != nullptr) {  // made already: in the board's output, or copied from where it was made
    release_output(call);
    const uint8_t* output = call.output;
    return call.reply(HostCallOutcome::written({shaped(request.result_bytes())}, [output](size_t, std::span<uint8_t> out) {
      if (out.data() != output) std::memcpy(out.data(), output, out.size());
    }));
  }
  if (!request.by_members) {
    return call.reply(HostCallOutcome::written({shaped(request.result_bytes())}, [&call](size_t, std::span<uint8_t> out) {
      combine_rows_into(call.request, call.rows, out);
    }));
  }
  std::string error;
  std::vector<std::vector<uint8_t>> rows;
  for (const std::span<const uint8_t> row : call.rows) rows.emplace_back(row.begin(), row.end());
  std::vector<std::vector<uint8_t>> outputs = member_outputs(request, exchange_.my_rank(), call.inputs_here, rows, error);
  if (!error.empty())
    return call.reply(HostCallOutcome::error(rt::StatusCode::kInternal,
                                             "the boards' parts of a " + request.kind + " disagree: " + error));
  std::vector<HostTensor> results;
  for (std::vector<uint8_t>& bytes : outputs) {
    results.push_back(shaped(bytes.size()));
    results.back().bytes = std::move(bytes);
  }
  call.reply(HostCallOutcome::ok(std::move(results)));
}

void PodCollectives::give_back_received(Pending& call) {
  for (const std::span<uint8_t> buffer : call.received) buffers_.give_back(buffer);
  call.received.clear();
}

void PodCollectives::release(Pending& call) {
  give_back_received(call);
  if (!call.output_buffer.empty()) buffers_.give_back(call.output_buffer);
  call.output_buffer = {};
}

std::chrono::milliseconds PodCollectives::poll_interval() const {
  const auto now = std::chrono::steady_clock::now();
  for (const auto& [id, call] : pending_)
    if (now - call.started < kSpinFor) return std::chrono::milliseconds(0);
  return std::chrono::milliseconds(1);
}

void PodCollectives::refuse_mismatched(int id, Pending call, const RowExchange::Disagreement& differs, bool done) {
  call.reply(HostCallOutcome::error(rt::StatusCode::kInvalidArgument,
                                    pod_mismatch(call.request, differs.rank, differs.signature)));
  if (done) {
    exchange_.end_exchange(id);
    return release(call);
  }
  abandon(id, call);  // (a signed exchange never writes a claimed output: the claim comes after it)
  if (!call.output_claimed) draining_.push_back(id);
  abandoned_.push_back(std::move(call));
}

void PodCollectives::report_unfinished(std::ostream& out) const {
  for (const auto& [id, call] : pending_) {
    const PodRequest& request = call.request;
    const std::vector<unsigned> silent = exchange_.silent_ranks(id);
    const std::string what = call.pieces_folded ? "folded piece" : "part";
    const std::string name = request.kind == "rows"  // the program's, after replicate (pod_program.cpp)
                                 ? "the boards' exchange of the program's outputs"
                                 : request.kind + " #" + std::to_string(request.sequence) + " across boards";
    out << "tpu: the board ended in " << name << "; "
        << (silent.empty() ? "every task's " + what + " had come" : "no " + what + " came from " + numbered_list("task", silent))
        << (request.kind == "rows" ? "" : " (" + describe_pod_request(request) + ")") << std::endl;
  }
}

PodCollectives::~PodCollectives() {
  for (const int id : draining_) exchange_.cancel_exchange(id);
}

void PodCollectives::drain() {
  for (auto it = draining_.begin(); it != draining_.end();) {
    std::string error;
    const std::optional<bool> done = exchange_.exchange_done(*it, error);
    if (done == false) {
      ++it;
      continue;
    }
    if (done) exchange_.end_exchange(*it);
    else exchange_.cancel_exchange(*it);  // a row of another size fails its receive: the others end
    it = draining_.erase(it);
  }
}

void PodCollectives::pump() {
  drain();
  for (auto it = pending_.begin(); it != pending_.end();) {
    std::string error;
    const std::optional<bool> done = exchange_.exchange_done(it->first, error);
    // Whatever the rows did: a board that sent a different call fails it (rows of another size may
    // also have failed the transfer, which would hide why; rows that came are never folded).
    if (const std::optional<RowExchange::Disagreement> differs = exchange_.disagreement(it->first)) {
      refuse_mismatched(it->first, std::move(it->second), *differs, done == true);
      it = pending_.erase(it);
      continue;
    }
    Pending& call = it->second;
    const auto now = std::chrono::steady_clock::now();
    if (done && !*done && !overdue(call, now)) {
      ++it;
      continue;
    }
    if (!done || !*done) abandon(it->first, call);  // a failed pod: the board may give the call up at once
    if (!done) {
      call.reply(HostCallOutcome::error(rt::StatusCode::kUnavailable, "the pod's MPI exchange failed: " + error));
    } else if (!*done) {
      const std::string within = now < call.deadline ? std::to_string(claim_hold_.count()) + " ms (its output claimed)"
                                                     : std::to_string(kCallDeadline.count()) + " s";
      const std::vector<unsigned> silent = exchange_.silent_ranks(it->first);
      call.reply(HostCallOutcome::error(
          rt::StatusCode::kDeadlineExceeded,
          "the boards of " + numbered_list("task", call.request.tasks()) + " did not all send their " +
              (call.pieces_folded ? "folded pieces" : "partial") + " within " + within +
              (silent.empty() ? std::string() : " (nothing from " + numbered_list("task", silent) + ")")));
    } else if (call.split && !call.pieces_folded) {
      exchange_.end_exchange(it->first);
      Pending gathered = std::move(call);
      it = pending_.erase(it);
      exchange_folded_pieces(std::move(gathered));  // under a new exchange id
      continue;
    } else {
      exchange_.end_exchange(it->first);
      answer(call);
      release(call);
    }
    if (!done || !*done) abandoned_.push_back(std::move(call));  // its sends may still read its rows
    it = pending_.erase(it);
  }
}

}  // namespace tpu
