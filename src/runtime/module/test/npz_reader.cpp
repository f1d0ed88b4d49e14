#include "runtime/module/test/npz_reader.h"

#include <minizip/unzip.h>

#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>

namespace kiln::runtime::testing {
namespace {

const std::map<std::string, ScalarType>& descr_types() {
  static const std::map<std::string, ScalarType> types = {
      {"<f4", ScalarType::Float},  {"<f8", ScalarType::Double},        {"<f2", ScalarType::Half},
      {"<i8", ScalarType::Long},   {"<i4", ScalarType::Int},           {"<i2", ScalarType::Short},
      {"|i1", ScalarType::Char},   {"|u1", ScalarType::Byte},          {"|b1", ScalarType::Bool},
      {"<u2", ScalarType::UInt16}, {"<u4", ScalarType::UInt32},        {"<u8", ScalarType::UInt64},
      {"<c8", ScalarType::ComplexFloat}, {"<c16", ScalarType::ComplexDouble},
  };
  return types;
}

[[noreturn]] void fail(const std::string& where, const std::string& reason) {
  throw std::runtime_error(where + ": " + reason);
}

/// The text after `'key':` in a .npy header dict, up to the next top-level
/// comma (a shape's parentheses kept whole).
std::string header_value(const std::string& header, const std::string& key, const std::string& where) {
  const size_t at = header.find("'" + key + "':");
  if (at == std::string::npos) fail(where, "the .npy header has no '" + key + "'");
  size_t begin = at + key.size() + 3;
  while (begin < header.size() && header[begin] == ' ') ++begin;
  size_t end = begin;
  int depth = 0;
  for (; end < header.size(); ++end) {
    if (header[end] == '(') ++depth;
    if (header[end] == ')') --depth;
    if ((header[end] == ',' || header[end] == '}') && depth == 0) break;
  }
  return header.substr(begin, end - begin);
}

std::vector<SizesType> parse_shape(const std::string& text, const std::string& where) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') fail(where, "the .npy shape '" + text + "' is not a tuple");
  std::vector<SizesType> sizes;
  size_t pos = 1;
  while (pos < text.size() - 1) {
    while (pos < text.size() - 1 && (text[pos] == ' ' || text[pos] == ',')) ++pos;
    if (pos >= text.size() - 1) break;
    size_t used = 0;
    long long size = 0;
    try {
      size = std::stoll(text.substr(pos), &used);
    } catch (const std::exception&) {
      fail(where, "the .npy shape '" + text + "' holds something other than sizes");
    }
    if (size < 0 || size > INT32_MAX) fail(where, "the .npy shape '" + text + "' has a size out of range");
    sizes.push_back(static_cast<SizesType>(size));
    pos += used;
  }
  return sizes;
}

}  // namespace

size_t NpyArray::numel() const {
  size_t count = 1;
  for (SizesType size : sizes) count *= static_cast<size_t>(size);
  return count;
}

NpyArray parse_npy(const std::vector<uint8_t>& bytes, const std::string& where) {
  static const char kMagic[] = "\x93NUMPY";
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, 6) != 0) fail(where, "not a .npy file");
  const uint8_t major = bytes[6];
  size_t header_begin = 10;
  size_t header_size = bytes[8] | (bytes[9] << 8);
  if (major == 2 || major == 3) {
    if (bytes.size() < 12) fail(where, "the .npy header is cut short");
    header_begin = 12;
    header_size = bytes[8] | (bytes[9] << 8) | (bytes[10] << 16) | (static_cast<size_t>(bytes[11]) << 24);
  } else if (major != 1) {
    fail(where, ".npy format version " + std::to_string(major) + " is not supported");
  }
  if (header_begin + header_size > bytes.size()) fail(where, "the .npy header is cut short");
  const std::string header(reinterpret_cast<const char*>(bytes.data()) + header_begin, header_size);

  std::string descr = header_value(header, "descr", where);
  if (descr.size() < 2 || descr.front() != '\'' || descr.back() != '\'') fail(where, "the .npy descr is not a string");
  descr = descr.substr(1, descr.size() - 2);
  if (descr == "=f4") descr = "<f4";
  const auto type = descr_types().find(descr);
  if (type == descr_types().end()) fail(where, "dtype '" + descr + "' is not supported");
  if (header_value(header, "fortran_order", where) != "False") fail(where, "Fortran-ordered arrays are not supported");

  NpyArray array;
  array.dtype = type->second;
  array.sizes = parse_shape(header_value(header, "shape", where), where);
  const size_t nbytes = array.numel() * element_size(array.dtype);
  const size_t data_begin = header_begin + header_size;
  if (bytes.size() - data_begin != nbytes) {
    fail(where, "the .npy data has " + std::to_string(bytes.size() - data_begin) + " bytes, its shape and dtype need " +
                    std::to_string(nbytes));
  }
  array.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(data_begin), bytes.end());
  return array;
}

std::vector<std::pair<std::string, NpyArray>> read_npz(const std::string& path) {
  std::unique_ptr<void, int (*)(unzFile)> zip(unzOpen64(path.c_str()), unzClose);
  if (!zip) fail(path, "cannot open it as a zip archive");
  std::vector<std::pair<std::string, NpyArray>> arrays;
  for (int status = unzGoToFirstFile(zip.get()); status != UNZ_END_OF_LIST_OF_FILE;
       status = unzGoToNextFile(zip.get())) {
    if (status != UNZ_OK) fail(path, "a broken zip directory (minizip error " + std::to_string(status) + ")");
    unz_file_info64 info;
    char name[1024];
    if (unzGetCurrentFileInfo64(zip.get(), &info, name, sizeof name, nullptr, 0, nullptr, 0) != UNZ_OK) {
      fail(path, "cannot read a zip entry's header");
    }
    const std::string where = path + ": " + name;
    std::vector<uint8_t> bytes(info.uncompressed_size);
    if (unzOpenCurrentFile(zip.get()) != UNZ_OK) fail(where, "cannot open the entry");
    const int read = bytes.empty() ? 0 : unzReadCurrentFile(zip.get(), bytes.data(), static_cast<unsigned>(bytes.size()));
    const int closed = unzCloseCurrentFile(zip.get());  // checks the CRC
    if (read != static_cast<int>(bytes.size()) || closed != UNZ_OK) fail(where, "the entry is cut short or corrupt");
    std::string key = name;
    if (key.size() < 4 || key.compare(key.size() - 4, 4, ".npy") != 0) fail(where, "an entry that is not a .npy file");
    key.resize(key.size() - 4);
    arrays.emplace_back(key, parse_npy(bytes, where));
  }
  return arrays;
}

}  // namespace kiln::runtime::testing
