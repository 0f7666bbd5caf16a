// tpu's side of the raspi3b chainloader's protocol (host-tools/lib/board/chainloader_upload.hpp)
// against a scripted loader: the header's bytes (magic, size, zlib's CRC-32), the image only after
// "receiving", what the image says after OK handed on, stale lines dropped, and each failure named.
#include <catch2/catch.hpp>

#include <deque>
#include <sstream>
#include <string>
#include <vector>

#include "host-tools/lib/board/chainloader_upload.hpp"

namespace {

using Clock = std::chrono::steady_clock;

std::vector<uint8_t> bytes_of(const std::string& text) { return std::vector<uint8_t>(text.begin(), text.end()); }

// A loader on the other end of the line: `stale` is waiting when the upload starts; then it says ready,
// answers a header with `receiving_line` (or the size it read), takes the image and says OK and
// `after_ok`. Its behaviour is scripted, its input recorded.
class ScriptedLoader final : public tpu::BoardChannel {
 public:
  std::string stale, receiving_line, after_ok = "[c0 I] tpu-pod runtime on raspi3b\n";
  bool loader_present = true;
  std::vector<uint8_t> received;
  size_t header_at_image = 0;  // bytes received when the image began (the header's size, if in order)

  void send(std::span<const uint8_t> bytes) override { received.insert(received.end(), bytes.begin(), bytes.end()); }

  bool pump(std::chrono::milliseconds, std::vector<uint8_t>& out) override {
    if (!stale_given_) {
      stale_given_ = true;
      append(out, stale);
      return true;
    }
    if (!drained_) {  // the upload drops what was waiting: one empty read ends that
      drained_ = true;
      return true;
    }
    if (!loader_present) return append(out, "[c0 I] PASS hello\n"), true;
    if (!ready_said_) {
      ready_said_ = true;
      append(out, "raspi3b-chainboot: ready\n");
    } else if (received.size() >= 16 && !receiving_said_) {
      receiving_said_ = true;
      header_at_image = received.size();
      const uint32_t size = read_u32(8);
      append(out, receiving_line.empty() ? "raspi3b-chainboot: receiving " + std::to_string(size) + " bytes\n"
                                         : receiving_line);
    } else if (receiving_said_ && !ok_said_ && received.size() >= 16 + read_u32(8)) {
      ok_said_ = true;
      append(out, "raspi3b-chainboot: OK, starting the image\n" + after_ok);
    }
    return true;
  }

  uint32_t read_u32(size_t at) const {
    uint32_t value = 0;
    for (int i = 3; i >= 0; --i) value = (value << 8) | received.at(at + static_cast<size_t>(i));
    return value;
  }

  std::optional<int> wait_for_exit(std::chrono::milliseconds) override { return std::nullopt; }
  void kill() override {}
  bool launched() const override { return false; }
  std::string name() const override { return "scripted loader"; }

 private:
  static void append(std::vector<uint8_t>& out, const std::string& text) {
    out.insert(out.end(), text.begin(), text.end());
  }
  bool stale_given_ = false, drained_ = false, ready_said_ = false, receiving_said_ = false, ok_said_ = false;
};

tpu::ChainloaderUpload upload(ScriptedLoader& loader, const std::vector<uint8_t>& image,
                              std::chrono::milliseconds within = std::chrono::seconds(5)) {
  std::ostringstream notes;
  return tpu::upload_to_chainloader(loader, image, Clock::now() + within, notes);
}

}  // namespace

TEST_CASE("chainloader upload: header, then the image, then what the image says", "[chainboot]") {
  ScriptedLoader loader;
  loader.stale = "raspi3b-chainboot: ERROR: no byte for 10 s after 5\nraspi3b-chainboot: ready\n";  // an upload stopped earlier
  const std::vector<uint8_t> image = bytes_of("123456789");
  const tpu::ChainloaderUpload result = upload(loader, image);
  REQUIRE_FALSE(result.error);
  CHECK(std::string(result.after_ok.begin(), result.after_ok.end()) == loader.after_ok);
  REQUIRE(loader.received.size() == 16 + image.size());
  CHECK(std::string(loader.received.begin(), loader.received.begin() + 8) == "TPUBOOT1");
  CHECK(loader.read_u32(8) == 9);
  CHECK(loader.read_u32(12) == 0xCBF43926u);  // zlib.crc32(b"123456789")
  CHECK(loader.header_at_image == 16);        // nothing of the image before the loader said receiving
  CHECK(std::vector<uint8_t>(loader.received.begin() + 16, loader.received.end()) == image);
}

TEST_CASE("chainloader upload: a header the loader read wrong, a refusal and no loader are named", "[chainboot]") {
  const std::vector<uint8_t> image = bytes_of("an image");
  SECTION("the size echoed differs") {
    ScriptedLoader loader;
    loader.receiving_line = "raspi3b-chainboot: receiving 4711 bytes\n";
    const tpu::ChainloaderUpload result = upload(loader, image);
    REQUIRE(result.error);
    CHECK(result.error->find("took our header as 'receiving 4711 bytes' (8 bytes sent)") != std::string::npos);
    CHECK(loader.received.size() == 16);  // the image was not sent
  }
  SECTION("the loader refuses the header") {
    ScriptedLoader loader;
    loader.receiving_line = "raspi3b-chainboot: ERROR: image size 8 is not in 1 .. 4\n";
    const tpu::ChainloaderUpload result = upload(loader, image);
    REQUIRE(result.error);
    CHECK(*result.error == "the chainloader refused the image: ERROR: image size 8 is not in 1 .. 4");
    CHECK_FALSE(result.timed_out);
  }
  SECTION("a board running an image instead of the loader") {
    ScriptedLoader loader;
    loader.loader_present = false;
    const tpu::ChainloaderUpload result = upload(loader, image, std::chrono::milliseconds(50));
    REQUIRE(result.error);
    CHECK(result.timed_out);
    CHECK(result.error->find("no 'raspi3b-chainboot: ready' from the board within the time allowed") != std::string::npos);
    CHECK(result.error->find("the board said instead:\n    [c0 I] PASS hello") != std::string::npos);
    CHECK(loader.received.empty());
  }
}
