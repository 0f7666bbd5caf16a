// The host's end of the shared-memory link (shm_link.hpp).
#include "shm_link.hpp"

#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>

#include "runtime/link/protocol/message_kind.hpp"

namespace tpu {
namespace {

// A folder for the RAM file: tmpfs (/dev/shm) when it has room for the whole RAM, so the guest's
// memory never goes to disk; the temporary directory otherwise.
std::filesystem::path folder_base(uint64_t ram_bytes) {
  struct statvfs stats {};
  if (::statvfs("/dev/shm", &stats) == 0 && ::access("/dev/shm", W_OK) == 0 &&
      uint64_t{stats.f_bavail} * stats.f_frsize >= ram_bytes)
    return "/dev/shm";
  std::error_code ignored;
  return std::filesystem::temp_directory_path(ignored);
}

std::string errno_text() { return std::strerror(errno); }

constexpr std::string_view kFolderPrefix = "tpu-link-";

// The pid in a folder name "tpu-link-<pid>-XXXXXX"; 0 for any other name.
pid_t owner_of(const std::string& name) {
  if (name.rfind(kFolderPrefix, 0) != 0) return 0;
  const size_t dash = name.find('-', kFolderPrefix.size());
  if (dash == std::string::npos) return 0;
  pid_t pid = 0;
  const char* first = name.data() + kFolderPrefix.size();
  const auto parsed = std::from_chars(first, name.data() + dash, pid);
  return parsed.ec == std::errc() && parsed.ptr == name.data() + dash && pid > 0 ? pid : 0;
}

// A tpu killed (SIGKILL) before its board attached could not remove its folder: the next tpu does,
// for every folder whose owner is gone.
void remove_abandoned_folders(const std::filesystem::path& base) {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(base, error)) {
    const pid_t owner = owner_of(entry.path().filename().string());
    if (owner != 0 && ::kill(owner, 0) != 0 && errno == ESRCH) std::filesystem::remove_all(entry.path(), error);
  }
}

// A window inside the RAM file (no wrap-around), page aligned, small enough for the control block's u32.
bool layout_is_sound(const ShmLayout& layout) {
  const uint64_t page = 4096;
  return layout.window_offset % page == 0 && layout.window_bytes % page == 0 &&
         layout.window_offset <= layout.ram_bytes && layout.window_bytes <= layout.ram_bytes - layout.window_offset &&
         layout.window_bytes <= (1ull << 31);
}

}  // namespace

std::optional<ShmLayout> parse_shm_layout(const std::string& text) {
  if (text.find('-') != std::string::npos) return std::nullopt;  // >> into an unsigned would take "-4096"
  std::istringstream in(text);
  ShmLayout layout;
  if (!(in >> layout.ram_bytes >> layout.window_offset >> layout.window_bytes)) return std::nullopt;
  std::string kind;
  if (in >> kind) {
    if (kind != "process") return std::nullopt;
    layout.memory_is_process = true;
  }
  if (layout.window_bytes == 0) return layout;
  if (!layout_is_sound(layout)) return std::nullopt;
  return layout;
}

std::unique_ptr<ShmLink> ShmLink::create(const ShmLayout& layout, std::string& error) {
  if (!layout_is_sound(layout)) {
    error = "shared-memory link: a window of " + std::to_string(layout.window_bytes) + " bytes at offset " +
            std::to_string(layout.window_offset) + " does not lie page-aligned inside " +
            std::to_string(layout.ram_bytes) + " bytes of RAM";
    return nullptr;
  }
  rt::Result<rt::link::ShmControl> plan = rt::link::plan_shm_window(layout.window_bytes);
  if (!plan) {
    error = plan.status().c_str();
    return nullptr;
  }
  std::unique_ptr<ShmLink> link(new ShmLink());
  link->memory_is_process_ = layout.memory_is_process;
  const std::filesystem::path base = folder_base(layout.ram_bytes);
  remove_abandoned_folders(base);
  std::string folder = (base / (std::string(kFolderPrefix) + std::to_string(::getpid()) + "-XXXXXX")).string();
  if (::mkdtemp(folder.data()) == nullptr) {
    error = "cannot create a folder for the shared-memory link in " + folder + ": " + errno_text();
    return nullptr;
  }
  link->folder_ = folder;
  link->ram_file_ = link->folder_ / "board-ram";
  const int fd = ::open(link->ram_file_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    error = "cannot create " + link->ram_file_.string() + ": " + errno_text();
    return nullptr;  // the destructor removes the folder
  }
  link->file_present_ = true;
  if (::ftruncate(fd, static_cast<off_t>(layout.ram_bytes)) != 0) {
    error = "cannot size " + link->ram_file_.string() + ": " + errno_text();
    ::close(fd);
    return nullptr;
  }
  void* mapped = ::mmap(nullptr, layout.ram_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (mapped == MAP_FAILED) {
    error = "cannot map " + link->ram_file_.string() + ": " + errno_text();
    return nullptr;
  }
  link->ram_ = static_cast<uint8_t*>(mapped);
  link->ram_bytes_ = layout.ram_bytes;
  link->window_offset_ = layout.window_offset;
  link->window_ = link->ram_ + layout.window_offset;
  link->window_bytes_ = layout.window_bytes;
  link->control_ = reinterpret_cast<rt::link::ShmControl*>(link->window_);
  // The control block, magic last: a board that sees the magic sees a complete block.
  rt::link::ShmControl control = *plan;
  control.magic = 0;
  std::memcpy(link->control_, &control, sizeof control);
  __atomic_store_n(&link->control_->magic, rt::link::kShmMagic, __ATOMIC_RELEASE);
  link->to_board_.attach(link->window_, control.to_board);
  link->to_host_.attach(link->window_, control.to_host);
  return link;
}

ShmLink::~ShmLink() {
  close();
  if (ram_ != nullptr) ::munmap(ram_, ram_bytes_);
  remove_file();
}

void ShmLink::remove_file() {
  std::error_code ignored;
  if (file_present_) std::filesystem::remove(ram_file_, ignored);
  file_present_ = false;
  if (!folder_.empty()) std::filesystem::remove(folder_, ignored);
  folder_.clear();
}

void ShmLink::close() {
  if (control_ == nullptr) return;
  rt::link::set_shm_host_state(*control_, rt::link::ShmHostState::kClosed);
  ring_board();  // a core asleep on the doorbell sees the closed link now, not at the end of its sleep
}

void ShmLink::fail(std::string reason) {
  if (!failure_) failure_ = std::move(reason);
}

rt::link::ShmBoardState ShmLink::board_state() const {
  return control_ == nullptr ? rt::link::ShmBoardState::kNotSeen : rt::link::shm_board_state(*control_);
}

bool ShmLink::send(const rt::link::FrameHeader& header, rt::Span<const uint8_t> payload) {
  uint8_t head[rt::link::kFrameHeaderBytes];
  uint8_t tail[rt::link::kFrameCrcBytes];
  const rt::Status parts = rt::link::frame_body_parts(header, payload, head, tail, rt::link::kMaxRecordPayload,
                                                       rt::link::kMessageKinds);
  if (!parts.is_ok()) {
    fail(std::string("a frame for the board could not be built: ") + parts.c_str());
    return false;
  }
  if (failure_) return false;
  const uint64_t body = sizeof head + payload.size() + sizeof tail;
  if (queue_.empty()) {
    rt::Result<bool> room = to_board_.has_room(body);
    if (!room) {
      fail(room.status().c_str());
      return false;
    }
    if (*room) {
      to_board_.write(head, payload, tail);
      ++frames_sent_;
      ring_board();
      return true;
    }
  }
  std::vector<uint8_t> copy(body);
  std::memcpy(copy.data(), head, sizeof head);
  if (!payload.empty()) std::memcpy(copy.data() + sizeof head, payload.data(), payload.size());
  std::memcpy(copy.data() + sizeof head + payload.size(), tail, sizeof tail);
  queue_.push_back(std::move(copy));
  return true;
}

size_t ShmLink::flush() {
  size_t sent = 0;
  while (!queue_.empty() && !failure_) {
    const std::vector<uint8_t>& body = queue_.front();
    rt::Result<bool> room = to_board_.has_room(body.size());
    if (!room) {
      fail(room.status().c_str());
      break;
    }
    if (!*room) break;
    to_board_.write(rt::Span<const uint8_t>(body.data(), body.size()));
    ++frames_sent_;
    queue_.pop_front();
    ++sent;
  }
  if (sent != 0) ring_board();
  return sent;
}

void ShmLink::ring_board() {
  if (control_ != nullptr && rt::link::ring_shm_doorbell(control_->board_bell))
    syscall(SYS_futex, &control_->board_bell.rings, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

uint32_t ShmLink::board_rings() const {
  return control_ == nullptr ? 0 : rt::link::shm_doorbell_rings(control_->host_bell);
}

void ShmLink::sleep_until_board_rings(uint32_t seen, std::chrono::nanoseconds longest) {
  if (control_ == nullptr) return std::this_thread::sleep_for(longest);
  const timespec timeout{static_cast<time_t>(longest.count() / 1000000000), static_cast<long>(longest.count() % 1000000000)};
  rt::link::sleep_on_shm_doorbell(control_->host_bell, seen, [&timeout](const uint32_t* word, uint32_t value) {
    syscall(SYS_futex, word, FUTEX_WAIT, value, &timeout, nullptr, 0);  // EAGAIN (rang), EINTR, ETIMEDOUT: return
  });
}

uint8_t* ShmLink::board_memory(uint64_t address, uint64_t bytes) const {
  const uint64_t window_address = __atomic_load_n(&control_->window_address, __ATOMIC_RELAXED);
  const uint64_t aperture = __atomic_load_n(&control_->aperture_address, __ATOMIC_RELAXED);
  const uint64_t aperture_bytes = __atomic_load_n(&control_->aperture_bytes, __ATOMIC_RELAXED);
  // File offset of a board address: the window's address maps to window_offset_.
  if (window_address < window_offset_ || aperture < window_address - window_offset_) return nullptr;
  const uint64_t aperture_offset = aperture - (window_address - window_offset_);
  const bool aperture_ok = aperture_offset <= ram_bytes_ && aperture_bytes <= ram_bytes_ - aperture_offset &&
                           (aperture_offset + aperture_bytes <= window_offset_ || aperture_offset >= window_offset_ + window_bytes_);
  if (!aperture_ok || address < aperture || bytes > aperture_bytes || address - aperture > aperture_bytes - bytes) return nullptr;
  return ram_ + aperture_offset + (address - aperture);
}

std::vector<bool> ShmLink::place_results(unsigned core, uint32_t id, const std::vector<std::span<const uint8_t>>& results) {
  std::vector<size_t> sizes;
  for (const std::span<const uint8_t>& result : results) sizes.push_back(result.size());
  return place_results(core, id, sizes, [&results](size_t index, std::span<uint8_t> destination) {
    if (!destination.empty()) std::memcpy(destination.data(), results[index].data(), destination.size());
  });
}

std::optional<rt::link::ShmReplyTarget> ShmLink::take_reply_target(unsigned core, uint32_t id) {
  if (core >= rt::link::kShmMaxCores || failure_) return std::nullopt;
  rt::link::ShmReplyTarget& target = control_->targets[core];
  using rt::link::ShmTargetState;
  if (!rt::link::move_shm_target_state(target, ShmTargetState::kArmed, ShmTargetState::kWriting)) return std::nullopt;
  rt::link::ShmReplyTarget armed;
  std::memcpy(&armed, &target, sizeof armed);  // one read of the board's fields: checked values are the used ones
  if (armed.call_id == id) return armed;
  return_reply_target(core);  // armed for a newer call: this reply is late, leave the targets alone
  return std::nullopt;
}

void ShmLink::return_reply_target(unsigned core) {
  using rt::link::ShmTargetState;
  rt::link::move_shm_target_state(control_->targets[core], ShmTargetState::kWriting, ShmTargetState::kArmed);
}

std::vector<bool> ShmLink::place_results(unsigned core, uint32_t id, const std::vector<size_t>& sizes,
                                         const ResultWriter& write) {
  std::vector<bool> placed(sizes.size(), false);
  const std::optional<rt::link::ShmReplyTarget> taken = take_reply_target(core, id);
  if (!taken) return placed;
  const rt::link::ShmReplyTarget& armed = *taken;
  const size_t count = std::min<size_t>({sizes.size(), armed.count, rt::link::kShmMaxTargets});
  for (size_t i = 0; i < count; ++i) {
    if (armed.address[i] == 0 || armed.bytes[i] != sizes[i]) continue;
    uint8_t* destination = board_memory(armed.address[i], armed.bytes[i]);
    if (destination == nullptr) continue;
    write(i, std::span<uint8_t>(destination, sizes[i]));
    bytes_placed_ += sizes[i];
    placed[i] = true;
  }
  // Release: the bytes before the frames. (Only if the board did not give up waiting for us.)
  using rt::link::ShmTargetState;
  rt::link::move_shm_target_state(control_->targets[core], ShmTargetState::kWriting, ShmTargetState::kWritten);
  return placed;
}

uint8_t* ShmLink::claim_result(unsigned core, uint32_t id, size_t bytes) {
  const std::optional<rt::link::ShmReplyTarget> armed = take_reply_target(core, id);
  if (!armed) return nullptr;
  const bool fits = armed->count >= 1 && armed->address[0] != 0 && armed->bytes[0] == bytes;
  uint8_t* destination = fits ? board_memory(armed->address[0], bytes) : nullptr;
  if (destination == nullptr) return_reply_target(core);
  return destination;
}

void ShmLink::release_result(unsigned core, uint32_t id) {
  if (core >= rt::link::kShmMaxCores) return;
  // The board writes call_id only when it arms, which it cannot while the target is claimed: another
  // id means it took the target back (it gave the call up) and armed it for a newer call.
  if (__atomic_load_n(&control_->targets[core].call_id, __ATOMIC_ACQUIRE) != id) return;
  return_reply_target(core);
}

std::optional<std::span<const uint8_t>> ShmLink::view_board_memory(uint64_t address, uint64_t bytes) {
  const uint8_t* source = failure_ ? nullptr : board_memory(address, bytes);
  if (source == nullptr) return std::nullopt;
  bytes_read_in_place_ += bytes;
  return std::span<const uint8_t>(source, bytes);
}

std::optional<std::vector<uint8_t>> ShmLink::read_board_memory(uint64_t address, uint64_t bytes) {
  const std::optional<std::span<const uint8_t>> view = view_board_memory(address, bytes);
  if (!view) return std::nullopt;
  return std::vector<uint8_t>(view->begin(), view->end());
}

std::optional<std::pair<uint64_t, uint64_t>> ShmLink::core_status_place() const {
  if (control_ == nullptr || board_state() == rt::link::ShmBoardState::kNotSeen) return std::nullopt;
  const uint64_t address = __atomic_load_n(&control_->core_status_address, __ATOMIC_RELAXED);
  const uint64_t bytes = __atomic_load_n(&control_->core_status_bytes, __ATOMIC_RELAXED);
  if (address == 0) return std::nullopt;
  return std::make_pair(address, bytes);
}

std::optional<std::vector<uint8_t>> ShmLink::read_board_ram(uint64_t address, uint64_t bytes) const {
  if (control_ == nullptr || bytes > kMaxRamRead) return std::nullopt;
  // The RAM's first byte in the board's address space: the window's address (board-written, so
  // checked) minus where the window lies in the file.
  const uint64_t window_address = __atomic_load_n(&control_->window_address, __ATOMIC_RELAXED);
  if (window_address < window_offset_) return std::nullopt;
  const uint64_t ram_address = window_address - window_offset_;
  if (address < ram_address || address - ram_address > ram_bytes_ || bytes > ram_bytes_ - (address - ram_address))
    return std::nullopt;
  const uint8_t* source = ram_ + (address - ram_address);
  return std::vector<uint8_t>(source, source + bytes);
}

bool ShmLink::place_infeed_tuple(uint16_t queue, uint64_t tuple, const std::vector<uint64_t>& elements,
                                 const FillElement& fill) {
  if (failure_) return false;
  for (rt::link::ShmInfeedTarget& published : control_->infeed) {
    uint32_t open = 1;  // held (2) while read and written: the board cannot withdraw the queue meanwhile
    if (!__atomic_compare_exchange_n(&published.state, &open, 2u, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) continue;
    rt::link::ShmInfeedTarget target;
    std::memcpy(&target, &published, sizeof target);  // one read: checked values are the used ones
    const bool ours = target.queue == queue;
    const bool placed = ours && fill_slot(target, tuple, elements, fill);
    __atomic_store_n(&published.state, 1u, __ATOMIC_RELEASE);
    if (ours) return placed;
  }
  return false;
}

bool ShmLink::fill_slot(const rt::link::ShmInfeedTarget& target, uint64_t tuple, const std::vector<uint64_t>& elements,
                        const FillElement& fill) {
  if (target.element_count != elements.size() || target.element_count > rt::link::kShmMaxInfeedElements ||
      target.slots == 0)
    return false;
  prefault_slots(target);
  const uint64_t slot = target.storage_address + (tuple % target.slots) * target.slot_bytes;
  std::vector<uint8_t*> destinations;
  for (size_t e = 0; e < elements.size(); ++e) {
    if (target.element_bytes[e] != elements[e] || target.element_offset[e] > target.slot_bytes) return false;
    uint8_t* destination = board_memory(slot + target.element_offset[e], elements[e]);
    if (destination == nullptr) return false;
    destinations.push_back(destination);
  }
  for (size_t e = 0; e < elements.size(); ++e) {
    if (!fill(e, std::span<uint8_t>(destinations[e], elements[e]))) break;  // the caller knows why
    bytes_placed_ += elements[e];
  }
  return true;
}

// The first tuples would otherwise pay a page fault per 4 KiB of slot as they are copied in (the RAM
// file's pages exist only once touched): a queue's slots are made resident in one call instead.
void ShmLink::prefault_slots(const rt::link::ShmInfeedTarget& target) {
  if (std::find(prefaulted_.begin(), prefaulted_.end(), target.storage_address) != prefaulted_.end()) return;
  prefaulted_.push_back(target.storage_address);
  const uint64_t bytes = target.slots * target.slot_bytes;
  if (target.slots == 0 || bytes / target.slots != target.slot_bytes) return;
  uint8_t* slots = board_memory(target.storage_address, bytes);
  if (slots == nullptr) return;
  const uintptr_t page = 4096;
  const uintptr_t first = reinterpret_cast<uintptr_t>(slots) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(slots) + bytes + page - 1) & ~(page - 1);
#ifdef MADV_POPULATE_WRITE
  ::madvise(reinterpret_cast<void*>(first), end - first, MADV_POPULATE_WRITE);  // best effort: faults otherwise
#endif
}

size_t ShmLink::receive(const Receiver& receiver, size_t max_frames) {
  if (file_present_ && board_state() != rt::link::ShmBoardState::kNotSeen) remove_file();  // QEMU has it mapped
  size_t frames = 0;
  while (frames < max_frames && !failure_) {
    rt::Result<rt::Span<const uint8_t>> record = to_host_.peek();
    if (!record) {
      fail(record.status().c_str());
      break;
    }
    if (record->data() == nullptr) break;  // nothing published
    record_copy_.assign(record->data(), record->data() + record->size());
    to_host_.release();
    bytes_received_ += record_copy_.size();
    ++frames_received_;
    receiver(std::span<const uint8_t>(record_copy_.data(), record_copy_.size()));
    ++frames;
  }
  // Room in the ring, for a core that waits to send (only then: the sender of a host call's request
  // sleeps waiting for its reply, not for this).
  if (frames != 0 && control_ != nullptr && rt::link::cores_wait_for_room(*control_)) ring_board();
  return frames;
}

}  // namespace tpu
