// The host functions device code can call (outside compilation), built into the tpu tool:
//   format(text, tensors...)  -> text     Python-style "{}" substitution of the tensors' values
//                                         (tensor_text.hpp) into the text; format("1{}", 1) = "11".
//                                         A "{}" count that differs from the tensor count is TF's
//                                         INVALID_ARGUMENT "num placeholders in template and length
//                                         of inputs must match: <n> vs. <m>"; "{{" "}}" are braces.
//   to_number(text)           -> float32  tf.strings.to_number: surrounding spaces allowed, anything
//                                         else is INVALID_ARGUMENT "StringToNumberOp could not
//                                         correctly convert string: <text>"
//   print(text, tensors...)   -> nothing  writes "[host c<core>] text value value ..." on stdout
//   summary_csv(tag, scalars...) -> nothing  appends "core,tag,value,..." to <outfeed dir>/summary.csv
//                                         (header "core,tag,values" when created); without an
//                                         outfeed dir the row is printed instead
// Unknown names are NOT_FOUND naming the function and listing the known ones; a function that
// throws is answered with INTERNAL naming it (tpu never dies of a host function). An app adds its
// own functions in its host half (app_host.hpp); `tpu run` serves those from a worker process
// (host_function_worker.hpp), so their outcome arrives later: deferred functions.
#pragma once
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "host-tools/lib/tensors/host_tensor.hpp"
#include "host-tools/lib/tensors/result_writer.hpp"
#include "hal/support/status.hpp"

namespace tpu {

struct HostCallRequest {
  unsigned core = 0;
  uint32_t id = 0;
  std::string function;
  std::string text;  // the text argument ("" if none)
  std::vector<HostTensor> tensors;
  std::optional<unsigned> replica;  // the calling replica, if the call came from a replicated computation
  // Functions added with ArgumentsIn::kBoardMemory: tensor i's bytes where the board left them
  // (shared-memory link), valid until the call's reply (the board waits for it), and tensors[i].bytes
  // empty; an empty span where tensor i came in frames (its bytes are in tensors[i]). Empty otherwise.
  std::vector<std::span<const uint8_t>> in_board;
  std::span<const uint8_t> bytes_of(size_t i) const {
    if (i < in_board.size() && !in_board[i].empty()) return in_board[i];
    return std::span<const uint8_t>(tensors[i].bytes.data(), tensors[i].bytes.size());
  }
};

struct HostCallOutcome {
  rt::StatusCode code = rt::StatusCode::kOk;
  std::string message;  // set iff code is not OK
  std::vector<HostTensor> results;
  // If set, the results' bytes are empty and `write` fills each (of its dtype and dims' size) where it
  // goes: straight into the board's memory where the link allows it (result_writer.hpp). It reads
  // buffers that live only until the reply returns: whoever keeps the outcome longer materializes it.
  ResultWriter write;

  // Has `write` fill every result's own bytes (nothing to do without it).
  void materialize();

  static HostCallOutcome ok(std::vector<HostTensor> results = {}) { return {rt::StatusCode::kOk, "", std::move(results), {}}; }
  static HostCallOutcome written(std::vector<HostTensor> shapes, ResultWriter write) {
    return {rt::StatusCode::kOk, "", std::move(shapes), std::move(write)};
  }
  static HostCallOutcome error(rt::StatusCode code, std::string message) { return {code, std::move(message), {}, {}}; }
};

struct HostEnvironment {
  std::optional<std::filesystem::path> output_dir;  // tpu run --outfeed-dir
  std::ostream* out = nullptr;                      // where print and summary rows go
  unsigned task = 0;                                // in a pod of boards, this board's task (tpu run --boards)
  unsigned num_tasks = 1;
};

class HostFunctions {
 public:
  using Function = std::function<HostCallOutcome(const HostCallRequest&, const HostEnvironment&)>;
  // Where a call's outcome goes: called exactly once, at once or (deferred functions) later.
  using Reply = std::function<void(HostCallOutcome)>;
  // A function whose outcome arrives later; it must call `reply` once.
  using DeferredFunction = std::function<void(HostCallRequest, Reply)>;

  explicit HostFunctions(HostEnvironment environment);  // with the built-in functions
  void add(const std::string& name, Function function) { functions_[name] = std::move(function); }
  // Where a deferred function takes its arguments from: copies, or (shared-memory link) the board's
  // memory itself (HostCallRequest::in_board).
  enum class ArgumentsIn { kCopies, kBoardMemory };
  void add_deferred(const std::string& name, DeferredFunction function, ArgumentsIn arguments = ArgumentsIn::kCopies) {
    deferred_[name] = std::move(function);
    if (arguments == ArgumentsIn::kBoardMemory) reads_board_memory_.insert(name);
  }
  bool reads_board_memory(const std::string& name) const { return reads_board_memory_.count(name) != 0; }
  bool has(const std::string& name) const { return functions_.count(name) != 0 || deferred_.count(name) != 0; }
  bool is_builtin(const std::string& name) const;
  // Runs a function that answers at once (a deferred one is INTERNAL here: it needs call(request, reply)).
  HostCallOutcome call(const HostCallRequest& request) const;
  // Runs any function; `reply` gets the outcome at once or, for a deferred function, later.
  void call(HostCallRequest request, const Reply& reply) const;
  std::string names() const;  // "format, print, ..."
  const HostEnvironment& environment() const { return environment_; }

 private:
  HostEnvironment environment_;
  std::map<std::string, Function> functions_;
  std::map<std::string, DeferredFunction> deferred_;
  std::set<std::string> reads_board_memory_;
};

// The built-in functions, also callable directly (tests).
HostCallOutcome host_format(const HostCallRequest& request, const HostEnvironment& environment);
HostCallOutcome host_to_number(const HostCallRequest& request, const HostEnvironment& environment);
HostCallOutcome host_print(const HostCallRequest& request, const HostEnvironment& environment);
HostCallOutcome host_summary_csv(const HostCallRequest& request, const HostEnvironment& environment);

}  // namespace tpu
