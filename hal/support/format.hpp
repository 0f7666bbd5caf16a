// format_to(): "{}"-style text formatting into fixed buffers, no heap, usable from every core.
// Placeholders: {} (default), {:x} hex, {:#x} hex with 0x, {:08x}/{:5} width with optional zero fill.
// "{{" and "}}" are literal braces. Integer spans print as Python lists: [1, 2, 3] (TF error texts).
// Doubles: fixed with up to 6 decimals for 1e-4 <= |x| < 1e15, else scientific ("1.5e+20").
// Output that does not fit is truncated and flagged, never overrun.
#pragma once
#include "span.hpp"
#include "string_view.hpp"
#include "type_traits.hpp"

namespace rt {

// Destination of formatted text: a caller-owned char buffer, always NUL-terminated.
class FormatBuffer {
 public:
  FormatBuffer(char* storage, size_t capacity) : storage_(storage), capacity_(capacity) {
    if (capacity_ > 0) storage_[0] = '\0';
  }
  void append(char c);
  void append(StringView text);
  StringView view() const { return StringView(storage_, length_); }
  const char* c_str() const { return storage_; }
  size_t length() const { return length_; }
  bool truncated() const { return truncated_; }
  void clear();

 private:
  char* storage_;
  size_t capacity_;
  size_t length_ = 0;
  bool truncated_ = false;
};

// A FormatBuffer that owns N bytes of storage.
template <size_t N>
class FixedString : public FormatBuffer {
 public:
  FixedString() : FormatBuffer(storage_, N) {}
  FixedString(const FixedString& other) : FormatBuffer(storage_, N) { append(other.view()); }
  FixedString& operator=(const FixedString& other) {
    if (this != &other) {
      clear();
      append(other.view());
    }
    return *this;
  }

 private:
  char storage_[N];
};

// One formatting argument, type-erased so that the formatter itself is not a template.
struct FormatArg {
  enum class Kind { kSigned, kUnsigned, kBool, kChar, kDouble, kText, kPointer, kSignedList, kUnsignedList };
  Kind kind;
  union {
    int64_t signed_value;
    uint64_t unsigned_value;
    double double_value;
    const void* pointer;
  };
  size_t length = 0;  // text length or list element count
  size_t stride = 0;  // list element size in bytes

  static FormatArg make(bool value) { FormatArg a(Kind::kBool); a.unsigned_value = value; return a; }
  static FormatArg make(char value) { FormatArg a(Kind::kChar); a.unsigned_value = static_cast<unsigned char>(value); return a; }
  static FormatArg make(double value) { FormatArg a(Kind::kDouble); a.double_value = value; return a; }
  static FormatArg make(float value) { return make(static_cast<double>(value)); }
  static FormatArg make(StringView text) { FormatArg a(Kind::kText); a.pointer = text.data(); a.length = text.size(); return a; }
  static FormatArg make(const char* text) { return make(StringView(text ? text : "(null)")); }
  static FormatArg make(char* text) { return make(static_cast<const char*>(text)); }
  static FormatArg make(const FormatBuffer& text) { return make(text.view()); }
  static FormatArg make(const void* pointer) { FormatArg a(Kind::kPointer); a.pointer = pointer; return a; }
  static FormatArg make(void* pointer) { return make(static_cast<const void*>(pointer)); }
  template <class T> requires is_integral_v<T> && (!is_same_v<T, bool>) && (!is_same_v<T, char>)
  static FormatArg make(T value) {
    FormatArg a(is_signed_v<T> ? Kind::kSigned : Kind::kUnsigned);
    if constexpr (is_signed_v<T>) a.signed_value = value; else a.unsigned_value = value;
    return a;
  }
  template <class T> requires is_enum_v<T>
  static FormatArg make(T value) { return make(static_cast<int64_t>(value)); }
  template <class T> requires is_integral_v<T>
  static FormatArg make(Span<T> list) {
    FormatArg a(is_signed_v<T> ? Kind::kSignedList : Kind::kUnsignedList);
    a.pointer = list.data();
    a.length = list.size();
    a.stride = sizeof(T);
    return a;
  }

 private:
  explicit FormatArg(Kind k) : kind(k), unsigned_value(0) {}
};

// Formats into `out` (appending). Returns the buffer for chaining.
FormatBuffer& vformat_to(FormatBuffer& out, StringView format, Span<const FormatArg> args);

template <class... Args>
FormatBuffer& format_to(FormatBuffer& out, StringView format, const Args&... args) {
  if constexpr (sizeof...(Args) == 0) {
    return vformat_to(out, format, Span<const FormatArg>());
  } else {
    const FormatArg erased[] = {FormatArg::make(args)...};
    return vformat_to(out, format, Span<const FormatArg>(erased, sizeof...(Args)));
  }
}

}  // namespace rt
