// Loading and checking `tpu run --infeed` datasets (see infeed_dataset.hpp).
#include "infeed_dataset.hpp"

#include <charconv>
#include <fstream>
#include <sstream>

#include "runtime/link/protocol/infeed_buffer.hpp"
#include "runtime/tensor/npy.hpp"

namespace tpu {
namespace {

constexpr uint64_t kMaxInfeedFileBytes = uint64_t{4} << 30;

std::string text_of(const rt::Status& status) { return std::string(status.message().data(), status.message().size()); }

std::string shape_text(const rt::Shape& shape) {
  std::string text = "[";
  for (unsigned d = 0; d < shape.rank; ++d) text += (d ? ", " : "") + std::to_string(shape.dims[d]);
  return text + "]";
}

std::optional<std::vector<uint8_t>> read_file(const std::filesystem::path& path, std::string& error) {
  std::error_code code;
  const uintmax_t size = std::filesystem::file_size(path, code);
  if (code) {
    error = "cannot read " + path.string() + ": " + code.message();
    return std::nullopt;
  }
  if (size > kMaxInfeedFileBytes) {
    error = path.string() + " has " + std::to_string(size) + " bytes, more than the 4 GiB an infeed file may have";
    return std::nullopt;
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  std::ifstream file(path, std::ios::binary);
  file.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!file) {
    error = "cannot read " + path.string();
    return std::nullopt;
  }
  return bytes;
}

}  // namespace

std::optional<InfeedSpec> parse_infeed_spec(const std::string& value, std::string& error) {
  const size_t equals = value.find('=');
  InfeedSpec spec;
  const char* begin = value.data();
  const char* end = value.data() + (equals == std::string::npos ? 0 : equals);
  unsigned queue = 0;
  const auto parsed = std::from_chars(begin, end, queue);
  if (equals == std::string::npos || equals == 0 || parsed.ec != std::errc() || parsed.ptr != end || queue > 65535) {
    error = "--infeed takes QUEUE=FILE.npy[,FILE2.npy...] with QUEUE a number 0..65535, got '" + value + "'";
    return std::nullopt;
  }
  spec.queue = static_cast<uint16_t>(queue);
  std::stringstream files(value.substr(equals + 1));
  for (std::string file; std::getline(files, file, ',');) {
    if (file.empty()) {
      error = "--infeed " + value + ": an empty file name";
      return std::nullopt;
    }
    spec.files.emplace_back(file);
  }
  if (spec.files.empty() || spec.files.size() > rt::link::kMaxInfeedElements) {
    error = "--infeed " + value + ": give 1.." + std::to_string(rt::link::kMaxInfeedElements) +
            " .npy files (one per tuple element)";
    return std::nullopt;
  }
  return spec;
}

std::optional<InfeedElement> InfeedDataset::parse_element(std::filesystem::path file, std::vector<uint8_t> bytes,
                                                          std::string& error) {
  rt::Result<rt::NpyView> npy = rt::npy_parse(rt::Span<const uint8_t>(bytes.data(), bytes.size()));
  if (!npy) {
    error = file.string() + ": " + text_of(npy.status());
    return std::nullopt;
  }
  if (npy->shape.rank == 0) {
    error = file.string() + ": a scalar has no step dimension (the first dimension indexes steps)";
    return std::nullopt;
  }
  InfeedElement element;
  element.dtype = npy->dtype;
  element.shape.rank = static_cast<uint8_t>(npy->shape.rank - 1);
  for (unsigned d = 1; d < npy->shape.rank; ++d) element.shape.dims[d - 1] = element.shape.real[d - 1] = npy->shape.dims[d];
  rt::Result<uint64_t> step_bytes = rt::link::tensor_byte_size(element.dtype, element.shape);
  if (!step_bytes) {
    error = file.string() + ": " + text_of(step_bytes.status());
    return std::nullopt;
  }
  element.step_bytes = element.step_stride = *step_bytes;
  element.data_offset = static_cast<size_t>(npy->data.data() - bytes.data());
  element.file = std::move(file);
  element.file_bytes = std::move(bytes);
  return element;
}

std::optional<InfeedDataset> InfeedDataset::from_npy_bytes(uint16_t queue, std::vector<std::vector<uint8_t>> files,
                                                           std::string& error,
                                                           const std::vector<std::filesystem::path>& names) {
  InfeedDataset dataset;
  dataset.queue_ = queue;
  if (files.size() > rt::link::kMaxInfeedElements) {
    error = "queue " + std::to_string(queue) + ": " + std::to_string(files.size()) + " files, at most " +
            std::to_string(rt::link::kMaxInfeedElements) + " tuple elements";
    return std::nullopt;
  }
  for (size_t i = 0; i < files.size(); ++i) {
    const std::filesystem::path name = i < names.size() ? names[i] : std::filesystem::path("element " + std::to_string(i));
    std::optional<InfeedElement> element = parse_element(name, std::move(files[i]), error);
    if (!element) return std::nullopt;
    const rt::NpyView view = *rt::npy_parse(rt::Span<const uint8_t>(element->file_bytes.data(), element->file_bytes.size()));
    const uint64_t steps = static_cast<uint64_t>(view.shape.dims[0]);
    if (i == 0) dataset.steps_ = steps;
    if (steps != dataset.steps_) {
      error = "queue " + std::to_string(queue) + ": " + dataset.elements_[0].file.string() + " has " +
              std::to_string(dataset.steps_) + " steps but " + name.string() + " has " + std::to_string(steps) +
              " (the first dimension indexes steps and must agree)";
      return std::nullopt;
    }
    dataset.elements_.push_back(std::move(*element));
  }
  if (dataset.elements_.empty()) {
    error = "queue " + std::to_string(queue) + ": no files";
    return std::nullopt;
  }
  return dataset;
}

std::optional<InfeedDataset> InfeedDataset::load(const InfeedSpec& spec, std::string& error) {
  std::vector<std::vector<uint8_t>> files;
  for (const std::filesystem::path& path : spec.files) {
    std::optional<std::vector<uint8_t>> bytes = read_file(path, error);
    if (!bytes) return std::nullopt;
    files.push_back(std::move(*bytes));
  }
  return from_npy_bytes(spec.queue, std::move(files), error, spec.files);
}

uint64_t InfeedDataset::tuple_bytes() const {
  uint64_t total = 0;
  for (const InfeedElement& element : elements_) total += element.step_bytes;
  return total;
}

rt::Span<const uint8_t> InfeedDataset::step_data(uint64_t step, size_t element) const {
  const InfeedElement& e = elements_[element];
  return rt::Span<const uint8_t>(e.file_bytes.data() + e.data_offset + step * e.step_stride + e.slice_offset,
                                 e.step_bytes);
}

bool InfeedDataset::split_for_board(unsigned board, unsigned boards, std::string& error) {
  for (InfeedElement& element : elements_) {
    const int64_t rows = element.shape.rank == 0 ? 0 : element.shape.dims[0];
    if (rows == 0 || rows % boards != 0) {
      error = element.file.string() + ": a step of " + std::string(rt::dtype_name(element.dtype)) +
              shape_text(element.shape) + " does not split its first dimension over " + std::to_string(boards) +
              " boards (each board streams its own rows: TPU per-host input)";
      return false;
    }
    const uint64_t row_bytes = element.step_bytes / static_cast<uint64_t>(rows);
    element.shape.dims[0] = element.shape.real[0] = rows / boards;
    element.step_bytes = row_bytes * static_cast<uint64_t>(rows / boards);
    element.slice_offset = element.step_bytes * board;
  }
  return true;
}

std::string InfeedDataset::describe() const {
  std::string text;
  for (const InfeedElement& element : elements_)
    text += (text.empty() ? "" : ", ") + std::string(rt::dtype_name(element.dtype)) + shape_text(element.shape);
  return text;
}

}  // namespace tpu
