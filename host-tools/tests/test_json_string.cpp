// JSON strings with their escapes decoded (host-tools/lib/text/json_string.hpp), checked against
// RFC 8259's escapes written out by hand.
#include <catch2/catch.hpp>

#include "host-tools/lib/text/json_string.hpp"

namespace {

std::optional<std::string> read_after_quote(std::string_view text, size_t* end = nullptr) {
  size_t at = 1;  // text[0] is the opening quote
  std::optional<std::string> read = tpu::read_json_string(text, at);
  if (end != nullptr) *end = at;
  return read;
}

}  // namespace

TEST_CASE("a JSON string's escapes are decoded and the reader stops past its closing quote", "[json-string]") {
  size_t end = 0;
  CHECK(read_after_quote(R"("a\"b\\c\/d\be\ff\ng\rh\ti" rest)", &end) == std::string("a\"b\\c/d\be\ff\ng\rh\ti"));
  CHECK(end == 27);  // just past the closing quote (byte 26)
  CHECK(read_after_quote(R"("\u0041\u00e9\u20ac")") == std::string("A\xC3\xA9\xE2\x82\xAC"));  // A, é, € in UTF-8
  CHECK(read_after_quote(R"("\ud83d")") == std::string("?"));  // half of a surrogate pair
  CHECK(read_after_quote(R"("")") == std::string());
}

TEST_CASE("an unterminated string or a malformed escape reads as nothing", "[json-string]") {
  CHECK_FALSE(read_after_quote(R"("no end)"));
  CHECK_FALSE(read_after_quote(R"("ends in \)"));
  CHECK_FALSE(read_after_quote(R"("\q")"));
  CHECK_FALSE(read_after_quote(R"("\u12")"));
  CHECK_FALSE(read_after_quote(R"("\u12zz")"));
  CHECK_FALSE(read_after_quote(R"("\u+123")"));
  CHECK_FALSE(read_after_quote("\""));
}
