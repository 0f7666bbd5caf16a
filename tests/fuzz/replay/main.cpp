// The fuzz targets without libFuzzer: a driver that feeds a target (tests/fuzz/<target>.cpp, its
// LLVMFuzzerTestOneInput) every file of its seed corpus and then, for each seed, a fixed number of
// deterministic mutants (bit flips, byte overwrites, truncations, insertions, spliced chunks of
// another seed). `make test` builds it with GCC under ASan and UBSan beside the sanitized host
// library, so the targets compile and their corpora (every past finding included) replay on every
// run without a second, clang-built copy of the host code; coverage-guided fuzzing is `make fuzz`.
//
//   fuzz-replay/<target> <corpus folder or file>... [--mutants N] [--seed S]
//
// Prints the inputs run; a failing input aborts the run (the sanitizers' report names it, and the
// driver prints which seed and mutant it was before each input when REPLAY_VERBOSE is set).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

using Bytes = std::vector<uint8_t>;

struct Options {
  std::vector<std::filesystem::path> inputs;
  unsigned mutants = 200;
  uint64_t seed = 2026;
  bool verbose = false;
};

// xorshift64*: the same mutants on every machine and every run.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed ? seed : 1) {}
  uint64_t next() {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 0x2545F4914F6CDD1Dull;
  }
  size_t below(size_t bound) { return bound ? static_cast<size_t>(next() % bound) : 0; }

 private:
  uint64_t state_;
};

Bytes read_file(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

std::vector<Bytes> read_corpus(const std::vector<std::filesystem::path>& inputs) {
  std::vector<std::filesystem::path> files;
  for (const std::filesystem::path& input : inputs) {
    if (std::filesystem::is_directory(input)) {
      for (const auto& entry : std::filesystem::directory_iterator(input))
        if (entry.is_regular_file()) files.push_back(entry.path());
    } else {
      files.push_back(input);
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<Bytes> corpus;
  for (const std::filesystem::path& file : files) corpus.push_back(read_file(file));
  return corpus;
}

// One to four edits of `seed`; `other` lends chunks for splicing.
Bytes mutate(const Bytes& seed, const Bytes& other, Random& random) {
  Bytes bytes = seed;
  const unsigned edits = 1 + static_cast<unsigned>(random.below(4));
  for (unsigned edit = 0; edit < edits; ++edit) {
    switch (random.below(bytes.empty() ? 2 : 6)) {
      case 0:  // insert a random byte
        bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(random.below(bytes.size() + 1)),
                     static_cast<uint8_t>(random.next()));
        break;
      case 1:  // splice a chunk of another seed in
        if (!other.empty()) {
          const size_t from = random.below(other.size()), length = 1 + random.below(std::min<size_t>(64, other.size() - from));
          bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(random.below(bytes.size() + 1)),
                       other.begin() + static_cast<std::ptrdiff_t>(from), other.begin() + static_cast<std::ptrdiff_t>(from + length));
        }
        break;
      case 2:  // flip one bit
        bytes[random.below(bytes.size())] ^= static_cast<uint8_t>(1u << random.below(8));
        break;
      case 3: {  // overwrite a byte with an interesting value
        static constexpr uint8_t kInteresting[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0x10, 0x20, 0x40};
        bytes[random.below(bytes.size())] = kInteresting[random.below(sizeof kInteresting)];
        break;
      }
      case 4:  // truncate
        bytes.resize(random.below(bytes.size()));
        break;
      default:  // erase a run
        {
          const size_t from = random.below(bytes.size()), length = 1 + random.below(std::min<size_t>(16, bytes.size() - from));
          bytes.erase(bytes.begin() + static_cast<std::ptrdiff_t>(from), bytes.begin() + static_cast<std::ptrdiff_t>(from + length));
        }
        break;
    }
  }
  return bytes;
}

void run_one(const Bytes& bytes) { LLVMFuzzerTestOneInput(bytes.empty() ? nullptr : bytes.data(), bytes.size()); }

bool parse(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if ((argument == "--mutants" || argument == "--seed") && i + 1 < argc) {
      char* end = nullptr;
      const unsigned long long value = std::strtoull(argv[++i], &end, 10);
      if (*end != '\0') return false;
      if (argument == "--mutants") options.mutants = static_cast<unsigned>(std::min<unsigned long long>(value, 1u << 20));
      else options.seed = value;
    } else if (!argument.empty() && argument[0] != '-') {
      options.inputs.emplace_back(argument);
    } else {
      return false;
    }
  }
  return !options.inputs.empty();
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  options.verbose = std::getenv("REPLAY_VERBOSE") != nullptr;
  if (!parse(argc, argv, options)) {
    std::fprintf(stderr, "usage: %s <corpus folder or file>... [--mutants N] [--seed S]\n", argv[0]);
    return 2;
  }
  const std::vector<Bytes> corpus = read_corpus(options.inputs);
  if (corpus.empty()) {
    std::fprintf(stderr, "replay: no input files in the given corpus\n");
    return 2;
  }
  Random random(options.seed);
  size_t runs = 0;
  for (size_t s = 0; s < corpus.size(); ++s) {
    if (options.verbose) std::fprintf(stderr, "replay: seed %zu\n", s);
    run_one(corpus[s]);
    ++runs;
    const Bytes& other = corpus[(s + 1) % corpus.size()];
    for (unsigned m = 0; m < options.mutants; ++m) {
      const Bytes mutant = mutate(corpus[s], other, random);
      if (options.verbose) std::fprintf(stderr, "replay: seed %zu mutant %u (%zu bytes)\n", s, m, mutant.size());
      run_one(mutant);
      ++runs;
    }
  }
  std::printf("replay: %zu seeds, %zu inputs, no failure\n", corpus.size(), runs);
  return 0;
}
