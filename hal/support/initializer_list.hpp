// std::initializer_list: the standard header when the toolchain has one, else an own definition
// with the layout GCC expects (pointer + length), since braced lists need the name std::initializer_list.
#pragma once
#include "types.hpp"

#if __has_include(<initializer_list>) && !defined(RT_FREESTANDING_NO_STD)
#include <initializer_list>
#else
namespace std {
template <class T>
class initializer_list {
 public:
  constexpr initializer_list() noexcept : data_(nullptr), size_(0) {}
  constexpr size_t size() const noexcept { return size_; }
  constexpr const T* begin() const noexcept { return data_; }
  constexpr const T* end() const noexcept { return data_ + size_; }

 private:
  constexpr initializer_list(const T* data, size_t size) : data_(data), size_(size) {}
  const T* data_;
  size_t size_;
};
}  // namespace std
#endif
