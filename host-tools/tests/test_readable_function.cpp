// readable_function: long template argument lists of demangled names shortened, the rest kept.
#include <catch2/catch.hpp>

#include "host-tools/lib/text/readable_function.hpp"

using tpu::readable_function;

TEST_CASE("a long template argument list reads <...>, a short one stays", "[readable-function]") {
  const std::string invoke =
      "rt::tpu::detail::invoke<(anonymous namespace)::train(unsigned int)::{lambda(rt::tpu::StrategyReplicaContext&, "
      "train_digits::Params const&)#1}, true, rt::tpu::detail::ParamsOf<rt::tpu::detail::TypeList<rt::tpu::"
      "StrategyReplicaContext&, train_digits::Params const&>, true>, rt::tpu::StrategyReplicaContext, 0ul>";
  CHECK(readable_function(invoke) == "rt::tpu::detail::invoke<...>");
  CHECK(readable_function("rt::Tensor::at<float>(long) const") == "rt::Tensor::at<float>(long) const");
  // A short list kept, a long one inside a parameter list shortened, the parameters kept.
  CHECK(readable_function("f<int>(std::array<rt::tpu::detail::TypeList<int, float, double, char, long, short>, 2ul>)") ==
        "f<int>(std::array<...>)");
  CHECK(readable_function("run(firmware::CoreContext const&)::{lambda()#1}::operator()() const") ==
        "run(firmware::CoreContext const&)::{lambda()#1}::operator()() const");
}

TEST_CASE("operators named with < are no lists, and an unbalanced name is kept", "[readable-function]") {
  CHECK(readable_function("rt::operator<<(rt::Stream&, int)") == "rt::operator<<(rt::Stream&, int)");
  CHECK(readable_function("bool rt::operator<(rt::Shape const&, rt::Shape const&)") ==
        "bool rt::operator<(rt::Shape const&, rt::Shape const&)");
  CHECK(readable_function("a<b<c") == "a<b<c");
  // An operator's '>' inside a long list closes nothing; an identifier ending in "operator" is no operator.
  const std::string shifted = "invoke<(anonymous namespace)::Foo::operator>>(A&, B&)::{lambda()#1}, true>(int)";
  CHECK(readable_function(shifted) == "invoke<...>(int)");
  CHECK(readable_function("f<a::operator<=>(b), c>()") == "f<a::operator<=>(b), c>()");
  CHECK(readable_function("g<binary_operator<int>>(x)") == "g<binary_operator<int>>(x)");
  CHECK(readable_function("p->operator->()") == "p->operator->()");
  CHECK(readable_function("h<decltype(a->b)>()") == "h<decltype(a->b)>()");
  CHECK(readable_function("") == "");
}
