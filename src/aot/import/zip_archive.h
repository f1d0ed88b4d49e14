// ZipArchive: the entries of a zip file, read in place from a mapping. Kiln
// reads .pt2 archives (stored entries under one top folder, 64-byte aligned)
// and .npz files (stored entries at the root) with it; nothing is inflated
// and nothing is copied.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "aot/import/mapped_file.h"
#include "aot/ir/host_tensor.h"

namespace kiln::aot {

class ZipArchive {
 public:
  /// Opens a .pt2-style archive, whose entries all sit under one top folder
  /// (taken from the first entry, as PyTorch's reader does); names are then
  /// relative to that folder. Throws AotError naming the file on a malformed
  /// or truncated archive.
  static ZipArchive open(const std::string& path);
  /// Opens an archive whose entries are used by their full names (.npz).
  static ZipArchive open_flat(const std::string& path);

  /// The top folder, with its trailing '/' ("model/"); empty for open_flat.
  const std::string& prefix() const { return prefix_; }
  const std::string& path() const { return file_->path(); }
  bool contains(std::string_view name) const;
  /// The entry names (relative to the prefix), sorted.
  std::vector<std::string> entries() const;

  /// The bytes of entry `name`, in place. Throws AotError naming the entry if
  /// it is missing or compressed.
  std::span<const std::byte> data(std::string_view name) const;
  std::string read_text(std::string_view name) const;
  /// The entry as tensor storage that keeps the mapping alive (zero copy).
  std::shared_ptr<Storage> storage(std::string_view name) const;
  /// Where the entry's data starts in the file.
  uint64_t data_offset(std::string_view name) const;

 private:
  struct Entry {
    uint64_t offset = 0;  // of the data
    uint64_t size = 0;
    int method = 0;       // 0: stored
  };
  static ZipArchive read(const std::string& path, bool flat);
  const Entry& entry(std::string_view name) const;

  std::shared_ptr<MappedFile> file_;
  std::string prefix_;
  std::map<std::string, Entry, std::less<>> entries_;
};

}  // namespace kiln::aot
