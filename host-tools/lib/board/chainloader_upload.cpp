// The raspi3b chainloader's upload protocol from tpu's side (chainloader_upload.hpp).
#include "chainloader_upload.hpp"

#include <algorithm>

#include "runtime/link/transport/crc32.hpp"

namespace tpu {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kLoaderPrefix = "raspi3b-chainboot: ";
constexpr std::string_view kMagic = "TPUBOOT1";
constexpr auto kHeaderAnswerWithin = std::chrono::seconds(5);
constexpr auto kPoll = std::chrono::milliseconds(50);
constexpr size_t kOtherLinesKept = 4;

// A line of the loader's, quoted in messages: "raspi3b-chainboot: ready".
std::string loader_line(std::string_view what) { return std::string(kLoaderPrefix) + std::string(what); }

// The loader's lines as they come off the channel; bytes after the last whole line stay pending.
class LoaderLines {
 public:
  explicit LoaderLines(BoardChannel& channel) : channel_(channel) {}

  // Drops what was already waiting on the line (anything said before this upload began).
  void drop_waiting() {
    while (channel_.pump(std::chrono::milliseconds(0), pending_) && !pending_.empty()) pending_.clear();
  }

  // The next loader line starting with `what` (after the prefix), or an error: the loader's ERROR
  // line (if `errors_count`: once it has our header), the end of the stream, or the deadline (naming
  // `waiting_for`; timed_out() then says so).
  std::optional<std::string> wait_for(std::string_view what, Clock::time_point deadline, const std::string& waiting_for,
                                      bool errors_count, std::string& error) {
    for (;;) {
      while (std::optional<std::string> line = next_line()) {
        if (line->rfind(kLoaderPrefix, 0) != 0) {
          keep_other(*line);
          continue;
        }
        const std::string said = line->substr(kLoaderPrefix.size());
        if (errors_count && said.rfind("ERROR", 0) == 0) {
          error = "the chainloader refused the image: " + said;
          return std::nullopt;
        }
        if (said.rfind(what, 0) == 0) return said;
      }
      if (Clock::now() >= deadline) {
        timed_out_ = true;
        error = "no '" + loader_line(what) + "' from the board within the time allowed (" +
                waiting_for + ")" + other_text();
        return std::nullopt;
      }
      if (!channel_.pump(kPoll, pending_)) {
        error = "the line to the board closed while waiting for '" + loader_line(what) + "'" + other_text();
        return std::nullopt;
      }
    }
  }

  std::vector<uint8_t> take_pending() { return std::move(pending_); }
  bool timed_out() const { return timed_out_; }

 private:
  std::optional<std::string> next_line() {
    const auto end = std::find(pending_.begin(), pending_.end(), uint8_t{'\n'});
    if (end == pending_.end()) return std::nullopt;
    std::string line;
    for (auto byte = pending_.begin(); byte != end; ++byte)
      if (*byte != 0 && *byte != '\r') line.push_back(static_cast<char>(*byte));
    pending_.erase(pending_.begin(), end + 1);
    return line;
  }

  void keep_other(const std::string& line) {
    if (line.empty()) return;
    other_.push_back(line.substr(0, 120));
    if (other_.size() > kOtherLinesKept) other_.erase(other_.begin());
  }

  std::string other_text() const {
    if (other_.empty()) return "";
    std::string text = "; the board said instead:";
    for (const std::string& line : other_) text += "\n    " + line;
    return text;
  }

  BoardChannel& channel_;
  std::vector<uint8_t> pending_;
  std::vector<std::string> other_;
  bool timed_out_ = false;
};

void put_u32(std::vector<uint8_t>& bytes, uint32_t value) {
  for (int shift = 0; shift < 32; shift += 8) bytes.push_back(static_cast<uint8_t>(value >> shift));
}

std::vector<uint8_t> upload_header(std::span<const uint8_t> image) {
  std::vector<uint8_t> header(kMagic.begin(), kMagic.end());
  put_u32(header, static_cast<uint32_t>(image.size()));
  put_u32(header, rt::link::crc32(rt::Span<const uint8_t>(image.data(), image.size())));
  return header;
}

}  // namespace

ChainloaderUpload upload_to_chainloader(BoardChannel& channel, std::span<const uint8_t> image,
                                        Clock::time_point deadline, std::ostream& notes) {
  ChainloaderUpload upload;
  if (image.empty() || image.size() > UINT32_MAX) {
    upload.error = "the image of " + std::to_string(image.size()) + " bytes cannot be sent to the chainloader";
    return upload;
  }
  notes << "tpu: waiting for the raspi3b chainloader on " << channel.name() << " (reset the board into it if needed)"
        << std::endl;
  LoaderLines lines(channel);
  lines.drop_waiting();
  std::string error;
  const auto failed = [&]() {
    upload.error = error;
    upload.timed_out = lines.timed_out();
    return upload;
  };
  // Right after a ready line the loader listens (it says the next one a second later).
  if (!lines.wait_for("ready", deadline, "is the chainloader the board's kernel8.img (make sdcard "
                      "BOARD=raspi3b CHAINLOADER=1), and was the board reset?", false, error))
    return failed();
  channel.send(upload_header(image));
  const std::optional<std::string> receiving = lines.wait_for(
      "receiving", std::min(deadline, Clock::now() + kHeaderAnswerWithin), "the loader saw no valid header", true, error);
  if (!receiving) return failed();
  if (*receiving != "receiving " + std::to_string(image.size()) + " bytes") {
    error = "the chainloader took our header as '" + *receiving + "' (" + std::to_string(image.size()) +
            " bytes sent): the line garbled it";
    return failed();
  }
  const auto started = Clock::now();
  channel.send(image);
  if (!lines.wait_for("OK", deadline, "the image had not arrived whole", true, error)) return failed();
  notes << "tpu: chainloader: " << image.size() << " bytes sent in "
        << std::chrono::duration<double>(Clock::now() - started).count() << " s; the board starts the image" << std::endl;
  upload.after_ok = lines.take_pending();
  return upload;
}

}  // namespace tpu
