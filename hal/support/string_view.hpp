// StringView: a non-owning, length-carrying view of characters (not necessarily NUL-terminated).
#pragma once
#include "types.hpp"

namespace rt {

constexpr size_t string_length(const char* text) {
  size_t length = 0;
  while (text[length] != '\0') ++length;
  return length;
}

class StringView {
 public:
  constexpr StringView() = default;
  constexpr StringView(const char* text) : data_(text), size_(text ? string_length(text) : 0) {}
  constexpr StringView(const char* data, size_t size) : data_(data), size_(size) {}

  constexpr const char* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr char operator[](size_t index) const { return data_[index]; }
  constexpr const char* begin() const { return data_; }
  constexpr const char* end() const { return data_ + size_; }

  constexpr bool operator==(StringView other) const {
    if (size_ != other.size_) return false;
    for (size_t i = 0; i < size_; ++i)
      if (data_[i] != other.data_[i]) return false;
    return true;
  }
  constexpr bool starts_with(StringView prefix) const {
    return prefix.size_ <= size_ && StringView(data_, prefix.size_) == prefix;
  }
  constexpr bool ends_with(StringView suffix) const {
    return suffix.size_ <= size_ && StringView(data_ + size_ - suffix.size_, suffix.size_) == suffix;
  }
  constexpr StringView substr(size_t offset, size_t count = ~size_t{0}) const {
    if (offset > size_) offset = size_;
    size_t rest = size_ - offset;
    return StringView(data_ + offset, count < rest ? count : rest);
  }
  // Index of the first occurrence of c at or after `from`, or npos.
  constexpr size_t find(char c, size_t from = 0) const {
    for (size_t i = from; i < size_; ++i)
      if (data_[i] == c) return i;
    return npos;
  }
  static constexpr size_t npos = ~size_t{0};

 private:
  const char* data_ = "";
  size_t size_ = 0;
};

}  // namespace rt
