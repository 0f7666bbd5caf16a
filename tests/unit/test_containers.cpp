// Tests for the freestanding vocabulary types of hal/support: Span (span.hpp), Array (array.hpp),
// StringView (string_view.hpp), the helpers of utility.hpp and the traits of type_traits.hpp.
// References are hand-computed or the hosted standard library (std::string_view, std::min,
// std::has_single_bit, <type_traits>).
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>

// Span(std::initializer_list) is meant for braced lists passed straight into a call, which is how
// these tests use it; GCC's -Winit-list-lifetime flags the constructor itself, so it is silenced here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#include "hal/support/span.hpp"
#pragma GCC diagnostic pop
#include "hal/support/array.hpp"
#include "hal/support/span.hpp"
#include "hal/support/string_view.hpp"
#include "hal/support/type_traits.hpp"
#include "hal/support/utility.hpp"

namespace {

int sum(rt::Span<const int> values) {
  int total = 0;
  for (int v : values) total += v;
  return total;
}

size_t count(rt::Span<const int> values) { return values.size(); }

std::string text(rt::StringView view) { return std::string(view.data(), view.size()); }

}  // namespace

// ---------------------------------------------------------------------------------- Span

TEST_CASE("Span reports size, emptiness and elements", "[span]") {
  int values[] = {10, 20, 30, 40};

  const rt::Span<int> span(values);
  CHECK(span.size() == 4);
  CHECK_FALSE(span.empty());
  CHECK(span.data() == values);
  CHECK(span.begin() == values);
  CHECK(span.end() == values + 4);
  CHECK(span.size_bytes() == 4 * sizeof(int));
  CHECK(span[2] == 30);
  span[2] = 33;  // a Span<int> is a mutable view even when the span itself is const
  CHECK(values[2] == 33);

  const rt::Span<int> from_pointer(values + 1, 2);
  CHECK(from_pointer.size() == 2);
  CHECK(from_pointer[0] == 20);

  rt::Span deduced(values + 1, 3);  // deduction guide for (T*, size_t)
  STATIC_REQUIRE(std::is_same_v<decltype(deduced), rt::Span<int>>);
  CHECK(deduced.size() == 3);

  const rt::Span<int> empty;
  CHECK(empty.size() == 0);
  CHECK(empty.empty());
  CHECK(empty.data() == nullptr);
  CHECK(empty.begin() == empty.end());
}

TEST_CASE("Span::subspan clamps offset and count to the span", "[span]") {
  int values[] = {0, 1, 2, 3, 4};
  const rt::Span<int> span(values);

  SECTION("inside the span") {
    const auto sub = span.subspan(1, 3);
    CHECK(sub.data() == values + 1);
    CHECK(sub.size() == 3);
  }
  SECTION("default count runs to the end") {
    const auto sub = span.subspan(2);
    CHECK(sub.data() == values + 2);
    CHECK(sub.size() == 3);
  }
  SECTION("count past the end is clamped") {
    const auto sub = span.subspan(3, 100);
    CHECK(sub.data() == values + 3);
    CHECK(sub.size() == 2);
  }
  SECTION("offset exactly at the end gives an empty span at end()") {
    const auto sub = span.subspan(5);
    CHECK(sub.empty());
    CHECK(sub.data() == values + 5);
  }
  SECTION("offset past the end is clamped to the end") {
    const auto sub = span.subspan(6, 2);
    CHECK(sub.empty());
    CHECK(sub.data() == values + 5);
    CHECK(span.subspan(~size_t{0}).empty());
    CHECK(span.subspan(~size_t{0}, ~size_t{0}).empty());
  }
  SECTION("zero count") {
    CHECK(span.subspan(0, 0).empty());
    CHECK(span.subspan(2, 0).data() == values + 2);
  }
  SECTION("every offset and count against a hand-written clamp") {
    for (size_t offset = 0; offset <= 8; ++offset)
      for (size_t n = 0; n <= 8; ++n) {
        const size_t start = std::min<size_t>(offset, 5);
        const size_t expected_size = std::min<size_t>(n, 5 - start);
        const auto sub = span.subspan(offset, n);
        CHECK(sub.data() == values + start);
        CHECK(sub.size() == expected_size);
      }
  }
}

TEST_CASE("Span<const T> binds to a braced list for the duration of a call", "[span]") {
  CHECK(sum({1, 2, 3, 4}) == 10);
  CHECK(count({}) == 0);
  CHECK(count({7}) == 1);
  CHECK(sum(rt::Span<const int>{5, -5, 9}) == 9);
  // Only views of const elements may bind to an initializer list.
  STATIC_REQUIRE(std::is_constructible_v<rt::Span<const int>, std::initializer_list<const int>>);
  STATIC_REQUIRE_FALSE(std::is_constructible_v<rt::Span<int>, std::initializer_list<int>>);
}

TEST_CASE("Span<T> converts to Span<const T> but not back", "[span]") {
  int values[] = {1, 2, 3};
  const rt::Span<int> mutable_span(values);
  const rt::Span<const int> const_span = mutable_span;
  CHECK(const_span.data() == values);
  CHECK(const_span.size() == 3);
  CHECK(sum(mutable_span) == 6);

  const int fixed[] = {4, 5};
  CHECK(sum(fixed) == 9);  // from a const C array

  STATIC_REQUIRE(std::is_convertible_v<rt::Span<int>, rt::Span<const int>>);
  STATIC_REQUIRE_FALSE(std::is_constructible_v<rt::Span<int>, rt::Span<const int>>);
  STATIC_REQUIRE_FALSE(std::is_constructible_v<rt::Span<long>, rt::Span<int>>);
}

TEST_CASE("Span is usable in constant expressions", "[span]") {
  static constexpr int values[] = {1, 2, 3};
  constexpr rt::Span<const int> span(values);
  STATIC_REQUIRE(span.size() == 3);
  STATIC_REQUIRE(span[1] == 2);
  STATIC_REQUIRE(span.subspan(1).size() == 2);
  STATIC_REQUIRE(span.subspan(9).empty());
}

// ---------------------------------------------------------------------------------- Array

TEST_CASE("Array stores N elements and exposes them as a Span", "[array]") {
  rt::Array<int, 4> array = {{3, 1, 4, 1}};
  CHECK(array.size() == 4);
  CHECK(array[2] == 4);
  array[2] = 5;
  CHECK(array.data()[2] == 5);
  CHECK(array.end() - array.begin() == 4);

  int total = 0;
  for (int v : array) total += v;
  CHECK(total == 3 + 1 + 5 + 1);

  const rt::Span<int> span = array.span();
  CHECK(span.data() == array.data());
  CHECK(span.size() == 4);
  span[0] = 9;
  CHECK(array[0] == 9);

  const rt::Array<int, 4>& const_array = array;
  const rt::Span<const int> const_span = const_array.span();
  CHECK(const_span.size() == 4);
  CHECK(const_span[0] == 9);
  CHECK(const_array[3] == 1);
}

TEST_CASE("Array of zero elements is empty", "[array]") {
  rt::Array<int, 0> empty{};
  CHECK(empty.size() == 0);
  CHECK(empty.begin() == empty.end());
  CHECK(empty.span().empty());
}

TEST_CASE("Array works in constant expressions", "[array]") {
  constexpr rt::Array<int, 3> array = {{2, 4, 6}};
  STATIC_REQUIRE(array.size() == 3);
  STATIC_REQUIRE(array[1] == 4);
}

// ---------------------------------------------------------------------------------- StringView

TEST_CASE("StringView construction and equality", "[string_view]") {
  const rt::StringView hello("hello");
  CHECK(hello.size() == 5);
  CHECK_FALSE(hello.empty());
  CHECK(hello[0] == 'h');
  CHECK(hello[4] == 'o');
  CHECK(text(hello) == "hello");

  const rt::StringView defaulted;
  CHECK(defaulted.size() == 0);
  CHECK(defaulted.empty());
  CHECK(defaulted.begin() == defaulted.end());

  const rt::StringView from_null(static_cast<const char*>(nullptr));
  CHECK(from_null.size() == 0);
  CHECK(from_null.empty());

  const char bytes[] = {'a', '\0', 'b'};
  const rt::StringView with_nul(bytes, 3);
  CHECK(with_nul.size() == 3);
  CHECK(with_nul[2] == 'b');

  CHECK(hello == rt::StringView("hello"));
  CHECK(hello == "hello");
  CHECK("hello" == hello);
  CHECK_FALSE(hello == "hell");
  CHECK_FALSE(hello == "hellO");
  CHECK(hello != "help!");
  CHECK(defaulted == from_null);
  CHECK(defaulted == "");
  CHECK(with_nul == rt::StringView("a\0b", 3));
  CHECK_FALSE(with_nul == "a");  // the NUL is part of the view
  CHECK(rt::StringView("abcdef", 3) == "abc");

  STATIC_REQUIRE(rt::StringView("abc").size() == 3);
  STATIC_REQUIRE(rt::StringView("abc") == "abc");
  STATIC_REQUIRE(rt::string_length("four") == 4);
}

TEST_CASE("StringView::starts_with", "[string_view]") {
  const rt::StringView text_view("runtime");
  CHECK(text_view.starts_with("run"));
  CHECK(text_view.starts_with(""));
  CHECK(text_view.starts_with("runtime"));
  CHECK_FALSE(text_view.starts_with("runtimes"));
  CHECK_FALSE(text_view.starts_with("time"));
  CHECK(rt::StringView().starts_with(""));
  CHECK_FALSE(rt::StringView().starts_with("x"));
}

TEST_CASE("StringView::substr and find agree with std::string_view (with clamping)", "[string_view]") {
  const char* const samples[] = {"", "a", "abc", "hello world", "a}b{c}", "xxxxx"};
  for (const char* sample : samples) {
    const std::string_view reference(sample);
    const rt::StringView view(sample);
    for (size_t offset = 0; offset <= reference.size() + 3; ++offset) {
      for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{5}, size_t{100}, ~size_t{0}}) {
        INFO("sample '" << sample << "' offset " << offset << " count " << n);
        // std::string_view::substr throws past the end; rt clamps the offset to the size.
        const std::string_view expected = reference.substr(std::min(offset, reference.size()), n);
        const rt::StringView got = view.substr(offset, n);
        CHECK(text(got) == std::string(expected));
        CHECK(got.data() == sample + std::min(offset, reference.size()));
      }
      CHECK(text(view.substr(offset)) == std::string(reference.substr(std::min(offset, reference.size()))));
      for (char c : {'a', 'b', 'c', 'o', 'x', '{', '}', 'z'}) {
        INFO("sample '" << sample << "' find '" << c << "' from " << offset);
        const size_t expected = reference.find(c, offset);
        const size_t got = view.find(c, offset);
        if (expected == std::string_view::npos)
          CHECK(got == rt::StringView::npos);
        else
          CHECK(got == expected);
      }
    }
  }
}

TEST_CASE("StringView::npos is the largest size_t and find defaults to offset 0", "[string_view]") {
  CHECK(rt::StringView::npos == SIZE_MAX);
  CHECK(rt::StringView("banana").find('n') == 2);
  CHECK(rt::StringView("banana").find('n', 3) == 4);
  CHECK(rt::StringView("banana").find('q') == rt::StringView::npos);
  CHECK(rt::StringView("banana").find('a', rt::StringView::npos) == rt::StringView::npos);
  CHECK(rt::StringView().find('a') == rt::StringView::npos);
}

// ---------------------------------------------------------------------------------- utility

TEST_CASE("min and max agree with std::min/std::max, including ties", "[utility]") {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 1000; ++i) {
    const int a = int(rng() % 21) - 10;
    const int b = int(rng() % 21) - 10;
    CHECK(rt::min(a, b) == std::min(a, b));
    CHECK(rt::max(a, b) == std::max(a, b));
  }
  // On ties both return the first argument, as the standard does.
  const int x = 5, y = 5;
  CHECK(&rt::min(x, y) == &std::min(x, y));
  CHECK(&rt::max(x, y) == &std::max(x, y));
  CHECK(&rt::min(x, y) == &x);
  CHECK(&rt::max(x, y) == &x);
  CHECK(rt::min(-0.5, 0.25) == -0.5);
  CHECK(rt::max(uint64_t{1} << 63, uint64_t{1}) == uint64_t{1} << 63);
  STATIC_REQUIRE(rt::min(3, 4) == 3);
  STATIC_REQUIRE(rt::max(3, 4) == 4);
}

TEST_CASE("align_up rounds up to a power-of-two multiple", "[utility]") {
  CHECK(rt::align_up(0, 16) == 0);
  CHECK(rt::align_up(1, 16) == 16);
  CHECK(rt::align_up(15, 16) == 16);
  CHECK(rt::align_up(16, 16) == 16);
  CHECK(rt::align_up(17, 16) == 32);
  CHECK(rt::align_up(5, 1) == 5);
  CHECK(rt::align_up(0x1001, 0x1000) == 0x2000);
  CHECK(rt::align_up(0x12345, 64) == 0x12380);
  STATIC_REQUIRE(rt::align_up(65, 64) == 128);

  std::mt19937_64 rng(11);
  for (int i = 0; i < 2000; ++i) {
    const uintptr_t alignment = uintptr_t{1} << (rng() % 20);
    const uintptr_t value = rng() >> 20;  // no overflow in the reference below
    const uintptr_t expected = (value + alignment - 1) / alignment * alignment;
    CHECK(rt::align_up(value, alignment) == expected);
  }
}

TEST_CASE("is_power_of_two", "[utility]") {
  CHECK_FALSE(rt::is_power_of_two(0));
  CHECK(rt::is_power_of_two(1));
  CHECK(rt::is_power_of_two(2));
  CHECK_FALSE(rt::is_power_of_two(3));
  CHECK(rt::is_power_of_two(64));
  CHECK_FALSE(rt::is_power_of_two(96));
  CHECK(rt::is_power_of_two(uint64_t{1} << 63));
  CHECK_FALSE(rt::is_power_of_two((uint64_t{1} << 63) + 1));
  CHECK_FALSE(rt::is_power_of_two(UINT64_MAX));
  for (unsigned bit = 0; bit < 64; ++bit) CHECK(rt::is_power_of_two(uint64_t{1} << bit));
  std::mt19937_64 rng(5);
  for (int i = 0; i < 2000; ++i) {
    const uint64_t value = rng() >> (rng() % 64);
    CHECK(rt::is_power_of_two(value) == std::has_single_bit(value));
  }
  STATIC_REQUIRE(rt::is_power_of_two(4096));
}

namespace {

// Counts how it is copied and moved. Deliberately outside namespace std: rt::swap on a type from
// namespace std does not compile (see the test report).
struct MoveCounter {
  static int copies;
  static int moves;
  std::string text;
  explicit MoveCounter(std::string t) : text(std::move(t)) {}
  MoveCounter(const MoveCounter& other) : text(other.text) { ++copies; }
  MoveCounter(MoveCounter&& other) noexcept : text(std::move(other.text)) { ++moves; }
  MoveCounter& operator=(const MoveCounter& other) {
    text = other.text;
    ++copies;
    return *this;
  }
  MoveCounter& operator=(MoveCounter&& other) noexcept {
    text = std::move(other.text);
    ++moves;
    return *this;
  }
};
int MoveCounter::copies = 0;
int MoveCounter::moves = 0;

}  // namespace

TEST_CASE("move, forward, swap and array_size", "[utility]") {
  MoveCounter a(std::string(40, 'a'));
  MoveCounter b(std::string(40, 'b'));
  MoveCounter::copies = MoveCounter::moves = 0;
  rt::swap(a, b);
  CHECK(a.text == std::string(40, 'b'));
  CHECK(b.text == std::string(40, 'a'));
  CHECK(MoveCounter::copies == 0);
  CHECK(MoveCounter::moves == 3);  // one move construction, two move assignments

  int x = 1, y = 2;
  rt::swap(x, y);
  CHECK(x == 2);
  CHECK(y == 1);

  MoveCounter source(std::string(40, 's'));
  MoveCounter::copies = MoveCounter::moves = 0;
  const MoveCounter target = rt::move(source);
  CHECK(target.text == std::string(40, 's'));
  CHECK(MoveCounter::moves == 1);
  CHECK(MoveCounter::copies == 0);
  MoveCounter forwarded = rt::forward<MoveCounter>(a);  // forward<T> of an lvalue yields T&&: a move
  CHECK(MoveCounter::moves == 2);
  CHECK(forwarded.text == std::string(40, 'b'));
  MoveCounter forwarded_copy = rt::forward<MoveCounter&>(b);  // forward<T&> keeps an lvalue: a copy
  CHECK(MoveCounter::copies == 1);
  CHECK(forwarded_copy.text == std::string(40, 'a'));
  STATIC_REQUIRE(std::is_same_v<decltype(rt::move(source)), MoveCounter&&>);
  STATIC_REQUIRE(std::is_same_v<decltype(rt::forward<int&>(x)), int&>);
  STATIC_REQUIRE(std::is_same_v<decltype(rt::forward<int>(x)), int&&>);

  const int values[7] = {};
  STATIC_REQUIRE(rt::array_size(values) == 7);
}

// ---------------------------------------------------------------------------------- type traits

namespace {
enum class Color : uint8_t { kRed };
struct Base {};
struct Derived : Base {};
struct Explicit {
  explicit Explicit(int) {}
};
struct Implicit {
  Implicit(int) {}
};
}  // namespace

TEST_CASE("is_signed_v matches the standard for arithmetic types", "[type_traits]") {
  STATIC_REQUIRE(rt::is_signed_v<int>);
  STATIC_REQUIRE(rt::is_signed_v<signed char>);
  STATIC_REQUIRE(rt::is_signed_v<long long>);
  STATIC_REQUIRE(rt::is_signed_v<const short>);
  STATIC_REQUIRE(rt::is_signed_v<float>);
  STATIC_REQUIRE(rt::is_signed_v<double>);
  STATIC_REQUIRE_FALSE(rt::is_signed_v<unsigned>);
  STATIC_REQUIRE_FALSE(rt::is_signed_v<unsigned char>);
  STATIC_REQUIRE_FALSE(rt::is_signed_v<uint64_t>);
  STATIC_REQUIRE_FALSE(rt::is_signed_v<bool>);
  STATIC_REQUIRE(rt::is_signed_v<char> == std::is_signed_v<char>);  // platform-dependent
  STATIC_REQUIRE(rt::is_signed_v<int8_t>);
  STATIC_REQUIRE_FALSE(rt::is_signed_v<int*>);
  STATIC_REQUIRE_FALSE(rt::is_signed_v<Color>);
}

TEST_CASE("is_integral_v and is_floating_point_v", "[type_traits]") {
  STATIC_REQUIRE(rt::is_integral_v<bool>);
  STATIC_REQUIRE(rt::is_integral_v<char>);
  STATIC_REQUIRE(rt::is_integral_v<signed char>);
  STATIC_REQUIRE(rt::is_integral_v<unsigned char>);
  STATIC_REQUIRE(rt::is_integral_v<int>);
  STATIC_REQUIRE(rt::is_integral_v<const volatile unsigned long long>);
  STATIC_REQUIRE(rt::is_integral_v<int64_t>);
  STATIC_REQUIRE(rt::is_integral_v<size_t>);
  STATIC_REQUIRE(rt::is_integral_v<uintptr_t>);
  STATIC_REQUIRE_FALSE(rt::is_integral_v<float>);
  STATIC_REQUIRE_FALSE(rt::is_integral_v<double>);
  STATIC_REQUIRE_FALSE(rt::is_integral_v<int*>);
  STATIC_REQUIRE_FALSE(rt::is_integral_v<const char*>);
  STATIC_REQUIRE_FALSE(rt::is_integral_v<int&>);
  STATIC_REQUIRE_FALSE(rt::is_integral_v<Color>);
  STATIC_REQUIRE(rt::is_floating_point_v<float>);
  STATIC_REQUIRE(rt::is_floating_point_v<const double>);
  STATIC_REQUIRE(rt::is_floating_point_v<long double>);
  STATIC_REQUIRE_FALSE(rt::is_floating_point_v<int>);
  STATIC_REQUIRE(rt::is_arithmetic_v<bool>);
  STATIC_REQUIRE(rt::is_arithmetic_v<double>);
  STATIC_REQUIRE_FALSE(rt::is_arithmetic_v<int*>);
}

TEST_CASE("make_unsigned_t matches the standard (for unqualified types)", "[type_traits]") {
  STATIC_REQUIRE(std::is_same_v<rt::make_unsigned_t<int>, unsigned>);
  STATIC_REQUIRE(std::is_same_v<rt::make_unsigned_t<char>, std::make_unsigned_t<char>>);
  STATIC_REQUIRE(std::is_same_v<rt::make_unsigned_t<signed char>, unsigned char>);
  STATIC_REQUIRE(std::is_same_v<rt::make_unsigned_t<short>, unsigned short>);
  STATIC_REQUIRE(std::is_same_v<rt::make_unsigned_t<long>, unsigned long>);
  STATIC_REQUIRE(std::is_same_v<rt::make_unsigned_t<long long>, unsigned long long>);
  STATIC_REQUIRE(std::is_same_v<rt::make_unsigned_t<int64_t>, uint64_t>);
  STATIC_REQUIRE(std::is_same_v<rt::make_unsigned_t<unsigned>, unsigned>);
  STATIC_REQUIRE(std::is_same_v<rt::make_unsigned_t<uint8_t>, uint8_t>);
  // rt drops cv-qualifiers (std would keep them): make_unsigned_t<const int> is plain unsigned.
  STATIC_REQUIRE(std::is_same_v<rt::make_unsigned_t<const int>, unsigned>);
}

TEST_CASE("is_convertible_v matches std::is_convertible_v", "[type_traits]") {
  STATIC_REQUIRE(rt::is_convertible_v<int, long> == std::is_convertible_v<int, long>);
  STATIC_REQUIRE(rt::is_convertible_v<double, int> == std::is_convertible_v<double, int>);
  STATIC_REQUIRE(rt::is_convertible_v<int*, const int*>);
  STATIC_REQUIRE_FALSE(rt::is_convertible_v<const int*, int*>);
  STATIC_REQUIRE(rt::is_convertible_v<Derived*, Base*>);
  STATIC_REQUIRE_FALSE(rt::is_convertible_v<Base*, Derived*>);
  STATIC_REQUIRE(rt::is_convertible_v<int*, void*>);
  STATIC_REQUIRE_FALSE(rt::is_convertible_v<void*, int*>);
  STATIC_REQUIRE(rt::is_convertible_v<int, Implicit>);
  STATIC_REQUIRE_FALSE(rt::is_convertible_v<int, Explicit>);
  STATIC_REQUIRE(rt::is_convertible_v<const char*, rt::StringView>);
  STATIC_REQUIRE_FALSE(rt::is_convertible_v<rt::StringView, const char*>);
  STATIC_REQUIRE(rt::is_convertible_v<int&, int&> == std::is_convertible_v<int&, int&>);
  STATIC_REQUIRE(rt::is_convertible_v<int, int&> == std::is_convertible_v<int, int&>);
  STATIC_REQUIRE(rt::is_convertible_v<int, const int&> == std::is_convertible_v<int, const int&>);
  STATIC_REQUIRE(rt::is_convertible_v<Color, int> == std::is_convertible_v<Color, int>);
}

TEST_CASE("smaller traits: is_same, remove_cvref, conditional, enable_if, is_const, is_pointer, is_enum",
          "[type_traits]") {
  STATIC_REQUIRE(rt::is_same_v<int, int>);
  STATIC_REQUIRE_FALSE(rt::is_same_v<int, const int>);
  STATIC_REQUIRE(rt::is_same_v<rt::remove_cvref_t<const volatile int&>, int>);
  STATIC_REQUIRE(rt::is_same_v<rt::remove_cvref_t<const int&&>, int>);
  STATIC_REQUIRE(rt::is_same_v<rt::remove_cv_t<const int*>, const int*>);  // pointee cv stays
  STATIC_REQUIRE(rt::is_same_v<rt::remove_cv_t<int* const>, int*>);
  STATIC_REQUIRE(rt::is_same_v<rt::conditional_t<true, int, long>, int>);
  STATIC_REQUIRE(rt::is_same_v<rt::conditional_t<false, int, long>, long>);
  STATIC_REQUIRE(rt::is_same_v<rt::enable_if_t<true, char>, char>);
  STATIC_REQUIRE(rt::is_const_v<const int>);
  STATIC_REQUIRE_FALSE(rt::is_const_v<const int*>);
  STATIC_REQUIRE(rt::is_pointer_v<int*>);
  STATIC_REQUIRE(rt::is_pointer_v<int* const>);
  STATIC_REQUIRE_FALSE(rt::is_pointer_v<int>);
  STATIC_REQUIRE(rt::is_enum_v<Color>);
  STATIC_REQUIRE_FALSE(rt::is_enum_v<int>);
  STATIC_REQUIRE(rt::is_trivially_copyable_v<Base>);
  STATIC_REQUIRE_FALSE(rt::is_trivially_copyable_v<std::string>);
}
