// Records between tpu and its host-function worker (host_call_wire.hpp).
#include "host_call_wire.hpp"

#include <cstdint>
#include <cstring>

namespace tpu::host_call_wire {
namespace {

constexpr uint32_t kRequestMagic = 0x51524648;  // "HFRQ"
constexpr uint32_t kOutcomeMagic = 0x50524648;  // "HFRP"
constexpr uint32_t kMaxTensors = 1u << 16;
constexpr uint32_t kMaxRank = 64;
constexpr uint8_t kLastDType = static_cast<uint8_t>(rt::DType::kC64);
constexpr uint32_t kLastStatus = static_cast<uint32_t>(rt::kLastStatusCode);

}  // namespace

// Builds a Record: small fields go into the current owned buffer, tensor bytes become pieces of
// their own; finish() writes the body's length into the prefix.
class RecordWriter {
 public:
  RecordWriter() { record_.owned_.emplace_back(kPrefixBytes); }
  template <class T>
  void put(T value) {
    std::vector<uint8_t>& buffer = record_.owned_.back();
    const size_t at = buffer.size();
    buffer.resize(at + sizeof(T));
    std::memcpy(buffer.data() + at, &value, sizeof(T));
  }
  void put_borrowed(const uint8_t* data, size_t size) {
    put<uint64_t>(size);
    close_buffer();
    if (size != 0) record_.pieces_.emplace_back(data, size);
    record_.owned_.emplace_back();
  }
  void put_text(const std::string& text) { put_borrowed(reinterpret_cast<const uint8_t*>(text.data()), text.size()); }
  void put_tensors(const std::vector<HostTensor>& tensors) {
    put<uint32_t>(static_cast<uint32_t>(tensors.size()));
    for (const HostTensor& tensor : tensors) {
      put<uint8_t>(static_cast<uint8_t>(tensor.dtype));
      put<uint32_t>(static_cast<uint32_t>(tensor.dims.size()));
      for (const int64_t dim : tensor.dims) put<int64_t>(dim);
      put_borrowed(tensor.bytes.data(), tensor.bytes.size());
    }
  }
  Record finish() {
    close_buffer();
    const uint64_t body = record_.size() - kPrefixBytes;
    std::memcpy(record_.owned_.front().data(), &body, sizeof body);
    return std::move(record_);
  }

 private:
  void close_buffer() {
    const std::vector<uint8_t>& buffer = record_.owned_.back();
    if (!buffer.empty()) record_.pieces_.emplace_back(buffer.data(), buffer.size());
  }
  Record record_;
};

uint64_t Record::size() const {
  uint64_t total = 0;
  for (const std::span<const uint8_t> piece : pieces_) total += piece.size();
  return total;
}

std::vector<uint8_t> Record::flatten() const {
  std::vector<uint8_t> bytes;
  bytes.reserve(size());
  for (const std::span<const uint8_t> piece : pieces_) bytes.insert(bytes.end(), piece.begin(), piece.end());
  return bytes;
}

namespace {

// Reads fields in order; the first field that does not fit sets failed() and every later read
// returns zeros, so a decoder checks once at the end of each part.
class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  template <class T>
  T get() {
    T value{};
    if (!take(sizeof(T))) return value;
    std::memcpy(&value, data_ + at_ - sizeof(T), sizeof(T));
    return value;
  }
  bool get_bytes(std::vector<uint8_t>& out) {
    const uint64_t size = get<uint64_t>();
    if (failed_ || size > size_ - at_) return fail();
    out.assign(data_ + at_, data_ + at_ + size);
    at_ += size;
    return true;
  }
  std::string get_text() {
    std::vector<uint8_t> bytes;
    get_bytes(bytes);
    return std::string(bytes.begin(), bytes.end());
  }
  bool get_tensors(std::vector<HostTensor>& tensors) {
    const uint32_t count = get<uint32_t>();
    if (failed_ || count > kMaxTensors) return fail();
    tensors.resize(count);
    for (HostTensor& tensor : tensors) {
      const uint8_t dtype = get<uint8_t>();
      const uint32_t rank = get<uint32_t>();
      if (failed_ || dtype > kLastDType || rank > kMaxRank) return fail();
      tensor.dtype = static_cast<rt::DType>(dtype);
      tensor.dims.resize(rank);
      for (int64_t& dim : tensor.dims) dim = get<int64_t>();
      if (!get_bytes(tensor.bytes)) return false;
    }
    return !failed_;
  }
  bool failed() const { return failed_; }
  bool at_end() const { return at_ == size_; }

 private:
  bool take(size_t size) {
    if (failed_ || size > size_ - at_) return fail();
    at_ += size;
    return true;
  }
  bool fail() {
    failed_ = true;
    return false;
  }
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
  bool failed_ = false;
};

bool finished(const Reader& reader, const char* what, std::string& error) {
  if (!reader.failed() && reader.at_end()) return true;
  error = std::string("a malformed ") + what + " record (" + (reader.failed() ? "cut short or out of range" : "trailing bytes") + ")";
  return false;
}

}  // namespace

Record encode_request(const HostCallRequest& request) {
  RecordWriter writer;
  writer.put<uint32_t>(kRequestMagic);
  writer.put<uint32_t>(request.core);
  writer.put<uint32_t>(request.id);
  writer.put<int64_t>(request.replica ? int64_t{*request.replica} : -1);
  writer.put_text(request.function);
  writer.put_text(request.text);
  writer.put_tensors(request.tensors);
  return writer.finish();
}

Record encode_outcome(const HostCallOutcome& outcome) {
  RecordWriter writer;
  writer.put<uint32_t>(kOutcomeMagic);
  writer.put<uint32_t>(static_cast<uint32_t>(outcome.code));
  writer.put_text(outcome.message);
  writer.put_tensors(outcome.results);
  return writer.finish();
}

std::optional<uint64_t> body_length(const std::vector<uint8_t>& bytes) {
  if (bytes.size() < kPrefixBytes) return std::nullopt;
  uint64_t length = 0;
  std::memcpy(&length, bytes.data(), sizeof length);
  return length;
}

std::optional<HostCallRequest> decode_request(const uint8_t* body, size_t size, std::string& error) {
  Reader reader(body, size);
  HostCallRequest request;
  if (reader.get<uint32_t>() != kRequestMagic) {
    error = "not a host-call request record";
    return std::nullopt;
  }
  request.core = reader.get<uint32_t>();
  request.id = reader.get<uint32_t>();
  const int64_t replica = reader.get<int64_t>();
  if (replica >= 0 && replica <= UINT32_MAX) request.replica = static_cast<unsigned>(replica);
  request.function = reader.get_text();
  request.text = reader.get_text();
  reader.get_tensors(request.tensors);
  if (!finished(reader, "request", error)) return std::nullopt;
  return request;
}

std::optional<HostCallOutcome> decode_outcome(const uint8_t* body, size_t size, std::string& error) {
  Reader reader(body, size);
  HostCallOutcome outcome;
  if (reader.get<uint32_t>() != kOutcomeMagic) {
    error = "not a host-call outcome record";
    return std::nullopt;
  }
  const uint32_t code = reader.get<uint32_t>();
  outcome.message = reader.get_text();
  reader.get_tensors(outcome.results);
  if (!finished(reader, "outcome", error)) return std::nullopt;
  if (code > kLastStatus) {
    error = "an outcome record with status code " + std::to_string(code);
    return std::nullopt;
  }
  outcome.code = static_cast<rt::StatusCode>(code);
  return outcome;
}

}  // namespace tpu::host_call_wire
