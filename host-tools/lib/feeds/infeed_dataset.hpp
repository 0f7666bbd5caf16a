// InfeedDataset: what `tpu run --infeed QUEUE=FILE.npy[,FILE2.npy...]` streams to one infeed queue.
// Each file is one tuple element; its first dimension indexes steps (a dataset of tuples), so the
// tuple of step s is (file0[s], file1[s], ...), each at the full (unsharded) shape the board's
// InfeedQueue declares. Every file must have the same number of steps. Each file's header is checked
// with the runtime's .npy parser (runtime/tensor/npy.hpp) against the file's size, so a truncated,
// corrupted or unsupported file is an error text, never a crash; its data stays on disk and each
// step is read when it is sent, straight into where it goes (read_step: the board's slot on shared
// memory), so a dataset may be larger than memory.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "host-tools/lib/tensors/byte_source.hpp"
#include "runtime/link/protocol/tensor_chunk.hpp"

namespace tpu {

// The parsed option value: link queue number and one file per tuple element.
struct InfeedFiles {
  uint16_t queue = 0;
  std::vector<std::filesystem::path> files;
};

// "0=x.npy,y.npy" -> {0, [x.npy, y.npy]}; on a bad value, nothing and `error` says why.
std::optional<InfeedFiles> parse_infeed_files(const std::string& value, std::string& error);

// In a pod (TPU per-host input) a file whose name holds "{rank}" is one rank's own: `spec` as rank
// `rank` reads it, "{rank}" in every file name replaced (x.{rank}.npy -> x.1.npy on rank 1).
InfeedFiles infeed_files_of_rank(InfeedFiles spec, unsigned rank);
// Whether some file's name holds "{rank}" (files of each rank's own; else one file the pod splits).
bool names_rank(const InfeedFiles& spec);

struct InfeedElement {
  std::filesystem::path file;
  rt::DType dtype = rt::DType::kF32;
  rt::Shape shape;           // one step's shape (the file's shape without its first dimension)
  uint64_t step_bytes = 0;   // bytes of one step (of this rank's part, in a pod: split_for_board)
  uint64_t step_stride = 0;  // bytes between two steps in the file (step_bytes unless split)
  // In a pod, this rank's part of a step: `pieces` runs of piece_bytes, step_stride / pieces apart
  // (the step's runs of the cut dimension), the first at slice_offset within the step (one piece
  // where the cut is along the step's first dimension).
  uint64_t slice_offset = 0;
  uint64_t pieces = 1;
  uint64_t piece_bytes = 0;
  uint64_t steps = 0;        // the file's first dimension
  std::shared_ptr<const ByteSource> source;  // the .npy file (or its bytes)
  uint64_t data_offset = 0;  // where the .npy data starts in it
};

class InfeedDataset {
 public:
  // Reads and checks the files; on failure, nothing and `error` says which file and why.
  static std::optional<InfeedDataset> load(const InfeedFiles& spec, std::string& error);
  // From memory: `files[i]` holds element i's .npy bytes, named names[i] in errors ("element i").
  static std::optional<InfeedDataset> from_npy_bytes(uint16_t queue, std::vector<std::vector<uint8_t>> files,
                                                     std::string& error,
                                                     const std::vector<std::filesystem::path>& names = {});

  uint16_t queue() const { return queue_; }
  uint64_t steps() const { return steps_; }
  const std::vector<InfeedElement>& elements() const { return elements_; }
  uint64_t tuple_bytes() const;
  // Copies element `element` of step `step` (exactly a .npy data section of its shape, step_bytes)
  // into `into`; false with `error` if the file cannot give it any more (it shrank, a read failed).
  bool read_step(uint64_t step, size_t element, std::span<uint8_t> into, std::string& error) const;
  // "float32[8, 3], int32[8]"
  std::string describe() const;
  // In a pod of `boards` boards (TPU per-host input): board `board` streams the block
  // [board * D / boards, (board + 1) * D / boards) of every element's cut dimension (of length D;
  // cut_dimensions[e], as the board's credits say: InfeedCredits::cut_dimensions; the batch, dimension
  // 0, where none is given); false and `error` (naming the file) if a dimension is missing or does
  // not split.
  bool split_for_board(unsigned board, unsigned boards, std::string& error, const std::vector<unsigned>& cut_dimensions = {});
  // A dataset of the whole pod, which board `board` of `boards` streams its part of once the board
  // said where each element is cut (InfeedSender: its first credits); nothing once split.
  struct PodPart {
    unsigned board = 0, boards = 1;
  };
  void set_pod_part(unsigned board, unsigned boards) { pod_part_ = PodPart{board, boards}; }
  const std::optional<PodPart>& pod_part() const { return pod_part_; }

 private:
  static std::optional<InfeedElement> parse_element(std::filesystem::path file,
                                                    std::shared_ptr<const ByteSource> source, std::string& error);
  static std::optional<InfeedDataset> from_sources(uint16_t queue, std::vector<std::shared_ptr<const ByteSource>> sources,
                                                   std::string& error);

  uint16_t queue_ = 0;
  std::optional<PodPart> pod_part_;
  uint64_t steps_ = 0;
  std::vector<InfeedElement> elements_;
};

}  // namespace tpu
