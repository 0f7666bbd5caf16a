// Tests for hal/support/atomic.hpp: Atomic<T> single-thread semantics (load, store, exchange,
// compare_exchange success/failure, fetch_add/sub/or/and, every memory order), layout, and
// multi-threaded behaviour with std::thread: an exact relaxed counter, a CAS-loop counter and
// release/acquire message passing.
#include <catch2/catch.hpp>

#include <cstdint>
#include <thread>
#include <type_traits>
#include <vector>

#include "hal/support/atomic.hpp"

namespace {

using rt::MemoryOrder;

constexpr MemoryOrder kAllOrders[] = {MemoryOrder::kRelaxed, MemoryOrder::kAcquire, MemoryOrder::kRelease,
                                      MemoryOrder::kAcqRel, MemoryOrder::kSeqCst};

// Whether Atomic::fetch_add(delta) is available (a requires-expression needs a template context to be false).
template <class A, class T>
concept HasFetchAdd = requires(A& atomic, T delta) { atomic.fetch_add(delta); };

}  // namespace

TEST_CASE("Atomic load, store and exchange", "[atomic]") {
  rt::Atomic<int> defaulted;
  CHECK(defaulted.load() == 0);

  rt::Atomic<int> value(5);
  CHECK(value.load() == 5);
  CHECK(value.load(MemoryOrder::kRelaxed) == 5);
  CHECK(value.load(MemoryOrder::kAcquire) == 5);

  value.store(-7);
  CHECK(value.load() == -7);
  value.store(8, MemoryOrder::kRelease);
  CHECK(value.load(MemoryOrder::kAcquire) == 8);
  value.store(9, MemoryOrder::kRelaxed);
  CHECK(value.load(MemoryOrder::kSeqCst) == 9);

  CHECK(value.exchange(10) == 9);
  CHECK(value.load() == 10);
  for (MemoryOrder order : kAllOrders) {
    const int before = value.load();
    CHECK(value.exchange(before + 1, order) == before);
    CHECK(value.load() == before + 1);
  }

  const rt::Atomic<uint64_t> constant(UINT64_MAX);
  CHECK(constant.load() == UINT64_MAX);
}

TEST_CASE("Atomic compare_exchange succeeds on a match and reports the current value otherwise", "[atomic]") {
  for (MemoryOrder order : kAllOrders) {
    INFO("memory order " << int(order));
    rt::Atomic<int64_t> value(100);

    int64_t expected = 100;
    CHECK(value.compare_exchange(expected, 200, order));
    CHECK(expected == 100);  // untouched on success
    CHECK(value.load() == 200);

    expected = 100;
    CHECK_FALSE(value.compare_exchange(expected, 300, order));
    CHECK(expected == 200);  // receives the current value on failure
    CHECK(value.load() == 200);

    // The updated `expected` makes the retry succeed.
    CHECK(value.compare_exchange(expected, 300, order));
    CHECK(value.load() == 300);
  }
}

TEST_CASE("Atomic fetch operations return the previous value", "[atomic]") {
  SECTION("fetch_add and fetch_sub") {
    rt::Atomic<int> value(10);
    CHECK(value.fetch_add(5) == 10);
    CHECK(value.load() == 15);
    CHECK(value.fetch_sub(20) == 15);
    CHECK(value.load() == -5);
    CHECK(value.fetch_add(-5, MemoryOrder::kRelaxed) == -5);
    CHECK(value.load() == -10);
    for (MemoryOrder order : kAllOrders) {
      CHECK(value.fetch_add(1, order) == -10);
      CHECK(value.fetch_sub(1, order) == -9);
    }
    CHECK(value.load() == -10);
  }
  SECTION("unsigned wrap-around") {
    rt::Atomic<uint8_t> byte(255);
    CHECK(byte.fetch_add(1) == 255);
    CHECK(byte.load() == 0);
    CHECK(byte.fetch_sub(1) == 0);
    CHECK(byte.load() == 255);

    rt::Atomic<uint64_t> wide(0);
    CHECK(wide.fetch_sub(1) == 0);
    CHECK(wide.load() == UINT64_MAX);
  }
  SECTION("fetch_or and fetch_and") {
    rt::Atomic<uint32_t> bits(0b1010);
    CHECK(bits.fetch_or(0b0101) == 0b1010u);
    CHECK(bits.load() == 0b1111u);
    CHECK(bits.fetch_and(0b0110) == 0b1111u);
    CHECK(bits.load() == 0b0110u);
    CHECK(bits.fetch_or(1u << 31, MemoryOrder::kRelaxed) == 0b0110u);
    CHECK(bits.load() == ((1u << 31) | 0b0110u));
    CHECK(bits.fetch_and(0, MemoryOrder::kAcqRel) == ((1u << 31) | 0b0110u));
    CHECK(bits.load() == 0u);
  }
}

TEST_CASE("Atomic of bool and of pointers", "[atomic]") {
  rt::Atomic<bool> flag;
  CHECK_FALSE(flag.load());
  CHECK_FALSE(flag.exchange(true));
  CHECK(flag.load());
  bool expected = false;
  CHECK_FALSE(flag.compare_exchange(expected, false));
  CHECK(expected);

  int a = 1, b = 2;
  rt::Atomic<int*> pointer(&a);
  CHECK(pointer.load() == &a);
  CHECK(pointer.exchange(&b) == &a);
  int* expected_pointer = &a;
  CHECK_FALSE(pointer.compare_exchange(expected_pointer, nullptr));
  CHECK(expected_pointer == &b);
  CHECK(pointer.compare_exchange(expected_pointer, nullptr));
  CHECK(pointer.load() == nullptr);
}

TEST_CASE("Atomic layout and constraints", "[atomic]") {
  STATIC_REQUIRE(sizeof(rt::Atomic<uint64_t>) == sizeof(uint64_t));
  STATIC_REQUIRE(alignof(rt::Atomic<uint64_t>) == 8);
  STATIC_REQUIRE(alignof(rt::Atomic<uint16_t>) == 2);
  STATIC_REQUIRE(sizeof(rt::Atomic<uint8_t>) == 1);
  STATIC_REQUIRE_FALSE(std::is_copy_constructible_v<rt::Atomic<int>>);
  STATIC_REQUIRE_FALSE(std::is_copy_assignable_v<rt::Atomic<int>>);
  // Arithmetic is only offered for integers.
  STATIC_REQUIRE(HasFetchAdd<rt::Atomic<int>, int>);
  STATIC_REQUIRE(HasFetchAdd<rt::Atomic<uint8_t>, uint8_t>);
  STATIC_REQUIRE_FALSE(HasFetchAdd<rt::Atomic<int*>, int*>);
  STATIC_REQUIRE(rt::kCacheLineSize == 64);
}

TEST_CASE("Atomic fetch_add from 4 threads gives the exact total", "[atomic][threads]") {
  constexpr int kThreads = 4;
  constexpr int kIncrements = 100000;
  rt::Atomic<uint64_t> counter(0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&counter] {
      for (int i = 0; i < kIncrements; ++i) counter.fetch_add(1, MemoryOrder::kRelaxed);
    });
  for (std::thread& thread : threads) thread.join();
  CHECK(counter.load() == uint64_t{kThreads} * kIncrements);
}

TEST_CASE("Atomic compare_exchange loop from 4 threads gives the exact total", "[atomic][threads]") {
  constexpr int kThreads = 4;
  constexpr int kIncrements = 50000;
  rt::Atomic<int64_t> counter(0);
  rt::Atomic<int64_t> failures(0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < kIncrements; ++i) {
        int64_t seen = counter.load(MemoryOrder::kRelaxed);
        while (!counter.compare_exchange(seen, seen + 1, MemoryOrder::kAcqRel))
          failures.fetch_add(1, MemoryOrder::kRelaxed);
      }
    });
  for (std::thread& thread : threads) thread.join();
  CHECK(counter.load() == int64_t{kThreads} * kIncrements);
  INFO("compare_exchange retries: " << failures.load());
  SUCCEED();
}

TEST_CASE("Atomic fetch_or from many threads sets every bit once", "[atomic][threads]") {
  constexpr int kThreads = 8;
  rt::Atomic<uint32_t> mask(0);
  rt::Atomic<int> already_set(0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      if (mask.fetch_or(1u << t, MemoryOrder::kRelaxed) & (1u << t)) already_set.fetch_add(1);
    });
  for (std::thread& thread : threads) thread.join();
  CHECK(mask.load() == 0xffu);
  CHECK(already_set.load() == 0);
}

TEST_CASE("Atomic release store / acquire load publishes plain data", "[atomic][threads]") {
  constexpr int kRounds = 200;
  constexpr int kWords = 1024;
  for (int round = 0; round < kRounds; ++round) {
    std::vector<uint64_t> data(kWords, 0);  // plain, non-atomic memory
    rt::Atomic<bool> ready(false);
    bool consumer_ok = true;

    std::thread consumer([&] {
      while (!ready.load(MemoryOrder::kAcquire)) {
      }
      for (int i = 0; i < kWords; ++i)
        if (data[i] != uint64_t(round) * 1000003u + uint64_t(i)) consumer_ok = false;
    });
    std::thread producer([&] {
      for (int i = 0; i < kWords; ++i) data[i] = uint64_t(round) * 1000003u + uint64_t(i);
      ready.store(true, MemoryOrder::kRelease);
    });
    producer.join();
    consumer.join();
    INFO("round " << round);
    REQUIRE(consumer_ok);
  }
}
