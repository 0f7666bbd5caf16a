// The built-in host functions (host_functions.hpp) and their registry.
#include "host_functions.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "host-tools/lib/tensors/tensor_text.hpp"

namespace tpu {
namespace {

using rt::StatusCode;

// Counts "{}" placeholders and expands them with `values` ("{{" and "}}" are literal braces).
std::string substitute(const std::string& pattern, const std::vector<std::string>& values, size_t* placeholders) {
  std::string out;
  size_t used = 0;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    const char next = i + 1 < pattern.size() ? pattern[i + 1] : '\0';
    if ((c == '{' && next == '{') || (c == '}' && next == '}')) {
      out += c;
      ++i;
    } else if (c == '{' && next == '}') {
      if (used < values.size()) out += values[used];
      ++used;
      ++i;
    } else {
      out += c;
    }
  }
  *placeholders = used;
  return out;
}

std::string trim_spaces(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\n\r\f\v");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\n\r\f\v") - first + 1);
}

std::string values_text(const std::vector<HostTensor>& tensors, const std::string& separator) {
  std::string text;
  for (const HostTensor& tensor : tensors) text += separator + tensor_text(tensor);
  return text;
}

std::ostream& output(const HostEnvironment& environment) { return environment.out ? *environment.out : std::cout; }

}  // namespace

HostCallOutcome host_format(const HostCallRequest& request, const HostEnvironment&) {
  std::vector<std::string> values;
  for (const HostTensor& tensor : request.tensors) values.push_back(tensor_text(tensor));
  size_t placeholders = 0;
  std::string text = substitute(request.text, values, &placeholders);
  if (placeholders != values.size())
    return HostCallOutcome::error(StatusCode::kInvalidArgument,
                                  "num placeholders in template and length of inputs must match: " +
                                      std::to_string(placeholders) + " vs. " + std::to_string(values.size()));
  return HostCallOutcome::ok({HostTensor::text(text)});
}

HostCallOutcome host_to_number(const HostCallRequest& request, const HostEnvironment&) {
  const std::string text = trim_spaces(request.text);
  errno = 0;
  char* end = nullptr;
  const float value = text.empty() ? 0.0f : std::strtof(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || (errno == ERANGE && std::isinf(value)))
    return HostCallOutcome::error(StatusCode::kInvalidArgument,
                                  "StringToNumberOp could not correctly convert string: " + request.text);
  return HostCallOutcome::ok({HostTensor::scalar_f32(value)});
}

HostCallOutcome host_print(const HostCallRequest& request, const HostEnvironment& environment) {
  output(environment) << "[host c" << request.core << "] " << request.text << values_text(request.tensors, " ")
                      << std::endl;
  return HostCallOutcome::ok();
}

HostCallOutcome host_summary_csv(const HostCallRequest& request, const HostEnvironment& environment) {
  if (request.text.find_first_of(",\"\n\r") != std::string::npos)
    return HostCallOutcome::error(StatusCode::kInvalidArgument,
                                  "summary_csv: the tag '" + request.text + "' must not contain commas, quotes or newlines");
  for (const HostTensor& tensor : request.tensors)
    if (tensor.num_elements() != 1)
      return HostCallOutcome::error(StatusCode::kInvalidArgument,
                                    "summary_csv takes scalars, got " + tensor.describe());
  const std::string row = std::to_string(request.core) + "," + request.text + values_text(request.tensors, ",");
  if (!environment.output_dir) {
    output(environment) << "[host c" << request.core << "] summary.csv: " << row << std::endl;
    return HostCallOutcome::ok();
  }
  const std::filesystem::path path = *environment.output_dir / "summary.csv";
  std::error_code ignored;
  const bool fresh = !std::filesystem::exists(path, ignored);
  std::ofstream file(path, std::ios::app);
  if (fresh) file << "core,tag,values\n";
  file << row << "\n";
  file.flush();
  if (!file)
    return HostCallOutcome::error(StatusCode::kUnavailable, "summary_csv: cannot append to " + path.string());
  return HostCallOutcome::ok();
}

HostFunctions::HostFunctions(HostEnvironment environment) : environment_(std::move(environment)) {
  add("format", host_format);
  add("to_number", host_to_number);
  add("print", host_print);
  add("summary_csv", host_summary_csv);
}

bool HostFunctions::is_builtin(const std::string& name) const {
  for (const char* builtin : {"format", "to_number", "print", "summary_csv", "infeed_steps"})
    if (name == builtin) return true;
  return false;
}

HostCallOutcome HostFunctions::call(const HostCallRequest& request) const {
  const auto found = functions_.find(request.function);
  if (found == functions_.end() && deferred_.count(request.function) != 0)
    return HostCallOutcome::error(StatusCode::kInternal,
                                  "host function '" + request.function + "' answers later; call it with a reply");
  if (found == functions_.end())
    return HostCallOutcome::error(StatusCode::kNotFound,
                                  "no host function named '" + request.function + "' (known: " + names() + ")");
  try {
    return found->second(request, environment_);
  } catch (const std::exception& error) {
    return HostCallOutcome::error(StatusCode::kInternal,
                                  "host function '" + request.function + "' failed: " + error.what());
  } catch (...) {
    return HostCallOutcome::error(StatusCode::kInternal, "host function '" + request.function +
                                                             "' failed: it threw something that is not a std::exception");
  }
}

void HostFunctions::call(HostCallRequest request, const Reply& reply) const {
  const auto deferred = deferred_.find(request.function);
  if (deferred == deferred_.end()) return reply(call(request));
  deferred->second(std::move(request), reply);
}

std::string HostFunctions::names() const {
  std::map<std::string, bool> all;
  for (const auto& [name, function] : functions_) all[name] = true;
  for (const auto& [name, function] : deferred_) all[name] = true;
  std::string list;
  for (const auto& [name, known] : all)
    if (name[0] != '.') list += (list.empty() ? "" : ", ") + name;  // ".pod", ".cluster": the runtime's own
  return list;
}

void HostCallOutcome::materialize() {
  if (!write) return;
  for (size_t i = 0; i < results.size(); ++i) {
    results[i].bytes.assign(results[i].num_elements() * rt::dtype_size(results[i].dtype), 0);
    write(i, std::span<uint8_t>(results[i].bytes.data(), results[i].bytes.size()));
  }
  write = nullptr;
}

}  // namespace tpu
