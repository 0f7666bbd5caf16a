// Reading a device string as a reduce_to destination (device_destination.hpp).
#include "device_destination.hpp"

#include "strategy_hosts.hpp"

namespace rt::tpu {
namespace {

// A non-negative decimal number, the whole of `text`.
bool parse_index(StringView text, unsigned& value) {
  if (text.empty() || text.size() > 6) return false;
  value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  return true;
}

// TF's device types, legacy lowercase included ("/cpu:0").
bool device_type(StringView type, bool& cpu) {
  if (type == "CPU" || type == "cpu") return cpu = true, true;
  if (type == "TPU" || type == "tpu") return cpu = false, true;
  return false;
}

struct Parsed {
  StringView job;
  bool has_replica = false, has_task = false, has_device = false, cpu = false;
  unsigned replica = 0, task = 0, index = 0;
};

// One "/"-separated field: job:J, replica:R, task:T, device:TYPE:I or TYPE:I.
bool parse_field(StringView field, Parsed& parsed) {
  const size_t colon = field.find(':');
  if (colon == StringView::npos) return false;
  const StringView key = field.substr(0, colon), value = field.substr(colon + 1);
  if (key == "job") return !value.empty() && (parsed.job = value, true);
  if (key == "replica") return parsed.has_replica = true, parse_index(value, parsed.replica);
  if (key == "task") return parsed.has_task = true, parse_index(value, parsed.task);
  StringView device = field;
  if (key == "device") device = value;
  const size_t type_end = device.find(':');
  if (type_end == StringView::npos || parsed.has_device) return false;
  parsed.has_device = true;
  return device_type(device.substr(0, type_end), parsed.cpu) && parse_index(device.substr(type_end + 1), parsed.index);
}

bool parse(StringView name, Parsed& parsed) {
  size_t at = 0;
  if (name.starts_with("/")) at = 1;
  while (at < name.size()) {
    size_t end = name.find('/', at);
    if (end == StringView::npos) end = name.size();
    if (!parse_field(name.substr(at, end - at), parsed)) return false;
    at = end + 1;
  }
  return parsed.has_device;
}

}  // namespace

Result<DeviceDestination> parse_device_destination(StringView name, const TPUClusterResolver& resolver) {
  Parsed parsed;
  const bool ok = parse(name, parsed) && (parsed.job.empty() || parsed.job == strategy_job(resolver)) &&
                  (!parsed.has_replica || parsed.replica == 0) &&
                  (!parsed.has_task || parsed.task == static_cast<unsigned>(resolver.task_id())) &&
                  (parsed.cpu ? parsed.index == 0 : parsed.index < resolver.num_cores());
  if (!ok)
    return Status::error(StatusCode::kNotFound,
                         "reduce_to: no device '{}' on this board; its devices are "
                         "/job:{}/replica:0/task:{}/device:TPU:0..{} and its host's CPU:0",
                         name, strategy_job(resolver), resolver.task_id(), resolver.num_cores() - 1);
  DeviceDestination destination;
  destination.host = parsed.cpu;
  destination.core = parsed.cpu ? 0 : parsed.index;
  return destination;
}

}  // namespace rt::tpu
