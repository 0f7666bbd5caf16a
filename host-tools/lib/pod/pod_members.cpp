// Collectives across boards by the members' own buffers, the host's part (pod_members.hpp).
#include "pod_members.hpp"

#include <algorithm>
#include <cstring>
#include <map>

#include "runtime/collectives/reduce.hpp"

namespace tpu {

rt::ReduceOp reduce_op_named(const std::string& name) {
  if (name == "mean") return rt::ReduceOp::kMean;
  if (name == "max") return rt::ReduceOp::kMax;
  if (name == "min") return rt::ReduceOp::kMin;
  return rt::ReduceOp::kSum;
}

namespace {

bool is_on(const PodRequest& request, unsigned position, unsigned task) { return request.member_tasks[position] == task; }

// all_to_all: block `block` of an input, gathered from its rows into `out` (block bytes).
void gather_block(const rt::BlockGeometry& g, size_t group_size, const uint8_t* input, size_t block, uint8_t* out) {
  for (size_t r = 0; r < g.split_rows; ++r)
    std::memcpy(out + r * g.split_row_bytes, input + block * g.split_row_bytes + r * g.split_row_bytes * group_size,
                g.split_row_bytes);
}

// all_to_all: a packed block written as block `block` of an output.
void scatter_block(const rt::BlockGeometry& g, size_t group_size, const uint8_t* packed, size_t block, uint8_t* output) {
  for (size_t r = 0; r < g.concat_rows; ++r)
    std::memcpy(output + block * g.concat_row_bytes + r * g.concat_row_bytes * group_size, packed + r * g.concat_row_bytes,
                g.concat_row_bytes);
}

// Where every piece this board needs lies: in its own members' inputs, or in another task's row.
class Pieces {
 public:
  Pieces(const PodRequest& request, unsigned task, const std::vector<std::vector<uint8_t>>& inputs_here)
      : request_(request), bytes_(piece_bytes(request)) {
    const std::vector<unsigned> here = request.members_on(task);
    for (size_t i = 0; i < here.size() && i < inputs_here.size(); ++i) add_own(here[i], inputs_here[i].data());
  }
  // The pieces of the row task `from` sent this one (`to`).
  void add_row(unsigned from, unsigned to, const std::vector<uint8_t>& row) {
    const std::vector<MemberPiece> pieces = row_pieces(request_, from, to);
    for (size_t i = 0; i < pieces.size() && (i + 1) * bytes_ <= row.size(); ++i)
      where_[{pieces[i].member, pieces[i].destination}] = row.data() + i * bytes_;
  }
  const uint8_t* piece(unsigned member, unsigned destination) const {
    const auto found = where_.find({member, destination});
    return found == where_.end() ? nullptr : found->second;
  }

 private:
  // Every piece of a member here, whatever its destination.
  void add_own(unsigned member, const uint8_t* input) {
    const unsigned n = static_cast<unsigned>(request_.member_tasks.size());
    for (unsigned p = 0; p < n; ++p) {
      if (request_.kind == "reduce_scatter") {
        where_[{member, p}] = input + p * bytes_;
      } else if (request_.kind == "all_to_all") {
        blocks_.emplace_back(bytes_);
        gather_block(request_.blocks, n, input, p, blocks_.back().data());
        where_[{member, p}] = blocks_.back().data();
      } else {
        where_[{member, p}] = input;  // all_reduce, collective_permute: the whole input
      }
    }
  }

  const PodRequest& request_;
  size_t bytes_;
  std::map<std::pair<unsigned, unsigned>, const uint8_t*> where_;
  std::vector<std::vector<uint8_t>> blocks_;  // all_to_all: this board's members' blocks, packed
};

// The reduction over every member (group order) of its piece for `destination`, `count` elements.
std::vector<uint8_t> reduce_pieces(const PodRequest& request, const Pieces& pieces, unsigned destination, size_t count) {
  const unsigned n = static_cast<unsigned>(request.member_tasks.size());
  std::vector<const uint8_t*> inputs(n);
  for (unsigned j = 0; j < n; ++j) inputs[j] = pieces.piece(j, destination);
  std::vector<uint8_t> out(count * rt::dtype_size(request.type));
  uint8_t* outputs[] = {out.data()};
  rt::reduce_many(reduce_op_named(request.op), request.type, inputs.data(), n, outputs, 1, count);
  return out;
}

std::vector<uint8_t> concatenate_blocks(const PodRequest& request, const Pieces& pieces, unsigned destination) {
  const unsigned n = static_cast<unsigned>(request.member_tasks.size());
  std::vector<uint8_t> out(request.count * rt::dtype_size(request.type));
  for (unsigned j = 0; j < n; ++j) scatter_block(request.blocks, n, pieces.piece(j, destination), j, out.data());
  return out;
}

std::vector<uint8_t> permuted(const PodRequest& request, const Pieces& pieces, unsigned target) {
  std::vector<uint8_t> out(request.count * rt::dtype_size(request.type), 0);  // no source: zeros, as TF
  for (const auto& [source, to] : request.pairs)
    if (to == target) std::memcpy(out.data(), pieces.piece(source, target), out.size());
  return out;
}

}  // namespace

std::vector<MemberPiece> row_pieces(const PodRequest& request, unsigned from, unsigned to) {
  std::vector<MemberPiece> pieces;
  if (from == to) return pieces;  // a board's own members' pieces never travel
  if (request.kind == "collective_permute") {
    for (const auto& [source, target] : request.pairs)
      if (is_on(request, source, from) && is_on(request, target, to)) pieces.push_back({source, target});
    return pieces;
  }
  for (unsigned j : request.members_on(from)) {
    if (request.kind == "all_reduce") {  // one piece for every position, filed under destination 0
      pieces.push_back({j, 0});
      continue;
    }
    for (unsigned p : request.members_on(to)) pieces.push_back({j, p});  // reduce_scatter, all_to_all
  }
  return pieces;
}

size_t piece_bytes(const PodRequest& request) {
  const size_t input = request.count * rt::dtype_size(request.type);
  const size_t n = request.member_tasks.size();
  return request.kind == "reduce_scatter" || request.kind == "all_to_all" ? input / n : input;
}

std::vector<uint8_t> pack_member_row(const PodRequest& request, unsigned task, unsigned to,
                                     const std::vector<std::vector<uint8_t>>& inputs_here) {
  const Pieces pieces(request, task, inputs_here);
  const size_t bytes = piece_bytes(request);
  std::vector<uint8_t> row;
  for (const MemberPiece& piece : row_pieces(request, task, to)) {
    const uint8_t* begin = pieces.piece(piece.member, piece.destination);
    row.insert(row.end(), begin, begin + bytes);
  }
  return row;
}

std::vector<std::vector<uint8_t>> member_outputs(const PodRequest& request, unsigned task,
                                                 const std::vector<std::vector<uint8_t>>& inputs_here,
                                                 const std::vector<std::vector<uint8_t>>& rows, std::string& error) {
  Pieces pieces(request, task, inputs_here);
  const std::vector<unsigned> tasks = request.tasks();
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (tasks[i] == task) continue;
    if (i >= rows.size() || rows[i].size() != request.row_bytes(tasks[i], task)) {
      error = "task " + std::to_string(tasks[i]) + "'s row has " + std::to_string(i < rows.size() ? rows[i].size() : 0) +
              " bytes, expected " + std::to_string(request.row_bytes(tasks[i], task));
      return {};
    }
    pieces.add_row(tasks[i], task, rows[i]);
  }
  if (request.kind == "all_reduce") return {reduce_pieces(request, pieces, 0, request.count)};
  std::vector<std::vector<uint8_t>> outputs;
  const size_t n = request.member_tasks.size();
  for (unsigned p : request.members_on(task)) {
    if (request.kind == "reduce_scatter") outputs.push_back(reduce_pieces(request, pieces, p, request.count / n));
    else if (request.kind == "all_to_all") outputs.push_back(concatenate_blocks(request, pieces, p));
    else outputs.push_back(permuted(request, pieces, p));
  }
  return outputs;
}

}  // namespace tpu
