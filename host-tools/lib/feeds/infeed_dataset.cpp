// Loading and checking `tpu run --infeed` datasets (see infeed_dataset.hpp).
#include "infeed_dataset.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <sstream>

#include "host-tools/lib/text/rank_placeholder.hpp"
#include "runtime/link/protocol/infeed_buffer.hpp"
#include "runtime/tensor/npy.hpp"

namespace tpu {
namespace {

// The most of a file read to find its header (a .npy header is a few hundred bytes; NumPy pads it
// to 64).
constexpr uint64_t kHeaderReadBytes = 64 << 10;

std::string text_of(const rt::Status& status) { return std::string(status.message().data(), status.message().size()); }

std::string shape_text(const rt::Shape& shape) {
  std::string text = "[";
  for (unsigned d = 0; d < shape.rank; ++d) text += (d ? ", " : "") + std::to_string(shape.dims[d]);
  return text + "]";
}

}  // namespace

InfeedFiles infeed_files_of_rank(InfeedFiles spec, unsigned rank) {
  for (std::filesystem::path& file : spec.files) file = fill_placeholder(file.string(), kRankPlaceholder, rank);
  return spec;
}

bool names_rank(const InfeedFiles& spec) {
  for (const std::filesystem::path& file : spec.files)
    if (has_placeholder(file.string(), kRankPlaceholder)) return true;
  return false;
}

std::optional<InfeedFiles> parse_infeed_files(const std::string& value, std::string& error) {
  const size_t equals = value.find('=');
  InfeedFiles spec;
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

std::optional<InfeedElement> InfeedDataset::parse_element(std::filesystem::path file,
                                                          std::shared_ptr<const ByteSource> source, std::string& error) {
  std::vector<uint8_t> first(std::min(source->size(), kHeaderReadBytes));
  if (!source->read(0, first, error)) return std::nullopt;
  rt::Result<rt::NpyHeader> npy = rt::npy_parse_header(rt::Span<const uint8_t>(first.data(), first.size()), source->size());
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
  element.data_offset = npy->data_offset;
  element.steps = static_cast<uint64_t>(npy->shape.dims[0]);
  element.file = std::move(file);
  element.source = std::move(source);
  return element;
}

std::optional<InfeedDataset> InfeedDataset::from_sources(uint16_t queue,
                                                         std::vector<std::shared_ptr<const ByteSource>> sources,
                                                         std::string& error) {
  InfeedDataset dataset;
  dataset.queue_ = queue;
  if (sources.size() > rt::link::kMaxInfeedElements) {
    error = "queue " + std::to_string(queue) + ": " + std::to_string(sources.size()) + " files, at most " +
            std::to_string(rt::link::kMaxInfeedElements) + " tuple elements";
    return std::nullopt;
  }
  for (size_t i = 0; i < sources.size(); ++i) {
    const std::filesystem::path name = sources[i]->name();
    std::optional<InfeedElement> element = parse_element(name, std::move(sources[i]), error);
    if (!element) return std::nullopt;
    if (i == 0) dataset.steps_ = element->steps;
    if (element->steps != dataset.steps_) {
      error = "queue " + std::to_string(queue) + ": " + dataset.elements_[0].file.string() + " has " +
              std::to_string(dataset.steps_) + " steps but " + name.string() + " has " + std::to_string(element->steps) +
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

std::optional<InfeedDataset> InfeedDataset::from_npy_bytes(uint16_t queue, std::vector<std::vector<uint8_t>> files,
                                                           std::string& error,
                                                           const std::vector<std::filesystem::path>& names) {
  std::vector<std::shared_ptr<const ByteSource>> sources;
  for (size_t i = 0; i < files.size(); ++i)
    sources.push_back(ByteSource::in_memory(
        std::move(files[i]), i < names.size() ? names[i] : std::filesystem::path("element " + std::to_string(i))));
  return from_sources(queue, std::move(sources), error);
}

std::optional<InfeedDataset> InfeedDataset::load(const InfeedFiles& spec, std::string& error) {
  std::vector<std::shared_ptr<const ByteSource>> sources;
  for (const std::filesystem::path& path : spec.files) {
    std::shared_ptr<const ByteSource> source = ByteSource::open_file(path, error);
    if (!source) return std::nullopt;
    sources.push_back(std::move(source));
  }
  return from_sources(spec.queue, std::move(sources), error);
}

uint64_t InfeedDataset::tuple_bytes() const {
  uint64_t total = 0;
  for (const InfeedElement& element : elements_) total += element.step_bytes;
  return total;
}

bool InfeedDataset::read_step(uint64_t step, size_t element, std::span<uint8_t> into, std::string& error) const {
  const InfeedElement& e = elements_[element];
  if (step >= steps_ || into.size() != e.step_bytes) {
    error = e.file.string() + ": step " + std::to_string(step) + " of " + std::to_string(into.size()) +
            " bytes asked for, the dataset has " + std::to_string(steps_) + " steps of " + std::to_string(e.step_bytes);
    return false;
  }
  const uint64_t step_start = e.data_offset + step * e.step_stride;
  if (e.pieces <= 1) return e.source->read(step_start + e.slice_offset, into, error);
  // Pieces of a cut along an inner dimension: this rank's piece of every run, each copied once.
  const uint64_t run = e.step_stride / e.pieces;
  return e.source->read_pieces(step_start + e.slice_offset, run, e.pieces, e.piece_bytes, into, error);
}

bool InfeedDataset::split_for_board(unsigned board, unsigned boards, std::string& error,
                                    const std::vector<unsigned>& cut_dimensions) {
  for (size_t e = 0; e < elements_.size(); ++e) {
    InfeedElement& element = elements_[e];
    const unsigned dimension = e < cut_dimensions.size() ? cut_dimensions[e] : 0;
    const int64_t length = dimension < element.shape.rank ? element.shape.dims[dimension] : 0;
    if (length == 0 || length % boards != 0) {
      const std::string which = dimension == 0 ? "its first dimension" : "its dimension " + std::to_string(dimension);
      error = element.file.string() + ": a step of " + std::string(rt::dtype_name(element.dtype)) +
              shape_text(element.shape) + " does not split " + which + " over " + std::to_string(boards) +
              " boards (each board streams its own part: TPU per-host input)";
      return false;
    }
    uint64_t outer = 1;  // the runs of the cut dimension in a step: the product of the dimensions before it
    for (unsigned d = 0; d < dimension; ++d) outer *= static_cast<uint64_t>(element.shape.dims[d]);
    if (outer == 0) {  // the board's cut lies past an empty dimension: a step of no bytes has no parts
      error = element.file.string() + ": a step of " + std::string(rt::dtype_name(element.dtype)) +
              shape_text(element.shape) + " is empty before dimension " + std::to_string(dimension) +
              ", which the board cuts over " + std::to_string(boards) + " boards";
      return false;
    }
    const uint64_t run = element.step_bytes / outer;  // one run: the whole cut dimension and what follows it
    element.shape.dims[dimension] = element.shape.real[dimension] = length / boards;
    element.pieces = outer;
    element.piece_bytes = run / boards;
    element.slice_offset = element.piece_bytes * board;
    element.step_bytes = element.piece_bytes * outer;
  }
  pod_part_.reset();
  return true;
}

std::string InfeedDataset::describe() const {
  std::string text;
  for (const InfeedElement& element : elements_)
    text += (text.empty() ? "" : ", ") + std::string(rt::dtype_name(element.dtype)) + shape_text(element.shape);
  return text;
}

}  // namespace tpu
