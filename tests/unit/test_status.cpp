// Tests for hal/support/status.{hpp,cpp} and result.hpp: Status (default OK, error codes and
// formatted messages, code names, message truncation at Status::kMessageCapacity, copies),
// RT_RETURN_IF_ERROR propagation, and Result<T> (value / error / copy / assignment, the OK-status
// misuse case, and exact construction/destruction accounting for a non-trivial T).
#include <catch2/catch.hpp>

#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "hal/support/result.hpp"
#include "hal/support/status.hpp"

namespace {

std::string text(rt::StringView view) { return std::string(view.data(), view.size()); }

}  // namespace

// ---------------------------------------------------------------------------------- Status

TEST_CASE("A default Status is OK with an empty message", "[status]") {
  const rt::Status defaulted;
  const rt::Status ok = rt::Status::ok();
  for (const rt::Status* status : {&defaulted, &ok}) {
    CHECK(status->is_ok());
    CHECK(static_cast<bool>(*status));
    CHECK(status->code() == rt::StatusCode::kOk);
    CHECK(status->message().empty());
    CHECK(std::string(status->c_str()) == "");
  }
}

TEST_CASE("Status::error carries its code and the formatted message", "[status]") {
  const rt::Status status = rt::Status::error(rt::StatusCode::kNotFound, "no device {} on bus {:#x}", 3, 0x1f);
  CHECK_FALSE(status.is_ok());
  CHECK_FALSE(static_cast<bool>(status));
  CHECK(status.code() == rt::StatusCode::kNotFound);
  CHECK(text(status.message()) == "no device 3 on bus 0x1f");
  CHECK(std::string(status.c_str()) == "no device 3 on bus 0x1f");

  const rt::Status plain = rt::Status::error(rt::StatusCode::kAborted, "stopped");
  CHECK(plain.code() == rt::StatusCode::kAborted);
  CHECK(text(plain.message()) == "stopped");
}

TEST_CASE("Status helper functions set the matching code", "[status]") {
  const rt::Status invalid = rt::invalid_argument("bad rank {}", -1);
  CHECK(invalid.code() == rt::StatusCode::kInvalidArgument);
  CHECK(text(invalid.message()) == "bad rank -1");

  const rt::Status deadline = rt::deadline_exceeded("waited {} ms", 10000u);
  CHECK(deadline.code() == rt::StatusCode::kDeadlineExceeded);
  CHECK(text(deadline.message()) == "waited 10000 ms");

  const rt::Status internal = rt::internal_error("broken {}", "invariant");
  CHECK(internal.code() == rt::StatusCode::kInternal);
  CHECK(text(internal.message()) == "broken invariant");
}

TEST_CASE("Every Status code has its TF-style name", "[status]") {
  using rt::StatusCode;
  const struct {
    StatusCode code;
    const char* name;
  } expected[] = {
      {StatusCode::kOk, "OK"},
      {StatusCode::kInvalidArgument, "INVALID_ARGUMENT"},
      {StatusCode::kOutOfRange, "OUT_OF_RANGE"},
      {StatusCode::kResourceExhausted, "RESOURCE_EXHAUSTED"},
      {StatusCode::kDeadlineExceeded, "DEADLINE_EXCEEDED"},
      {StatusCode::kFailedPrecondition, "FAILED_PRECONDITION"},
      {StatusCode::kNotFound, "NOT_FOUND"},
      {StatusCode::kUnimplemented, "UNIMPLEMENTED"},
      {StatusCode::kUnavailable, "UNAVAILABLE"},
      {StatusCode::kAborted, "ABORTED"},
      {StatusCode::kInternal, "INTERNAL"},
      {StatusCode::kCancelled, "CANCELLED"},
  };
  for (const auto& entry : expected) {
    INFO("code " << int(entry.code));
    CHECK(std::string(rt::status_code_name(entry.code)) == entry.name);
  }
  // The enumerators are consecutive from 0; a value past the last one is not a known code.
  CHECK(int(StatusCode::kCancelled) == 11);
  CHECK(rt::kLastStatusCode == StatusCode::kCancelled);
  CHECK(std::string(rt::status_code_name(static_cast<StatusCode>(12))) == "UNKNOWN");
  CHECK(std::string(rt::status_code_name(static_cast<StatusCode>(255))) == "UNKNOWN");
}

TEST_CASE("Status messages are truncated to kMessageCapacity - 1 characters", "[status][truncation]") {
  std::string long_text;
  for (int i = 0; long_text.size() < 2 * rt::Status::kMessageCapacity; ++i) long_text += std::to_string(i) + ",";
  const size_t kept = rt::Status::kMessageCapacity - 1;

  SECTION("a long text argument") {
    const rt::Status status = rt::invalid_argument("{}", long_text.c_str());
    CHECK(status.message().size() == kept);
    CHECK(text(status.message()) == long_text.substr(0, kept));
    CHECK(std::strlen(status.c_str()) == kept);
  }
  SECTION("a message that fits exactly") {
    const std::string exact = long_text.substr(0, kept);
    const rt::Status status = rt::invalid_argument("{}", exact.c_str());
    CHECK(text(status.message()) == exact);
  }
  SECTION("truncation in the middle of formatted arguments") {
    const std::string prefix(kept - 3, 'p');
    const rt::Status status = rt::internal_error("{}{}", prefix.c_str(), 123456789);
    CHECK(text(status.message()) == prefix + "123");
  }
  SECTION("a copy of a truncated status keeps the truncated text") {
    const rt::Status status = rt::invalid_argument("{}", long_text.c_str());
    const rt::Status copy = status;
    CHECK(copy.code() == rt::StatusCode::kInvalidArgument);
    CHECK(text(copy.message()) == long_text.substr(0, kept));
  }
}

TEST_CASE("Status copies are independent values", "[status]") {
  rt::Status original = rt::Status::error(rt::StatusCode::kUnavailable, "link {} down", 2);
  const rt::Status copy(original);
  rt::Status assigned;
  assigned = original;
  original = rt::Status::ok();

  CHECK(original.is_ok());
  CHECK(original.message().empty());
  for (const rt::Status* status : {&copy, static_cast<const rt::Status*>(&assigned)}) {
    CHECK(status->code() == rt::StatusCode::kUnavailable);
    CHECK(text(status->message()) == "link 2 down");
    CHECK(status->c_str() != original.c_str());
  }
}

// ---------------------------------------------------------------------------------- RT_RETURN_IF_ERROR

namespace {

// A step that fails when its index is `fail_at`, recording that it ran.
rt::Status step(int index, int fail_at, std::vector<int>& ran) {
  ran.push_back(index);
  if (index == fail_at) return rt::Status::error(rt::StatusCode::kFailedPrecondition, "step {} failed", index);
  return rt::Status::ok();
}

rt::Status run_steps(int fail_at, std::vector<int>& ran) {
  RT_RETURN_IF_ERROR(step(0, fail_at, ran));
  RT_RETURN_IF_ERROR(step(1, fail_at, ran));
  RT_RETURN_IF_ERROR(step(2, fail_at, ran));
  return rt::Status::ok();
}

rt::Result<int> run_steps_for_result(int fail_at, std::vector<int>& ran) {
  RT_RETURN_IF_ERROR(step(0, fail_at, ran));
  RT_RETURN_IF_ERROR(step(1, fail_at, ran));
  return 42;
}

int evaluations = 0;
rt::Status counted_ok() {
  ++evaluations;
  return rt::Status::ok();
}
rt::Status run_counted() {
  RT_RETURN_IF_ERROR(counted_ok());
  return rt::Status::ok();
}

}  // namespace

TEST_CASE("RT_RETURN_IF_ERROR passes OK through and returns the first error", "[status][macro]") {
  std::vector<int> ran;

  SECTION("all steps succeed") {
    const rt::Status status = run_steps(-1, ran);
    CHECK(status.is_ok());
    CHECK(ran == std::vector<int>{0, 1, 2});
  }
  SECTION("the first failing step stops the sequence and its status is returned unchanged") {
    const rt::Status status = run_steps(1, ran);
    CHECK(status.code() == rt::StatusCode::kFailedPrecondition);
    CHECK(text(status.message()) == "step 1 failed");
    CHECK(ran == std::vector<int>{0, 1});
  }
  SECTION("failure in the very first step") {
    const rt::Status status = run_steps(0, ran);
    CHECK(text(status.message()) == "step 0 failed");
    CHECK(ran == std::vector<int>{0});
  }
  SECTION("in a function returning Result<T>") {
    const rt::Result<int> good = run_steps_for_result(-1, ran);
    REQUIRE(good.is_ok());
    CHECK(good.value() == 42);

    ran.clear();
    const rt::Result<int> bad = run_steps_for_result(0, ran);
    CHECK_FALSE(bad.is_ok());
    CHECK(bad.status().code() == rt::StatusCode::kFailedPrecondition);
    CHECK(text(bad.status().message()) == "step 0 failed");
    CHECK(ran == std::vector<int>{0});
  }
  SECTION("the expression is evaluated exactly once") {
    evaluations = 0;
    CHECK(run_counted().is_ok());
    CHECK(evaluations == 1);
  }
}

// ---------------------------------------------------------------------------------- Result<T>

TEST_CASE("Result<T> holds a value", "[result]") {
  rt::Result<int> result = 7;
  CHECK(result.is_ok());
  CHECK(static_cast<bool>(result));
  CHECK(result.status().is_ok());
  CHECK(result.value() == 7);
  CHECK(*result == 7);
  result.value() = 8;
  CHECK(*result == 8);

  struct Point {
    int x, y;
  };
  rt::Result<Point> point = Point{3, 4};
  CHECK(point->x == 3);
  CHECK(point->y == 4);
  point->y = 5;
  const rt::Result<Point>& const_point = point;
  CHECK(const_point->y == 5);
  CHECK((*const_point).x == 3);
}

TEST_CASE("Result<T> holds an error status", "[result]") {
  const rt::Result<int> result = rt::invalid_argument("rank {} out of range", 9);
  CHECK_FALSE(result.is_ok());
  CHECK_FALSE(static_cast<bool>(result));
  CHECK(result.status().code() == rt::StatusCode::kInvalidArgument);
  CHECK(text(result.status().message()) == "rank 9 out of range");
}

TEST_CASE("Result<T> built from an OK status becomes an internal error", "[result]") {
  const rt::Result<int> result = rt::Status::ok();
  CHECK_FALSE(result.is_ok());
  CHECK(result.status().code() == rt::StatusCode::kInternal);
  CHECK(text(result.status().message()) == "Result constructed from an OK status without a value");
}

namespace {

// A heap-owning value type, so that ASan would see a leaked or doubly destroyed Result value.
// (It lives outside namespace std on purpose: Result<std::string> does not compile, see the
// "Result<T>(T&&) with a type from namespace std" note in the test report.)
struct Boxed {
  std::string text;
};

}  // namespace

TEST_CASE("Result<T> copy construction and assignment", "[result]") {
  const std::string long_v(100, 'v');  // long enough to live on the heap
  const rt::Result<Boxed> value = Boxed{long_v};
  const rt::Result<Boxed> error = rt::Status::error(rt::StatusCode::kNotFound, "missing");

  SECTION("copy of a value") {
    rt::Result<Boxed> copy(value);
    REQUIRE(copy.is_ok());
    CHECK(copy->text == long_v);
    copy->text[0] = 'X';
    CHECK(value->text == long_v);
  }
  SECTION("copy of an error") {
    const rt::Result<Boxed> copy(error);
    CHECK_FALSE(copy.is_ok());
    CHECK(copy.status().code() == rt::StatusCode::kNotFound);
    CHECK(text(copy.status().message()) == "missing");
  }
  SECTION("value := value") {
    rt::Result<Boxed> target = Boxed{std::string(50, 't')};
    target = value;
    REQUIRE(target.is_ok());
    CHECK(target->text == long_v);
  }
  SECTION("value := error") {
    rt::Result<Boxed> target = Boxed{std::string(50, 't')};
    target = error;
    CHECK_FALSE(target.is_ok());
    CHECK(text(target.status().message()) == "missing");
  }
  SECTION("error := value") {
    rt::Result<Boxed> target = rt::internal_error("old");
    target = value;
    REQUIRE(target.is_ok());
    CHECK(target.status().is_ok());
    CHECK(target->text == long_v);
  }
  SECTION("error := error") {
    rt::Result<Boxed> target = rt::internal_error("old");
    target = error;
    CHECK(target.status().code() == rt::StatusCode::kNotFound);
    CHECK(text(target.status().message()) == "missing");
  }
  SECTION("self-assignment keeps the value") {
    rt::Result<Boxed> target = Boxed{std::string(64, 's')};
    rt::Result<Boxed>& alias = target;
    target = alias;
    REQUIRE(target.is_ok());
    CHECK(target->text == std::string(64, 's'));
  }
}

namespace {

// Counts constructions and destructions and tracks live addresses, so that a leak, a double
// destruction or a destruction of something never constructed are all detected.
struct Tracked {
  static int constructed;
  static int destroyed;
  static int bad_destroys;
  static std::set<const Tracked*> live;

  int id;
  explicit Tracked(int i) : id(i) { born(); }
  Tracked(const Tracked& other) : id(other.id) { born(); }
  Tracked(Tracked&& other) noexcept : id(other.id) { born(); }
  Tracked& operator=(const Tracked& other) {
    id = other.id;
    return *this;
  }
  ~Tracked() {
    ++destroyed;
    if (live.erase(this) != 1) ++bad_destroys;
  }
  void born() {
    ++constructed;
    live.insert(this);
  }
  static void reset() {
    constructed = destroyed = bad_destroys = 0;
    live.clear();
  }
};
int Tracked::constructed = 0;
int Tracked::destroyed = 0;
int Tracked::bad_destroys = 0;
std::set<const Tracked*> Tracked::live;

}  // namespace

TEST_CASE("Result<T> constructs and destroys a non-trivial T exactly once each", "[result][lifetime]") {
  Tracked::reset();

  SECTION("value from an lvalue and from an rvalue") {
    {
      const Tracked source(1);
      rt::Result<Tracked> from_lvalue = source;
      rt::Result<Tracked> from_rvalue = Tracked(2);
      CHECK(from_lvalue->id == 1);
      CHECK(from_rvalue->id == 2);
      CHECK(Tracked::live.size() == 3);  // source + two held values
    }
    CHECK(Tracked::constructed == 4);  // source, copy, temporary, move
    CHECK(Tracked::destroyed == 4);
  }
  SECTION("an error result never constructs a T") {
    { const rt::Result<Tracked> error = rt::internal_error("x"); }
    CHECK(Tracked::constructed == 0);
    CHECK(Tracked::destroyed == 0);
  }
  SECTION("copies and every assignment combination") {
    {
      rt::Result<Tracked> a = Tracked(1);
      rt::Result<Tracked> b(a);  // copy of a value
      CHECK(b->id == 1);
      rt::Result<Tracked> e = rt::internal_error("e");
      rt::Result<Tracked> f(e);  // copy of an error
      CHECK(Tracked::live.size() == 2);

      rt::Result<Tracked> c = Tracked(3);
      b = c;  // value := value
      CHECK(b->id == 3);
      CHECK(Tracked::live.size() == 3);
      b = e;  // value := error
      CHECK_FALSE(b.is_ok());
      CHECK(Tracked::live.size() == 2);
      e = a;  // error := value
      CHECK(e->id == 1);
      CHECK(Tracked::live.size() == 3);
      f = rt::Result<Tracked>(rt::internal_error("f"));  // error := error
      CHECK(Tracked::live.size() == 3);
      a = a;  // self-assignment
      CHECK(a->id == 1);
      CHECK(Tracked::live.size() == 3);
    }
    CHECK(Tracked::constructed == Tracked::destroyed);
  }
  CHECK(Tracked::bad_destroys == 0);
  CHECK(Tracked::live.empty());
}

TEST_CASE("Status is small: a code and a ticket", "[status][pool]") {
  STATIC_REQUIRE(sizeof(rt::Status) <= 8);
  STATIC_REQUIRE(sizeof(rt::Result<int32_t>) <= 16);
}

TEST_CASE("Status messages live until kMessageSlots newer errors overwrite them", "[status][pool]") {
  const rt::Status kept = rt::internal_error("the one to keep: {}", 42);
  for (uint32_t i = 0; i + 1 < rt::Status::kMessageSlots; ++i) (void)rt::invalid_argument("filler {}", i);
  CHECK(kept.message() == rt::StringView("the one to keep: 42"));  // the pool has not come round yet
  const rt::Status newest = rt::invalid_argument("one more");
  CHECK(kept.code() == rt::StatusCode::kInternal);
  CHECK(std::string(kept.c_str()).find("overwritten") != std::string::npos);
  CHECK(newest.message() == rt::StringView("one more"));
  CHECK(rt::Status::ok().message().empty());
}

TEST_CASE("Statuses made on many threads at once each keep their own text", "[status][pool]") {
  constexpr int kThreads = 8, kEach = 100;  // 800 < kMessageSlots: none may be overwritten
  std::vector<std::vector<rt::Status>> made(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t, &made] {
      for (int i = 0; i < kEach; ++i) made[t].push_back(rt::internal_error("thread {} error {}", t, i));
    });
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kEach; ++i)
      REQUIRE(std::string(made[t][i].c_str()) == "thread " + std::to_string(t) + " error " + std::to_string(i));
}
