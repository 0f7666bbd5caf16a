// The names replicate, strategy.run and run_steps_on_dataset give the callables they run
// (runtime/tpu/replicate/callable_name.hpp): what a timed-out replica or the hang triage calls them.
#include <catch2/catch.hpp>

#include "runtime/tpu/replicate/callable_name.hpp"

#include <string>

namespace callable_name_test {

using rt::tpu::callable_name;

struct Context {};
struct TrainStep {
  int operator()(Context&) const { return 0; }
};
template <int N> struct Step {
  int operator()(Context&) const { return N; }
};
inline auto lambda_at_namespace_scope = [](Context&) { return 1; };
int plain_function(Context&) { return 0; }

template <class F> std::string name(const F&) {
  const rt::StringView view = callable_name<F>("fn");
  return std::string(view.data(), view.size());
}

std::string lambda_in_a_function(int steps) {
  auto step = [steps](Context&) { return steps; };
  return name(step);
}
std::string lambda_in_a_lambda() {
  auto outer = [] { return name([](Context&) { return 0; }); };
  return outer();
}
struct Trainer {
  std::string member(int, const Context&) const { return name([](Context&) { return 2; }); }
};
template <class T> std::string in_a_template(T) { return name([](Context&) { return 3; }); }
std::string with_a_name_longer_than_the_limit_of_sixty_three_characters_in_all() {
  return name([](Context&) { return 4; });
}

TEST_CASE("a lambda is named after the function it is written in") {
  CHECK(lambda_in_a_function(3) == "lambda in lambda_in_a_function");
  CHECK(lambda_in_a_lambda() == "lambda in lambda_in_a_lambda");
  CHECK(Trainer{}.member(1, Context{}) == "lambda in member");
  CHECK(in_a_template(1.5) == "lambda in in_a_template<double>");
  CHECK(name(lambda_at_namespace_scope) == "lambda");
}

TEST_CASE("a function object is named by its type, a function pointer by the caller's default") {
  CHECK(name(TrainStep{}) == "TrainStep");
  CHECK(name(Step<3>{}) == "Step<3>");
  CHECK(name(&plain_function) == "fn");
}

TEST_CASE("a long name is cut to kMaxCallableName characters") {
  const std::string cut = with_a_name_longer_than_the_limit_of_sixty_three_characters_in_all();
  CHECK(cut.size() == rt::tpu::kMaxCallableName);
  CHECK(cut == std::string("lambda in with_a_name_longer_than_the_limit_of_sixty_three_characters_in_all")
                   .substr(0, rt::tpu::kMaxCallableName));
}

}  // namespace callable_name_test
