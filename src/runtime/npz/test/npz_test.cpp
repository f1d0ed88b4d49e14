// The .npy/.npz reader and writer: every dtype a .pte can hold round-trips,
// NumPy's other layouts (Fortran order, format 2.0, compressed archives) read
// as NumPy means them, and every bad file is an error whose log line names
// the file, the array and the reason.
#include <gtest/gtest.h>
#include <minizip/zip.h>
#include <zlib.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "runtime/core/test/log_capture.h"
#include "runtime/npz/npz.h"

namespace kiln::runtime {
namespace {

using testing::LogCapture;

class NpzTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kiln_npz_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

NpyArray counting(ScalarType dtype, std::vector<int64_t> sizes) {
  NpyArray array;
  array.dtype = dtype;
  array.sizes = std::move(sizes);
  array.data.resize(array.numel() * element_size(dtype));
  for (size_t i = 0; i < array.data.size(); ++i) array.data[i] = static_cast<uint8_t>(i * 7 + 1);
  if (dtype == ScalarType::Bool) {
    for (size_t i = 0; i < array.data.size(); ++i) array.data[i] = i % 3 == 0;
  }
  return array;
}

/// A version 1.0 .npy: magic, version, header length, `header`, `data`.
std::string npy(const std::string& header, const std::string& data) {
  std::string bytes = "\x93NUMPY";
  bytes += '\x01';
  bytes += '\x00';
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  return bytes + header + data;
}

/// Writes a zip of `entries` (name, bytes), deflated or stored.
void write_zip(const std::string& path, const std::vector<std::pair<std::string, std::string>>& entries, bool deflate) {
  zipFile zip = zipOpen64(path.c_str(), APPEND_STATUS_CREATE);
  ASSERT_NE(zip, nullptr);
  for (const auto& [name, bytes] : entries) {
    zip_fileinfo info{};
    ASSERT_EQ(zipOpenNewFileInZip64(zip, name.c_str(), &info, nullptr, 0, nullptr, 0, nullptr, deflate ? Z_DEFLATED : 0,
                                    deflate ? Z_DEFAULT_COMPRESSION : 0, 0),
              ZIP_OK);
    ASSERT_EQ(zipWriteInFileInZip(zip, bytes.data(), static_cast<unsigned>(bytes.size())), ZIP_OK);
    ASSERT_EQ(zipCloseFileInZip(zip), ZIP_OK);
  }
  ASSERT_EQ(zipClose(zip, nullptr), ZIP_OK);
}

std::string parse_error(const std::string& bytes) {
  LogCapture log;
  Result<NpyArray> array = parse_npy(bytes.data(), bytes.size(), "x.npy");
  if (array.ok()) return "no error";
  return log.errors().empty() ? "no line logged" : log.errors().back();
}

// ---------------------------------------------------------------- round trips

TEST_F(NpzTest, EveryDtypeWithANumPyDtypeRoundTrips) {
  const ScalarType dtypes[] = {ScalarType::Byte,   ScalarType::Char,   ScalarType::Short,        ScalarType::Int,
                               ScalarType::Long,   ScalarType::Half,   ScalarType::Float,        ScalarType::Double,
                               ScalarType::Bool,   ScalarType::UInt16, ScalarType::UInt32,       ScalarType::UInt64,
                               ScalarType::ComplexFloat, ScalarType::ComplexDouble};
  std::vector<NamedArray> written;
  for (ScalarType dtype : dtypes) {
    EXPECT_TRUE(has_npy_dtype(dtype)) << to_string(dtype);
    written.push_back({std::string("a_") + to_string(dtype), counting(dtype, {2, 3})});
  }
  written.push_back({"scalar", counting(ScalarType::Long, {})});
  written.push_back({"empty", counting(ScalarType::Float, {0, 4})});
  written.push_back({"rank5", counting(ScalarType::Float, {1, 2, 1, 3, 2})});
  ASSERT_EQ(write_npz(path("all.npz"), written), Error::Ok);

  Result<std::vector<NamedArray>> read = read_npz(path("all.npz"));
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read->size(), written.size());
  for (size_t i = 0; i < written.size(); ++i) {
    SCOPED_TRACE(written[i].name);
    EXPECT_EQ((*read)[i].name, written[i].name);
    EXPECT_EQ((*read)[i].array.dtype, written[i].array.dtype);
    EXPECT_EQ((*read)[i].array.sizes, written[i].array.sizes);
    EXPECT_EQ((*read)[i].array.data, written[i].array.data);
  }
}

TEST_F(NpzTest, AHeaderIsPaddedSoTheDataStartsOn64Bytes) {
  Result<std::vector<uint8_t>> bytes = npy_bytes(counting(ScalarType::Float, {3}));
  ASSERT_TRUE(bytes.ok());
  const size_t header_length = (*bytes)[8] | ((*bytes)[9] << 8);
  EXPECT_EQ((10 + header_length) % 64, 0u);
  const std::string header(bytes->begin() + 10, bytes->begin() + 10 + static_cast<long>(header_length));
  EXPECT_EQ(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 0), 0u);
  EXPECT_EQ(header.back(), '\n');
}

TEST_F(NpzTest, DtypesWithoutANumPyDtypeAreRefusedByName) {
  for (ScalarType dtype : {ScalarType::BFloat16, ScalarType::QInt8, ScalarType::Float8_e4m3fn}) {
    EXPECT_FALSE(has_npy_dtype(dtype)) << to_string(dtype);
  }
  LogCapture log;
  EXPECT_EQ(write_npz(path("bf16.npz"), {{"output_0", counting(ScalarType::BFloat16, {2})}}), Error::NotSupported);
  EXPECT_TRUE(log.contains("an array of BFloat16: NumPy has no dtype for it")) << log.text();
  EXPECT_TRUE(log.contains("cannot write array 'output_0'")) << log.text();
  EXPECT_FALSE(std::filesystem::exists(path("bf16.npz"))) << "nothing is written when an array cannot be";
}

TEST_F(NpzTest, AnArrayWhoseDataDoesNotFitItsSizesIsNotWritten) {
  NpyArray array = counting(ScalarType::Float, {2, 2});
  array.data.pop_back();
  LogCapture log;
  EXPECT_FALSE(npy_bytes(array).ok());
  EXPECT_TRUE(log.contains("holds 15 bytes, its sizes need 16")) << log.text();
}

// ---------------------------------------------------------------- NumPy's layouts

TEST_F(NpzTest, AFortranOrderedArrayComesBackInCOrder) {
  // np.asfortranarray([[1, 2, 3], [4, 5, 6]], dtype=np.int32): columns first.
  const int32_t columns[] = {1, 4, 2, 5, 3, 6};
  const std::string bytes = npy("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }\n",
                                std::string(reinterpret_cast<const char*>(columns), sizeof columns));
  Result<NpyArray> array = parse_npy(bytes.data(), bytes.size(), "f.npy");
  ASSERT_TRUE(array.ok());
  EXPECT_EQ(array->sizes, (std::vector<int64_t>{2, 3}));
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(array->scalar(i), static_cast<double>(i + 1));
}

TEST_F(NpzTest, Format2HeadersAndNativeOrderDescrsRead) {
  const std::string header = "{'descr': '=f4', 'fortran_order': False, 'shape': (1,), }\n";
  std::string bytes = "\x93NUMPY";
  bytes += '\x02';
  bytes += '\x00';
  bytes += static_cast<char>(header.size());
  bytes += std::string(3, '\0');
  const float value = 2.5f;
  bytes += header + std::string(reinterpret_cast<const char*>(&value), sizeof value);
  Result<NpyArray> array = parse_npy(bytes.data(), bytes.size(), "v2.npy");
  ASSERT_TRUE(array.ok());
  EXPECT_EQ(array->dtype, ScalarType::Float);
  EXPECT_EQ(array->scalar(0), 2.5);
}

TEST_F(NpzTest, ACompressedArchiveReadsAsSavezCompressedWritesIt) {
  Result<std::vector<uint8_t>> bytes = npy_bytes(counting(ScalarType::Int, {64}));
  ASSERT_TRUE(bytes.ok());
  write_zip(path("deflated.npz"), {{"arr_0.npy", std::string(bytes->begin(), bytes->end())}}, true);
  Result<std::vector<NamedArray>> read = read_npz(path("deflated.npz"));
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read->size(), 1u);
  EXPECT_EQ((*read)[0].name, "arr_0");
  EXPECT_EQ((*read)[0].array.data, counting(ScalarType::Int, {64}).data);
}

TEST_F(NpzTest, ScalarsReadEveryDtypeAndComplexParts) {
  NpyArray half = counting(ScalarType::Half, {1});
  half.data = {0x00, 0x3c};
  EXPECT_EQ(half.scalar(0), 1.0);
  NpyArray complex = counting(ScalarType::ComplexFloat, {1});
  const float parts[] = {1.5f, -2.0f};
  std::memcpy(complex.data.data(), parts, sizeof parts);
  EXPECT_EQ(complex.scalar_count(), 2u);
  EXPECT_EQ(complex.scalar(1), -2.0);
  NpyArray flag = counting(ScalarType::Bool, {2});
  EXPECT_EQ(flag.scalar(0), 1.0);
  EXPECT_EQ(flag.scalar(1), 0.0);
}

// ---------------------------------------------------------------- bad files

TEST_F(NpzTest, AMissingFileIsNamed) {
  LogCapture log;
  Result<std::vector<NamedArray>> read = read_npz(path("missing.npz"));
  EXPECT_EQ(read.error(), Error::AccessFailed);
  EXPECT_TRUE(log.contains("missing.npz: cannot open (No such file or directory)")) << log.text();
}

TEST_F(NpzTest, AFileThatIsNoZipArchiveIsNamed) {
  std::ofstream(path("text.npz")) << "this is not an archive";
  LogCapture log;
  EXPECT_EQ(read_npz(path("text.npz")).error(), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("text.npz: not a zip archive, or a truncated one")) << log.text();
}

TEST_F(NpzTest, ATruncatedArchiveIsAnError) {
  ASSERT_EQ(write_npz(path("whole.npz"), {{"arr_0", counting(ScalarType::Float, {256})}}), Error::Ok);
  std::ifstream whole(path("whole.npz"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(whole)), std::istreambuf_iterator<char>());
  std::ofstream(path("cut.npz"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  LogCapture log;
  EXPECT_FALSE(read_npz(path("cut.npz")).ok());
  EXPECT_TRUE(log.contains("cut.npz")) << log.text();
}

TEST_F(NpzTest, ACorruptEntryIsNamed) {
  ASSERT_EQ(write_npz(path("flipped.npz"), {{"arr_0", counting(ScalarType::Float, {256})}}), Error::Ok);
  std::fstream file(path("flipped.npz"), std::ios::binary | std::ios::in | std::ios::out);
  file.seekp(400);
  file.put('\x55');
  file.close();
  LogCapture log;
  EXPECT_EQ(read_npz(path("flipped.npz")).error(), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("flipped.npz: array 'arr_0': the entry is cut short or corrupt")) << log.text();
}

TEST_F(NpzTest, AnArchiveWithoutArraysIsAnError) {
  write_zip(path("notes.npz"), {{"notes.txt", "hello"}}, false);
  LogCapture log;
  EXPECT_EQ(read_npz(path("notes.npz")).error(), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("notes.npz: holds no .npy arrays")) << log.text();
}

TEST_F(NpzTest, AnEntryThatIsNoNpyIsNamed) {
  write_zip(path("bad.npz"), {{"arr_0.npy", "just text, no magic"}}, false);
  LogCapture log;
  EXPECT_EQ(read_npz(path("bad.npz")).error(), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("bad.npz: array 'arr_0': not a .npy array")) << log.text();
}

TEST_F(NpzTest, BadHeadersAreNamed) {
  EXPECT_EQ(parse_error(npy("{'descr':, 'fortran_order': False, 'shape': (3,), }\n", "")),
            "x.npy: the .npy header's descr is not a quoted string");
  EXPECT_EQ(parse_error(npy("{'fortran_order': False, 'shape': (3,), }\n", "")), "x.npy: the .npy header has no 'descr'");
  EXPECT_EQ(parse_error(npy("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }\n", "abcd")),
            "x.npy: dtype '>f4' is not supported");
  EXPECT_EQ(parse_error(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }\n", "")),
            "x.npy: negative size in shape (-1,)");
  EXPECT_EQ(parse_error(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (x,), }\n", "")),
            "x.npy: malformed shape (x,)");
  EXPECT_EQ(parse_error(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,\n", "")), "x.npy: malformed .npy header");
  EXPECT_EQ(parse_error(std::string("\x93NUMPY\x01\x00\xff\x00{}", 12)), "x.npy: truncated .npy header");
  EXPECT_EQ(parse_error(std::string("\x93NUMPY\x07\x00\x00\x00", 10)), "x.npy: .npy format version 7 is not supported");
}

TEST_F(NpzTest, ClaimedSizesAreCheckedBeforeAllocating) {
  EXPECT_EQ(parse_error(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (100000000000,), }\n",
                            std::string(16, '\0'))),
            "x.npy: holds 16 bytes of data, but shape (100000000000,) of <f4 needs 400000000000");
  EXPECT_EQ(parse_error(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }\n", "")),
            "x.npy: shape (4294967296, 4294967296) overflows");
  EXPECT_EQ(parse_error(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999,), }\n", "")),
            "x.npy: shape (99999999999999999999999,) overflows");
}

TEST_F(NpzTest, AnUnwritablePathIsNamed) {
  LogCapture log;
  EXPECT_EQ(write_npz(path("no/such/dir/out.npz"), {{"a", counting(ScalarType::Float, {1})}}), Error::AccessFailed);
  EXPECT_TRUE(log.contains("no/such/dir/out.npz: cannot create the file")) << log.text();
}

}  // namespace
}  // namespace kiln::runtime
