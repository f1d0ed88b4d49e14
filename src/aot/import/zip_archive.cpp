// The central directory is read with minizip (which knows zip64 and the
// local headers), through I/O callbacks over the mapping so the file is read
// once; entry data is then used in place.
#include "aot/import/zip_archive.h"

#include <minizip/unzip.h>

#include <algorithm>
#include <cstring>

#include "aot/ir/error.h"

namespace kiln::aot {

namespace {

struct MemoryStream {
  const std::byte* data;
  uint64_t size;
  uint64_t position = 0;
};

voidpf open_memory(voidpf opaque, const void*, int) { return opaque; }

uLong read_memory(voidpf, voidpf stream, void* buffer, uLong size) {
  auto* s = static_cast<MemoryStream*>(stream);
  const uint64_t available = s->position < s->size ? s->size - s->position : 0;
  const uLong count = static_cast<uLong>(std::min<uint64_t>(size, available));
  std::memcpy(buffer, s->data + s->position, count);
  s->position += count;
  return count;
}

uLong write_memory(voidpf, voidpf, const void*, uLong) { return 0; }

ZPOS64_T tell_memory(voidpf, voidpf stream) { return static_cast<MemoryStream*>(stream)->position; }

long seek_memory(voidpf, voidpf stream, ZPOS64_T offset, int origin) {
  auto* s = static_cast<MemoryStream*>(stream);
  uint64_t base = 0;
  if (origin == ZLIB_FILEFUNC_SEEK_CUR) base = s->position;
  else if (origin == ZLIB_FILEFUNC_SEEK_END) base = s->size;
  if (offset > s->size || base > s->size - offset) return -1;
  s->position = base + offset;
  return 0;
}

int close_memory(voidpf, voidpf) { return 0; }
int error_memory(voidpf, voidpf) { return 0; }

// The end-of-central-directory record must be whole and end the file (with
// its comment); minizip accepts a record cut short, so check first.
void check_end_record(const std::string& path, const std::byte* data, size_t size) {
  constexpr size_t kRecord = 22;
  const size_t lowest = size > kRecord + 65535 ? size - kRecord - 65535 : 0;
  for (size_t at = size >= 4 ? size - 4 : 0; size >= 4; --at) {
    if (std::memcmp(data + at, "PK\x05\x06", 4) == 0) {
      if (at + kRecord > size) break;
      const size_t comment = static_cast<size_t>(data[at + 20]) | (static_cast<size_t>(data[at + 21]) << 8);
      if (at + kRecord + comment != size) break;
      return;
    }
    if (at == lowest) break;
  }
  throw AotError(path + ": not a zip archive, or its end is truncated (no complete end-of-central-directory record)");
}

}  // namespace

ZipArchive ZipArchive::open(const std::string& path) { return read(path, false); }
ZipArchive ZipArchive::open_flat(const std::string& path) { return read(path, true); }

ZipArchive ZipArchive::read(const std::string& path, bool flat) {
  ZipArchive archive;
  archive.file_ = MappedFile::open(path);
  check_end_record(path, archive.file_->data(), archive.file_->size());
  MemoryStream stream{archive.file_->data(), archive.file_->size()};
  zlib_filefunc64_def io{};
  io.zopen64_file = open_memory;
  io.zread_file = read_memory;
  io.zwrite_file = write_memory;
  io.ztell64_file = tell_memory;
  io.zseek64_file = seek_memory;
  io.zclose_file = close_memory;
  io.zerror_file = error_memory;
  io.opaque = &stream;
  unzFile zip = unzOpen2_64(path.c_str(), &io);
  if (zip == nullptr) throw AotError(path + ": not a zip archive, or its central directory is truncated");
  struct Closer {
    unzFile zip;
    ~Closer() { unzClose(zip); }
  } closer{zip};

  std::vector<std::pair<std::string, Entry>> found;
  for (int status = unzGoToFirstFile(zip); status != UNZ_END_OF_LIST_OF_FILE; status = unzGoToNextFile(zip)) {
    if (status != UNZ_OK) throw AotError(path + ": corrupt central directory after " + std::to_string(found.size()) + " entries");
    unz_file_info64 info{};
    char name[4096];
    if (unzGetCurrentFileInfo64(zip, &info, name, sizeof name, nullptr, 0, nullptr, 0) != UNZ_OK) {
      throw AotError(path + ": corrupt central directory entry " + std::to_string(found.size()));
    }
    if (info.size_filename >= sizeof name) throw AotError(path + ": entry name too long");
    Entry entry;
    entry.method = static_cast<int>(info.compression_method);
    entry.size = info.compressed_size;
    // Opening the entry checks its local header, whose extra field carries
    // the alignment padding; the stream position is then the data's offset.
    if (unzOpenCurrentFile(zip) != UNZ_OK) throw AotError(path + ": entry '" + name + "' has a corrupt local header");
    entry.offset = static_cast<uint64_t>(unzGetCurrentFileZStreamPos64(zip));
    unzCloseCurrentFile(zip);
    if (entry.offset > archive.file_->size() || entry.size > archive.file_->size() - entry.offset) {
      throw AotError(path + ": entry '" + std::string(name) + "' reaches past the end of the file (truncated?)");
    }
    found.emplace_back(name, entry);
  }
  if (found.empty()) throw AotError(path + ": the archive is empty");

  if (!flat) {
    const std::string& first = found.front().first;
    const size_t slash = first.find('/');
    if (slash == std::string::npos) throw AotError(path + ": entry '" + first + "' is not inside a top folder");
    archive.prefix_ = first.substr(0, slash + 1);
  }
  for (auto& [name, entry] : found) {
    if (name.rfind(archive.prefix_, 0) != 0) {
      throw AotError(path + ": entry '" + name + "' is outside the archive's folder '" + archive.prefix_ + "'");
    }
    if (!archive.entries_.emplace(name.substr(archive.prefix_.size()), entry).second) {
      throw AotError(path + ": entry '" + name + "' appears twice");
    }
  }
  return archive;
}

bool ZipArchive::contains(std::string_view name) const { return entries_.find(name) != entries_.end(); }

std::vector<std::string> ZipArchive::entries() const {
  std::vector<std::string> names;
  for (const auto& [name, entry] : entries_) names.push_back(name);
  return names;
}

const ZipArchive::Entry& ZipArchive::entry(std::string_view name) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) throw AotError(path() + ": missing entry '" + std::string(name) + "'");
  if (it->second.method != 0) {
    throw AotError(path() + ": entry '" + std::string(name) + "' is compressed (method " +
                   std::to_string(it->second.method) + "); Kiln reads stored entries only");
  }
  return it->second;
}

std::span<const std::byte> ZipArchive::data(std::string_view name) const {
  const Entry& e = entry(name);
  return {file_->data() + e.offset, static_cast<size_t>(e.size)};
}

std::string ZipArchive::read_text(std::string_view name) const {
  const auto bytes = data(name);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::shared_ptr<Storage> ZipArchive::storage(std::string_view name) const {
  const Entry& e = entry(name);
  auto storage = std::make_shared<Storage>();
  storage->data = file_->data() + e.offset;
  storage->nbytes = static_cast<size_t>(e.size);
  storage->owner = file_;
  return storage;
}

uint64_t ZipArchive::data_offset(std::string_view name) const { return entry(name).offset; }

}  // namespace kiln::aot
