// Implementation of the "{}" formatter: integers, hex, lists, text, pointers and doubles.
#include "format.hpp"

namespace rt {

void FormatBuffer::append(char c) {
  if (length_ + 1 < capacity_) {
    storage_[length_++] = c;
    storage_[length_] = '\0';
  } else {
    truncated_ = true;
  }
}

void FormatBuffer::append(StringView text) {
  for (char c : text) append(c);
}

void FormatBuffer::clear() {
  length_ = 0;
  truncated_ = false;
  if (capacity_ > 0) storage_[0] = '\0';
}

namespace {

struct Spec {
  bool hex = false;
  bool prefix = false;  // '#': 0x before hex
  bool zero_fill = false;
  unsigned width = 0;
};

// Parses the text between ':' and '}' of a placeholder. Unknown characters are ignored.
Spec parse_spec(StringView text) {
  Spec spec;
  size_t i = 0;
  if (i < text.size() && text[i] == '#') { spec.prefix = true; ++i; }
  if (i < text.size() && text[i] == '0') { spec.zero_fill = true; ++i; }
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') spec.width = spec.width * 10 + unsigned(text[i++] - '0');
  if (i < text.size() && (text[i] == 'x' || text[i] == 'X')) spec.hex = true;
  return spec;
}

void append_padded(FormatBuffer& out, StringView digits, const Spec& spec, bool negative) {
  size_t used = digits.size() + (negative ? 1 : 0) + (spec.hex && spec.prefix ? 2 : 0);
  size_t pad = spec.width > used ? spec.width - used : 0;
  if (!spec.zero_fill)
    for (size_t i = 0; i < pad; ++i) out.append(' ');
  if (negative) out.append('-');
  if (spec.hex && spec.prefix) out.append("0x");
  if (spec.zero_fill)
    for (size_t i = 0; i < pad; ++i) out.append('0');
  out.append(digits);
}

void append_unsigned(FormatBuffer& out, uint64_t value, const Spec& spec, bool negative = false) {
  char digits[24];
  size_t n = 0;
  const unsigned base = spec.hex ? 16 : 10;
  do {
    unsigned d = unsigned(value % base);
    digits[sizeof(digits) - 1 - n++] = char(d < 10 ? '0' + d : 'a' + d - 10);
    value /= base;
  } while (value != 0);
  append_padded(out, StringView(digits + sizeof(digits) - n, n), spec, negative);
}

void append_signed(FormatBuffer& out, int64_t value, const Spec& spec) {
  // Negate in unsigned arithmetic so INT64_MIN is exact.
  uint64_t magnitude = value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  append_unsigned(out, magnitude, spec, value < 0);
}

// Fixed notation with up to 6 fractional digits, trailing zeros trimmed ("1.5", "3", "-0.25").
// Large magnitudes use an exponent. Enough for logs and error texts; not a round-trip printer.
void append_double(FormatBuffer& out, double value) {
  if (value != value) { out.append("nan"); return; }
  if (value < 0 || (value == 0 && 1 / value < 0)) { out.append('-'); value = -value; }
  if (value > 1.7976931348623157e308) { out.append("inf"); return; }
  int exponent = 0;
  while (value >= 1e15) { value /= 10; ++exponent; }
  uint64_t scaled = static_cast<uint64_t>(value * 1e6 + 0.5);
  uint64_t whole = scaled / 1000000;
  uint64_t fraction = scaled % 1000000;
  append_unsigned(out, whole, Spec{});
  if (fraction != 0) {
    char digits[6];
    for (int i = 5; i >= 0; --i) { digits[i] = char('0' + fraction % 10); fraction /= 10; }
    size_t n = 6;
    while (n > 0 && digits[n - 1] == '0') --n;
    out.append('.');
    out.append(StringView(digits, n));
  }
  if (exponent != 0) {
    out.append('e');
    append_unsigned(out, static_cast<uint64_t>(exponent), Spec{});
  }
}

uint64_t load_unsigned(const unsigned char* p, size_t size) {
  switch (size) {
    case 1: return *p;
    case 2: return *reinterpret_cast<const uint16_t*>(p);
    case 4: return *reinterpret_cast<const uint32_t*>(p);
    default: return *reinterpret_cast<const uint64_t*>(p);
  }
}

int64_t load_signed(const unsigned char* p, size_t size) {
  switch (size) {
    case 1: return *reinterpret_cast<const int8_t*>(p);
    case 2: return *reinterpret_cast<const int16_t*>(p);
    case 4: return *reinterpret_cast<const int32_t*>(p);
    default: return *reinterpret_cast<const int64_t*>(p);
  }
}

void append_list(FormatBuffer& out, const FormatArg& arg, const Spec& spec) {
  const auto* bytes = static_cast<const unsigned char*>(arg.pointer);
  out.append('[');
  for (size_t i = 0; i < arg.length; ++i) {
    if (i != 0) out.append(", ");
    const unsigned char* element = bytes + i * arg.stride;
    if (arg.kind == FormatArg::Kind::kSignedList)
      append_signed(out, load_signed(element, arg.stride), spec);
    else
      append_unsigned(out, load_unsigned(element, arg.stride), spec);
  }
  out.append(']');
}

void append_arg(FormatBuffer& out, const FormatArg& arg, const Spec& spec) {
  using Kind = FormatArg::Kind;
  switch (arg.kind) {
    case Kind::kSigned: append_signed(out, arg.signed_value, spec); break;
    case Kind::kUnsigned: append_unsigned(out, arg.unsigned_value, spec); break;
    case Kind::kBool: out.append(arg.unsigned_value ? "true" : "false"); break;
    case Kind::kChar: out.append(static_cast<char>(arg.unsigned_value)); break;
    case Kind::kDouble: append_double(out, arg.double_value); break;
    case Kind::kText: out.append(StringView(static_cast<const char*>(arg.pointer), arg.length)); break;
    case Kind::kPointer: {
      Spec hex = spec;
      hex.hex = hex.prefix = true;
      append_unsigned(out, reinterpret_cast<uintptr_t>(arg.pointer), hex);
      break;
    }
    case Kind::kSignedList:
    case Kind::kUnsignedList: append_list(out, arg, spec); break;
  }
}

}  // namespace

FormatBuffer& vformat_to(FormatBuffer& out, StringView format, Span<const FormatArg> args) {
  size_t next_arg = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    char c = format[i];
    if (c == '}' && i + 1 < format.size() && format[i + 1] == '}') { out.append('}'); ++i; continue; }
    if (c != '{') { out.append(c); continue; }
    if (i + 1 < format.size() && format[i + 1] == '{') { out.append('{'); ++i; continue; }
    size_t close = format.find('}', i);
    if (close == StringView::npos) { out.append(format.substr(i)); break; }
    StringView inside = format.substr(i + 1, close - i - 1);
    Spec spec = inside.starts_with(":") ? parse_spec(inside.substr(1)) : Spec{};
    if (next_arg < args.size())
      append_arg(out, args[next_arg++], spec);
    else
      out.append("{?}");  // more placeholders than arguments: visible, not a crash
    i = close;
  }
  return out;
}

}  // namespace rt
