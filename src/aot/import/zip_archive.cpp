// The central directory and the local headers are read with minizip (which
// knows zip64), through I/O callbacks over the mapped bytes so the file is
// read once and every read minizip makes is bounds-checked here. Entry data
// is then used in place.
#include "aot/import/zip_archive.h"

#include <minizip/unzip.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "aot/import/mapped_file.h"
#include "aot/ir/error.h"

namespace kiln::aot {

namespace {

struct MemoryStream {
  const std::byte* data;
  uint64_t size;
  uint64_t position = 0;
  bool short_read = false;
};

voidpf open_memory(voidpf opaque, const void*, int) { return opaque; }

uLong read_memory(voidpf, voidpf stream, void* buffer, uLong size) {
  auto* s = static_cast<MemoryStream*>(stream);
  const uint64_t available = s->position < s->size ? s->size - s->position : 0;
  const auto count = static_cast<uLong>(std::min<uint64_t>(size, available));
  if (count > 0) std::memcpy(buffer, s->data + s->position, count);
  s->position += count;
  s->short_read = count < size;
  return count;
}

uLong write_memory(voidpf, voidpf, const void*, uLong) { return 0; }

ZPOS64_T tell_memory(voidpf, voidpf stream) { return static_cast<MemoryStream*>(stream)->position; }

long seek_memory(voidpf, voidpf stream, ZPOS64_T offset, int origin) {
  auto* s = static_cast<MemoryStream*>(stream);
  uint64_t base = 0;
  if (origin == ZLIB_FILEFUNC_SEEK_CUR)
    base = s->position;
  else if (origin == ZLIB_FILEFUNC_SEEK_END)
    base = s->size;
  if (offset > s->size || base > s->size - offset) return -1;
  s->position = base + offset;
  return 0;
}

int close_memory(voidpf, voidpf) { return 0; }
// minizip asks this after a short read; answering "no error" would make it
// accept a read past the end of the file as a good one.
int error_memory(voidpf, voidpf stream) { return static_cast<MemoryStream*>(stream)->short_read ? 1 : 0; }

// Whether `bytes` ends with an end of central directory record (and its
// comment). minizip would settle for a zip64 locator alone, and so take a
// file cut inside its last record for a whole one.
bool ends_with_end_record(std::span<const std::byte> bytes) {
  constexpr size_t kRecordSize = 22;
  if (bytes.size() < kRecordSize) return false;
  const size_t last = bytes.size() - kRecordSize;
  const size_t first = last > 0xffff ? last - 0xffff : 0;
  for (size_t at = last + 1; at-- > first;) {
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data()) + at;
    const size_t comment_size = p[20] | p[21] << 8;
    if (p[0] == 'P' && p[1] == 'K' && p[2] == 5 && p[3] == 6 && at + kRecordSize + comment_size == bytes.size()) {
      return true;
    }
  }
  return false;
}

// An unzip handle reading `bytes` through the callbacks above.
class MemoryUnzip {
 public:
  MemoryUnzip(std::span<const std::byte> bytes, const std::string& where) : stream_{bytes.data(), bytes.size()} {
    zlib_filefunc64_def io{};
    io.zopen64_file = open_memory;
    io.zread_file = read_memory;
    io.zwrite_file = write_memory;
    io.ztell64_file = tell_memory;
    io.zseek64_file = seek_memory;
    io.zclose_file = close_memory;
    io.zerror_file = error_memory;
    io.opaque = &stream_;
    if (ends_with_end_record(bytes)) zip_ = unzOpen2_64(where.c_str(), &io);
    if (zip_ == nullptr) {
      throw AotError(where + ": not a zip archive, or a truncated one (no readable end of central directory)");
    }
  }
  ~MemoryUnzip() { unzClose(zip_); }
  MemoryUnzip(const MemoryUnzip&) = delete;
  MemoryUnzip& operator=(const MemoryUnzip&) = delete;

  unzFile get() const { return zip_; }

 private:
  MemoryStream stream_;  // minizip keeps a pointer to it
  unzFile zip_ = nullptr;
};

std::string quoted(std::string_view name) { return "'" + std::string(name) + "'"; }

// Where the data of the current (stored) entry starts. Opening the entry
// (raw: nothing is inflated) checks its local header against the central
// directory; the local header's own extra field, which holds PyTorch's
// alignment padding, then sets the data's offset.
uint64_t stored_data_offset(unzFile zip, uint64_t size, uint64_t file_size, const std::string& where,
                            const std::string& name) {
  if (unzOpenCurrentFile3(zip, nullptr, nullptr, 1, nullptr) != UNZ_OK) {
    throw AotError(where + ": entry " + quoted(name) + " has a corrupt local header");
  }
  const uint64_t offset = unzGetCurrentFileZStreamPos64(zip);
  unzCloseCurrentFile(zip);
  if (offset > file_size || size > file_size - offset) {
    throw AotError(where + ": entry " + quoted(name) + " reaches past the end of the file (truncated?)");
  }
  return offset;
}

}  // namespace

ZipArchive ZipArchive::open(const std::string& path) {
  std::shared_ptr<MappedFile> file = MappedFile::open(path);
  return read({file->data(), file->size()}, file, path, Layout::kUnderTopFolder);
}

ZipArchive ZipArchive::open_flat(const std::string& path) {
  std::shared_ptr<MappedFile> file = MappedFile::open(path);
  return read({file->data(), file->size()}, file, path, Layout::kFlat);
}

ZipArchive ZipArchive::from_memory(std::span<std::byte> bytes, std::shared_ptr<void> owner, std::string name) {
  return read(bytes, std::move(owner), std::move(name), Layout::kUnderTopFolder);
}

ZipArchive ZipArchive::read(std::span<std::byte> bytes, std::shared_ptr<void> owner, std::string path, Layout layout) {
  ZipArchive archive;
  archive.path_ = std::move(path);
  archive.bytes_ = bytes;
  archive.owner_ = std::move(owner);
  archive.layout_ = layout;
  const std::string& where = archive.path_;

  const MemoryUnzip unzip(bytes, where);
  unz_global_info64 global{};
  if (unzGetGlobalInfo64(unzip.get(), &global) != UNZ_OK) throw AotError(where + ": unreadable central directory");
  if (global.number_entry == 0) throw AotError(where + ": the archive has no entries");

  // The count comes from the file: the loop stops at the first entry minizip
  // cannot read, so a false count costs no more than the file's own size.
  std::vector<char> name_buffer(0x10000);  // names are at most 0xffff bytes
  for (uint64_t i = 0; i < global.number_entry; ++i) {
    const int status = i == 0 ? unzGoToFirstFile(unzip.get()) : unzGoToNextFile(unzip.get());
    unz_file_info64 info{};
    if (status != UNZ_OK || unzGetCurrentFileInfo64(unzip.get(), &info, name_buffer.data(), name_buffer.size(), nullptr,
                                                    0, nullptr, 0) != UNZ_OK) {
      throw AotError(where + ": corrupt or truncated central directory: entry " + std::to_string(i) + " of " +
                     std::to_string(global.number_entry) + " is unreadable");
    }
    std::string name(name_buffer.data(), std::min<size_t>(info.size_filename, name_buffer.size()));
    if (i == 0 && layout == Layout::kUnderTopFolder) {
      const size_t slash = name.find('/');
      if (slash == std::string::npos) throw AotError(where + ": entry " + quoted(name) + " is not inside a top folder");
      archive.prefix_ = name.substr(0, slash + 1);
    }
    const std::string& prefix = archive.prefix_;
    if (!name.starts_with(prefix)) {
      throw AotError(where + ": entry " + quoted(name) + " is outside the archive's top folder " + quoted(prefix));
    }
    if (!name.empty() && name.back() == '/') continue;  // a directory
    name.erase(0, prefix.size());

    Entry entry;
    entry.method = static_cast<int>(info.compression_method);
    entry.encrypted = (info.flag & 1) != 0;
    entry.compressed_size = info.compressed_size;
    entry.uncompressed_size = info.uncompressed_size;
    if (entry.method == 0 && !entry.encrypted) {
      if (entry.compressed_size != entry.uncompressed_size) {
        throw AotError(where + ": entry " + quoted(name) + " is stored but its sizes differ (" +
                       std::to_string(entry.compressed_size) + " and " + std::to_string(entry.uncompressed_size) +
                       " bytes)");
      }
      entry.data_offset = stored_data_offset(unzip.get(), entry.compressed_size, bytes.size(), where, name);
    }
    if (!archive.entries_.try_emplace(name, entry).second) {
      throw AotError(where + ": entry " + quoted(name) + " appears twice");
    }
  }
  return archive;
}

bool ZipArchive::contains(std::string_view name) const { return entries_.find(name) != entries_.end(); }

std::vector<std::string> ZipArchive::entries() const {
  std::vector<std::string> names;
  names.reserve(entries_.size());
  for (const auto& [name, entry] : entries_) names.push_back(name);
  return names;
}

const ZipArchive::Entry& ZipArchive::stored_entry(std::string_view name) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) throw AotError(path_ + ": missing entry " + quoted(name));
  const Entry& entry = it->second;
  if (entry.encrypted) throw AotError(path_ + ": entry " + quoted(name) + " is encrypted");
  if (entry.method != 0) {
    throw AotError(path_ + ": entry " + quoted(name) + " is compressed (method " + std::to_string(entry.method) +
                   "); Kiln reads stored entries only" +
                   (layout_ == Layout::kFlat ? "" : " (.pt2 entries must be stored)"));
  }
  return entry;
}

std::span<const std::byte> ZipArchive::data(std::string_view name) const {
  const Entry& entry = stored_entry(name);
  return bytes_.subspan(entry.data_offset, entry.compressed_size);
}

std::string ZipArchive::read_text(std::string_view name) const {
  const auto bytes = data(name);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::shared_ptr<Storage> ZipArchive::storage(std::string_view name) const {
  const Entry& entry = stored_entry(name);
  auto storage = std::make_shared<Storage>();
  storage->data = bytes_.data() + entry.data_offset;
  storage->nbytes = entry.compressed_size;
  storage->owner = owner_;
  return storage;
}

uint64_t ZipArchive::data_offset(std::string_view name) const { return stored_entry(name).data_offset; }

}  // namespace kiln::aot
