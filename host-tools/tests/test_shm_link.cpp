// Tests of the host's end of the shared-memory link (host-tools/lib/board/shm_link.cpp) with the board's
// end (runtime/link/transport/shm_transport.cpp) on the same RAM file, single threaded. The test maps the RAM
// file itself (MAP_SHARED, as QEMU does) and plays the board there: through a ShmTransport on its
// window with a fake clock, or by writing the control block's fields the way the board does.
// Expectations are built here, never taken from the code under test: frame bodies by hand with a
// bitwise CRC-32, record headers and ring places from the arithmetic in shm_ring.hpp, byte patterns,
// the file read back with std::ifstream. Layout: 8 MiB of RAM, a 1 MiB window at 6 MiB.
//   - parse_shm_layout: `make print-link-layout` output, "0 0 0" (no window), bad layouts refused;
//   - create(): a private tpu-link-* folder under /dev/shm or the temp dir, a sparse file of the RAM's
//     size, all zero but the control block, which passes check_shm_control with the planned rings;
//     close() marks the host closed; destruction removes file and folder; the file also goes once
//     the board left kNotSeen and receive() ran;
//   - frames both ways: host frames (up to 60 KiB) reach the ShmTransport whole, as records whose
//     headers and bodies equal the reference; board frames reach receive() as the reference bodies,
//     also across the ring's end; a full to-board ring queues frames and flush() sends them in order;
//   - a corrupt to-host ring (impossible or unaligned head, bad record header, a record longer than
//     the ring or than what is published) stops receive() for good with a message naming the
//     problem, while every page of the link's mapping outside the window is PROT_NONE (a read there
//     would crash the test); an impossible to-board tail fails send();
//   - place_results (and claim_result, before it): a board-armed target (arm_reply_targets) gets its bytes at the right file
//     offset, and nothing is placed for another call id, an unarmed target, a range past the
//     aperture, an aperture on the window or outside the file, a size mismatch or core >= 16;
//   - the board's disarm protocol with a fake clock: armed or written -> idle at once, a host that
//     finishes writing is waited for, one that never finishes is given up after
//     kShmHostWritingTimeoutNs of fake time.
// Two cases below were bugs this file found (a window wrapping around 2^64, create() trusting its layout).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <thread>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "host-tools/lib/board/shm_link.hpp"
#include "runtime/link/protocol/host_result.hpp"
#include "runtime/link/protocol/message_kind.hpp"
#include "runtime/link/transport/shm_transport.hpp"

namespace {

using Bytes = std::vector<uint8_t>;
using namespace rt::link;
namespace fs = std::filesystem;

constexpr uint64_t kMiB = 1 << 20;
constexpr tpu::ShmLayout kLayout{8 * kMiB, 6 * kMiB, 1 * kMiB};

// The plan for a 1 MiB window, from shm_ring.hpp: the control page, then the to-board ring (the larger
// power of two), then the to-host ring, each behind its 128 bytes of indices (64-byte aligned).
constexpr uint32_t kToBoardOffset = 4096;
constexpr uint32_t kToBoardCapacity = 512 * 1024;
constexpr uint32_t kToHostOffset = 4096 + 128 + 512 * 1024;  // 528512, a multiple of 64
constexpr uint32_t kToHostCapacity = 256 * 1024;
constexpr uint32_t kIndices = 128;

// The board's physical RAM starts here (pretend): file offset of board address A is A - kRamBase.
constexpr uint64_t kRamBase = 0x40000000;
constexpr uint64_t kApertureAddress = kRamBase + 1 * kMiB;
constexpr uint64_t kApertureBytes = 4 * kMiB;

// CRC-32 (reflected 0xEDB88320), bit by bit: independent of crc32.cpp's tables and instructions.
uint32_t reference_crc32(const Bytes& bytes) {
  uint32_t crc = 0xFFFFFFFFu;
  for (uint8_t byte : bytes) {
    crc ^= byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
  }
  return ~crc;
}

void put_le(Bytes& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

uint32_t get_le32(const uint8_t* bytes) {
  return uint32_t{bytes[0]} | uint32_t{bytes[1]} << 8 | uint32_t{bytes[2]} << 16 | uint32_t{bytes[3]} << 24;
}

// A frame body as frame.hpp lays it out: magic, version, kind, 0, channel, length, sequence, payload, CRC.
Bytes frame_body(MessageKind kind, uint16_t channel, uint32_t sequence, const Bytes& payload) {
  Bytes body = {kFrameMagic, kFrameVersion, static_cast<uint8_t>(kind), 0};
  put_le(body, channel, 2);
  put_le(body, payload.size(), 2);
  put_le(body, sequence, 4);
  body.insert(body.end(), payload.begin(), payload.end());
  put_le(body, reference_crc32(body), 4);
  return body;
}

Bytes pattern(size_t size, unsigned seed) {
  Bytes bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>(i * 7 + seed * 13 + (i >> 9) + 1);
  return bytes;
}

rt::Span<const uint8_t> view(const Bytes& bytes) { return rt::Span<const uint8_t>(bytes.data(), bytes.size()); }

// "" if `got` equals `expected`, else where they first differ (keeps Catch2's output short for 60 KiB).
std::string difference(const Bytes& got, const Bytes& expected) {
  if (got.size() != expected.size())
    return std::to_string(got.size()) + " bytes, expected " + std::to_string(expected.size());
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != expected[i])
      return "byte " + std::to_string(i) + " is " + std::to_string(got[i]) + ", expected " + std::to_string(expected[i]);
  return "";
}

// A record's bytes in a ring (shm_ring.hpp): 8 header bytes, the body padded to a multiple of 8.
uint64_t record_bytes(uint64_t body) { return 8 + (body + 7) / 8 * 8; }

std::unique_ptr<tpu::ShmLink> make_link(const tpu::ShmLayout& layout = kLayout) {
  std::string error;
  std::unique_ptr<tpu::ShmLink> link = tpu::ShmLink::create(layout, error);
  INFO(error);
  REQUIRE(link != nullptr);
  CHECK(error.empty());
  return link;
}

// The file's bytes [offset, offset + size), read with a stream (not through any mapping).
Bytes read_file(const fs::path& file, uint64_t offset, size_t size) {
  std::ifstream in(file, std::ios::binary);
  REQUIRE(in.good());
  in.seekg(static_cast<std::streamoff>(offset));
  Bytes bytes(size);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size));
  REQUIRE(in.gcount() == static_cast<std::streamsize>(size));
  return bytes;
}

ShmControl read_control(const fs::path& file) {
  const Bytes bytes = read_file(file, kLayout.window_offset, sizeof(ShmControl));
  ShmControl control;
  std::memcpy(&control, bytes.data(), sizeof control);
  return control;
}

// The board's view of the RAM file: the test's own MAP_SHARED mapping of all of it (the window is
// at window_offset), as QEMU maps it for the guest.
struct Board {
  explicit Board(const tpu::ShmLink& link) {
    const int fd = ::open(link.ram_file().c_str(), O_RDWR | O_CLOEXEC);
    REQUIRE(fd >= 0);
    void* mapped = ::mmap(nullptr, kLayout.ram_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    REQUIRE(mapped != MAP_FAILED);
    ram = static_cast<uint8_t*>(mapped);
    window = ram + kLayout.window_offset;
    control = reinterpret_cast<ShmControl*>(window);
  }
  ~Board() { ::munmap(ram, kLayout.ram_bytes); }
  Board(const Board&) = delete;
  Board& operator=(const Board&) = delete;

  uint8_t* to_host_data() const { return window + kToHostOffset + kIndices; }
  ShmRingIndices& to_host_indices() const { return *reinterpret_cast<ShmRingIndices*>(window + kToHostOffset); }
  uint8_t* to_board_data() const { return window + kToBoardOffset + kIndices; }
  ShmRingIndices& to_board_indices() const { return *reinterpret_cast<ShmRingIndices*>(window + kToBoardOffset); }
  // Bytes of the RAM outside the window that are not zero (nothing outside the window is written
  // unless a result is placed).
  size_t nonzero_outside_window() const {
    size_t count = 0;
    for (uint64_t i = 0; i < kLayout.ram_bytes; ++i)
      if ((i < kLayout.window_offset || i >= kLayout.window_offset + kLayout.window_bytes) && ram[i] != 0) ++count;
    return count;
  }
  // The board announces its memory the way ShmTransport::announce_memory does, with fake addresses.
  void announce(uint64_t window_address, uint64_t aperture_address, uint64_t aperture_bytes) {
    control->window_address = window_address;
    control->aperture_address = aperture_address;
    control->aperture_bytes = aperture_bytes;
  }

  uint8_t* ram = nullptr;
  uint8_t* window = nullptr;
  ShmControl* control = nullptr;
};

class FakeClock final : public ShmClock {
 public:
  uint64_t now_ns() override { return now; }
  void idle() override {
    now += 1000000;  // each pause: 1 ms of board time
    ++pauses;
    if (on_idle) on_idle();
  }
  unsigned core() override { return 2; }
  void sleep(const uint32_t*, uint32_t, uint64_t deadline_ns) override { now = deadline_ns; }
  void wake(const uint32_t*) override {}
  uint64_t now = 0;
  uint64_t pauses = 0;
  std::function<void()> on_idle;
};

struct Received {
  FrameHeader header;
  Bytes payload;
};

class Recorder final : public FrameSink {
 public:
  void on_text(rt::Span<const uint8_t>) override { FAIL("a frame transport delivers no text"); }
  void on_frame(const FrameView& frame) override {
    frames.push_back({frame.header, Bytes(frame.payload.begin(), frame.payload.end())});
  }
  void on_bad_frame(FrameError error) override { bad.push_back(error); }
  std::vector<Received> frames;
  std::vector<FrameError> bad;
};

// Everything of the link's own mapping of the RAM file outside the window made PROT_NONE (the mapping
// is found in /proc/self/maps by the file's name and size; `mine` is the test's mapping of the same
// file), so a read or write outside the window crashes the test instead of passing unseen.
class WindowGuard {
 public:
  WindowGuard(const tpu::ShmLink& link, const uint8_t* mine) {
    const std::string file = fs::canonical(link.ram_file()).string();
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
      std::istringstream in(line);
      std::string range, perms, offset, device, inode, path;
      in >> range >> perms >> offset >> device >> inode;
      std::getline(in >> std::ws, path);
      if (path.rfind(file, 0) != 0) continue;
      const size_t dash = range.find('-');
      const uint64_t start = std::stoull(range.substr(0, dash), nullptr, 16);
      const uint64_t end = std::stoull(range.substr(dash + 1), nullptr, 16);
      if (end - start != kLayout.ram_bytes || start == reinterpret_cast<uintptr_t>(mine)) continue;
      base_ = reinterpret_cast<uint8_t*>(start);
    }
    REQUIRE(base_ != nullptr);
    const uint64_t window_end = kLayout.window_offset + kLayout.window_bytes;
    REQUIRE(::mprotect(base_, kLayout.window_offset, PROT_NONE) == 0);
    REQUIRE(::mprotect(base_ + window_end, kLayout.ram_bytes - window_end, PROT_NONE) == 0);
  }
  ~WindowGuard() {
    if (base_ != nullptr) ::mprotect(base_, kLayout.ram_bytes, PROT_READ | PROT_WRITE);
  }
  WindowGuard(const WindowGuard&) = delete;
  WindowGuard& operator=(const WindowGuard&) = delete;

 private:
  uint8_t* base_ = nullptr;
};

// ------------------------------------------------------------------ layout and file

TEST_CASE("shm link: parse_shm_layout takes `make print-link-layout` output and refuses bad layouts", "[shm_link]") {
  std::optional<tpu::ShmLayout> layout = tpu::parse_shm_layout("8388608 6291456 1048576\n");
  REQUIRE(layout.has_value());
  CHECK(layout->ram_bytes == 8 * kMiB);
  CHECK(layout->window_offset == 6 * kMiB);
  CHECK(layout->window_bytes == 1 * kMiB);

  layout = tpu::parse_shm_layout("8388608 7340032 1048576");  // the window ends exactly at the RAM's end
  REQUIRE(layout.has_value());
  CHECK(layout->window_offset == 7 * kMiB);

  layout = tpu::parse_shm_layout("0 0 0");  // a board without a window
  REQUIRE(layout.has_value());
  CHECK(layout->window_bytes == 0);

  CHECK_FALSE(tpu::parse_shm_layout("8388608 6291457 1048576").has_value());  // offset not page aligned
  CHECK_FALSE(tpu::parse_shm_layout("8388608 6293504 1048576").has_value());  // offset 6 MiB + 2 KiB
  CHECK_FALSE(tpu::parse_shm_layout("8388608 6291456 1048577").has_value());  // size not a page multiple
  CHECK_FALSE(tpu::parse_shm_layout("8388608 7340032 2097152").has_value());  // window past the RAM's end
  CHECK_FALSE(tpu::parse_shm_layout("8388608 8388608 4096").has_value());     // window just past the RAM
  CHECK_FALSE(tpu::parse_shm_layout("8589934592 0 4294967296").has_value());  // a 4 GiB window
  CHECK_FALSE(tpu::parse_shm_layout("").has_value());
  CHECK_FALSE(tpu::parse_shm_layout("garbage").has_value());
  CHECK_FALSE(tpu::parse_shm_layout("8388608 6291456").has_value());
  CHECK_FALSE(tpu::parse_shm_layout("8 MiB, window at 6 MiB").has_value());
  CHECK_FALSE(tpu::parse_shm_layout("make: *** No rule to make target 'print-link-layout'").has_value());
}

// Was a bug (shm_link.cpp, parse_shm_layout): `window_offset + window_bytes > ram_bytes` is computed in
// uint64_t and wraps. "8388608 18446744073709547520 8192" (offset 2^64 - 4096, page aligned) gives
// offset + bytes = 4096 <= ram_bytes and is accepted; so is "8388608 -4096 8192", because
// operator>> into uint64_t takes a minus sign (strtoull semantics) and yields the same offset. The
// accepted layout makes ShmLink::create write the control block at ram + 2^64 - 4096, i.e. 4 KiB
// below the mapping. Fix: check `window_offset > ram_bytes || window_bytes > ram_bytes - window_offset`
// (and refuse a '-' in the text).
TEST_CASE("shm link: a layout whose window wraps around 2^64 is refused", "[shm_link]") {
  CHECK_FALSE(tpu::parse_shm_layout("8388608 18446744073709547520 8192").has_value());
  CHECK_FALSE(tpu::parse_shm_layout("8388608 -4096 8192").has_value());
}

TEST_CASE("shm link: create() makes a private RAM file whose window holds the planned control block", "[shm_link]") {
  std::unique_ptr<tpu::ShmLink> link = make_link();
  const fs::path file = link->ram_file();
  const fs::path folder = file.parent_path();

  // A private folder tpu-link-* in /dev/shm or the temporary directory.
  CHECK(folder.filename().string().rfind("tpu-link-", 0) == 0);
  CHECK(folder.filename().string().size() > std::string("tpu-link-").size());
  std::error_code ignored;
  const fs::path base = fs::canonical(folder.parent_path());
  const bool shm = base == fs::canonical("/dev/shm", ignored);
  const bool temp = base == fs::canonical(fs::temp_directory_path(), ignored);
  CHECK((shm || temp));
  struct stat folder_stat {};
  REQUIRE(::stat(folder.c_str(), &folder_stat) == 0);
  CHECK(S_ISDIR(folder_stat.st_mode));
  CHECK((folder_stat.st_mode & 077) == 0);  // no access for group or others
  CHECK(folder_stat.st_uid == ::getuid());

  // The file: RAM-sized, owner-only, sparse (a 512 MiB RAM must not cost 512 MiB up front).
  REQUIRE(fs::is_regular_file(file));
  CHECK(fs::file_size(file) == kLayout.ram_bytes);
  struct stat file_stat {};
  REQUIRE(::stat(file.c_str(), &file_stat) == 0);
  CHECK((file_stat.st_mode & 077) == 0);
  CHECK(uint64_t(file_stat.st_blocks) * 512 < kLayout.ram_bytes / 2);

  // The control block, read from the file (not through the link's mapping).
  const ShmControl control = read_control(file);
  CHECK(check_shm_control(control, kLayout.window_bytes).is_ok());
  CHECK(control.magic == 0x31304d4853555054ull);  // "TPUSHM01"
  CHECK(control.version == 4);
  CHECK(control.window_bytes == kLayout.window_bytes);
  CHECK(control.to_board.offset == kToBoardOffset);
  CHECK(control.to_board.capacity == kToBoardCapacity);
  CHECK(control.to_host.offset == kToHostOffset);
  CHECK(control.to_host.capacity == kToHostCapacity);
  CHECK(control.board_state == 0);  // kNotSeen
  CHECK(control.host_state == 1);   // kOpen
  CHECK(control.aperture_address == 0);
  CHECK(control.aperture_bytes == 0);
  for (const ShmReplyTarget& target : control.targets) CHECK(target.state == 0);
  CHECK(link->board_state() == ShmBoardState::kNotSeen);
  CHECK_FALSE(link->failure().has_value());
  CHECK(link->queued_frames() == 0);

  // Everything else in the file is zero: both rings' indices, the RAM around the window.
  const Bytes all = read_file(file, 0, kLayout.ram_bytes);
  size_t nonzero = 0;
  for (uint64_t i = 0; i < all.size(); ++i)
    if ((i < kLayout.window_offset || i >= kLayout.window_offset + sizeof(ShmControl)) && all[i] != 0) ++nonzero;
  CHECK(nonzero == 0);

  // close(): the host says it no longer serves the link.
  link->close();
  CHECK(read_control(file).host_state == 2);  // kClosed
  CHECK(read_control(file).magic == 0x31304d4853555054ull);

  // Destruction removes the file and its folder.
  link.reset();
  CHECK_FALSE(fs::exists(file));
  CHECK_FALSE(fs::exists(folder));
}

TEST_CASE("shm link: create() refuses a window too small for two rings", "[shm_link]") {
  for (uint64_t window : {uint64_t{0}, uint64_t{4096}, uint64_t{16384}}) {
    std::string error;
    std::unique_ptr<tpu::ShmLink> link = tpu::ShmLink::create({8 * kMiB, 6 * kMiB, window}, error);
    CHECK(link == nullptr);
    CHECK(error.find("too small") != std::string::npos);
  }
}

// Folders tpu-link-* in the places create() uses.
std::set<fs::path> link_folders() {
  std::set<fs::path> folders;
  std::error_code ignored;
  for (const fs::path& base : {fs::path("/dev/shm"), fs::temp_directory_path(ignored)})
    for (const fs::directory_entry& entry : fs::directory_iterator(base, ignored))
      if (entry.path().filename().string().rfind("tpu-link-", 0) == 0) folders.insert(entry.path());
  return folders;
}

// Was a bug (shm_link.cpp, ShmLink::create): the layout is not checked against the RAM before the control
// block is written at ram_ + window_offset. create({8 MiB + 12 KiB, 1 TiB, 1 MiB}) maps 8 MiB and
// then memcpy's the control block 1 TiB past the mapping: SIGSEGV (or, if another mapping happens to
// be there, a silent write into it) instead of nullptr with an error. Today only parse_shm_layout's
// checks stand between a bad layout and this write (and see the 2^64 wrap case above). Fix: check
// window_offset/window_bytes against ram_bytes (no wrap) and page alignment in create().
// Run in a child process, which crashes; the folder it leaves is removed here (found by its RAM size).
TEST_CASE("shm link: create() refuses a window outside the RAM", "[shm_link]") {
  const uint64_t ram = 8 * kMiB + 3 * 4096;  // a size no real board has: identifies the child's folder
  const std::set<fs::path> before = link_folders();
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const struct rlimit no_core {0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    for (int signal : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) std::signal(signal, SIG_DFL);  // not Catch2's handler
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
    std::string error;
    std::unique_ptr<tpu::ShmLink> link = tpu::ShmLink::create({ram, uint64_t{1} << 40, 1 * kMiB}, error);
    ::_exit(link == nullptr && !error.empty() ? 0 : 1);  // no destructors, no Catch2 output
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  std::error_code ignored;
  for (const fs::path& folder : link_folders())
    if (before.count(folder) == 0 && fs::file_size(folder / "board-ram", ignored) == ram) fs::remove_all(folder, ignored);
  INFO("child status " << status << (WIFSIGNALED(status) ? " (killed by a signal)" : ""));
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("shm link: the RAM file goes once the board left kNotSeen and receive() ran", "[shm_link]") {
  const ShmBoardState state = GENERATE(ShmBoardState::kAttached, ShmBoardState::kFinished);
  std::unique_ptr<tpu::ShmLink> link = make_link();
  const fs::path file = link->ram_file();
  const fs::path folder = file.parent_path();
  Board board(*link);
  size_t received = 0;
  const tpu::ShmLink::Receiver count = [&](std::span<const uint8_t>) { ++received; };

  CHECK(link->receive(count) == 0);  // the board has not looked yet: QEMU may still have to open it
  CHECK(fs::exists(file));
  set_shm_board_state(*board.control, state);  // what the board does once it took the rings
  CHECK(link->board_state() == state);
  CHECK(fs::exists(file));  // only receive() looks
  CHECK(link->receive(count) == 0);
  CHECK_FALSE(fs::exists(file));
  CHECK_FALSE(fs::exists(folder));
  CHECK_FALSE(link->failure().has_value());

  // The mappings outlive the name: a board frame still arrives.
  FakeClock clock;
  ShmTransport transport(board.window, clock, kMessageKinds);
  const Bytes payload = pattern(300, 9);
  REQUIRE(transport.send(message_header(MessageKind::kLog, 1, 5), view(payload)).is_ok());
  Bytes got;
  CHECK(link->receive([&](std::span<const uint8_t> body) { got.assign(body.begin(), body.end()); }) == 1);
  CHECK(difference(got, frame_body(MessageKind::kLog, 1, 5, payload)) == "");
  link.reset();  // removing again is harmless
  CHECK_FALSE(fs::exists(folder));
}

TEST_CASE("shm link: a folder left by a tpu that is gone is removed by the next link, a live one's is kept",
          "[shm_link]") {
  const pid_t gone = ::fork();  // a pid that was ours and is certainly not running any more
  if (gone == 0) _exit(0);
  REQUIRE(gone > 0);
  REQUIRE(::waitpid(gone, nullptr, 0) == gone);
  std::unique_ptr<tpu::ShmLink> first = make_link();
  const fs::path base = first->ram_file().parent_path().parent_path();  // where tpu makes its folders
  CHECK(first->ram_file().parent_path().filename().string().rfind("tpu-link-" + std::to_string(::getpid()) + "-", 0) == 0);
  const fs::path abandoned = base / ("tpu-link-" + std::to_string(gone) + "-test01");
  const fs::path alive = base / ("tpu-link-" + std::to_string(::getpid()) + "-test02");
  const fs::path other = base / "tpu-link-not-a-pid";
  for (const fs::path& folder : {abandoned, alive, other}) {
    fs::create_directories(folder);
    std::ofstream(folder / "board-ram") << "left behind";
  }
  std::unique_ptr<tpu::ShmLink> second = make_link();
  CHECK_FALSE(fs::exists(abandoned));
  CHECK(fs::exists(alive / "board-ram"));  // its owner (this process) still runs
  CHECK(fs::exists(other / "board-ram"));  // not a name tpu makes
  fs::remove_all(alive);
  fs::remove_all(other);
}

// ------------------------------------------------------------------ frames

TEST_CASE("shm link: host frames reach the board's transport whole, as reference records", "[shm_link]") {
  std::unique_ptr<tpu::ShmLink> link = make_link();
  Board board(*link);
  FakeClock clock;
  ShmTransport transport(board.window, clock, kMessageKinds);
  CHECK(transport.max_receive_payload() == kMaxRecordPayload);

  const Bytes small = pattern(100, 1), large = pattern(kMaxRecordPayload, 2), odd = pattern(4093, 3), empty;
  REQUIRE(link->send(message_header(MessageKind::kHostCallReply, 5, 7), view(small)));
  REQUIRE(link->send(message_header(MessageKind::kInfeedData, 0, 8), view(large)));
  REQUIRE(link->send(message_header(MessageKind::kHello, 0, 9), view(empty)));
  REQUIRE(link->send(message_header(MessageKind::kRun, 65535, 0xFFFFFFFFu), view(odd)));
  CHECK(link->queued_frames() == 0);
  CHECK(link->frames_sent() == 4);
  CHECK_FALSE(link->failure().has_value());

  // The records in the to-board ring, by the rules of shm_ring.hpp: length, length ^ key ^ position,
  // the body, zero padding to 8; head = the bytes of all four.
  const std::vector<Bytes> bodies = {frame_body(MessageKind::kHostCallReply, 5, 7, small),
                                     frame_body(MessageKind::kInfeedData, 0, 8, large),
                                     frame_body(MessageKind::kHello, 0, 9, empty),
                                     frame_body(MessageKind::kRun, 65535, 0xFFFFFFFFu, odd)};
  uint64_t position = 0;
  for (const Bytes& body : bodies) {
    const uint8_t* record = board.to_board_data() + position;
    CHECK(get_le32(record) == body.size());
    CHECK(get_le32(record + 4) == (uint32_t(body.size()) ^ 0x5EC0AD5Eu ^ uint32_t(position)));
    CHECK(difference(Bytes(record + 8, record + 8 + body.size()), body) == "");
    for (uint64_t pad = 8 + body.size(); pad < record_bytes(body.size()); ++pad) CHECK(record[pad] == 0);
    position += record_bytes(body.size());
  }
  CHECK(board.to_board_indices().head.load() == position);

  Recorder recorder;
  CHECK(transport.receive(recorder, 64) == 4);
  CHECK(transport.receive(recorder, 64) == 0);
  REQUIRE(recorder.frames.size() == 4);
  CHECK(recorder.bad.empty());
  CHECK(message_kind(recorder.frames[0].header) == MessageKind::kHostCallReply);
  CHECK(recorder.frames[0].header.channel == 5);
  CHECK(recorder.frames[0].header.sequence == 7);
  CHECK(difference(recorder.frames[0].payload, small) == "");
  CHECK(message_kind(recorder.frames[1].header) == MessageKind::kInfeedData);
  CHECK(recorder.frames[1].header.sequence == 8);
  CHECK(difference(recorder.frames[1].payload, large) == "");
  CHECK(message_kind(recorder.frames[2].header) == MessageKind::kHello);
  CHECK(recorder.frames[2].payload.empty());
  CHECK(message_kind(recorder.frames[3].header) == MessageKind::kRun);
  CHECK(recorder.frames[3].header.channel == 65535);
  CHECK(recorder.frames[3].header.sequence == 0xFFFFFFFFu);
  CHECK(difference(recorder.frames[3].payload, odd) == "");
  CHECK(board.to_board_indices().tail.load() == position);  // the board released them all
  CHECK_FALSE(transport.failed());
}

// A board core's sleep as the host board does it: a shared futex on the doorbell (boards/host/link.cpp).
class FutexClock final : public ShmClock {
 public:
  uint64_t now_ns() override { return 0; }
  void idle() override {}
  unsigned core() override { return 0; }
  void sleep(const uint32_t* word, uint32_t seen, uint64_t deadline_ns) override {
    const timespec timeout{static_cast<time_t>(deadline_ns / 1000000000u), static_cast<long>(deadline_ns % 1000000000u)};
    syscall(SYS_futex, word, FUTEX_WAIT, seen, &timeout, nullptr, 0);
  }
  void wake(const uint32_t* word) override { syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0); }
};

// Runs `sleep` (a sleep of up to 60 s on `bell`) on a thread, calls `ring` once it sleeps there, and
// checks that the ring ended the sleep at once and that no sleeper is left counted.
template <class Sleep, class Ring>
void check_ring_wakes_sleeper(const ShmDoorbell& bell, Sleep sleep, Ring ring) {
  const auto started = std::chrono::steady_clock::now();
  std::thread sleeper(sleep);
  while (__atomic_load_n(&bell.sleepers, __ATOMIC_SEQ_CST) == 0) std::this_thread::yield();
  ring();
  sleeper.join();
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(30));
  CHECK(__atomic_load_n(&bell.sleepers, __ATOMIC_SEQ_CST) == 0);
}

TEST_CASE("shm link: every frame rings the board's doorbell, waking a core asleep on it", "[shm_link]") {
  std::unique_ptr<tpu::ShmLink> link = make_link();
  Board board(*link);
  FutexClock clock;
  ShmTransport transport(board.window, clock, kMessageKinds);
  const Bytes payload = pattern(100, 4);
  REQUIRE(link->send(message_header(MessageKind::kHostCallReply, 1, 1), view(payload)));
  CHECK(transport.host_rings() == 1);  // rung, nobody to wake
  // A core asleep on the doorbell for up to 60 s is woken by the host's next frame.
  const uint32_t seen = transport.host_rings();
  check_ring_wakes_sleeper(
      reinterpret_cast<ShmControl*>(board.window)->board_bell,
      [&] { transport.sleep_until_host_rings(seen, 60ull * 1000000000ull); },
      [&] { REQUIRE(link->send(message_header(MessageKind::kHostCallReply, 1, 2), view(payload))); });
  CHECK(transport.host_rings() == 2);
}

// A board core's pause while the to-host ring is full: a sleep of up to 20 s on the board's doorbell
// unless it rang since the last pause (the rings counted then, before the core's last look at the
// ring), as firmware/hal_link_port.cpp's ShmLinkPort sleeps.
class DoorbellClock final : public ShmClock {
 public:
  void attach(ShmTransport& transport) {
    transport_ = &transport;
    seen_ = transport.host_rings();
  }
  uint64_t now_ns() override { return 0; }
  void idle() override {
    if (transport_->host_rings() == seen_) transport_->sleep_until_host_rings(seen_, 20ull * 1000000000ull);
    seen_ = transport_->host_rings();
  }
  unsigned core() override { return 0; }
  void sleep(const uint32_t* word, uint32_t seen, uint64_t deadline_ns) override { futex_clock_.sleep(word, seen, deadline_ns); }
  void wake(const uint32_t* word) override { futex_clock_.wake(word); }

 private:
  ShmTransport* transport_ = nullptr;
  uint32_t seen_ = 0;
  FutexClock futex_clock_;
};

TEST_CASE("shm link: taking frames rings the board's doorbell only for a core that waits for room", "[shm_link]") {
  std::unique_ptr<tpu::ShmLink> link = make_link();
  Board board(*link);
  DoorbellClock clock;
  ShmTransport transport(board.window, clock, kMessageKinds);
  clock.attach(transport);
  size_t taken = 0;
  const tpu::ShmLink::Receiver count = [&taken](std::span<const uint8_t>) { ++taken; };
  // A host call's request taken while its sender sleeps for the reply: nobody to ring for.
  const Bytes request = pattern(100, 5);
  REQUIRE(transport.send(message_header(MessageKind::kHostCallRequest, 0, 1), view(request)).is_ok());
  const uint32_t rings_before = transport.host_rings();
  CHECK(link->receive(count) == 1);
  CHECK(transport.host_rings() == rings_before);
  // Two rings' worth of the largest frames: the sender fills the ring, counts itself and sleeps on the
  // doorbell (for up to 20 s) until the host takes frames and rings it (unrung, this takes 40 s).
  const Bytes full = pattern(kMaxPayload, 6);
  const size_t frames = 2 * board.control->to_host.capacity / full.size();
  const auto started = std::chrono::steady_clock::now();
  std::atomic<size_t> sent{0};
  std::thread sender([&] {
    for (size_t i = 0; i < frames; ++i, ++sent)
      if (!transport.send(message_header(MessageKind::kOutfeedData, 0, static_cast<uint32_t>(i + 2)), view(full)).is_ok()) break;
  });
  bool saw_waiter = false;  // frames are taken only while the sender sleeps, or once it sent them all
  while (taken < frames + 1 && std::chrono::steady_clock::now() - started < std::chrono::seconds(120)) {
    if (__atomic_load_n(&board.control->board_bell.sleepers, __ATOMIC_SEQ_CST) != 0 || sent == frames) {
      saw_waiter = saw_waiter || __atomic_load_n(&board.control->cores_waiting_for_room, __ATOMIC_SEQ_CST) != 0;
      link->receive(count);
    }
    std::this_thread::yield();
  }
  sender.join();
  CHECK(sent == frames);
  CHECK(saw_waiter);
  CHECK(taken == frames + 1);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(15));  // each sleep ended by a ring
  CHECK(__atomic_load_n(&board.control->cores_waiting_for_room, __ATOMIC_SEQ_CST) == 0);
}

TEST_CASE("shm link: a board core's ring ends tpu's sleep on its doorbell at once", "[shm_link]") {
  std::unique_ptr<tpu::ShmLink> link = make_link();
  Board board(*link);
  FutexClock clock;
  ShmTransport transport(board.window, clock, kMessageKinds);
  // A ring since `seen` is seen before any sleep.
  transport.ring_host();
  CHECK(link->board_rings() == 1);
  const auto before_sleep = std::chrono::steady_clock::now();
  link->sleep_until_board_rings(0, std::chrono::seconds(60));
  CHECK(std::chrono::steady_clock::now() - before_sleep < std::chrono::seconds(30));
  // tpu asleep for up to 60 s is woken by the core's next ring.
  const uint32_t seen = link->board_rings();
  check_ring_wakes_sleeper(
      reinterpret_cast<ShmControl*>(board.window)->host_bell,
      [&] { link->sleep_until_board_rings(seen, std::chrono::seconds(60)); }, [&] { transport.ring_host(); });
  CHECK(link->board_rings() == 2);
}

TEST_CASE("shm link: board frames reach receive() as the reference bodies, also across the ring's end", "[shm_link]") {
  std::unique_ptr<tpu::ShmLink> link = make_link();
  Board board(*link);
  FakeClock clock;
  ShmTransport transport(board.window, clock, kMessageKinds);

  const Bytes log = pattern(4000, 3), full = pattern(kMaxPayload, 4), empty;
  REQUIRE(transport.send(message_header(MessageKind::kOutfeedData, 2, 41), view(log)).is_ok());
  REQUIRE(transport.send(message_header(MessageKind::kHostCallRequest, 3, 42), view(full)).is_ok());
  REQUIRE(transport.send(message_header(MessageKind::kResult, 0, 43), view(empty)).is_ok());
  std::vector<Bytes> got;
  const tpu::ShmLink::Receiver keep = [&](std::span<const uint8_t> body) { got.emplace_back(body.begin(), body.end()); };
  CHECK(link->receive(keep, 2) == 2);  // the budget holds
  CHECK(link->receive(keep) == 1);
  CHECK(link->receive(keep) == 0);
  REQUIRE(got.size() == 3);
  CHECK(difference(got[0], frame_body(MessageKind::kOutfeedData, 2, 41, log)) == "");
  CHECK(difference(got[1], frame_body(MessageKind::kHostCallRequest, 3, 42, full)) == "");
  CHECK(difference(got[2], frame_body(MessageKind::kResult, 0, 43, empty)) == "");
  CHECK(link->frames_received() == 3);
  CHECK(link->bytes_received() == got[0].size() + got[1].size() + got[2].size());
  CHECK(board.to_host_indices().tail.load() == board.to_host_indices().head.load());  // released

  // 600 frames of 0..4096 payload bytes, 5 at a time: the 256 KiB ring wraps (pad records) 4 times.
  got.clear();
  std::vector<Bytes> expected;
  uint32_t sequence = 100;
  for (int round = 0; round < 120; ++round) {
    for (int i = 0; i < 5; ++i, ++sequence) {
      const Bytes payload = pattern((sequence * 997) % (kMaxPayload + 1), sequence);
      REQUIRE(transport.send(message_header(MessageKind::kOutfeedData, uint16_t(sequence % 16), sequence), view(payload)).is_ok());
      expected.push_back(frame_body(MessageKind::kOutfeedData, uint16_t(sequence % 16), sequence, payload));
    }
    CHECK(link->receive(keep) == 5);
  }
  CHECK(board.to_host_indices().head.load() > 3 * uint64_t{kToHostCapacity});
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("frame " << i);
    CHECK(difference(got[i], expected[i]) == "");
  }
  CHECK_FALSE(link->failure().has_value());
  CHECK_FALSE(transport.failed());
}

TEST_CASE("shm link: a full to-board ring queues frames, and flush() sends them in order", "[shm_link]") {
  std::unique_ptr<tpu::ShmLink> link = make_link();
  Board board(*link);
  FakeClock clock;
  ShmTransport transport(board.window, clock, kMessageKinds);
  Recorder recorder;

  // 60 KiB frames: 61456-byte bodies, 61464-byte records; 8 fill 491712 of the ring's 524288 bytes.
  const uint64_t record = record_bytes(kFrameHeaderBytes + kMaxRecordPayload + kFrameCrcBytes);
  REQUIRE(record == 61464);
  const auto payload = [](uint32_t sequence) { return pattern(kMaxRecordPayload, sequence); };
  for (uint32_t sequence = 0; sequence < 12; ++sequence)
    REQUIRE(link->send(message_header(MessageKind::kInfeedData, 1, sequence), view(payload(sequence))));
  CHECK(link->frames_sent() == 8);
  CHECK(link->queued_frames() == 4);
  CHECK(board.to_board_indices().head.load() == 8 * record);
  CHECK(link->flush() == 0);  // the board consumed nothing yet
  CHECK(link->queued_frames() == 4);

  CHECK(transport.receive(recorder, 3) == 3);  // frees 3 records
  // Room now, but a new frame must not overtake the queued ones.
  REQUIRE(link->send(message_header(MessageKind::kInfeedData, 1, 12), view(payload(12))));
  CHECK(link->queued_frames() == 5);
  CHECK(link->frames_sent() == 8);
  // Frame 8 needs a pad record first (32576 bytes left before the end), then 9 and 10 fill the ring
  // exactly: 3 go.
  CHECK(link->flush() == 3);
  CHECK(link->queued_frames() == 2);
  CHECK(link->frames_sent() == 11);
  CHECK(board.to_board_indices().head.load() == uint64_t{kToBoardCapacity} + 3 * record);

  CHECK(transport.receive(recorder, 64) == 8);
  CHECK(link->flush() == 2);
  CHECK(link->queued_frames() == 0);
  CHECK(link->flush() == 0);
  CHECK(transport.receive(recorder, 64) == 2);

  REQUIRE(recorder.frames.size() == 13);
  CHECK(recorder.bad.empty());
  for (uint32_t sequence = 0; sequence < 13; ++sequence) {
    INFO("frame " << sequence);
    CHECK(recorder.frames[sequence].header.sequence == sequence);
    CHECK(message_kind(recorder.frames[sequence].header) == MessageKind::kInfeedData);
    CHECK(difference(recorder.frames[sequence].payload, payload(sequence)) == "");
  }
  CHECK(link->frames_sent() == 13);
  CHECK_FALSE(link->failure().has_value());
  CHECK_FALSE(transport.failed());
}

TEST_CASE("shm link: a frame the link cannot carry is refused and ends the link", "[shm_link]") {
  std::unique_ptr<tpu::ShmLink> link = make_link();
  Board board(*link);
  SECTION("a payload over 60 KiB") {
    const Bytes payload = pattern(kMaxRecordPayload + 1, 1);
    CHECK_FALSE(link->send(message_header(MessageKind::kInfeedData, 0, 1), view(payload)));
  }
  SECTION("an unknown kind") {
    const Bytes payload = pattern(16, 1);
    CHECK_FALSE(link->send(FrameHeader{200, 0, 1}, view(payload)));
  }
  CHECK(link->queued_frames() == 0);
  CHECK(link->frames_sent() == 0);
  REQUIRE(link->failure().has_value());
  CHECK(link->failure()->find("could not be built") != std::string::npos);
  CHECK(board.to_board_indices().head.load() == 0);  // nothing reached the ring
  const Bytes good = pattern(16, 2);
  CHECK_FALSE(link->send(message_header(MessageKind::kHostCallReply, 0, 2), view(good)));
  CHECK(board.to_board_indices().head.load() == 0);
}

// ------------------------------------------------------------------ corrupt rings

TEST_CASE("shm link: a corrupt to-host ring stops receive() for good, reading nothing outside the window", "[shm_link]") {
  std::unique_ptr<tpu::ShmLink> link = make_link();
  Board board(*link);
  FakeClock clock;
  ShmTransport transport(board.window, clock, kMessageKinds);
  ShmRingIndices& indices = board.to_host_indices();
  const Bytes payload = pattern(4000, 5);
  const uint32_t body = uint32_t(frame_body(MessageKind::kLog, 0, 1, payload).size());
  std::string expected;

  SECTION("head more than a ring ahead of the tail") {
    indices.head.store(3 * uint64_t{kToHostCapacity});
    expected = "impossible";
  }
  SECTION("head behind the host's tail") {
    REQUIRE(transport.send(message_header(MessageKind::kLog, 0, 1), view(payload)).is_ok());
    REQUIRE(link->receive([](std::span<const uint8_t>) {}) == 1);
    indices.head.store(8);
    expected = "impossible";
  }
  SECTION("head not 8-byte aligned") {
    REQUIRE(transport.send(message_header(MessageKind::kLog, 0, 1), view(payload)).is_ok());
    indices.head.store(indices.head.load() - 4);
    expected = "impossible";
  }
  SECTION("a bad record header (a flipped check bit)") {
    REQUIRE(transport.send(message_header(MessageKind::kLog, 0, 1), view(payload)).is_ok());
    board.to_host_data()[4] ^= 0x01;
    expected = "bad header";
  }
  SECTION("a stale header (right for another position)") {
    REQUIRE(transport.send(message_header(MessageKind::kLog, 0, 1), view(payload)).is_ok());
    const uint32_t stale = body ^ 0x5EC0AD5Eu ^ uint32_t{kToHostCapacity / 2};
    std::memcpy(board.to_host_data() + 4, &stale, 4);
    expected = "bad header";
  }
  SECTION("a record longer than the ring takes") {
    REQUIRE(transport.send(message_header(MessageKind::kLog, 0, 1), view(payload)).is_ok());
    const uint32_t header[2] = {kToHostCapacity, kToHostCapacity ^ 0x5EC0AD5Eu ^ 0u};  // checks, but too long
    std::memcpy(board.to_host_data(), header, sizeof header);
    expected = "at most";
  }
  SECTION("a record longer than what is published") {
    REQUIRE(transport.send(message_header(MessageKind::kLog, 0, 1), view(payload)).is_ok());
    const uint32_t length = body + 64;
    const uint32_t header[2] = {length, length ^ 0x5EC0AD5Eu ^ 0u};
    std::memcpy(board.to_host_data(), header, sizeof header);
    expected = "published";
  }

  size_t delivered = 0;
  const tpu::ShmLink::Receiver count = [&](std::span<const uint8_t>) { ++delivered; };
  const uint64_t bytes_before = link->bytes_received();
  {
    WindowGuard guard(*link, board.ram);  // a read outside the window crashes from here on
    CHECK(link->receive(count) == 0);
    CHECK(delivered == 0);
    REQUIRE(link->failure().has_value());
    INFO(*link->failure());
    CHECK(link->failure()->find(expected) != std::string::npos);
    CHECK(link->failure()->find("shared-memory link") != std::string::npos);
    const std::string first = *link->failure();

    // Final: a repaired ring with a good frame in it changes nothing.
    indices.head.store(indices.tail.load());
    std::memset(board.to_host_data(), 0, 64);
    ShmTransport again(board.window, clock, kMessageKinds);  // a writer that starts from the repaired head
    REQUIRE(again.send(message_header(MessageKind::kLog, 0, 2), view(payload)).is_ok());
    CHECK(link->receive(count) == 0);
    CHECK(delivered == 0);
    CHECK(link->failure() == first);
  }
  CHECK(link->bytes_received() == bytes_before);
  const Bytes reply = pattern(8, 1);
  CHECK_FALSE(link->send(message_header(MessageKind::kHostCallReply, 0, 1), view(reply)));  // a failed link sends nothing
}

TEST_CASE("shm link: an impossible to-board tail fails send() for good", "[shm_link]") {
  std::unique_ptr<tpu::ShmLink> link = make_link();
  Board board(*link);
  board.to_board_indices().tail.store(4096);  // the board claims it read bytes the host never wrote
  const Bytes payload = pattern(64, 1);
  {
    WindowGuard guard(*link, board.ram);  // nothing outside the window is touched
    CHECK_FALSE(link->send(message_header(MessageKind::kHostCallReply, 0, 1), view(payload)));
  }
  REQUIRE(link->failure().has_value());
  CHECK(link->failure()->find("impossible") != std::string::npos);
  CHECK(board.to_board_indices().head.load() == 0);
  board.to_board_indices().tail.store(0);  // repaired: the link stays failed
  CHECK_FALSE(link->send(message_header(MessageKind::kHostCallReply, 0, 2), view(payload)));
  CHECK(link->flush() == 0);
  CHECK(link->queued_frames() == 0);
  CHECK(board.to_board_indices().head.load() == 0);
}

// ------------------------------------------------------------------ results in place

TEST_CASE("shm link: place_results writes only armed, fitting targets inside the aperture", "[shm_link]") {
  std::unique_ptr<tpu::ShmLink> link = make_link();
  Board board(*link);
  FakeClock clock;
  ShmTransport transport(board.window, clock, kMessageKinds);
  board.announce(kRamBase + kLayout.window_offset, kApertureAddress, kApertureBytes);
  ShmReplyTarget& target = board.control->targets[2];

  // Core 2 arms call 77 the way the board does: an int32[6] result at board address 0x40200040 (a
  // fake address: only its value matters) and a text result (no target).
  const uint64_t address = kRamBase + 2 * kMiB + 0x40;
  const uint64_t offset = address - kRamBase;  // in the RAM file
  const int64_t dims[] = {6};
  rt::Result<rt::Shape> shape = rt::Shape::make(rt::Span<const int64_t>(dims, 1));
  REQUIRE(shape.is_ok());
  char text_storage[32];
  rt::FormatBuffer text(text_storage, sizeof text_storage);
  const HostResult results[2] = {
      HostResult::tensor(rt::Tensor::contiguous(rt::DType::kI32, *shape, reinterpret_cast<void*>(uintptr_t{address}))),
      HostResult::text(text)};
  REQUIRE(transport.arm_reply_targets(2, 77, rt::link::HostResultTargets(rt::Span<const HostResult>(results, 2))));
  REQUIRE(shm_target_state(target) == ShmTargetState::kArmed);
  CHECK(target.call_id == 77);
  CHECK(target.count == 2);
  CHECK(target.address[0] == address);
  CHECK(target.bytes[0] == 24);
  CHECK(target.address[1] == 0);

  const Bytes r0 = pattern(24, 1), r1 = pattern(16, 2);
  const std::vector<std::span<const uint8_t>> both = {r0, r1};
  const auto file_at = [&](uint64_t at, size_t size) { return read_file(link->ram_file(), at, size); };
  const auto placed_nothing = [&] {
    CHECK(board.nonzero_outside_window() == 0);
    CHECK(link->bytes_placed() == 0);
  };

  SECTION("armed, matching call id: the tensor result lands at its address") {
    CHECK(link->place_results(2, 77, both) == std::vector<bool>{true, false});
    CHECK(file_at(offset, 24) == r0);
    CHECK(board.nonzero_outside_window() == 24);  // nothing else anywhere outside the window
    CHECK(shm_target_state(target) == ShmTargetState::kWritten);
    CHECK(link->bytes_placed() == 24);
    CHECK(transport.reply_target_armed(2, 77, 0));
    CHECK_FALSE(transport.reply_target_armed(2, 77, 1));  // no target
    CHECK_FALSE(transport.reply_target_armed(2, 76, 0));
    CHECK(link->place_results(2, 77, both) == std::vector<bool>{false, false});  // written: not again
    transport.disarm_reply_targets(2);
    CHECK(shm_target_state(target) == ShmTargetState::kIdle);
    CHECK(clock.pauses == 0);
    // What was placed is seen where it lies, without a copy; nothing outside the aperture.
    const std::optional<std::span<const uint8_t>> view = link->view_board_memory(address, 24);
    REQUIRE(view.has_value());
    CHECK(Bytes(view->begin(), view->end()) == r0);
    CHECK(!link->view_board_memory(kApertureAddress + kApertureBytes - 8, 16));
    CHECK(!link->view_board_memory(kApertureAddress - 1, 4));
  }
  SECTION("a writer fills the armed target in place: it is handed the board's bytes, exactly the target's size") {
    std::vector<size_t> sizes_seen;
    const std::vector<bool> placed = link->place_results(2, 77, {24, 16}, [&](size_t i, std::span<uint8_t> destination) {
      sizes_seen.push_back(destination.size());
      std::copy(r0.begin(), r0.end(), destination.begin());
      (void)i;
    });
    CHECK(placed == std::vector<bool>{true, false});
    CHECK(sizes_seen == std::vector<size_t>{24});
    CHECK(file_at(offset, 24) == r0);
    CHECK(shm_target_state(target) == ShmTargetState::kWritten);
  }
  SECTION("a claimed result is written in place before the reply, which then places it as any other") {
    CHECK(link->claim_result(2, 76, 24) == nullptr);  // another call
    CHECK(link->claim_result(2, 77, 16) == nullptr);  // another size
    CHECK(link->claim_result(3, 77, 24) == nullptr);  // another core
    CHECK(shm_target_state(target) == ShmTargetState::kArmed);
    uint8_t* claimed = link->claim_result(2, 77, 24);
    REQUIRE(claimed != nullptr);
    CHECK(shm_target_state(target) == ShmTargetState::kWriting);  // the board cannot take it back now
    CHECK(link->claim_result(2, 77, 24) == nullptr);                // nor can it be claimed twice
    std::copy(r0.begin(), r0.end(), claimed);
    CHECK(file_at(offset, 24) == r0);  // the board's own bytes
    link->release_result(2, 76);  // another call's release: the claim stays
    CHECK(shm_target_state(target) == ShmTargetState::kWriting);
    link->release_result(2, 77);
    CHECK(shm_target_state(target) == ShmTargetState::kArmed);
    CHECK(link->place_results(2, 77, {24, 16}, [](size_t, std::span<uint8_t>) {}) == std::vector<bool>{true, false});
    CHECK(shm_target_state(target) == ShmTargetState::kWritten);
    CHECK(file_at(offset, 24) == r0);
    link->release_result(2, 77);  // not claimed: nothing changes
    CHECK(shm_target_state(target) == ShmTargetState::kWritten);
  }
  SECTION("another call id (a late reply): nothing, the target stays armed for its own call") {
    CHECK(link->place_results(2, 76, both) == std::vector<bool>{false, false});
    CHECK(shm_target_state(target) == ShmTargetState::kArmed);
    placed_nothing();
    CHECK(link->place_results(2, 77, both) == std::vector<bool>{true, false});
    CHECK(file_at(offset, 24) == r0);
  }
  SECTION("a target not armed: nothing, its state untouched") {
    for (ShmTargetState state : {ShmTargetState::kIdle, ShmTargetState::kWriting, ShmTargetState::kWritten}) {
      set_shm_target_state(target, state);
      CHECK(link->place_results(2, 77, both) == std::vector<bool>{false, false});
      CHECK(shm_target_state(target) == state);
    }
    placed_nothing();
  }
  SECTION("another core's target: nothing") {
    CHECK(link->place_results(3, 77, both) == std::vector<bool>{false, false});
    CHECK(shm_target_state(target) == ShmTargetState::kArmed);
    placed_nothing();
  }
  SECTION("core >= 16: nothing") {
    // What a "targets[16]" would be (the bytes after targets[15]) looks armed for call 77: a bound
    // check that lets core 16 through places r0.
    static_assert(offsetof(ShmControl, infeed) == offsetof(ShmControl, targets) + 16 * sizeof(ShmReplyTarget));
    static_assert(sizeof(ShmInfeedTarget) >= sizeof(ShmReplyTarget));
    ShmReplyTarget past{};
    past.state = static_cast<uint32_t>(ShmTargetState::kArmed);
    past.call_id = 77;
    past.count = 1;
    past.address[0] = address;
    past.bytes[0] = 24;
    std::memcpy(static_cast<void*>(&board.control->infeed[0]), &past, sizeof past);
    for (unsigned core : {16u, 17u, 1000u, ~0u}) CHECK(link->place_results(core, 77, both) == std::vector<bool>{false, false});
    CHECK(shm_target_state(target) == ShmTargetState::kArmed);
    CHECK(board.control->infeed[0].state == static_cast<uint32_t>(ShmTargetState::kArmed));
    placed_nothing();
  }
  SECTION("a size mismatch: nothing") {
    const Bytes shorter = pattern(23, 1), longer = pattern(25, 1);
    CHECK(link->place_results(2, 77, {shorter, r1}) == std::vector<bool>{false, false});
    set_shm_target_state(target, ShmTargetState::kArmed);
    CHECK(link->place_results(2, 77, {longer, r1}) == std::vector<bool>{false, false});
    placed_nothing();
  }
  SECTION("targets at the aperture's edges are placed, ranges past them are not") {
    const uint64_t end = kApertureAddress + kApertureBytes;
    struct Case {
      uint64_t address;
      bool placed;
    };
    const Case cases[] = {
        {kApertureAddress, true},        // the first byte
        {end - 24, true},                // the last 24 bytes
        {end - 16, false},               // 8 bytes past the end
        {end, false},                    // just after it
        {kApertureAddress - 8, false},   // 8 bytes before it
        {kRamBase + 64, false},          // in the RAM, before the aperture
        {kRamBase + 6 * kMiB + 64, false},  // in the window
        {~uint64_t{0} - 7, false},       // wraps around 2^64
        {1, false},
    };
    uint64_t placed_bytes = 0;
    for (const Case& c : cases) {
      INFO("target address " << std::hex << c.address);
      board.control->targets[2].address[0] = c.address;
      board.control->targets[2].bytes[0] = 24;
      set_shm_target_state(target, ShmTargetState::kArmed);
      const std::vector<bool> placed = link->place_results(2, 77, both);
      CHECK(placed == std::vector<bool>{c.placed, false});
      if (c.placed) {
        CHECK(file_at(c.address - kRamBase, 24) == r0);
        placed_bytes += 24;
      }
    }
    CHECK(link->bytes_placed() == placed_bytes);
    CHECK(board.nonzero_outside_window() == 48);  // the two placed, nothing else
  }
  SECTION("an aperture that overlaps the window, leaves the file or is too small: nothing") {
    struct Case {
      uint64_t aperture;
      uint64_t bytes;
      uint64_t target;
    };
    const Case cases[] = {
        {kRamBase + 5 * kMiB, 2 * kMiB, kRamBase + 5 * kMiB + 64},             // runs into the window
        {kRamBase + 6 * kMiB + 4096, 64 * 1024, kRamBase + 6 * kMiB + 8192},   // inside the window
        {kRamBase, 8 * kMiB, kRamBase + 1 * kMiB},                             // the whole RAM
        {kRamBase + 7 * kMiB + 512 * 1024, 1 * kMiB, kRamBase + 7 * kMiB + 512 * 1024 + 64},  // past the file's end
        {kRamBase + 9 * kMiB, 1 * kMiB, kRamBase + 9 * kMiB + 64},             // after the file
        {kRamBase - 4096, 8192, kRamBase - 4096 + 64},                         // before the file
        {kRamBase + 1 * kMiB, ~uint64_t{0} - 4096, kRamBase + 2 * kMiB},      // size wraps
        {kApertureAddress, 16, kApertureAddress},                               // smaller than the target
    };
    for (const Case& c : cases) {
      INFO("aperture " << std::hex << c.aperture << " + " << c.bytes);
      board.announce(kRamBase + kLayout.window_offset, c.aperture, c.bytes);
      board.control->targets[2].address[0] = c.target;
      set_shm_target_state(target, ShmTargetState::kArmed);
      CHECK(link->place_results(2, 77, both) == std::vector<bool>{false, false});
    }
    board.announce(kLayout.window_offset - 4096, kApertureAddress, kApertureBytes);  // a window address below the RAM
    board.control->targets[2].address[0] = address;
    set_shm_target_state(target, ShmTargetState::kArmed);
    CHECK(link->place_results(2, 77, both) == std::vector<bool>{false, false});
    placed_nothing();
  }
  SECTION("several targets, more results than targets") {
    const uint64_t second = kRamBase + 4 * kMiB + 0x1000;
    board.control->targets[2].address[1] = second;
    board.control->targets[2].bytes[1] = 16;
    board.control->targets[2].address[2] = kRamBase + 4 * kMiB + 0x2000;  // a stale entry past count (2)
    board.control->targets[2].bytes[2] = 8;
    set_shm_target_state(target, ShmTargetState::kArmed);
    const Bytes r2 = pattern(8, 3);
    CHECK(link->place_results(2, 77, {r0, r1, r2}) == std::vector<bool>{true, true, false});
    CHECK(file_at(offset, 24) == r0);
    CHECK(file_at(second - kRamBase, 16) == r1);
    CHECK(board.nonzero_outside_window() == 40);
    CHECK(link->bytes_placed() == 40);
  }
}

// ------------------------------------------------------------------ the board's disarm protocol

TEST_CASE("shm link: the board disarms its targets without hanging on a host that died mid-copy", "[shm_link]") {
  std::unique_ptr<tpu::ShmLink> link = make_link();
  Board board(*link);
  FakeClock clock;
  ShmTransport transport(board.window, clock, kMessageKinds);
  ShmReplyTarget& target = board.control->targets[2];
  ShmReplyTarget& neighbour = board.control->targets[3];
  set_shm_target_state(neighbour, ShmTargetState::kArmed);

  SECTION("armed -> idle at once") {
    set_shm_target_state(target, ShmTargetState::kArmed);
    transport.disarm_reply_targets(2);
    CHECK(shm_target_state(target) == ShmTargetState::kIdle);
    CHECK(clock.now == 0);
    // A late reply finds nothing armed.
    const Bytes r0 = pattern(24, 1);
    CHECK(link->place_results(2, target.call_id, {r0}) == std::vector<bool>{false});
  }
  SECTION("written -> idle at once") {
    set_shm_target_state(target, ShmTargetState::kWritten);
    transport.disarm_reply_targets(2);
    CHECK(shm_target_state(target) == ShmTargetState::kIdle);
    CHECK(clock.now == 0);
  }
  SECTION("idle stays idle") {
    transport.disarm_reply_targets(2);
    CHECK(shm_target_state(target) == ShmTargetState::kIdle);
    CHECK(clock.now == 0);
  }
  SECTION("writing: waits until the host is done") {
    set_shm_target_state(target, ShmTargetState::kWriting);
    clock.on_idle = [&] {
      CHECK(shm_target_state(target) == ShmTargetState::kWriting);  // not given up early
      if (clock.now == 3000000) set_shm_target_state(target, ShmTargetState::kWritten);  // the host finishes
    };
    transport.disarm_reply_targets(2);
    CHECK(clock.now == 3000000);
    CHECK(shm_target_state(target) == ShmTargetState::kIdle);
  }
  SECTION("writing that never finishes: given up after kShmHostWritingTimeoutNs") {
    set_shm_target_state(target, ShmTargetState::kWriting);
    transport.disarm_reply_targets(2);
    CHECK(clock.now >= kShmHostWritingTimeoutNs);
    CHECK(clock.now < kShmHostWritingTimeoutNs + 2000000);
    CHECK(shm_target_state(target) == ShmTargetState::kIdle);
  }
  SECTION("core >= 16: nothing happens") {
    transport.disarm_reply_targets(16);
    CHECK(clock.now == 0);
  }
  CHECK(shm_target_state(neighbour) == ShmTargetState::kArmed);  // another core's target is left alone

  // Only an idle target can be armed again (a written one first needs its disarm).
  const int64_t dims[] = {2};
  rt::Result<rt::Shape> shape = rt::Shape::make(rt::Span<const int64_t>(dims, 1));
  REQUIRE(shape.is_ok());
  const HostResult result =
      HostResult::tensor(rt::Tensor::contiguous(rt::DType::kF32, *shape, reinterpret_cast<void*>(uintptr_t{kApertureAddress})));
  set_shm_target_state(neighbour, ShmTargetState::kWritten);
  CHECK_FALSE(transport.arm_reply_targets(3, 5, rt::link::HostResultTargets(rt::Span<const HostResult>(&result, 1))));
  transport.disarm_reply_targets(3);
  CHECK(transport.arm_reply_targets(3, 5, rt::link::HostResultTargets(rt::Span<const HostResult>(&result, 1))));
  CHECK(neighbour.bytes[0] == 8);
}

}  // namespace
