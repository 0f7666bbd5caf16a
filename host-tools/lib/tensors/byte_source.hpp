// Where a dataset's bytes come from: a file kept open and read with pread (or preadv, for a board's
// pieces of each step) straight into the caller's memory (for infeed on shared memory that is the
// board's slot: one copy from the page cache, nothing read twice, nothing mapped that a file
// truncated under us could turn into SIGBUS), or bytes already in memory (a dataset a host function
// made).
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace tpu {

class ByteSource {
 public:
  // Opens `path` for reading; nothing with `error` naming the file.
  static std::shared_ptr<const ByteSource> open_file(const std::filesystem::path& path, std::string& error);
  static std::shared_ptr<const ByteSource> in_memory(std::vector<uint8_t> bytes, std::filesystem::path name);
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;
  ~ByteSource();

  uint64_t size() const { return size_; }
  const std::filesystem::path& name() const { return name_; }
  // Copies bytes [offset, offset + into.size()) into `into`; false with `error` if they are not all
  // there any more (the file shrank since it was opened) or the read fails.
  bool read(uint64_t offset, std::span<uint8_t> into, std::string& error) const;
  // Copies `pieces` pieces of `piece_bytes`, the first at `offset` and each `stride` bytes after the
  // one before, into `into` end to end (a board's columns of a step): from a file in one preadv per
  // 512 pieces, the bytes between them read into a scratch line never copied on, so every byte wanted
  // is copied once. False with `error` as read's.
  bool read_pieces(uint64_t offset, uint64_t stride, uint64_t pieces, uint64_t piece_bytes, std::span<uint8_t> into,
                   std::string& error) const;

 private:
  ByteSource() = default;
  int fd_ = -1;
  uint64_t size_ = 0;
  std::vector<uint8_t> memory_;
  std::filesystem::path name_;
};

}  // namespace tpu
