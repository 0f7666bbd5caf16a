// Tests for hal/support/format.{hpp,cpp}: format_to() placeholders ({}, {:x}, {:#x}, widths,
// zero fill, {{ }} escapes, missing/extra arguments), every argument kind (integers of every width,
// bool, char, text, pointers, enums, integer spans as Python lists, doubles) and the FormatBuffer /
// FixedString truncation contract. Expected texts come from std::to_string, snprintf or are written
// out by hand; none is produced by the code under test.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

// Span(std::initializer_list) is meant for braced lists passed straight into a call, which is how
// these tests use it; GCC's -Winit-list-lifetime flags the constructor itself, so it is silenced here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#include "hal/support/span.hpp"
#pragma GCC diagnostic pop
#include "hal/support/format.hpp"

namespace {

// Formats into a roomy buffer and returns the text; the buffer must not have been truncated.
template <class... Args>
std::string fmt(const char* format, const Args&... args) {
  rt::FixedString<1024> out;
  rt::format_to(out, format, args...);
  CHECK_FALSE(out.truncated());
  CHECK(out.c_str()[out.length()] == '\0');
  return std::string(out.view().data(), out.view().size());
}

// printf into a std::string: the independent reference for integer and double texts.
__attribute__((format(printf, 1, 2))) std::string cfmt(const char* format, ...) {
  char text[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof(text), format, args);
  va_end(args);
  return text;
}

// Reference for the default double format: "%.6f" with trailing zeros (and a bare '.') trimmed.
std::string fixed6_ref(double value) {
  std::string text = cfmt("%.6f", value);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

// Sign-magnitude hex, the {:x} convention for negative numbers ("-ff"), built with printf.
std::string signed_hex_ref(long long value) {
  if (value >= 0) return cfmt("%llx", static_cast<unsigned long long>(value));
  return "-" + cfmt("%llx", 0ull - static_cast<unsigned long long>(value));
}

template <class T>
std::string to_string_ref(T value) {
  if constexpr (std::numeric_limits<T>::is_signed)
    return std::to_string(static_cast<long long>(value));
  else
    return std::to_string(static_cast<unsigned long long>(value));
}

std::string list_ref(const std::vector<std::string>& items) {
  std::string text = "[";
  for (size_t i = 0; i < items.size(); ++i) text += (i ? ", " : "") + items[i];
  return text + "]";
}

}  // namespace

// ---------------------------------------------------------------------------------- integers

TEMPLATE_TEST_CASE("format {} prints integers of every width like std::to_string", "[format][int]", int8_t,
                   uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t, signed char, short,
                   unsigned short, int, unsigned, long, unsigned long, long long, unsigned long long) {
  using T = TestType;
  using limits = std::numeric_limits<T>;
  std::vector<T> values = {limits::min(), limits::max(), T(0), T(1), T(limits::max() - 1), T(limits::min() + 1)};
  if constexpr (limits::is_signed) values.push_back(T(-1));
  for (T value : values) {
    INFO("value " << to_string_ref(value));
    CHECK(fmt("{}", value) == to_string_ref(value));
  }
}

TEST_CASE("format {} prints the extreme 64-bit values exactly", "[format][int]") {
  CHECK(fmt("{}", INT64_MIN) == "-9223372036854775808");
  CHECK(fmt("{}", INT64_MAX) == "9223372036854775807");
  CHECK(fmt("{}", UINT64_MAX) == "18446744073709551615");
  CHECK(fmt("{}", int64_t{0}) == "0");
  CHECK(fmt("{}", uint64_t{0}) == "0");
  CHECK(fmt("{}", INT32_MIN) == "-2147483648");
  CHECK(fmt("{}", UINT32_MAX) == "4294967295");
  CHECK(fmt("{}", int8_t{-128}) == "-128");   // int8_t is a number, not a character
  CHECK(fmt("{}", uint8_t{255}) == "255");
}

TEST_CASE("format {} and {:x} agree with std::to_string and printf on random integers", "[format][int][random]") {
  std::mt19937_64 rng(0x5eed5eedULL);
  for (int i = 0; i < 4000; ++i) {
    // Shift by a random amount so that short and long numbers are both common.
    const uint64_t u = rng() >> (rng() % 64);
    const int64_t s = static_cast<int64_t>(rng()) >> (rng() % 64);
    INFO("u = " << u << ", s = " << s);
    CHECK(fmt("{}", u) == std::to_string(u));
    CHECK(fmt("{:x}", u) == cfmt("%llx", static_cast<unsigned long long>(u)));
    CHECK(fmt("{}", s) == std::to_string(s));
    CHECK(fmt("{:x}", s) == signed_hex_ref(s));

    const uint32_t u32 = static_cast<uint32_t>(u);
    const int32_t s32 = static_cast<int32_t>(s);
    const int16_t s16 = static_cast<int16_t>(s);
    const uint8_t u8 = static_cast<uint8_t>(u);
    CHECK(fmt("{}", u32) == std::to_string(u32));
    CHECK(fmt("{:x}", u32) == cfmt("%x", u32));
    CHECK(fmt("{}", s32) == std::to_string(s32));
    CHECK(fmt("{}", s16) == std::to_string(s16));
    CHECK(fmt("{}", u8) == std::to_string(u8));

    // Widths and fill, where printf has the same meaning (nonzero values for '#': printf omits 0x for 0).
    CHECK(fmt("{:08x}", u) == cfmt("%08llx", static_cast<unsigned long long>(u)));
    if (u != 0) CHECK(fmt("{:#018x}", u) == cfmt("%#018llx", static_cast<unsigned long long>(u)));
    CHECK(fmt("{:12}", s) == cfmt("%12lld", static_cast<long long>(s)));
    CHECK(fmt("{:012}", s) == cfmt("%012lld", static_cast<long long>(s)));
    CHECK(fmt("{:5}", u) == cfmt("%5llu", static_cast<unsigned long long>(u)));
  }
}

TEST_CASE("format hex, prefix, width and zero fill specs", "[format][spec]") {
  SECTION("hex") {
    CHECK(fmt("{:x}", 255) == "ff");
    CHECK(fmt("{:x}", 0) == "0");
    CHECK(fmt("{:x}", UINT64_MAX) == "ffffffffffffffff");
    CHECK(fmt("{:x}", uint8_t{0xab}) == "ab");
    CHECK(fmt("{:x}", -255) == "-ff");  // sign and magnitude, as std::format does
    CHECK(fmt("{:x}", INT64_MIN) == "-8000000000000000");
  }
  SECTION("hex with 0x prefix") {
    CHECK(fmt("{:#x}", 255) == "0xff");
    CHECK(fmt("{:#x}", 0) == "0x0");
    CHECK(fmt("{:#x}", 0xdeadbeefu) == "0xdeadbeef");
  }
  SECTION("zero-filled hex") {
    CHECK(fmt("{:08x}", 0xbeef) == "0000beef");
    CHECK(fmt("{:08x}", 0x123456789ULL) == "123456789");  // wider than the width: not cut
    CHECK(fmt("{:#018x}", 0xdeadbeefu) == "0x00000000deadbeef");
    CHECK(fmt("{:#018x}", 0) == "0x0000000000000000");
    CHECK(fmt("{:#018x}", UINT64_MAX) == "0xffffffffffffffff");
  }
  SECTION("decimal width, space and zero fill") {
    CHECK(fmt("{:5}", 42) == "   42");
    CHECK(fmt("{:5}", -42) == "  -42");
    CHECK(fmt("{:05}", -42) == "-0042");
    CHECK(fmt("{:05}", 42) == "00042");
    CHECK(fmt("{:2}", 12345) == "12345");
    CHECK(fmt("{:1}", 0) == "0");
    CHECK(fmt("[{:3}|{:3}]", 7, 8) == "[  7|  8]");
  }
  SECTION("a placeholder without ':' ignores its contents") {
    CHECK(fmt("{x}", 255) == "255");
    CHECK(fmt("{0}", 7) == "7");
  }
}

// ---------------------------------------------------------------------------------- other kinds

TEST_CASE("format bool, char, text and FixedString arguments", "[format][text]") {
  SECTION("bool") {
    CHECK(fmt("{}", true) == "true");
    CHECK(fmt("{}", false) == "false");
    CHECK(fmt("{} {}", true, false) == "true false");
  }
  SECTION("char is a character, signed/unsigned char are numbers") {
    CHECK(fmt("{}", 'A') == "A");
    CHECK(fmt("<{}>", ' ') == "< >");
    CHECK(fmt("{}", static_cast<signed char>('A')) == "65");
    CHECK(fmt("{}", static_cast<unsigned char>('A')) == "65");
  }
  SECTION("C strings") {
    CHECK(fmt("{}", "hello") == "hello");
    CHECK(fmt("[{}]", "") == "[]");
    char mutable_text[] = "mutable";
    CHECK(fmt("{}", mutable_text) == "mutable");
    char* mutable_pointer = mutable_text;
    CHECK(fmt("{}", mutable_pointer) == "mutable");
    const char* null_text = nullptr;
    CHECK(fmt("{}", null_text) == "(null)");
    char* null_mutable = nullptr;
    CHECK(fmt("{}", null_mutable) == "(null)");
  }
  SECTION("StringView, which need not be NUL-terminated") {
    CHECK(fmt("{}", rt::StringView("abcdef", 3)) == "abc");
    CHECK(fmt("[{}]", rt::StringView()) == "[]");
    const char with_nul[] = {'a', '\0', 'b'};
    CHECK(fmt("{}", rt::StringView(with_nul, 3)) == std::string(with_nul, 3));
  }
  SECTION("a FixedString argument prints its text") {
    rt::FixedString<16> inner;
    rt::format_to(inner, "in{}", 1);
    CHECK(fmt("<{}>", inner) == "<in1>");
  }
  SECTION("text placeholders in a sentence") {
    CHECK(fmt("core {} timed out waiting for {}", 3u, "barrier") == "core 3 timed out waiting for barrier");
  }
}

TEST_CASE("format pointers as 0x-prefixed hex and enums as their value", "[format][pointer]") {
  int object = 0;
  const void* pointer = &object;
  const std::string expected = "0x" + cfmt("%llx", static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(pointer)));
  CHECK(fmt("{}", pointer) == expected);
  CHECK(fmt("{}", static_cast<void*>(&object)) == expected);
  CHECK(fmt("{}", static_cast<const void*>(nullptr)) == "0x0");

  enum class Scoped : int { kNegative = -3, kBig = 1000 };
  enum Plain { kSeven = 7 };
  CHECK(fmt("{}", Scoped::kNegative) == "-3");
  CHECK(fmt("{}", Scoped::kBig) == "1000");
  CHECK(fmt("{}", kSeven) == "7");
}

// ---------------------------------------------------------------------------------- placeholders

TEST_CASE("format brace escapes and malformed placeholders", "[format][placeholder]") {
  CHECK(fmt("{{") == "{");
  CHECK(fmt("}}") == "}");
  CHECK(fmt("{{}}") == "{}");
  CHECK(fmt("a{{b}}c") == "a{b}c");
  CHECK(fmt("{{{}}}", 5) == "{5}");
  CHECK(fmt("{{}}", 5) == "{}");      // escaped braces are not a placeholder
  CHECK(fmt("x } y") == "x } y");     // a lone '}' is literal
  CHECK(fmt("x {oops", 1) == "x {oops");  // unterminated placeholder is copied as text
  CHECK(fmt("{") == "{");
  CHECK(fmt("") == "");
  CHECK(fmt("no placeholders") == "no placeholders");
}

TEST_CASE("format with more placeholders than arguments prints {?}", "[format][placeholder]") {
  CHECK(fmt("{}") == "{?}");
  CHECK(fmt("{} {} {}", 1, 2) == "1 2 {?}");
  CHECK(fmt("{:x} {:#x}", 255) == "ff {?}");
  CHECK(fmt("a{}b{}c") == "a{?}b{?}c");
}

TEST_CASE("format with fewer placeholders than arguments ignores the extras", "[format][placeholder]") {
  CHECK(fmt("{}", 1, 2, 3) == "1");
  CHECK(fmt("plain", 1, "two", 3.0) == "plain");
  CHECK(fmt("{}-{}", "a", "b", "c") == "a-b");
}

TEST_CASE("format_to appends to the buffer and returns it", "[format][buffer]") {
  rt::FixedString<64> out;
  rt::FormatBuffer& returned = rt::format_to(out, "a={}", 1);
  CHECK(&returned == &out);
  rt::format_to(out, ", b={}", 2);
  CHECK(std::string(out.c_str()) == "a=1, b=2");
  CHECK(out.length() == 8);
}

// ---------------------------------------------------------------------------------- lists

TEST_CASE("format integer spans as Python lists", "[format][list]") {
  SECTION("Span<const int>") {
    CHECK(fmt("{}", rt::Span<const int>{1, 2, 3}) == "[1, 2, 3]");
    CHECK(fmt("{}", rt::Span<const int>{-7}) == "[-7]");
    CHECK(fmt("{}", rt::Span<const int>()) == "[]");
  }
  SECTION("Span<const int64_t> with the extremes") {
    const int64_t values[] = {INT64_MIN, 0, INT64_MAX};
    CHECK(fmt("{}", rt::Span<const int64_t>(values)) ==
          list_ref({std::to_string(INT64_MIN), "0", std::to_string(INT64_MAX)}));
    CHECK(fmt("{}", rt::Span<const int64_t>()) == "[]");
  }
  SECTION("Span<const uint8_t> prints numbers, not characters") {
    const uint8_t bytes[] = {0, 1, 65, 255};
    CHECK(fmt("{}", rt::Span<const uint8_t>(bytes)) == "[0, 1, 65, 255]");
    CHECK(fmt("{}", rt::Span<const uint8_t>()) == "[]");
  }
  SECTION("other element widths and signedness") {
    const int8_t i8[] = {-128, -1, 127};
    const int16_t i16[] = {-32768, 32767};
    const uint16_t u16[] = {65535, 0};
    const uint32_t u32[] = {4294967295u};
    const uint64_t u64[] = {UINT64_MAX, 1};
    CHECK(fmt("{}", rt::Span<const int8_t>(i8)) == "[-128, -1, 127]");
    CHECK(fmt("{}", rt::Span<const int16_t>(i16)) == "[-32768, 32767]");
    CHECK(fmt("{}", rt::Span<const uint16_t>(u16)) == "[65535, 0]");
    CHECK(fmt("{}", rt::Span<const uint32_t>(u32)) == "[4294967295]");
    CHECK(fmt("{}", rt::Span<const uint64_t>(u64)) == "[18446744073709551615, 1]");
  }
  SECTION("a span of non-const elements") {
    int values[] = {4, 5};
    CHECK(fmt("{}", rt::Span<int>(values)) == "[4, 5]");
  }
  SECTION("the spec applies to every element") {
    CHECK(fmt("{:x}", rt::Span<const int>{10, 255, -16}) == "[a, ff, -10]");
    CHECK(fmt("{:#x}", rt::Span<const unsigned>{10u, 255u}) == "[0xa, 0xff]");
    CHECK(fmt("{:3}", rt::Span<const int>{1, 22}) == "[  1,  22]");
  }
  SECTION("in a sentence, as in TF error texts") {
    CHECK(fmt("shape {} vs {}", rt::Span<const int64_t>{2, 3}, rt::Span<const int64_t>{3, 2}) ==
          "shape [2, 3] vs [3, 2]");
  }
}

TEST_CASE("format random int64 and uint8 lists like a joined std::to_string", "[format][list][random]") {
  std::mt19937_64 rng(20240601);
  for (int round = 0; round < 500; ++round) {
    const size_t length = rng() % 12;
    std::vector<int64_t> wide(length);
    std::vector<uint8_t> bytes(length);
    std::vector<std::string> wide_text, byte_text;
    for (size_t i = 0; i < length; ++i) {
      wide[i] = static_cast<int64_t>(rng()) >> (rng() % 64);
      bytes[i] = static_cast<uint8_t>(rng());
      wide_text.push_back(std::to_string(wide[i]));
      byte_text.push_back(std::to_string(bytes[i]));
    }
    CHECK(fmt("{}", rt::Span<const int64_t>(wide.data(), wide.size())) == list_ref(wide_text));
    CHECK(fmt("{}", rt::Span<const uint8_t>(bytes.data(), bytes.size())) == list_ref(byte_text));
  }
}

// ---------------------------------------------------------------------------------- doubles
// Contract (format.hpp / format.cpp comments): fixed notation with up to 6 decimals, trailing
// zeros trimmed, for 1e-4 <= |x| < 1e15; otherwise scientific with up to 9 mantissa decimals,
// trimmed ("1e+20", "1.234567891e-07"); nan, inf and -inf spelled out.

namespace {

struct Scientific {
  std::string mantissa;  // digits with trailing zeros (and a bare '.') trimmed, sign included
  long exponent = 0;
  bool ok = false;
};

// Splits "<mantissa>e<exponent>" and trims the mantissa; the exponent is compared as a number so
// that the check does not depend on how many exponent digits are printed.
Scientific split_scientific(const std::string& text) {
  Scientific parts;
  const size_t e = text.find('e');
  if (e == std::string::npos) return parts;
  parts.mantissa = text.substr(0, e);
  if (parts.mantissa.find('.') != std::string::npos) {
    while (parts.mantissa.back() == '0') parts.mantissa.pop_back();
    if (parts.mantissa.back() == '.') parts.mantissa.pop_back();
  }
  char* end = nullptr;
  parts.exponent = std::strtol(text.c_str() + e + 1, &end, 10);
  parts.ok = end != text.c_str() + e + 1 && *end == '\0';
  return parts;
}

// Reference for the scientific form: "%.9e", split the same way.
Scientific scientific_ref(double value) { return split_scientific(cfmt("%.9e", value)); }

// True when the digits just after the last printed one are close to ...5000, i.e. a rounding tie
// where the exact decimal expansion and the formatter's double arithmetic may round differently.
bool near_scientific_tie(double value) {
  const std::string digits = cfmt("%.17e", std::fabs(value));  // d.ddddddddddddddddde...
  const int next4 = std::stoi(digits.substr(2 + 9, 4));        // decimals 10..13
  return next4 >= 4990 && next4 <= 5010;
}

bool near_fixed_tie(double value) {
  const double magnitude = std::fabs(value);
  const long double fraction = static_cast<long double>(magnitude - std::floor(magnitude)) * 1000000.0L;
  return std::fabs(fraction - std::floor(fraction) - 0.5L) < 0.001L;
}

}  // namespace

TEST_CASE("format doubles in trimmed fixed notation from 1e-4 to 1e15", "[format][double]") {
  SECTION("hand-computed values") {
    CHECK(fmt("{}", 1.5) == "1.5");
    CHECK(fmt("{}", 3.0) == "3");
    CHECK(fmt("{}", -0.25) == "-0.25");
    CHECK(fmt("{}", 0.0) == "0");
    CHECK(fmt("{}", -0.0) == "-0");
    CHECK(fmt("{}", 0.1) == "0.1");
    CHECK(fmt("{}", 0.015625) == "0.015625");
    CHECK(fmt("{}", 0.9999999) == "1");  // rounds up into the integer part
    CHECK(fmt("{}", -2.9999999) == "-3");
    CHECK(fmt("{}", 0.0001) == "0.0001");  // lower end of the fixed range
    CHECK(fmt("{}", 0.00012345) == "0.000123");
    CHECK(fmt("{}", 0.5f) == "0.5");       // float goes through double
    CHECK(fmt("{}", 1e14) == "100000000000000");
    CHECK(fmt("{}", 999999999999999.0) == "999999999999999");
    CHECK(fmt("{}", 1099511627775.75) == "1099511627775.75");  // 2^40 - 0.25: exact, no extra digits
  }
  SECTION("agrees with trimmed %.6f") {
    const double values[] = {2.0 / 3.0, -1.0 / 3.0, 123456.789, 1e-3, 42.0, 1e9, 123456789.123456,
                             4294967296.0, 8589934591.75, static_cast<double>(0.1f), 1e13, 1.8446744e13,
                             1.9e13, 2e13, 123456789012345.0, -5e14, 10000000000000.5, 17592186044415.875,
                             -68719476735.25, std::nextafter(1e15, 0.0)};
    for (double value : values) {
      INFO("value " << cfmt("%.17g", value));
      CHECK(fmt("{}", value) == fixed6_ref(value));
    }
  }
}

TEST_CASE("format non-finite doubles", "[format][double]") {
  CHECK(fmt("{}", std::numeric_limits<double>::quiet_NaN()) == "nan");
  CHECK(fmt("{}", std::numeric_limits<double>::infinity()) == "inf");
  CHECK(fmt("{}", -std::numeric_limits<double>::infinity()) == "-inf");
  CHECK(fmt("{}", std::numeric_limits<float>::infinity()) == "inf");
}

TEST_CASE("format random doubles from 1e-4 to 1e15 like trimmed %.6f", "[format][double][random]") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> decades(-4.0, 15.0);
  int compared = 0;
  for (int i = 0; i < 5000; ++i) {
    double value = std::pow(10.0, decades(rng));
    if (value < 1e-4 || value >= 1e15) continue;
    if (rng() & 1) value = -value;
    if (near_fixed_tie(value)) continue;
    ++compared;
    INFO("value " << cfmt("%.17g", value));
    CHECK(fmt("{}", value) == fixed6_ref(value));
  }
  CHECK(compared > 4900);
}

TEST_CASE("format doubles outside [1e-4, 1e15) in scientific notation", "[format][double]") {
  SECTION("hand-computed values") {
    CHECK(fmt("{}", 1e15) == "1e+15");
    CHECK(fmt("{}", 1e20) == "1e+20");
    CHECK(fmt("{}", -1e20) == "-1e+20");
    CHECK(fmt("{}", 1.5e20) == "1.5e+20");
    CHECK(fmt("{}", 6.02214076e23) == "6.02214076e+23");
    CHECK(fmt("{}", 1e100) == "1e+100");
    CHECK(fmt("{}", std::numeric_limits<double>::max()) == "1.797693135e+308");
    CHECK(fmt("{}", 1e-10) == "1e-10");
    CHECK(fmt("{}", -2.5e-300) == "-2.5e-300");
    CHECK(fmt("{}", std::numeric_limits<double>::min()) == "2.225073859e-308");
    CHECK(fmt("{}", std::numeric_limits<double>::denorm_min()) == "4.940656458e-324");
    CHECK(fmt("{}", 9.9999999999e20) == "1e+21");  // mantissa rounding carries into the exponent
  }
  SECTION("the boundaries of the fixed range") {
    const double below_fixed = std::nextafter(1e-4, 0.0);
    const Scientific got = split_scientific(fmt("{}", below_fixed));
    const Scientific expected = scientific_ref(below_fixed);
    REQUIRE(got.ok);
    CHECK(got.mantissa == expected.mantissa);
    CHECK(got.exponent == expected.exponent);
    CHECK(fmt("{}", 1e15).find('e') != std::string::npos);
    CHECK(fmt("{}", std::nextafter(1e15, 0.0)).find('e') == std::string::npos);
  }
}

TEST_CASE("format scientific exponents with at least two digits, as documented", "[format][double]") {
  // format.cpp documents "1.234567891e-07"; printf's %e and std::format also print two digits.
  CHECK(fmt("{}", 1.234567891e-07) == "1.234567891e-07");
  CHECK(fmt("{}", 1e-5) == "1e-05");
  CHECK(fmt("{}", -5e-9) == "-5e-09");
  CHECK(fmt("{}", 9.5e-5) == "9.5e-05");
}

TEST_CASE("format random scientific doubles like %.9e", "[format][double][random]") {
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> mantissa(1.0, 10.0);
  int compared = 0;
  for (int i = 0; i < 5000; ++i) {
    // Decades -307..-5 and 15..307, i.e. normal doubles outside the fixed range. (Subnormals hold
    // too few bits for ten significant digits; denorm_min is checked by hand above.)
    const int exponent = (rng() & 1) ? -307 + int(rng() % 303) : 15 + int(rng() % 293);
    double value = mantissa(rng) * std::pow(10.0, exponent);
    if (!std::isfinite(value) || value < 1e-307 || (value >= 1e-4 && value < 1e15)) continue;
    if (rng() & 1) value = -value;
    if (near_scientific_tie(value)) continue;
    ++compared;
    const std::string text = fmt("{}", value);
    const Scientific got = split_scientific(text);
    const Scientific expected = scientific_ref(value);
    INFO("value " << cfmt("%.17g", value) << " printed as " << text);
    REQUIRE(got.ok);
    CHECK(got.mantissa == expected.mantissa);
    CHECK(got.exponent == expected.exponent);
    CHECK(std::fabs(std::strtod(text.c_str(), nullptr) - value) <= 5e-10 * std::fabs(value));
  }
  CHECK(compared > 4500);
}

// ---------------------------------------------------------------------------------- truncation

TEST_CASE("FixedString truncates long text, keeps it NUL-terminated and flags it", "[format][truncation]") {
  rt::FixedString<8> out;
  CHECK(out.length() == 0);
  CHECK(std::string(out.c_str()) == "");
  CHECK_FALSE(out.truncated());

  rt::format_to(out, "{}", "abcdefghijkl");
  CHECK(out.length() == 7);
  CHECK(std::string(out.view().data(), out.view().size()) == "abcdefg");
  CHECK(out.c_str()[7] == '\0');
  CHECK(std::strlen(out.c_str()) == 7);
  CHECK(out.truncated());

  SECTION("appending after truncation changes nothing and stays truncated") {
    rt::format_to(out, "{}", 123);
    out.append('z');
    out.append(rt::StringView("more"));
    CHECK(std::string(out.c_str()) == "abcdefg");
    CHECK(out.length() == 7);
    CHECK(out.truncated());
  }
  SECTION("clear() resets text and flag, and the buffer is usable again") {
    out.clear();
    CHECK(out.length() == 0);
    CHECK(std::string(out.c_str()) == "");
    CHECK(out.view().empty());
    CHECK_FALSE(out.truncated());
    rt::format_to(out, "x={}", 5);
    CHECK(std::string(out.c_str()) == "x=5");
    CHECK_FALSE(out.truncated());
  }
}

TEST_CASE("FixedString<N> holds exactly N-1 characters", "[format][truncation]") {
  rt::FixedString<8> fits;
  rt::format_to(fits, "1234567");
  CHECK(std::string(fits.c_str()) == "1234567");
  CHECK_FALSE(fits.truncated());

  rt::FixedString<8> one_over;
  rt::format_to(one_over, "12345678");
  CHECK(std::string(one_over.c_str()) == "1234567");
  CHECK(one_over.truncated());

  rt::FixedString<4> number;
  rt::format_to(number, "{}", 123456);
  CHECK(std::string(number.c_str()) == "123");
  CHECK(number.truncated());

  rt::FixedString<1> nothing;
  rt::format_to(nothing, "a");
  CHECK(std::string(nothing.c_str()) == "");
  CHECK(nothing.truncated());
}

TEST_CASE("FormatBuffer never writes past its capacity", "[format][truncation]") {
  const std::string text = "the quick brown fox jumps";
  constexpr size_t kGuard = 8;
  constexpr char kPoison = 0x5a;
  for (size_t capacity = 1; capacity <= 20; ++capacity) {
    for (size_t length = 0; length <= text.size(); ++length) {
      INFO("capacity " << capacity << ", text length " << length);
      char raw[20 + kGuard];
      std::memset(raw, kPoison, sizeof(raw));
      rt::FormatBuffer out(raw, capacity);
      rt::format_to(out, "{}", rt::StringView(text.data(), length));
      const size_t kept = std::min(length, capacity - 1);
      CHECK(std::string(out.view().data(), out.view().size()) == text.substr(0, kept));
      CHECK(out.length() == kept);
      CHECK(raw[kept] == '\0');
      CHECK(out.truncated() == (length > capacity - 1));
      for (size_t i = capacity; i < capacity + kGuard; ++i) CHECK(raw[i] == kPoison);
    }
  }
}

TEST_CASE("FormatBuffer of capacity 0 writes nothing at all", "[format][truncation]") {
  char raw[4] = {'x', 'x', 'x', 'x'};
  rt::FormatBuffer out(raw, 0);
  rt::format_to(out, "{}", 42);
  out.clear();
  out.append('a');
  CHECK(out.length() == 0);
  CHECK(out.truncated());
  CHECK(raw[0] == 'x');
  CHECK(raw[1] == 'x');
}

TEST_CASE("format_to may print a buffer into itself", "[format][buffer]") {
  rt::FixedString<16> text;
  rt::format_to(text, "ab");
  rt::format_to(text, "{}", text);
  CHECK(std::string(text.c_str()) == "abab");
  CHECK_FALSE(text.truncated());
}

TEST_CASE("FixedString copies have their own storage", "[format][buffer]") {
  rt::FixedString<16> original;
  rt::format_to(original, "abc{}", 1);

  rt::FixedString<16> copy(original);
  CHECK(std::string(copy.c_str()) == "abc1");
  CHECK(copy.c_str() != original.c_str());

  rt::FixedString<16> assigned;
  rt::format_to(assigned, "old text");
  assigned = original;
  CHECK(std::string(assigned.c_str()) == "abc1");
  CHECK(assigned.length() == 4);

  original.clear();
  rt::format_to(original, "zz");
  CHECK(std::string(copy.c_str()) == "abc1");
  CHECK(std::string(assigned.c_str()) == "abc1");

  assigned = assigned;  // self-assignment keeps the text
  CHECK(std::string(assigned.c_str()) == "abc1");
}
