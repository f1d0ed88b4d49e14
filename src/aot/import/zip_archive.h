// ZipArchive: the entries of a zip file, read in place from a mapping. Kiln
// reads .pt2 archives (stored entries under one top folder, 64-byte aligned)
// and .npz files (stored entries at the root) with it; nothing is inflated
// and nothing is copied.
//
// Every size and offset the file states is checked against the file's size
// when the archive is opened, so a malformed or truncated file gives an
// AotError, never a read outside the mapping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "aot/ir/host_tensor.h"

namespace kiln::aot {

class ZipArchive {
 public:
  /// Opens a .pt2-style archive, whose entries all sit under one top folder
  /// (taken from the first entry, as PyTorch's reader does); names are then
  /// relative to that folder. Throws AotError naming the file (and the entry,
  /// where one is at fault) on a missing, malformed or truncated archive, on
  /// entries outside the folder and on duplicate names.
  static ZipArchive open(const std::string& path);
  /// Opens an archive whose entries are used by their full names (.npz).
  static ZipArchive open_flat(const std::string& path);
  /// Reads a .pt2-style archive held in memory, as open() does: `bytes` must
  /// stay valid while `owner` lives, and storage() hands out `owner` to keep
  /// them alive. `name` stands for the path in messages.
  static ZipArchive from_memory(std::span<std::byte> bytes, std::shared_ptr<void> owner, std::string name);

  /// The top folder, with its trailing '/' ("model/"); empty for open_flat.
  const std::string& prefix() const { return prefix_; }
  const std::string& path() const { return path_; }
  /// The whole archive, as mapped.
  std::span<const std::byte> bytes() const { return bytes_; }

  bool contains(std::string_view name) const;
  /// The entry names (relative to the prefix), sorted. Directory entries
  /// ("model/data/") are left out.
  std::vector<std::string> entries() const;

  /// The bytes of entry `name`, in place: every call returns the same view
  /// into the mapping. Throws AotError naming the entry if it is missing,
  /// compressed or encrypted.
  std::span<const std::byte> data(std::string_view name) const;
  std::string read_text(std::string_view name) const;
  /// The entry as tensor storage pointing into the mapping, whose owner keeps
  /// the mapping alive after this archive is gone. The mapping is private, so
  /// writes through it change this process's view only, never the file.
  std::shared_ptr<Storage> storage(std::string_view name) const;
  /// Where the entry's data starts in the file (PyTorch aligns it to 64).
  uint64_t data_offset(std::string_view name) const;

 private:
  enum class Layout { kUnderTopFolder, kFlat };
  struct Entry {
    int method = 0;  // 0: stored, 8: deflated, ...
    bool encrypted = false;
    uint64_t compressed_size = 0;
    uint64_t uncompressed_size = 0;
    uint64_t data_offset = 0;  // known for stored entries only
  };

  static ZipArchive read(std::span<std::byte> bytes, std::shared_ptr<void> owner, std::string path, Layout layout);
  /// The entry `name`, which must be stored and unencrypted.
  const Entry& stored_entry(std::string_view name) const;

  std::string path_;
  std::span<std::byte> bytes_;
  std::shared_ptr<void> owner_;
  Layout layout_ = Layout::kUnderTopFolder;
  std::string prefix_;
  std::map<std::string, Entry, std::less<>> entries_;
};

}  // namespace kiln::aot
