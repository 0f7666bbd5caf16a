// A non-tensor output of run_steps_on_dataset (contrib's MultiStepContext.set_non_tensor_output(name,
// output)): a Python object in TF; here an integer, a float or a text, pure (no HAL). A text is a
// view: what it points at must outlive the context that keeps it (a string literal does).
// NonTensorOutputs is TF's non_tensor_outputs dict: name -> the list of values stored under it.
#pragma once
#include "hal/support/result.hpp"
#include "hal/support/span.hpp"
#include "runtime/tpu/replicate/computation.hpp"

namespace rt::tpu {

class NonTensor {
 public:
  enum class Kind : uint8_t { kInt, kFloat, kText };

  NonTensor() = default;
  NonTensor(int value) : kind_(Kind::kInt), int_(value) {}  // NOLINT: implicit, like Python's values
  NonTensor(int64_t value) : kind_(Kind::kInt), int_(value) {}  // NOLINT
  NonTensor(unsigned value) : kind_(Kind::kInt), int_(value) {}  // NOLINT
  NonTensor(double value) : kind_(Kind::kFloat), float_(value) {}  // NOLINT
  NonTensor(StringView value) : kind_(Kind::kText), text_(value) {}  // NOLINT
  NonTensor(const char* value) : kind_(Kind::kText), text_(value) {}  // NOLINT

  Kind kind() const { return kind_; }
  int64_t as_int() const { return int_; }
  double as_float() const { return float_; }
  StringView as_text() const { return text_; }
  bool operator==(const NonTensor& other) const {
    if (kind_ != other.kind_) return false;
    if (kind_ == Kind::kInt) return int_ == other.int_;
    if (kind_ == Kind::kFloat) return float_ == other.float_;
    return text_ == other.text_;
  }

 private:
  Kind kind_ = Kind::kInt;
  int64_t int_ = 0;
  double float_ = 0;
  StringView text_;
};

inline constexpr unsigned kMaxNonTensorOutputs = 16;

// name -> values, in first-set order; setting a name again replaces its values (TF's dict).
class NonTensorOutputs {
 public:
  // Stores `values` (1..kMaxReplicas of them) under `name` (a view: it must outlive the table).
  Status set(StringView name, Span<const NonTensor> values);
  // TF's non_tensor_outputs[name]; NOT_FOUND for a name never set.
  Result<Span<const NonTensor>> get(StringView name) const;
  unsigned size() const { return count_; }
  StringView name(unsigned index) const { return names_[index]; }
  void clear() { count_ = 0; }

 private:
  StringView names_[kMaxNonTensorOutputs];
  NonTensor values_[kMaxNonTensorOutputs][kMaxReplicas];
  unsigned counts_[kMaxNonTensorOutputs] = {};
  unsigned count_ = 0;
};

}  // namespace rt::tpu
