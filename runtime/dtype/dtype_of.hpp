// The DType of a C++ element type, for typed element access (device tensors and host tensors alike):
//   rt::kDTypeOf<float> == DType::kF32, rt::kDTypeOf<int32_t> == DType::kI32, ...
// A type with no DType (e.g. unsigned short) is a compile error naming HasDType, not a wrong read.
#pragma once
#include "hal/support/types.hpp"

#include "runtime/dtype/dtype.hpp"
#include "runtime/dtype/half.hpp"

namespace rt {

template <class T> struct DTypeOf;
template <> struct DTypeOf<float> { static constexpr DType value = DType::kF32; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::kF64; };
template <> struct DTypeOf<BFloat16> { static constexpr DType value = DType::kBF16; };
template <> struct DTypeOf<Float16> { static constexpr DType value = DType::kF16; };
template <> struct DTypeOf<int8_t> { static constexpr DType value = DType::kI8; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::kI32; };
template <> struct DTypeOf<uint32_t> { static constexpr DType value = DType::kU32; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::kI64; };
template <> struct DTypeOf<bool> { static constexpr DType value = DType::kBool; };

template <class T>
concept HasDType = requires { DTypeOf<T>::value; };

template <HasDType T>
inline constexpr DType kDTypeOf = DTypeOf<T>::value;

}  // namespace rt
