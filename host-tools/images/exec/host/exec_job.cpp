// The host side of one `tpu exec` request (exec_job.hpp).
#include "exec_job.hpp"

#include <sstream>

#include "../device/exec_protocol.hpp"
#include "host-tools/lib/tensors/npy_file.hpp"
#include "runtime/dtype/dtype.hpp"

namespace tpu {
namespace {

using rt::StatusCode;

std::string joined(const std::vector<int64_t>& values) {
  std::string text;
  for (size_t i = 0; i < values.size(); ++i) text += (i ? "," : "") + std::to_string(values[i]);
  return text;
}

std::string describe_tensor(const HostTensor& tensor) {
  return "t=" + std::string(rt::dtype_name(tensor.dtype)) + ":" + joined(tensor.dims);
}

// Splits a tensor along its leading axis into `parts` tensors.
std::vector<HostTensor> split_leading(const HostTensor& tensor, unsigned parts) {
  std::vector<HostTensor> pieces(parts);
  const size_t piece_bytes = tensor.bytes.size() / parts;
  for (unsigned p = 0; p < parts; ++p) {
    pieces[p].dtype = tensor.dtype;
    pieces[p].dims.assign(tensor.dims.begin() + 1, tensor.dims.end());
    pieces[p].bytes.assign(tensor.bytes.begin() + p * piece_bytes, tensor.bytes.begin() + (p + 1) * piece_bytes);
  }
  return pieces;
}

std::optional<std::vector<HostTensor>> spread_over_replicas(std::vector<HostTensor> files, unsigned replicas,
                                                            unsigned inputs, std::string& error) {
  if (files.size() == size_t{replicas} * inputs) return files;
  if (replicas > 1 && files.size() == inputs) {
    std::vector<std::vector<HostTensor>> per_input;
    for (const HostTensor& file : files) {
      if (file.dims.empty() || file.dims[0] != replicas) {
        error = "a stacked input needs a leading axis of " + std::to_string(replicas) + " (one entry per replica), got " +
                file.describe();
        return std::nullopt;
      }
      per_input.push_back(split_leading(file, replicas));
    }
    std::vector<HostTensor> tensors;
    for (unsigned r = 0; r < replicas; ++r)
      for (unsigned k = 0; k < inputs; ++k) tensors.push_back(per_input[k][r]);
    return tensors;
  }
  error = "takes " + std::to_string(inputs) + " input(s) per replica: give " + std::to_string(replicas * inputs) +
          " .npy files (replica-major)" +
          (replicas > 1 ? " or " + std::to_string(inputs) + " stacked ones with a leading axis of " + std::to_string(replicas)
                        : std::string()) +
          ", got " + std::to_string(files.size());
  return std::nullopt;
}

std::optional<unsigned> parse_index(const std::string& text) {
  if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return static_cast<unsigned>(std::stoul(text));
}

}  // namespace

const std::vector<std::string>& exec_op_names() {
  static const std::vector<std::string> names = {"matmul",     "conv2d",     "cross_replica_sum",  "all_reduce",
                                                 "all_gather", "all_to_all", "collective_permute", "replicate_padded"};
  return names;
}

std::optional<unsigned> exec_op_inputs(const std::string& op) {
  if (op == "matmul" || op == "conv2d") return 2;
  for (const std::string& name : exec_op_names())
    if (name == op) return 1;
  return std::nullopt;
}

std::optional<ExecJob> ExecJob::make(const ExecParams& params, std::vector<HostTensor> files, std::string& error) {
  const std::optional<unsigned> inputs = exec_op_inputs(params.op);
  if (!inputs) {
    std::string known;
    for (const std::string& name : exec_op_names()) known += (known.empty() ? "" : ", ") + name;
    error = "unknown op '" + params.op + "' (ops: " + known + ")";
    return std::nullopt;
  }
  std::optional<std::vector<HostTensor>> tensors = spread_over_replicas(std::move(files), params.replicas, *inputs, error);
  if (!tensors) {
    error = params.op + " " + error;
    return std::nullopt;
  }
  ExecJob job;
  job.params_ = params;
  job.inputs_per_replica_ = *inputs;
  job.tensors_ = std::move(*tensors);
  job.outputs_.resize(params.replicas);
  return job;
}

std::string ExecJob::spec() const {
  std::ostringstream spec;
  spec << "op=" << params_.op << " replicas=" << params_.replicas << " inputs=" << inputs_per_replica_;
  const ExecParams& p = params_;
  if (p.op == "conv2d")
    spec << " padding=" << p.padding << " strides=" << p.strides[0] << "," << p.strides[1] << " dilations=" << p.dilations[0]
         << "," << p.dilations[1];
  if (p.op == "all_reduce") spec << " reduce=" << p.reduce;
  if (p.op == "all_to_all")
    spec << " split_dimension=" << p.split_dimension << " concat_dimension=" << p.concat_dimension
         << " split_count=" << p.split_count;
  if (p.op == "collective_permute") spec << " pairs=" << joined(p.pairs);
  if (p.op == "replicate_padded" && p.max_shape) spec << " max_shape=" << joined(*p.max_shape);
  if (p.op == "replicate_padded" && p.pad_power_of_two) spec << " pad_power_of_two=1";
  for (const HostTensor& tensor : tensors_) spec << " " << describe_tensor(tensor);
  return spec.str();
}

void ExecJob::serve_with(HostFunctions& functions) {
  const std::string spec_text = spec();
  functions.add(exec_protocol::kFetchOp, [spec_text](const HostCallRequest&, const HostEnvironment&) {
    return HostCallOutcome::ok({HostTensor::text(spec_text)});
  });
  functions.add(exec_protocol::kFetchInput,
                [this](const HostCallRequest& request, const HostEnvironment&) { return fetch_input(request); });
  functions.add(exec_protocol::kSendOutput,
                [this](const HostCallRequest& request, const HostEnvironment&) { return store_output(request); });
}

HostCallOutcome ExecJob::fetch_input(const HostCallRequest& request) const {
  const std::optional<unsigned> index = parse_index(request.text);
  if (!index || *index >= tensors_.size())
    return HostCallOutcome::error(StatusCode::kInvalidArgument, "exec.input: no input tensor '" + request.text + "'");
  return HostCallOutcome::ok({tensors_[*index]});
}

HostCallOutcome ExecJob::store_output(const HostCallRequest& request) {
  const size_t space = request.text.find(' ');
  const std::optional<unsigned> replica = parse_index(request.text.substr(0, space));
  const std::optional<unsigned> output = space == std::string::npos ? std::nullopt : parse_index(request.text.substr(space + 1));
  if (!replica || !output || *replica >= outputs_.size() || *output > 8 || request.tensors.size() != 1)
    return HostCallOutcome::error(StatusCode::kInvalidArgument,
                                  "exec.output: expected text '<replica> <output>' and one tensor, got '" + request.text + "'");
  std::vector<HostTensor>& slots = outputs_[*replica];
  if (*output > slots.size())  // outputs arrive in order, so a replica with any output has output 0
    return HostCallOutcome::error(StatusCode::kInvalidArgument, "exec.output: output " + std::to_string(*output) +
                                                                    " of replica " + std::to_string(*replica) +
                                                                    " arrived before output " + std::to_string(slots.size()));
  if (slots.size() == *output) slots.emplace_back();
  slots[*output] = request.tensors[0];
  return HostCallOutcome::ok();
}

bool ExecJob::complete() const {
  for (const std::vector<HostTensor>& replica : outputs_)
    if (replica.empty()) return false;
  return true;
}

std::string write_exec_outputs(const ExecJob& job, const std::filesystem::path& path, bool per_replica,
                               std::vector<std::filesystem::path>& written) {
  const auto& outputs = job.outputs();
  if (outputs.size() == 1 || per_replica) {
    for (size_t r = 0; r < outputs.size(); ++r) {
      std::filesystem::path target = path;
      if (outputs.size() > 1) target.replace_filename(path.stem().string() + ".r" + std::to_string(r) + path.extension().string());
      const std::string problem = write_npy_file(target, outputs[r][0]);
      if (!problem.empty()) return problem;
      written.push_back(target);
    }
    return "";
  }
  HostTensor stacked = outputs[0][0];
  stacked.dims.insert(stacked.dims.begin(), static_cast<int64_t>(outputs.size()));
  for (size_t r = 1; r < outputs.size(); ++r) {
    const HostTensor& next = outputs[r][0];
    if (next.dtype != stacked.dtype || next.dims != outputs[0][0].dims)
      return "the replicas' outputs differ (" + outputs[0][0].describe() + " vs " + next.describe() +
             "): use --per-replica";
    stacked.bytes.insert(stacked.bytes.end(), next.bytes.begin(), next.bytes.end());
  }
  const std::string problem = write_npy_file(path, stacked);
  if (problem.empty()) written.push_back(path);
  return problem;
}

}  // namespace tpu
