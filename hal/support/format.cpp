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

// Appends `digits` fractional digits of `fraction` (0 <= fraction < 1), trailing zeros trimmed.
// Returns true if rounding carried into the integer part (the caller adds one).
bool append_fraction(FormatBuffer& out, double fraction, unsigned digits) {
  uint64_t scale = 1;
  for (unsigned i = 0; i < digits; ++i) scale *= 10;
  uint64_t scaled = static_cast<uint64_t>(fraction * static_cast<double>(scale) + 0.5);
  if (scaled >= scale) return true;
  char text[20];
  for (unsigned i = digits; i-- > 0;) {
    text[i] = static_cast<char>('0' + scaled % 10);
    scaled /= 10;
  }
  size_t length = digits;
  while (length > 0 && text[length - 1] == '0') --length;
  if (length > 0) {
    out.append('.');
    out.append(StringView(text, length));
  }
  return false;
}

// Doubles: fixed notation with up to 6 decimals for 1e-4 <= |x| < 1e15 ("1.5", "3", "-0.25");
// otherwise scientific with up to 9 mantissa decimals ("1e+20", "1.234567891e-07"). Trailing
// zeros are trimmed. Meant for logs and error texts, not for round-tripping values.
void append_double(FormatBuffer& out, double value) {
  if (value != value) { out.append("nan"); return; }
  if (value < 0 || (value == 0 && 1 / value < 0)) { out.append('-'); value = -value; }
  if (value > 1.7976931348623157e308) { out.append("inf"); return; }
  if (value == 0 || (value >= 1e-4 && value < 1e15)) {
    uint64_t whole = static_cast<uint64_t>(value);
    FixedString<16> fraction;
    if (append_fraction(fraction, value - static_cast<double>(whole), 6)) ++whole;  // 0.9999999 -> 1
    append_unsigned(out, whole, Spec{});
    out.append(fraction.view());
    return;
  }
  int exponent = 0;
  while (value >= 10) { value /= 10; ++exponent; }
  while (value < 1) { value *= 10; --exponent; }
  unsigned leading = static_cast<unsigned>(value);
  FixedString<16> fraction;
  if (append_fraction(fraction, value - leading, 9) && ++leading == 10) {
    leading = 1;
    ++exponent;
  }
  append_unsigned(out, leading, Spec{});
  out.append(fraction.view());
  out.append(exponent < 0 ? "e-" : "e+");
  Spec two_digits;
  two_digits.zero_fill = true;
  two_digits.width = 2;  // as C's %e: e+05, e-07, e+129
  append_unsigned(out, static_cast<uint64_t>(exponent < 0 ? -exponent : exponent), two_digits);
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
