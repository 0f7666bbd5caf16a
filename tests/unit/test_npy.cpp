// .npy reading and writing (runtime/tensor/npy.cpp) with NumPy as the independent reference:
// NumPy writes files the parser must read exactly, and NumPy must read what the writer produces.
// Corrupted and truncated files must give errors, never crashes.
#include <catch2/catch.hpp>

#include "numpy_bridge.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "runtime/tensor/npy.hpp"

namespace {

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

std::string python(const std::string& code) { return numpy_bridge::run_python("build/unit/npy", code); }

}  // namespace

TEST_CASE("npy_parse reads what NumPy writes", "[npy]") {
  struct Case {
    const char* numpy_dtype;
    rt::DType dtype;
    const char* shape;
    std::vector<int64_t> dims;
  };
  const Case cases[] = {
      {"float32", rt::DType::kF32, "(2, 3)", {2, 3}},  {"float64", rt::DType::kF64, "(5,)", {5}},
      {"float16", rt::DType::kF16, "(1, 2, 3, 4)", {1, 2, 3, 4}}, {"int32", rt::DType::kI32, "(0, 7)", {0, 7}},
      {"uint32", rt::DType::kU32, "()", {}},           {"int8", rt::DType::kI8, "(3, 1, 1, 1, 1, 2)", {3, 1, 1, 1, 1, 2}},
      {"bool_", rt::DType::kBool, "(4,)", {4}},          {"int64", rt::DType::kI64, "(2, 2)", {2, 2}},
      {"complex64", rt::DType::kC64, "(3,)", {3}},
  };
  for (const Case& c : cases) {
    INFO(c.numpy_dtype << " " << c.shape);
    const std::string path = std::string("build/unit/numpy-") + c.numpy_dtype + ".npy";
    python("import numpy as np; a = (np.arange(int(np.prod(" + std::string(c.shape) + "))) % 7 - 3).astype(np." +
           c.numpy_dtype + ").reshape(" + c.shape + "); np.save('" + path + "', a)");
    const auto file = read_file(path);
    rt::Result<rt::NpyView> view = rt::npy_parse(rt::Span<const uint8_t>(file.data(), file.size()));
    REQUIRE(view.is_ok());
    CHECK(view->dtype == c.dtype);
    REQUIRE(view->shape.rank == c.dims.size());
    for (size_t d = 0; d < c.dims.size(); ++d) CHECK(view->shape.dims[d] == c.dims[d]);
    CHECK(view->data.size() == static_cast<size_t>(view->shape.num_elements()) * rt::dtype_size(c.dtype));
    if (c.dtype == rt::DType::kI32 && view->shape.num_elements() > 0) {
      int32_t first;
      std::memcpy(&first, view->data.data(), 4);
      CHECK(first == -3);
    }
  }
}

TEST_CASE("npy_write_header produces files NumPy reads back", "[npy]") {
  const int64_t dims[] = {3, 4};
  const rt::Shape shape = *rt::Shape::make(rt::Span<const int64_t>(dims, 2));
  std::vector<uint8_t> file(256);
  rt::Result<size_t> header = rt::npy_write_header(rt::DType::kF32, shape, rt::Span<uint8_t>(file.data(), file.size()));
  REQUIRE(header.is_ok());
  CHECK(*header % 64 == 0);
  file.resize(*header);
  for (int i = 0; i < 12; ++i) {
    const float value = static_cast<float>(i) * 0.5f;
    const auto* bytes = reinterpret_cast<const uint8_t*>(&value);
    file.insert(file.end(), bytes, bytes + 4);
  }
  std::ofstream("build/unit/ours.npy", std::ios::binary).write(reinterpret_cast<const char*>(file.data()), file.size());
  const std::string out = python("import numpy as np; a = np.load('build/unit/ours.npy'); print(a.dtype, a.shape, a.sum(), a[2, 3])");
  CHECK(out == "float32 (3, 4) 33.0 5.5\n");
  const int64_t one[] = {5};
  file.assign(256, 0);
  header = rt::npy_write_header(rt::DType::kBF16, *rt::Shape::make(rt::Span<const int64_t>(one, 1)),
                                rt::Span<uint8_t>(file.data(), file.size()));
  REQUIRE(header.is_ok());
  file.resize(*header + 10);
  std::ofstream("build/unit/ours-bf16.npy", std::ios::binary).write(reinterpret_cast<const char*>(file.data()), file.size());
  CHECK(python("import numpy as np; a = np.load('build/unit/ours-bf16.npy'); print(a.dtype, a.shape)") == "|V2 (5,)\n");
}

TEST_CASE("npy_parse rejects bad files with clear errors", "[npy]") {
  auto error_of = [](const std::vector<uint8_t>& file) {
    rt::Result<rt::NpyView> view = rt::npy_parse(rt::Span<const uint8_t>(file.data(), file.size()));
    REQUIRE_FALSE(view.is_ok());
    return std::string(view.status().message().data(), view.status().message().size());
  };
  python("import numpy as np; np.save('build/unit/good.npy', np.ones((4, 4), np.float32)); "
         "np.save('build/unit/fortran.npy', np.asfortranarray(np.ones((2, 3)))); "
         "np.save('build/unit/big-endian.npy', np.ones(3, '>f4'))");
  const auto good = read_file("build/unit/good.npy");
  CHECK(error_of(std::vector<uint8_t>(good.begin(), good.end() - 4)) == ".npy data is 60 bytes, shape and dtype need 64");
  CHECK(error_of(std::vector<uint8_t>(good.begin(), good.begin() + 5)) == ".npy file of 5 bytes is too short for a header");
  CHECK(error_of(read_file("build/unit/fortran.npy")) == ".npy array is not in C order (fortran_order must be False)");
  CHECK(error_of(read_file("build/unit/big-endian.npy")).find("'>f4' is not supported") != std::string::npos);
  std::vector<uint8_t> bad_magic = good;
  bad_magic[1] = 'X';
  CHECK(error_of(bad_magic) == "not a .npy file (bad magic)");
}

// A header may claim any shape: the size it implies is multiplied out with overflow checks, so a
// shape whose byte count wraps around 2^64 (here 2^40 * 2^22 * 4 = 2^64, i.e. 0) is refused instead of
// matching an empty data section; an empty array (a zero dimension) still needs no data at all.
TEST_CASE("npy_parse refuses shapes whose size overflows or exceeds the file", "[npy]") {
  auto file_with = [](const std::string& shape) {
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + shape + "), }";
    header += std::string((64 - (10 + header.size() + 1) % 64) % 64, ' ') + "\n";
    std::vector<uint8_t> file = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<uint8_t>(header.size()),
                                 static_cast<uint8_t>(header.size() >> 8)};
    file.insert(file.end(), header.begin(), header.end());
    return file;
  };
  const auto wraps = file_with("1099511627776, 4194304");
  rt::Result<rt::NpyView> view = rt::npy_parse(rt::Span<const uint8_t>(wraps.data(), wraps.size()));
  REQUIRE_FALSE(view.is_ok());
  CHECK(std::string(view.status().message().data(), view.status().message().size()) ==
        ".npy shape [1099511627776, 4194304] of float32 needs more than 2^64 bytes");
  const auto huge = file_with("4294967296, 1073741824");  // 2^64 bytes exactly: one more than fits
  CHECK_FALSE(rt::npy_parse(rt::Span<const uint8_t>(huge.data(), huge.size())).is_ok());
  const auto big = file_with("1073741824, 1073741824");  // 2^62 bytes: fits the arithmetic, not the file
  rt::Result<rt::NpyView> short_file = rt::npy_parse(rt::Span<const uint8_t>(big.data(), big.size()));
  REQUIRE_FALSE(short_file.is_ok());
  CHECK(std::string(short_file.status().message().data(), short_file.status().message().size()) ==
        ".npy data is 0 bytes, shape and dtype need 4611686018427387904");
  const auto empty = file_with("1024, 1048576, 0");
  rt::Result<rt::NpyView> nothing = rt::npy_parse(rt::Span<const uint8_t>(empty.data(), empty.size()));
  REQUIRE(nothing.is_ok());
  CHECK(nothing->data.empty());
  CHECK(nothing->shape.num_elements() == 0);
  // Found by the fuzzer (tests/fuzz/npy_parser.cpp): an empty array whose other dimensions multiply
  // past int64 made Shape::num_elements() overflow. NumPy refuses such shapes too ("array is too big").
  const auto empty_but_huge = file_with("1099511627776, 1099511627776, 0");
  rt::Result<rt::NpyView> refused = rt::npy_parse(rt::Span<const uint8_t>(empty_but_huge.data(), empty_but_huge.size()));
  REQUIRE_FALSE(refused.is_ok());
  CHECK(std::string(refused.status().message().data(), refused.status().message().size()) ==
        ".npy shape [1099511627776, 1099511627776, 0] has more than 2^63 elements");
}

TEST_CASE("npy_parse reads the shape as a Python tuple literal", "[npy]") {
  auto parses = [](const std::string& shape) {
    std::string header = "{'descr': '<i1', 'fortran_order': False, 'shape': " + shape + ", }";
    header += std::string((64 - (10 + header.size() + 1) % 64) % 64, ' ') + "\n";
    std::vector<uint8_t> file = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<uint8_t>(header.size()), 0};
    file.insert(file.end(), header.begin(), header.end());
    file.resize(file.size() + 6);  // room for 6 int8 elements
    rt::Result<rt::NpyView> view = rt::npy_parse(rt::Span<const uint8_t>(file.data(), file.size()));
    return view.is_ok() ? std::to_string(view->shape.rank) + ":" + std::to_string(view->shape.num_elements())
                        : std::string(view.status().message().data(), view.status().message().size());
  };
  CHECK(parses("(2, 3)") == "2:6");
  CHECK(parses("(2,3,)") == "2:6");
  CHECK(parses("(6,)") == "1:6");
  CHECK(parses("(  6 , )") == "1:6");
  CHECK(parses("(2 3)") == ".npy header: 'shape' is not a tuple of integers");
  CHECK(parses("(2, 3x)") == ".npy header: 'shape' is not a tuple of integers");
  CHECK(parses("(,)") == ".npy header: 'shape' holds a non-number");
}

TEST_CASE("npy_parse survives corrupted files", "[npy]") {
  python("import numpy as np; np.save('build/unit/fuzz.npy', np.arange(24, dtype=np.int32).reshape(2, 3, 4))");
  const auto original = read_file("build/unit/fuzz.npy");
  std::mt19937 random(7);
  for (int round = 0; round < 5000; ++round) {
    std::vector<uint8_t> file = original;
    const size_t header_end = 128;
    for (int i = 0; i < 4; ++i) file[random() % header_end] = static_cast<uint8_t>(random());
    file.resize(random() % (file.size() + 1));
    std::vector<uint8_t> bounded(file);  // exact-size allocation so over-reads are detectable
    rt::Result<rt::NpyView> view = rt::npy_parse(rt::Span<const uint8_t>(bounded.data(), bounded.size()));
    if (view.is_ok()) REQUIRE(view->data.data() + view->data.size() <= bounded.data() + bounded.size());
  }
}
