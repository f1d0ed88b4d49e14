// Test helpers: zip archives written with minizip the way PyTorch's writer
// lays out a .pt2 file, and small file utilities for the zip tests.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::aot::zip_test {

struct ZipEntrySpec {
  std::string name;  // full name in the archive, e.g. "model/models/model.json"
  std::string data;
  bool deflate = false;  // stored unless set
};

struct ZipLayout {
  /// Pads each entry's local extra field ('F','B', 2-byte length, 'Z'...) so
  /// its data starts on a 64-byte boundary, as PyTorch does.
  bool align = true;
  /// Asks minizip for zip64 entries (a zip64 extra field in each local header).
  bool zip64 = false;
  /// Ends the archive as PyTorch's writer (miniz, with its zip64 flag) does:
  /// a zip64 end of central directory record and its locator, then a classic
  /// record whose counts and offsets are 0xffff / 0xffffffff ("see zip64").
  bool zip64_end = false;
};

/// The bytes of a zip archive holding `entries`, in order. Throws
/// std::runtime_error if minizip fails.
std::string zip_bytes(const std::vector<ZipEntrySpec>& entries, ZipLayout layout = {});

std::string read_file(const std::string& path);
void write_file(const std::string& path, std::string_view bytes);

/// A new empty directory under the test temp dir; removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  /// `name` inside this directory.
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Where the zip header with `signature` ("PK\1\2" central, "PK\3\4" local)
/// for entry `name` starts in `zip`; throws std::runtime_error if absent.
size_t find_header(const std::string& zip, std::string_view signature, const std::string& name);
/// Writes `value` little-endian over `width` bytes at `offset`.
void put_le(std::string& zip, size_t offset, uint64_t value, int width);
/// Reads a little-endian value of `width` bytes at `offset`.
uint64_t get_le(const std::string& zip, size_t offset, int width);

}  // namespace kiln::aot::zip_test
