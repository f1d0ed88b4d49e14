// MappedFile: a whole file mapped into memory, copy-on-write. Weights read
// from a .pt2 archive point into it, and their Storage owns it.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>

namespace kiln::aot {

class MappedFile {
 public:
  /// Maps the regular file at `path` whole, readable and writable but
  /// private: a write (a buffer mutation stored into a mapped weight) stays in
  /// this process and never reaches the file. Nothing is read until touched.
  /// Throws AotError naming the path (and the system's reason) if the file is
  /// missing, unreadable, not a regular file, empty, or cannot be mapped.
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
