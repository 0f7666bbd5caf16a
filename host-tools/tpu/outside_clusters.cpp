// The app's tool's table of outside_compilation clusters (runtime/tpu/replicate/outside_cluster.hpp):
// the tool is linked with the app's device sources, whose cluster templates register their entries
// here at start-up; each becomes a host function named "outside_compilation <key>", served like the
// app's own (the worker process, deadlines, errors as a Status). Two clusters with one key are a
// name defined twice, which stops tpu before the board starts, naming it.
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "host-tools/lib/functions/app_host.hpp"
#include "runtime/tpu/replicate/outside_cluster.hpp"

namespace {

std::map<std::string, rt::tpu::OutsideClusterEntry>& clusters() {
  static std::map<std::string, rt::tpu::OutsideClusterEntry> table;
  return table;
}

// The call's tensors as runtime tensors (views of the request's bytes).
std::vector<rt::Tensor> runtime_views(const tpu::HostCall& call) {
  std::vector<rt::Tensor> views;
  for (size_t i = 0; i < call.size(); ++i) {
    const tpu::HostTensor& tensor = call.tensor(i);
    const rt::Result<rt::Shape> shape = rt::Shape::make(rt::Span<const int64_t>(tensor.dims.data(), tensor.dims.size()));
    if (!shape)
      throw tpu::HostError(rt::StatusCode::kInvalidArgument,
                           call.function() + ": argument " + std::to_string(i) + ": " + std::string(shape.status().message().data(), shape.status().message().size()));
    views.push_back(rt::Tensor::contiguous(tensor.dtype, *shape, const_cast<uint8_t*>(tensor.bytes.data())));
  }
  return views;
}

tpu::HostReply serve_cluster(const tpu::HostCall& call) {
  const rt::tpu::OutsideClusterEntry entry = clusters().at(call.function());
  const std::vector<rt::Tensor> arguments = runtime_views(call);
  alignas(16) uint8_t storage[16] = {};
  rt::Tensor result;
  result.data = storage;
  const rt::Status status = entry(rt::Span<const rt::Tensor>(arguments.data(), arguments.size()), result);
  if (!status.is_ok())
    throw tpu::HostError(status.code(), std::string(status.message().data(), status.message().size()));
  if (result.data == nullptr) return {};
  tpu::HostTensor out;
  out.dtype = result.dtype;
  out.bytes.assign(storage, storage + rt::dtype_size(result.dtype));
  return out;
}

}  // namespace

namespace rt::tpu {

bool register_outside_cluster(StringView key, OutsideClusterEntry entry) {
  const std::string name = std::string(kOutsideClusterPrefix.data(), kOutsideClusterPrefix.size()) +
                           std::string(key.data(), key.size());
  clusters()[name] = entry;
  static_cast<void>(::tpu::HostFunctionRegistration(name.c_str(), serve_cluster));
  return true;
}

}  // namespace rt::tpu
