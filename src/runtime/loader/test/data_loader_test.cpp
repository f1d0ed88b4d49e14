// The three data loaders: the bytes of any range inside the data, a
// specific error and a log line for a range outside it (including ranges
// whose end overflows), zero-copy for buffers, aligned copies for files,
// page mappings for mmap that go away when freed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "runtime/core/test/log_capture.h"
#include "runtime/loader/buffer_data_loader.h"
#include "runtime/loader/file_data_loader.h"
#include "runtime/loader/mmap_data_loader.h"

namespace kiln::runtime {
namespace {

using testing::LogCapture;

const SegmentInfo kInfo{SegmentInfo::Type::Constant, 0};

std::vector<uint8_t> pattern(size_t size) {
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>((i * 7 + i / 251) & 0xFF);
  return bytes;
}

class TempFile {
 public:
  explicit TempFile(const std::vector<uint8_t>& bytes) {
    static int counter = 0;
    path_ = ::testing::TempDir() + "kiln_loader_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
    std::ofstream(path_, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                  static_cast<std::streamsize>(bytes.size()));
  }
  ~TempFile() { ::unlink(path_.c_str()); }
  const char* path() const { return path_.c_str(); }

 private:
  std::string path_;
};

/// True if /proc/self/maps lists a mapping that holds `address`.
bool is_mapped(uintptr_t address) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    const uintptr_t start = std::stoull(line.substr(0, line.find('-')), nullptr, 16);
    const uintptr_t end = std::stoull(line.substr(line.find('-') + 1), nullptr, 16);
    if (address >= start && address < end) return true;
  }
  return false;
}

/// Every loader agrees on these: exact bytes inside, InvalidArgument outside.
void expect_reads_ranges(const DataLoader& loader, const std::vector<uint8_t>& bytes) {
  ASSERT_TRUE(loader.size().ok());
  EXPECT_EQ(*loader.size(), bytes.size());
  const size_t n = bytes.size();
  for (const auto& [offset, size] : std::vector<std::pair<size_t, size_t>>{
           {0, n}, {0, 1}, {1, 100}, {4095, 2}, {4096, 4096}, {n - 1, 1}, {n, 0}, {12345, 777}}) {
    Result<FreeableBuffer> loaded = loader.load(offset, size, kInfo);
    ASSERT_TRUE(loaded.ok()) << offset << "+" << size;
    ASSERT_EQ(loaded->size(), size);
    if (size != 0) {
      EXPECT_EQ(std::memcmp(loaded->data(), bytes.data() + offset, size), 0) << offset << "+" << size;
    }
    std::vector<uint8_t> into(size + 1, 0xEE);
    ASSERT_EQ(loader.load_into(offset, size, kInfo, into.data()), Error::Ok);
    EXPECT_EQ(std::memcmp(into.data(), bytes.data() + offset, size), 0);
    EXPECT_EQ(into[size], 0xEE) << "wrote past the range";
  }
  LogCapture log;
  for (const auto& [offset, size] : std::vector<std::pair<size_t, size_t>>{
           {0, n + 1}, {n, 1}, {n + 1, 0}, {1, SIZE_MAX}, {SIZE_MAX, 2}, {SIZE_MAX, 0}}) {
    log.clear();
    Result<FreeableBuffer> loaded = loader.load(offset, size, kInfo);
    EXPECT_EQ(loaded.error(), Error::InvalidArgument) << offset << "+" << size;
    EXPECT_TRUE(log.contains("is outside the")) << log.text();
    uint8_t byte = 0;
    EXPECT_NE(loader.load_into(offset, size, kInfo, &byte), Error::Ok) << offset << "+" << size;
  }
}

TEST(BufferDataLoader, IsZeroCopyAndBoundsChecked) {
  const std::vector<uint8_t> bytes = pattern(20000);
  BufferDataLoader loader(bytes.data(), bytes.size());
  expect_reads_ranges(loader, bytes);
  Result<FreeableBuffer> loaded = loader.load(100, 10, kInfo);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->data(), bytes.data() + 100);
  loaded->Free();
  EXPECT_EQ(bytes[100], pattern(101)[100]) << "freeing a view must not touch the bytes";
}

TEST(FileDataLoader, ReadsCopiesAlignedAsAsked) {
  const std::vector<uint8_t> bytes = pattern(20000);
  TempFile file(bytes);
  for (size_t alignment : {size_t{1}, size_t{16}, size_t{64}, size_t{4096}}) {
    Result<FileDataLoader> loader = FileDataLoader::from(file.path(), alignment);
    ASSERT_TRUE(loader.ok());
    expect_reads_ranges(*loader, bytes);
    for (size_t offset : {size_t{0}, size_t{3}, size_t{4097}}) {
      Result<FreeableBuffer> loaded = loader->load(offset, 33, kInfo);
      ASSERT_TRUE(loaded.ok());
      EXPECT_EQ(reinterpret_cast<uintptr_t>(loaded->data()) % alignment, 0u) << alignment;
    }
  }
}

TEST(FileDataLoader, StillReadsAfterAMove) {
  const std::vector<uint8_t> bytes = pattern(20000);
  TempFile file(bytes);
  Result<FileDataLoader> loader = FileDataLoader::from(file.path());
  ASSERT_TRUE(loader.ok());
  FileDataLoader moved(std::move(*loader));
  expect_reads_ranges(moved, bytes);
}

TEST(FileDataLoader, NamesTheFileItCannotOpen) {
  LogCapture log;
  EXPECT_EQ(FileDataLoader::from("/nonexistent/kiln.pte").error(), Error::NotFound);
  EXPECT_TRUE(log.contains("cannot open '/nonexistent/kiln.pte'")) << log.text();
  EXPECT_EQ(FileDataLoader::from(::testing::TempDir().c_str()).error(), Error::AccessFailed);
  EXPECT_TRUE(log.contains("is not a regular file")) << log.text();
  TempFile file(pattern(10));
  EXPECT_EQ(FileDataLoader::from(file.path(), 24).error(), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("alignment 24 is not a power of two")) << log.text();
  EXPECT_EQ(FileDataLoader::from(nullptr).error(), Error::InvalidArgument);
}

TEST(FileDataLoader, ReportsAFileThatShrankUnderIt) {
  const std::vector<uint8_t> bytes = pattern(20000);
  TempFile file(bytes);
  Result<FileDataLoader> loader = FileDataLoader::from(file.path());
  ASSERT_TRUE(loader.ok());
  ASSERT_EQ(::truncate(file.path(), 100), 0);
  LogCapture log;
  EXPECT_EQ(loader->load(0, 20000, kInfo).error(), Error::AccessFailed);
  EXPECT_TRUE(log.contains("unexpected end of file")) << log.text();
}

TEST(MmapDataLoader, MapsAnyRangeAndUnmapsOnFree) {
  const std::vector<uint8_t> bytes = pattern(5 * 4096 + 123);
  TempFile file(bytes);
  Result<MmapDataLoader> loader = MmapDataLoader::from(file.path());
  ASSERT_TRUE(loader.ok());
  expect_reads_ranges(*loader, bytes);

  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  Result<FreeableBuffer> loaded = loader->load(page + 5, 100, kInfo);
  ASSERT_TRUE(loaded.ok());
  const uintptr_t start = reinterpret_cast<uintptr_t>(loaded->data()) & ~(page - 1);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(loaded->data()) - start, 5u) << "the offset within its page is kept";
  EXPECT_TRUE(is_mapped(start)) << "the page is mapped";
  loaded->Free();
  EXPECT_FALSE(is_mapped(start)) << "the page is still mapped after Free";
}

// A range is mapped with the whole 2 MiB windows of the file around it (as
// far as the file goes), all unmapped on Free.
TEST(MmapDataLoader, MapsTheWholeWindowsAroundARange) {
  constexpr size_t kWindow = size_t{2} << 20;
  const std::vector<uint8_t> bytes = pattern(2 * kWindow + 3 * 4096 + 7);
  TempFile file(bytes);
  Result<MmapDataLoader> loader = MmapDataLoader::from(file.path());
  ASSERT_TRUE(loader.ok());
  const size_t offset = kWindow + 12345;
  Result<FreeableBuffer> loaded = loader->load(offset, 100, kInfo);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(std::memcmp(loaded->data(), bytes.data() + offset, 100), 0);
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t window_start = reinterpret_cast<uintptr_t>(loaded->data()) - 12345;
  const uintptr_t window_last_page = window_start + kWindow - page;
  EXPECT_TRUE(is_mapped(window_start)) << "the window's first page";
  EXPECT_TRUE(is_mapped(window_last_page)) << "the window's last page";
  // The last window ends with the file's last page.
  Result<FreeableBuffer> last = loader->load(bytes.size() - 10, 10, kInfo);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(std::memcmp(last->data(), bytes.data() + bytes.size() - 10, 10), 0);
  loaded->Free();
  EXPECT_FALSE(is_mapped(window_start));
  EXPECT_FALSE(is_mapped(window_last_page));
}

TEST(MmapDataLoader, StillMapsAfterAMove) {
  const std::vector<uint8_t> bytes = pattern(20000);
  TempFile file(bytes);
  Result<MmapDataLoader> loader = MmapDataLoader::from(file.path());
  ASSERT_TRUE(loader.ok());
  MmapDataLoader moved(std::move(*loader));
  expect_reads_ranges(moved, bytes);
}

TEST(MmapDataLoader, NamesTheFileItCannotOpen) {
  LogCapture log;
  EXPECT_EQ(MmapDataLoader::from("/nonexistent/kiln.pte").error(), Error::NotFound);
  EXPECT_TRUE(log.contains("cannot open '/nonexistent/kiln.pte'")) << log.text();
  EXPECT_EQ(MmapDataLoader::from(::testing::TempDir().c_str()).error(), Error::AccessFailed);
  EXPECT_TRUE(log.contains("is not a regular file")) << log.text();
  EXPECT_EQ(MmapDataLoader::from(nullptr).error(), Error::InvalidArgument);
}

}  // namespace
}  // namespace kiln::runtime
