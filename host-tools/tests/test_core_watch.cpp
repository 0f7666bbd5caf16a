// Tests of hang triage without the board's help: the per-core status records the runtime writes
// (runtime/trace/core_status.hpp), the reader that takes them out of board memory
// (host-tools/lib/triage/core_status_reader.cpp), the words and the wait-chain diagnosis
// (core_diagnosis.cpp), the triage report (core_triage.cpp) and the --watch view (core_watch.cpp).
// The board's RAM is a byte vector at a board address with a bounds-checked reader, as the
// shared-memory link gives it; tables, trace rings and names are laid into it by hand, and the
// expected texts are written out here in full.
//   - the writer: WaitMark marks, restores and keeps given-up waits, marking the same twice writes
//     nothing, the update count stays even between updates, names are cut to 31 characters;
//   - reading: every activity kind, trace events newest first with names from RAM, the core count
//     from the table (else the hello, else every record);
//   - the diagnosis: the example line, the collective-hang shapes (waiting, and given up
//     then finished), a chain through a launch and a mailbox, a deadlock, nothing blocked;
//   - garbage never crashes and is named: bad magic, version, sizes, a table outside or across the
//     end of RAM, unterminated and unprintable names, unknown states, directions, result codes and
//     categories, peers beyond the board, trace rings and names outside RAM, a record being
//     rewritten, and random bytes in every field;
//   - the triage report and the --watch view (plain blocks when not on a terminal, printed again
//     only when the picture changes; nothing before the board announced its table; the UART says
//     once that there is nothing to read).
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <sstream>

#include "host-tools/lib/triage/core_diagnosis.hpp"
#include "host-tools/lib/triage/core_status_reader.hpp"
#include "host-tools/lib/triage/core_triage.hpp"
#include "host-tools/lib/triage/core_watch.hpp"
#include "runtime/trace/trace_point.hpp"

namespace {

using namespace rt::trace;
using tpu::CoreSnapshot;
using tpu::CoreStatusRead;

constexpr uint64_t kRamAddress = 0x40000000;
constexpr uint64_t kRamBytes = 64 * 1024;
constexpr uint64_t kTableAddress = kRamAddress + 0x1000;
constexpr uint64_t kRingAddress = kRamAddress + 0x4000;  // trace records (32 bytes each)
constexpr uint64_t kNamesAddress = kRamAddress + 0x8000;
constexpr unsigned kDeadlineExceeded = 4;

// The board's RAM as the shared-memory link shows it: whole ranges inside it, nothing else.
struct FakeRam {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(kRamBytes, 0);

  tpu::BoardRamReader reader() const {
    return [this](uint64_t address, uint64_t size) -> std::optional<std::vector<uint8_t>> {
      if (address < kRamAddress || address - kRamAddress > kRamBytes || size > kRamBytes - (address - kRamAddress))
        return std::nullopt;
      const uint8_t* start = bytes.data() + (address - kRamAddress);
      return std::vector<uint8_t>(start, start + size);
    };
  }
  template <class T>
  void put(uint64_t address, const T& value) {
    std::memcpy(bytes.data() + (address - kRamAddress), &value, sizeof value);
  }
  void put_text(uint64_t address, const std::string& text) {
    std::memcpy(bytes.data() + (address - kRamAddress), text.c_str(), text.size() + 1);
  }
};

CoreStatusHeader good_header(unsigned cores) {
  return CoreStatusHeader{kCoreStatusMagic, kCoreStatusVersion, kCoreStatusHeaderBytes, sizeof(CoreStatusRecord),
                          kCoreStatusMaxCores, cores, 0};
}

// A table of `cores` cores whose activities are `now` (the rest of each record zero).
FakeRam ram_with(const std::vector<CoreActivity>& now) {
  FakeRam ram;
  CoreStatusTable table{good_header(static_cast<unsigned>(now.size())), {}};
  for (size_t core = 0; core < now.size(); ++core) table.records[core].now = now[core];
  ram.put(kTableAddress, table);
  return ram;
}

CoreStatusRead read(const FakeRam& ram, uint64_t announced = sizeof(CoreStatusTable), unsigned hint = 0) {
  return tpu::read_core_statuses(ram.reader(), kTableAddress, announced, hint);
}

uint64_t record_address(unsigned core) { return kTableAddress + kCoreStatusHeaderBytes + core * sizeof(CoreStatusRecord); }

CoreStatusRecord record_in(const FakeRam& ram, unsigned core) {
  CoreStatusRecord record;
  std::memcpy(&record, ram.bytes.data() + (record_address(core) - kRamAddress), sizeof record);
  return record;
}

CoreActivity done_after_giving_up_on(uint32_t peer) { return collective_activity(1, "all_reduce", 1, peer); }

// A trace record as trace_ring.hpp lays it out.
struct RawTraceRecord {
  uint64_t begin_ns;
  uint64_t end_ns;
  uint64_t name;
  uint8_t category;
  uint8_t padding[7];
};
static_assert(sizeof(RawTraceRecord) == 32);

// A BoardChannel over the fake RAM (shared memory) or with no memory at all (the UART).
class FakeChannel final : public tpu::BoardChannel {
 public:
  FakeChannel(const FakeRam* ram, std::string transport) : ram_(ram), transport_(std::move(transport)) {}
  void send(std::span<const uint8_t>) override {}
  bool pump(std::chrono::milliseconds, std::vector<uint8_t>&) override { return true; }
  std::optional<int> wait_for_exit(std::chrono::milliseconds) override { return std::nullopt; }
  void kill() override {}
  bool launched() const override { return true; }
  std::string name() const override { return "fake"; }
  std::string transport() const override { return transport_; }
  std::optional<tpu::CoreStatusPlace> core_status_place() const override {
    if (ram_ == nullptr) return std::nullopt;
    return tpu::CoreStatusPlace{kTableAddress, sizeof(CoreStatusTable)};
  }
  std::optional<std::vector<uint8_t>> read_board_ram(uint64_t address, uint64_t bytes) const override {
    if (ram_ == nullptr) return std::nullopt;
    return ram_->reader()(address, bytes);
  }

 private:
  const FakeRam* ram_;
  std::string transport_;
};

}  // namespace

TEST_CASE("core status: a wait mark shows the wait, keeps it when given up, and restores the core") {
  constexpr unsigned kCore = 7;
  CoreStatusRecord& record = core_status_table.records[kCore];
  set_core_activity(kCore, running_activity());
  const uint32_t writes = record.writes;
  REQUIRE(writes % 2 == 0);
  {
    WaitMark unmarked;  // a wait that never slept writes nothing
  }
  REQUIRE(record.writes == writes);
  {
    WaitMark wait;
    wait.mark(kCore, collective_activity(1, "all_reduce", 812, 5));
    REQUIRE(record.now.state == static_cast<uint32_t>(CoreState::kCollective));
    REQUIRE(record.now.peer == 5);
    REQUIRE(record.now.sequence == 812);
    REQUIRE(std::string(record.now.name) == "all_reduce");
    REQUIRE(record.writes % 2 == 0);
    wait.mark(kCore, collective_activity(1, "all_reduce", 812, 6));  // another peer, same wait
    REQUIRE(record.now.peer == 6);
    const uint32_t marked_writes = record.writes;
    wait.mark(kCore, collective_activity(1, "all_reduce", 812, 6));  // the same again: nothing written
    REQUIRE(record.writes == marked_writes);
    wait.gave_up();
  }
  REQUIRE(record.now.state == static_cast<uint32_t>(CoreState::kRunning));  // restored
  REQUIRE(record.gave_up.state == static_cast<uint32_t>(CoreState::kCollective));
  REQUIRE(record.gave_up.peer == 6);
  REQUIRE(record.waits_given_up == 1);
  REQUIRE(record.writes % 2 == 0);
  REQUIRE(record.writes > writes);
  set_core_done(kCore, kDeadlineExceeded);
  REQUIRE(record.now.state == static_cast<uint32_t>(CoreState::kDone));
  REQUIRE(record.result_code == kDeadlineExceeded);
  REQUIRE(core_status(kCoreStatusMaxCores) == nullptr);
  set_core_activity(kCoreStatusMaxCores, running_activity());  // beyond the table: ignored

  const CoreActivity call = host_call_activity("a_host_function_with_a_very_long_name_indeed", 3);
  REQUIRE(std::string(call.name) == "a_host_function_with_a_very_lon");  // 31 characters
  REQUIRE(core_status_table.header.magic == kCoreStatusMagic);
  REQUIRE(core_status_table.header.record_bytes == sizeof(CoreStatusRecord));
}

TEST_CASE("core triage: the issue's example, one line") {
  const FakeRam ram = ram_with({running_activity(), running_activity(), running_activity(),
                                collective_activity(1, "all_reduce", 812, 5), running_activity(),
                                host_call_activity("log_steps", 17)});
  const CoreStatusRead table = read(ram);
  REQUIRE(table.problem.empty());
  REQUIRE(table.cores.size() == 6);
  REQUIRE(tpu::diagnose(table.cores) == "core 3 waits in all_reduce #812 for core 5, which is in host call 'log_steps' (call 17)");
}

TEST_CASE("core triage: the collective-hang shapes") {
  SECTION("three cores wait in the all-reduce for the fourth, which runs") {
    const CoreActivity waiting = collective_activity(1, "all_reduce", 1, 3);
    const CoreStatusRead table = read(ram_with({waiting, waiting, waiting, running_activity()}));
    REQUIRE(tpu::diagnose(table.cores) ==
            "cores 0, 1, 2 wait in all_reduce #1 for core 3, which is running (not waiting for anything)");
    REQUIRE(tpu::describe_core(table.cores[0], 4) == "core 0: waits in all_reduce #1 for core 3; no trace events");
  }
  SECTION("they gave up and finished with DEADLINE_EXCEEDED") {
    FakeRam ram = ram_with({});
    CoreStatusTable table{good_header(4), {}};
    for (unsigned core = 0; core < 3; ++core) {
      table.records[core].now.state = static_cast<uint32_t>(CoreState::kDone);
      table.records[core].result_code = kDeadlineExceeded;
      table.records[core].gave_up = done_after_giving_up_on(3);
      table.records[core].waits_given_up = 1;
    }
    table.records[3].now = running_activity();
    ram.put(kTableAddress, table);
    const CoreStatusRead read_back = read(ram);
    REQUIRE(tpu::diagnose(read_back.cores) ==
            "cores 0, 1, 2 gave up waiting in all_reduce #1 for core 3 and finished with DEADLINE_EXCEEDED; core 3 is "
            "running (not waiting for anything)");
    REQUIRE(tpu::describe_core(read_back.cores[1], 4) ==
            "core 1: has finished (DEADLINE_EXCEEDED); it gave up waiting in all_reduce #1 for core 3; no trace events");
  }
}

TEST_CASE("core triage: chains through launches and mailboxes, other waits, deadlocks, nothing blocked") {
  SECTION("a chain with two heads, an infeed wait and an idle core") {
    const CoreStatusRead table = read(ram_with({await_core_activity(3, 3, "step"), idle_activity(0),
                                                infeed_activity(0, 12, "train"),
                                                collective_activity(1, "all_reduce", 812, 5),
                                                mailbox_activity(MailboxDirection::kReceive, 3),
                                                host_call_activity("log_steps", 17)}));
    REQUIRE(tpu::diagnose(table.cores) ==
            "core 0 waits for core 3 to finish replica 3 of 'step', which waits in all_reduce #812 for core 5, which is "
            "in host call 'log_steps' (call 17); core 4 waits to receive from core 3 (mailbox), which waits in "
            "all_reduce #812 for core 5, which is in host call 'log_steps' (call 17); core 2 waits for tuple 12 of "
            "infeed queue 0 'train'");
    REQUIRE(tpu::describe_core(table.cores[1], 6) == "core 1: is idle, waiting for a launch from core 0; no trace events");
  }
  SECTION("a deadlock") {
    const CoreStatusRead table = read(ram_with({mailbox_activity(MailboxDirection::kReceive, 1),
                                                mailbox_activity(MailboxDirection::kSend, 0)}));
    REQUIRE(tpu::diagnose(table.cores) ==
            "core 0 waits to receive from core 1 (mailbox), which waits to send to core 0 (mailbox): a deadlock");
  }
  SECTION("waiting for a host, and for a core to serve launches") {
    const CoreStatusRead table = read(ram_with({await_core_activity(1, 0, ""), running_activity(),
                                                host_call_activity("call 'format'", 0)}));
    REQUIRE(tpu::diagnose(table.cores) ==
            "core 0 waits for core 1 to serve launches, which is running (not waiting for anything); core 2 waits for "
            "a host on the link (to call 'format')");
  }
  SECTION("nothing blocked") {
    FakeRam ram = ram_with({running_activity(), running_activity(), running_activity()});
    CoreStatusTable table{good_header(3), {}};
    table.records[0].now.state = table.records[1].now.state = static_cast<uint32_t>(CoreState::kDone);
    table.records[2].now = running_activity();
    ram.put(kTableAddress, table);
    REQUIRE(tpu::diagnose(read(ram).cores) ==
            "no core waits for another: cores 0, 1 have finished (OK); core 2 is running (not waiting for anything)");
  }
}

TEST_CASE("core triage: the last trace events, newest first, names read from RAM") {
  FakeRam ram = ram_with({collective_activity(1, "all_reduce", 2, 1), running_activity()});
  ram.put_text(kNamesAddress, "matmul");
  ram.put_text(kNamesAddress + 16, "all_reduce");
  constexpr uint32_t kCapacity = 4;
  // Six events written into a ring of four: slots hold events 4, 5, 2, 3; the newest is event 5.
  const char* names[] = {"", "", "all_reduce", "matmul", "matmul", "all_reduce"};
  for (uint64_t event = 2; event < 6; ++event) {
    const uint64_t name = std::string(names[event]) == "matmul" ? kNamesAddress : kNamesAddress + 16;
    ram.put(kRingAddress + (event % kCapacity) * 32,
            RawTraceRecord{1000, 1000 + (event + 1) * 1000000, name, static_cast<uint8_t>(Category::kCollective), {}});
  }
  ram.put(kRingAddress + 0x200, uint64_t{6});  // records ever written
  CoreStatusRecord record = record_in(ram, 0);
  record.trace = TraceRingPlace{kRingAddress, kRingAddress + 0x200, kCapacity, 32};
  ram.put(record_address(0), record);

  const CoreStatusRead table = read(ram);
  REQUIRE(table.cores[0].last_events.size() == 3);
  REQUIRE(tpu::describe_core(table.cores[0], 2) ==
          "core 0: waits in all_reduce #2 for core 1; last events: all_reduce 6.00 ms, matmul 5.00 ms, matmul 4.00 ms");
  REQUIRE(tpu::read_core_statuses(ram.reader(), kTableAddress, 0, 0, 10).cores[0].last_events.size() == 4);
}

TEST_CASE("core triage: the core count comes from the table, else the hello, else every record") {
  FakeRam ram = ram_with({running_activity(), running_activity()});
  REQUIRE(read(ram).cores.size() == 2);
  CoreStatusHeader header = good_header(0);
  ram.put(kTableAddress, header);
  REQUIRE(read(ram, sizeof(CoreStatusTable), 3).cores.size() == 3);
  REQUIRE(read(ram, sizeof(CoreStatusTable), 0).cores.size() == kCoreStatusMaxCores);
  header.cores = 99;  // more than its records: every record
  ram.put(kTableAddress, header);
  REQUIRE(read(ram).cores.size() == kCoreStatusMaxCores);
}

TEST_CASE("core triage: a table that cannot be trusted is named, never read") {
  FakeRam ram = ram_with({running_activity()});
  CoreStatusHeader header = good_header(1);
  SECTION("bad magic") {
    header.magic = 0x1234;
    ram.put(kTableAddress, header);
    REQUIRE_THAT(read(ram).problem, Catch::Contains("no status table at 0x40001000 (magic 0x1234"));
  }
  SECTION("another version") {
    header.version = 7;
    ram.put(kTableAddress, header);
    REQUIRE_THAT(read(ram).problem, Catch::Contains("version 7; this tpu reads version 1"));
  }
  SECTION("sizes") {
    for (auto change : {+[](CoreStatusHeader& h) { h.record_bytes = 64; }, +[](CoreStatusHeader& h) { h.record_count = 0; },
                        +[](CoreStatusHeader& h) { h.record_count = 100000; }, +[](CoreStatusHeader& h) { h.header_bytes = 8; }}) {
      CoreStatusHeader bad = header;
      change(bad);
      ram.put(kTableAddress, bad);
      const CoreStatusRead result = read(ram);
      REQUIRE_THAT(result.problem, Catch::Contains("sizes are not this tpu's"));
      REQUIRE(result.cores.empty());
    }
  }
  SECTION("more than the board announced") {
    REQUIRE_THAT(read(ram, 100).problem, Catch::Contains("needs 3136 bytes but the board announced 100"));
  }
  SECTION("outside RAM, or across its end") {
    REQUIRE_THAT(tpu::read_core_statuses(ram.reader(), 0x1000, 0, 0).problem,
                 Catch::Contains("address 0x1000 is outside the board's RAM"));
    REQUIRE_THAT(tpu::read_core_statuses(ram.reader(), ~uint64_t{0} - 8, 0, 0).problem, Catch::Contains("outside"));
    const uint64_t near_end = kRamAddress + kRamBytes - kCoreStatusHeaderBytes - 100;
    ram.put(near_end, good_header(2));
    REQUIRE_THAT(tpu::read_core_statuses(ram.reader(), near_end, 0, 0).problem,
                 Catch::Contains("core 0's status record at 0x4000ff9c is outside the board's RAM"));
  }
}

TEST_CASE("core triage: garbage inside a good table prints as what it is") {
  CoreActivity unknown;
  unknown.state = 42;
  CoreActivity far_peer = collective_activity(1, "all_reduce", 3, 37);
  CoreActivity odd_mailbox = mailbox_activity(MailboxDirection::kReceive, 0);
  odd_mailbox.direction = 9;
  CoreActivity unterminated = host_call_activity("x", 5);
  std::memset(unterminated.name, 'a', sizeof unterminated.name);
  unterminated.name[3] = '\n';
  unterminated.name[4] = static_cast<char>(0xff);
  FakeRam ram = ram_with({unknown, far_peer, odd_mailbox, unterminated});
  CoreStatusRecord done = record_in(ram, 0);
  done.now.state = static_cast<uint32_t>(CoreState::kDone);
  done.result_code = 200;
  ram.put(record_address(0), done);

  const CoreStatusRead table = read(ram);
  REQUIRE(table.problem.empty());
  REQUIRE(tpu::describe_core(table.cores[0], 4) == "core 0: has finished (status code 200); no trace events");
  REQUIRE(tpu::describe_core(table.cores[1], 4) ==
          "core 1: waits in all_reduce #3 for core 37 (no such core); no trace events");
  REQUIRE(tpu::describe_core(table.cores[2], 4) ==
          "core 2: waits on the mailbox with core 0 (direction 9); no trace events");
  REQUIRE(table.cores[3].now.name == "aaa??" + std::string(26, 'a') + "...");
  REQUIRE(tpu::diagnose(table.cores) ==
          "core 2 waits on the mailbox with core 0 (direction 9), which has finished (status code 200); core 1 waits "
          "in all_reduce #3 for core 37 (no such core); core 3 is in host call '" + table.cores[3].now.name +
          "' (call 5)");
  CoreStatusRecord state_42 = record_in(ram, 0);
  state_42.now = unknown;
  ram.put(record_address(0), state_42);
  REQUIRE(tpu::describe_core(read(ram).cores[0], 4) == "core 0: is in state 42 (unknown to this tpu); no trace events");
}

TEST_CASE("core triage: trace rings and names outside RAM, odd layouts and a record being rewritten") {
  FakeRam ram = ram_with({running_activity(), running_activity(), running_activity(), running_activity()});
  auto with_trace = [&](unsigned core, const TraceRingPlace& place) {
    CoreStatusRecord record = record_in(ram, core);
    record.trace = place;
    ram.put(record_address(core), record);
  };
  ram.put(kRingAddress + 0x200, uint64_t{1});
  ram.put(kRingAddress, RawTraceRecord{0, 5000, 0x10, 99, {}});  // name outside RAM, unknown category
  with_trace(0, TraceRingPlace{kRingAddress, kRingAddress + 0x200, 8, 32});
  with_trace(1, TraceRingPlace{0x10, kRingAddress + 0x200, 8, 32});              // records outside RAM
  with_trace(2, TraceRingPlace{kRingAddress, 0x20, 8, 32});                      // count outside RAM
  with_trace(3, TraceRingPlace{kRingAddress, kRingAddress + 0x200, 1u << 30, 24});  // not this layout
  const CoreStatusRead table = read(ram);
  REQUIRE(tpu::describe_core(table.cores[0], 4) ==
          "core 0: is running (not waiting for anything); last events: <name unreadable at 0x10> 5 us (category 99)");
  REQUIRE(table.cores[1].trace_problem == "trace record at 0x10 is outside the board's RAM");
  REQUIRE(table.cores[2].trace_problem == "trace ring count at 0x20 is outside the board's RAM");
  REQUIRE(table.cores[3].trace_problem == "trace ring of 1073741824 records of 24 bytes is not one this tpu reads");
  REQUIRE_THAT(tpu::describe_core(table.cores[3], 4), Catch::EndsWith("; trace: " + table.cores[3].trace_problem));

  CoreStatusRecord busy = record_in(ram, 2);
  busy.writes = 3;  // odd: the core is rewriting it (for ever, here)
  ram.put(record_address(2), busy);
  const CoreStatusRead changing = read(ram);
  REQUIRE_FALSE(changing.cores[2].settled);
  REQUIRE_THAT(tpu::describe_core(changing.cores[2], 4), Catch::Contains("(its record kept changing while tpu read it)"));

  ram.put_text(kRamAddress + kRamBytes - 4, "abc");  // a name that ends with RAM itself
  ram.put(kRingAddress, RawTraceRecord{0, 0, kRamAddress + kRamBytes - 4, 0, {}});
  REQUIRE(read(ram).cores[0].last_events.at(0).name == "abc");
}

TEST_CASE("core triage: random bytes in every field never crash the reader or the words") {
  std::mt19937_64 random(25);
  for (unsigned round = 0; round < 600; ++round) {
    FakeRam ram;  // the table and the trace area random, small values every other round (valid-looking states)
    for (size_t i = 0x1000; i < 0x6000; ++i) ram.bytes[i] = static_cast<uint8_t>(random() % (round % 2 ? 256 : 8));
    if (round % 4 != 3) ram.put(kTableAddress, good_header(static_cast<unsigned>(random() % 20)));
    for (unsigned core = 0; core < kCoreStatusMaxCores && round % 3 == 0; ++core) {  // rings that point into RAM
      CoreStatusRecord record = record_in(ram, core);
      record.trace = TraceRingPlace{kRamAddress + random() % kRamBytes, kRamAddress + random() % kRamBytes,
                                    static_cast<uint32_t>(random() % 600), 32};
      ram.put(record_address(core), record);
    }
    const CoreStatusRead table = tpu::read_core_statuses(ram.reader(), kTableAddress, random() % 2 ? 0 : random() % 8192,
                                                         static_cast<unsigned>(random() % 20), 3);
    std::ostringstream out;
    tpu::print_core_triage(table, out);
    REQUIRE_THAT(out.str(), Catch::StartsWith("tpu: hang triage: "));
    for (const CoreSnapshot& core : table.cores)
      for (const tpu::TraceEventView& event : core.last_events) REQUIRE(event.name.size() <= 43);
  }
}

TEST_CASE("core triage: the report, and what it says on a link without board memory") {
  const CoreActivity waiting = collective_activity(1, "all_reduce", 1, 1);
  const FakeRam ram = ram_with({waiting, running_activity()});
  std::ostringstream out;
  tpu::print_core_triage(tpu::read_board_statuses(FakeChannel(&ram, "shm"), 0), out);
  REQUIRE(out.str() ==
          "tpu: hang triage: core 0 waits in all_reduce #1 for core 1, which is running (not waiting for anything)\n"
          "tpu:   core 0: waits in all_reduce #1 for core 1; no trace events\n"
          "tpu:   core 1: is running (not waiting for anything); no trace events\n");
  // One core: its line alone (a summary would say it twice).
  const FakeRam one_core = ram_with({running_activity()});
  std::ostringstream alone;
  tpu::print_core_triage(tpu::read_board_statuses(FakeChannel(&one_core, "shm"), 0), alone);
  REQUIRE(alone.str() == "tpu: hang triage: core 0: is running (not waiting for anything); no trace events\n");
  REQUIRE_THAT(tpu::read_board_statuses(FakeChannel(nullptr, "uart"), 4).problem,
               Catch::StartsWith("not possible on the uart link: tpu cannot read the board's memory there"));
  REQUIRE_THAT(tpu::read_board_statuses(FakeChannel(nullptr, "shm"), 4).problem,
               Catch::Contains("has announced no status table"));
}

TEST_CASE("core watch: the view's lines, plain blocks when they change, one word on the UART") {
  const CoreActivity waiting = collective_activity(1, "all_reduce", 1, 1);
  FakeRam ram = ram_with({waiting, running_activity()});
  const CoreStatusRead table = read(ram);
  REQUIRE(tpu::watch_lines(table, {4.2, 0.5}, "qemu-virt-a53", 12.7) ==
          std::vector<std::string>{
              "watch: qemu-virt-a53, 2 cores, 12 s into the run (read from board memory every second)",
              "  core 0   waits in all_reduce #1 for core 1 (4 s)",
              "  core 1   is running (not waiting for anything)",
              "  => core 0 waits in all_reduce #1 for core 1, which is running (not waiting for anything)"});

  std::ostringstream out;
  const auto start = tpu::CoreWatch::Clock::now();
  {
    tpu::CoreWatch watch(true, out, -1);  // not a terminal: plain blocks
    const FakeChannel channel(&ram, "shm");
    watch.tick(channel, 0, "qemu-virt-a53", start);
    watch.tick(channel, 0, "qemu-virt-a53", start + std::chrono::milliseconds(500));  // not due yet
    watch.tick(channel, 0, "qemu-virt-a53", start + std::chrono::milliseconds(1500));  // due, same picture
    ram.put(record_address(0), CoreStatusRecord{});  // core 0 now "has not started"
    watch.tick(channel, 0, "qemu-virt-a53", start + std::chrono::milliseconds(2600));
  }
  const std::string text = out.str();
  REQUIRE(text.find("tpu: watch: qemu-virt-a53, 2 cores") == 0);
  REQUIRE(text.find("tpu:   core 0   waits in all_reduce #1 for core 1\n") != std::string::npos);
  REQUIRE(text.find("tpu:   core 0   has not started its app") != std::string::npos);
  size_t blocks = 0;
  for (size_t at = text.find("tpu: watch:"); at != std::string::npos; at = text.find("tpu: watch:", at + 1)) ++blocks;
  REQUIRE(blocks == 2);

  std::ostringstream uart;
  tpu::CoreWatch watch(true, uart, -1);
  const FakeChannel no_memory(nullptr, "uart");
  watch.tick(no_memory, 4, "host", start);
  watch.tick(no_memory, 4, "host", start + std::chrono::seconds(5));
  REQUIRE_THAT(uart.str(), Catch::StartsWith("tpu: watch: not possible on the uart link"));
  REQUIRE(uart.str().find('\n') == uart.str().size() - 1);  // said once

  std::ostringstream booting;  // no table announced yet: the board is still booting, nothing to say
  tpu::CoreWatch early(true, booting, -1);
  early.tick(FakeChannel(nullptr, "shm"), 4, "qemu-virt-a53", start);
  REQUIRE(booting.str().empty());

  std::ostringstream off;
  tpu::CoreWatch disabled(false, off, -1);
  disabled.tick(FakeChannel(&ram, "shm"), 0, "", start);
  REQUIRE(off.str().empty());
}
