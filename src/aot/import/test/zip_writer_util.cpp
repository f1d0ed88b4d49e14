#include "aot/import/test/zip_writer_util.h"

#include <gtest/gtest.h>
#include <minizip/zip.h>
#include <stdlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kiln::aot::zip_test {

namespace {

// minizip writes into this instead of a file, so the local header offsets
// (the stream position before each entry) are known for the padding.
struct MemorySink {
  std::string bytes;
  uint64_t position = 0;
};

voidpf open_sink(voidpf opaque, const void*, int) { return opaque; }

uLong read_sink(voidpf, voidpf stream, void* buffer, uLong size) {
  auto* sink = static_cast<MemorySink*>(stream);
  const uint64_t available = sink->position < sink->bytes.size() ? sink->bytes.size() - sink->position : 0;
  const auto count = static_cast<uLong>(std::min<uint64_t>(size, available));
  if (count > 0) std::memcpy(buffer, sink->bytes.data() + sink->position, count);
  sink->position += count;
  return count;
}

uLong write_sink(voidpf, voidpf stream, const void* buffer, uLong size) {
  auto* sink = static_cast<MemorySink*>(stream);
  if (sink->bytes.size() < sink->position + size) sink->bytes.resize(sink->position + size);
  std::memcpy(sink->bytes.data() + sink->position, buffer, size);
  sink->position += size;
  return size;
}

ZPOS64_T tell_sink(voidpf, voidpf stream) { return static_cast<MemorySink*>(stream)->position; }

long seek_sink(voidpf, voidpf stream, ZPOS64_T offset, int origin) {
  auto* sink = static_cast<MemorySink*>(stream);
  if (origin == ZLIB_FILEFUNC_SEEK_CUR)
    offset += sink->position;
  else if (origin == ZLIB_FILEFUNC_SEEK_END)
    offset += sink->bytes.size();
  sink->position = offset;
  return 0;
}

int close_sink(voidpf, voidpf) { return 0; }
int error_sink(voidpf, voidpf) { return 0; }

// PyTorch's getPadding: 'F','B', the padding's length, then 'Z's.
std::string alignment_field(uint64_t local_header_offset, const ZipEntrySpec& entry, bool zip64) {
  const uint64_t zip64_field = zip64 ? 20 : 0;  // minizip adds it after ours
  const uint64_t unpadded = local_header_offset + 30 + entry.name.size() + 4 + zip64_field;
  const uint64_t padding = (64 - unpadded % 64) % 64;
  std::string field = "FB";
  field += static_cast<char>(padding & 0xff);
  field += static_cast<char>(padding >> 8);
  field.append(padding, 'Z');
  return field;
}

std::string le(uint64_t value, int width) {
  std::string bytes(width, '\0');
  put_le(bytes, 0, value, width);
  return bytes;
}

void add_zip64_end(std::string& zip) {
  const size_t end = zip.size() - 22;  // minizip writes no archive comment
  if (zip.compare(end, 4, "PK\5\6") != 0) throw std::runtime_error("no end of central directory record");
  const uint64_t count = get_le(zip, end + 10, 2);
  const uint64_t directory_size = get_le(zip, end + 12, 4);
  const uint64_t directory_offset = get_le(zip, end + 16, 4);
  std::string records = "PK\6\6" + le(44, 8) + le(45, 2) + le(45, 2) + le(0, 4) + le(0, 4) + le(count, 8) +
                        le(count, 8) + le(directory_size, 8) + le(directory_offset, 8);
  records += "PK\6\7" + le(0, 4) + le(end, 8) + le(1, 4);
  records += "PK\5\6" + le(0, 4) + le(0xffff, 2) + le(0xffff, 2) + le(0xffffffff, 4) + le(0xffffffff, 4) + le(0, 2);
  zip.replace(end, 22, records);
}

}  // namespace

std::string zip_bytes(const std::vector<ZipEntrySpec>& entries, ZipLayout layout) {
  MemorySink sink;
  zlib_filefunc64_def io{};
  io.zopen64_file = open_sink;
  io.zread_file = read_sink;
  io.zwrite_file = write_sink;
  io.ztell64_file = tell_sink;
  io.zseek64_file = seek_sink;
  io.zclose_file = close_sink;
  io.zerror_file = error_sink;
  io.opaque = &sink;
  zipFile zip = zipOpen2_64("memory", APPEND_STATUS_CREATE, nullptr, &io);
  if (zip == nullptr) throw std::runtime_error("zipOpen2_64 failed");
  for (const ZipEntrySpec& entry : entries) {
    const std::string extra = layout.align && !entry.deflate ? alignment_field(sink.position, entry, layout.zip64) : "";
    zip_fileinfo info{};
    const int method = entry.deflate ? Z_DEFLATED : 0;
    const int level = entry.deflate ? Z_DEFAULT_COMPRESSION : 0;
    if (zipOpenNewFileInZip64(zip, entry.name.c_str(), &info, extra.empty() ? nullptr : extra.data(),
                              static_cast<uInt>(extra.size()), nullptr, 0, nullptr, method, level,
                              layout.zip64 ? 1 : 0) != ZIP_OK ||
        zipWriteInFileInZip(zip, entry.data.data(), static_cast<unsigned>(entry.data.size())) != ZIP_OK ||
        zipCloseFileInZip(zip) != ZIP_OK) {
      zipClose(zip, nullptr);
      throw std::runtime_error("minizip failed to write entry " + entry.name);
    }
  }
  if (zipClose(zip, nullptr) != ZIP_OK) throw std::runtime_error("zipClose failed");
  if (layout.zip64_end) add_zip64_end(sink.bytes);
  return sink.bytes;
}

std::string read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot read " + path);
  std::ostringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

void write_file(const std::string& path, std::string_view bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!file) throw std::runtime_error("cannot write " + path);
}

TempDir::TempDir() {
  std::string pattern = ::testing::TempDir() + "kiln_zip_XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

size_t find_header(const std::string& zip, std::string_view signature, const std::string& name) {
  const bool central = signature == std::string_view("PK\1\2", 4);
  const size_t name_offset = central ? 46 : 30;
  const size_t length_offset = central ? 28 : 26;
  for (size_t at = zip.find(signature); at != std::string::npos; at = zip.find(signature, at + 1)) {
    if (at + name_offset + name.size() > zip.size()) break;
    const auto length = static_cast<size_t>(static_cast<unsigned char>(zip[at + length_offset]) |
                                            static_cast<unsigned char>(zip[at + length_offset + 1]) << 8);
    if (length == name.size() && zip.compare(at + name_offset, name.size(), name) == 0) return at;
  }
  throw std::runtime_error("no header for " + name);
}

void put_le(std::string& zip, size_t offset, uint64_t value, int width) {
  for (int i = 0; i < width; ++i) zip.at(offset + i) = static_cast<char>((value >> (8 * i)) & 0xff);
}

uint64_t get_le(const std::string& zip, size_t offset, int width) {
  uint64_t value = 0;
  for (int i = width - 1; i >= 0; --i) value = value << 8 | static_cast<unsigned char>(zip.at(offset + i));
  return value;
}

}  // namespace kiln::aot::zip_test
