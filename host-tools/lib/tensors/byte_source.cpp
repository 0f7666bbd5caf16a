// Dataset bytes from a file or from memory (byte_source.hpp).
#include "byte_source.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace tpu {

std::shared_ptr<const ByteSource> ByteSource::open_file(const std::filesystem::path& path, std::string& error) {
  std::shared_ptr<ByteSource> source(new ByteSource());
  source->name_ = path;
  source->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat status {};
  if (source->fd_ < 0 || ::fstat(source->fd_, &status) != 0) {
    error = "cannot read " + path.string() + ": " + std::strerror(errno);
    return nullptr;
  }
  if (!S_ISREG(status.st_mode)) {
    error = "cannot read " + path.string() + ": not a regular file";
    return nullptr;
  }
  source->size_ = static_cast<uint64_t>(status.st_size);
  ::posix_fadvise(source->fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  return source;
}

std::shared_ptr<const ByteSource> ByteSource::in_memory(std::vector<uint8_t> bytes, std::filesystem::path name) {
  std::shared_ptr<ByteSource> source(new ByteSource());
  source->size_ = bytes.size();
  source->memory_ = std::move(bytes);
  source->name_ = std::move(name);
  return source;
}

ByteSource::~ByteSource() {
  if (fd_ >= 0) ::close(fd_);
}

bool ByteSource::read(uint64_t offset, std::span<uint8_t> into, std::string& error) const {
  if (offset > size_ || into.size() > size_ - offset) {
    error = name_.string() + ": bytes " + std::to_string(offset) + ".." + std::to_string(offset + into.size()) +
            " lie past its end";
    return false;
  }
  if (fd_ < 0) {
    if (!into.empty()) std::memcpy(into.data(), memory_.data() + offset, into.size());
    return true;
  }
  size_t done = 0;
  while (done < into.size()) {
    const ssize_t got = ::pread(fd_, into.data() + done, into.size() - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      error = name_.string() + ": " + (got == 0 ? std::string("it shrank while tpu was reading it") : std::strerror(errno));
      return false;
    }
    done += static_cast<size_t>(got);
  }
  return true;
}

bool ByteSource::read_pieces(uint64_t offset, uint64_t stride, uint64_t pieces, uint64_t piece_bytes,
                             std::span<uint8_t> into, std::string& error) const {
  uint64_t total = 0, span = 0;  // span: from the first piece's start to the last's end
  const bool fits = piece_bytes <= stride && !__builtin_mul_overflow(pieces, piece_bytes, &total) &&
                    total == into.size() &&
                    (pieces == 0 || (!__builtin_mul_overflow(pieces - 1, stride, &span) &&
                                     !__builtin_add_overflow(span, piece_bytes, &span)));
  if (!fits) {
    error = name_.string() + ": " + std::to_string(pieces) + " pieces of " + std::to_string(piece_bytes) +
            " bytes every " + std::to_string(stride) + " do not make " + std::to_string(into.size()) + " bytes";
    return false;
  }
  if (pieces == 0) return true;
  if (offset > size_ || span > size_ - offset) {
    error = name_.string() + ": bytes " + std::to_string(offset) + ".." + std::to_string(offset + span) +
            " lie past its end";
    return false;
  }
  if (fd_ < 0) {
    for (uint64_t p = 0; p < pieces; ++p)
      std::memcpy(into.data() + p * piece_bytes, memory_.data() + offset + p * stride, piece_bytes);
    return true;
  }
  constexpr uint64_t kPiecesPerCall = 512;  // two iovecs a piece, IOV_MAX (1024) at most
  thread_local std::vector<uint8_t> gap;    // where the bytes between two pieces land
  gap.resize(stride - piece_bytes);
  std::vector<iovec> vectors;
  for (uint64_t first = 0; first < pieces; first += kPiecesPerCall) {
    const uint64_t count = std::min(kPiecesPerCall, pieces - first);
    vectors.clear();
    for (uint64_t p = first; p < first + count; ++p) {
      if (p > first && !gap.empty()) vectors.push_back({gap.data(), gap.size()});
      vectors.push_back({into.data() + p * piece_bytes, piece_bytes});
    }
    const uint64_t want = (count - 1) * stride + piece_bytes;
    ssize_t got;
    const off_t at = static_cast<off_t>(offset + first * stride);
    do got = ::preadv(fd_, vectors.data(), static_cast<int>(vectors.size()), at);
    while (got < 0 && errno == EINTR);
    if (got >= 0 && static_cast<uint64_t>(got) == want) continue;
    for (uint64_t p = first; p < first + count; ++p)  // short (a signal, a shrinking file): piece by piece
      if (!read(offset + p * stride, into.subspan(p * piece_bytes, piece_bytes), error)) return false;
  }
  return true;
}

}  // namespace tpu
