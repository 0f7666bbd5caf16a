// TF's non_tensor_outputs dict (non_tensor_output.hpp).
#include "non_tensor_output.hpp"

namespace rt::tpu {

Status NonTensorOutputs::set(StringView name, Span<const NonTensor> values) {
  if (values.empty() || values.size() > kMaxReplicas)
    return invalid_argument("set_non_tensor_output: {} values for '{}', expected 1..{} (kMaxPodDevices)", values.size(), name,
                            kMaxReplicas);
  unsigned slot = 0;
  while (slot < count_ && !(names_[slot] == name)) ++slot;
  if (slot == count_) {
    if (count_ == kMaxNonTensorOutputs)
      return invalid_argument("set_non_tensor_output: at most {} names, '{}' is one more", kMaxNonTensorOutputs, name);
    names_[count_++] = name;
  }
  for (size_t i = 0; i < values.size(); ++i) values_[slot][i] = values[i];
  counts_[slot] = static_cast<unsigned>(values.size());
  return Status::ok();
}

Result<Span<const NonTensor>> NonTensorOutputs::get(StringView name) const {
  for (unsigned slot = 0; slot < count_; ++slot)
    if (names_[slot] == name) return Span<const NonTensor>(values_[slot], counts_[slot]);
  return Status::error(StatusCode::kNotFound, "no non-tensor output named '{}'", name);
}

}  // namespace rt::tpu
