// MappedFile: a whole file mapped into memory, copy-on-write.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace kiln::aot {

class MappedFile {
 public:
  /// Maps `path` read/write but private: writes (a buffer mutation written
  /// into a mapped weight) stay in this process and never reach the file.
  /// Throws AotError naming the path on failure.
  static std::shared_ptr<MappedFile> open(const std::string& path);

  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::byte* data() const { return data_; }
  size_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  MappedFile(std::string path, std::byte* data, size_t size) : path_(std::move(path)), data_(data), size_(size) {}

  std::string path_;
  std::byte* data_;
  size_t size_;
};

}  // namespace kiln::aot
