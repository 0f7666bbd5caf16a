// A dataset's bytes (host-tools/lib/tensors/byte_source.hpp): a board's pieces of a step read straight
// into place (preadv from a file, in batches of 512 pieces; memcpy from memory) equal a naive loop over
// the same bytes; a piece past the end, or a file that shrank, is an error naming the file.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "host-tools/lib/tensors/byte_source.hpp"
#include "scratch_directory.hpp"

namespace {

std::vector<uint8_t> numbered_bytes(size_t count) {
  std::vector<uint8_t> bytes(count);
  for (size_t i = 0; i < count; ++i) bytes[i] = static_cast<uint8_t>(i * 7 + i / 251);
  return bytes;
}

// What read_pieces must give: piece p is bytes [offset + p * stride, + piece_bytes).
std::vector<uint8_t> naive_pieces(const std::vector<uint8_t>& all, uint64_t offset, uint64_t stride, uint64_t pieces,
                                  uint64_t piece_bytes) {
  std::vector<uint8_t> out;
  for (uint64_t p = 0; p < pieces; ++p)
    out.insert(out.end(), all.begin() + static_cast<long>(offset + p * stride),
               all.begin() + static_cast<long>(offset + p * stride + piece_bytes));
  return out;
}

std::shared_ptr<const tpu::ByteSource> file_of(const ScratchDirectory& scratch, const std::vector<uint8_t>& bytes) {
  const std::filesystem::path path = scratch / "data.bin";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<long>(bytes.size()));
  std::string error;
  std::shared_ptr<const tpu::ByteSource> source = tpu::ByteSource::open_file(path, error);
  REQUIRE(source);
  return source;
}

}  // namespace

TEST_CASE("a board's pieces of a step come straight into place, from a file or from memory", "[byte-source]") {
  ScratchDirectory scratch("byte-source");
  const std::vector<uint8_t> all = numbered_bytes(300000);
  const std::shared_ptr<const tpu::ByteSource> file = file_of(scratch, all);
  const std::shared_ptr<const tpu::ByteSource> memory = tpu::ByteSource::in_memory(all, "in memory");
  struct Layout {
    uint64_t offset, stride, pieces, piece_bytes;
  };
  // Columns 2 of 3 floats (one 4-byte piece per 12-byte row), 1300 pieces (three preadv batches),
  // pieces with no gap between them, one piece, and none.
  for (const Layout& layout : {Layout{136, 12, 8, 4}, Layout{128 + 8, 12, 1300, 4}, Layout{5, 64, 700, 32},
                               Layout{0, 16, 100, 16}, Layout{77, 1000, 1, 999}, Layout{0, 8, 0, 4}}) {
    const std::vector<uint8_t> expected = naive_pieces(all, layout.offset, layout.stride, layout.pieces, layout.piece_bytes);
    for (const auto& source : {file, memory}) {
      std::vector<uint8_t> got(expected.size(), 0xee);
      std::string error;
      REQUIRE(source->read_pieces(layout.offset, layout.stride, layout.pieces, layout.piece_bytes, got, error));
      CHECK(error.empty());
      CHECK(got == expected);
    }
  }
}

TEST_CASE("pieces past the end of the bytes are an error naming the source", "[byte-source]") {
  ScratchDirectory scratch("byte-source");
  const std::vector<uint8_t> all = numbered_bytes(1000);
  const std::shared_ptr<const tpu::ByteSource> file = file_of(scratch, all);
  std::vector<uint8_t> into(10 * 8);
  std::string error;
  CHECK_FALSE(file->read_pieces(300, 80, 10, 8, into, error));  // the last piece would end at 1028
  CHECK(error == (scratch / "data.bin").string() + ": bytes 300..1028 lie past its end");
  CHECK_FALSE(tpu::ByteSource::in_memory(all, "batch")->read_pieces(300, 80, 10, 8, into, error));
  CHECK(error == "batch: bytes 300..1028 lie past its end");
  // Pieces that do not make the bytes asked for (a caller's mistake) say so, nothing read.
  std::vector<uint8_t> small(10);
  CHECK_FALSE(file->read_pieces(0, 80, 10, 8, small, error));
  CHECK(error == (scratch / "data.bin").string() + ": 10 pieces of 8 bytes every 80 do not make 10 bytes");
  CHECK_FALSE(file->read_pieces(0, 4, 10, 8, into, error));  // pieces longer than their stride
  CHECK(error == (scratch / "data.bin").string() + ": 10 pieces of 8 bytes every 4 do not make 80 bytes");
  // The file shrinks after it was opened: the short preadv falls back to piece by piece, which says so.
  std::filesystem::resize_file(scratch / "data.bin", 500);
  CHECK_FALSE(file->read_pieces(0, 80, 10, 8, into, error));
  CHECK(error == (scratch / "data.bin").string() + ": it shrank while tpu was reading it");
}
