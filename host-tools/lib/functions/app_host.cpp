// The registry of an app's host functions and their adaptation to HostFunctions (app_host.hpp).
#include "app_host.hpp"

#include <stdexcept>
#include <utility>

namespace tpu {
namespace {

struct Registered {
  std::string name;
  AppHostFunction function;
  double deadline_s;
};

// A function-local static: registrations run during static initialisation, in any order.
std::vector<Registered>& registry() {
  static std::vector<Registered> functions;
  return functions;
}

HostCallOutcome call_app_function(AppHostFunction function, const HostCallRequest& request,
                                  const HostEnvironment& environment) {
  try {
    return HostCallOutcome::ok(function(HostCall(request, environment)).tensors);
  } catch (const HostError& error) {
    return HostCallOutcome::error(error.code, error.what());
  } catch (const std::invalid_argument& error) {  // a dtype or shape that does not fit (HostTensor)
    return HostCallOutcome::error(rt::StatusCode::kInvalidArgument, request.function + ": " + error.what());
  }  // any other exception: INTERNAL from HostFunctions::call, as for every host function
}

}  // namespace

const HostTensor& HostCall::tensor(size_t index) const {
  if (index >= request_.tensors.size())
    throw HostError(rt::StatusCode::kInvalidArgument, function() + ": asked for tensor " + std::to_string(index) +
                                                          " of a call that brought " + std::to_string(size()));
  return request_.tensors[index];
}

HostFunctionRegistration::HostFunctionRegistration(const char* name, AppHostFunction function, double deadline_s) {
  registry().push_back({name, function, deadline_s});
}

std::vector<AppHostFunctionInfo> app_host_functions() {
  std::vector<AppHostFunctionInfo> infos;
  for (const Registered& entry : registry()) infos.push_back({entry.name, entry.deadline_s});
  return infos;
}

std::string app_host_function_clash(const HostFunctions& functions) {
  for (size_t i = 0; i < registry().size(); ++i) {
    const std::string& name = registry()[i].name;
    const bool builtin = functions.is_builtin(name);
    bool twice = functions.has(name);
    for (size_t j = 0; j < i; ++j) twice = twice || registry()[j].name == name;
    if (twice && name.rfind("outside_compilation ", 0) == 0)
      return "two outside_compilation clusters are named '" + name.substr(20) +
             "': two lambdas of one function taking the same parameters look alike to both builds; move one into "
             "a function of its own (or give it different parameters)";
    if (builtin || twice)
      return "the app's host function '" + name + "' is already defined (" + (builtin ? "a built-in" : "twice in the app") +
             "); rename it";
  }
  return "";
}

std::string add_app_host_functions(HostFunctions& functions) {
  if (std::string clash = app_host_function_clash(functions); !clash.empty()) return clash;
  for (const Registered& entry : registry()) {
    AppHostFunction function = entry.function;
    functions.add(entry.name, [function](const HostCallRequest& request, const HostEnvironment& environment) {
      return call_app_function(function, request, environment);
    });
  }
  return "";
}

std::string app_host_function_names() {
  std::string names;
  size_t clusters = 0;
  for (const Registered& entry : registry()) {
    if (entry.name.rfind("outside_compilation ", 0) == 0) {
      ++clusters;  // a lambda's long type name: counted, not listed
      continue;
    }
    names += (names.empty() ? "" : ", ") + entry.name;
  }
  if (clusters > 0)
    names += (names.empty() ? "" : ", ") + std::to_string(clusters) + " outside_compilation cluster" +
             (clusters == 1 ? "" : "s");
  return names;
}

}  // namespace tpu
