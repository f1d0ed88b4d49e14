#include "aot/import/npz.h"

#include <minizip/zip.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "aot/import/zip_archive.h"
#include "aot/ir/error.h"

namespace kiln::aot {

namespace {

const std::map<std::string, ScalarType>& descr_types() {
  static const std::map<std::string, ScalarType> types = {
      {"<f4", ScalarType::Float}, {"<f8", ScalarType::Double}, {"<f2", ScalarType::Half},
      {"<i8", ScalarType::Long},  {"<i4", ScalarType::Int},    {"<i2", ScalarType::Short},
      {"|i1", ScalarType::Char},  {"|u1", ScalarType::Byte},   {"|b1", ScalarType::Bool},
      {"<u2", ScalarType::UInt16}, {"<u4", ScalarType::UInt32}, {"<u8", ScalarType::UInt64},
      {"<c8", ScalarType::ComplexFloat}, {"<c16", ScalarType::ComplexDouble},
  };
  return types;
}

std::string descr_of(ScalarType type) {
  for (const auto& [descr, candidate] : descr_types()) {
    if (candidate == type) return descr;
  }
  throw AotError(std::string("NumPy has no dtype for ") + runtime::to_string(type));
}

// The value of `key` in the header's Python dict literal.
std::string header_value(const std::string& header, const std::string& key, const std::string& where) {
  const std::string quoted = "'" + key + "':";
  const size_t at = header.find(quoted);
  if (at == std::string::npos) throw AotError(where + ": the .npy header has no '" + key + "'");
  size_t start = at + quoted.size();
  while (start < header.size() && header[start] == ' ') ++start;
  size_t end = start;
  if (start < header.size() && (header[start] == '\'' || header[start] == '(')) {
    const char close = header[start] == '(' ? ')' : '\'';
    end = header.find(close, start + 1);
    if (end == std::string::npos) throw AotError(where + ": malformed .npy header");
    return header.substr(start, end - start + 1);
  }
  while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
  return header.substr(start, end - start);
}

}  // namespace

HostTensor parse_npy(const void* data, size_t size, const std::string& where) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  if (size < 10 || std::memcmp(bytes, "\x93NUMPY", 6) != 0) throw AotError(where + ": not a .npy array");
  const uint8_t major = bytes[6];
  size_t header_length;
  size_t header_start;
  if (major == 1) {
    header_length = bytes[8] | (bytes[9] << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) throw AotError(where + ": truncated .npy header");
    header_length = bytes[8] | (bytes[9] << 8) | (bytes[10] << 16) | (static_cast<size_t>(bytes[11]) << 24);
    header_start = 12;
  } else {
    throw AotError(where + ": .npy format version " + std::to_string(major) + " is not supported");
  }
  if (header_length > size - header_start) throw AotError(where + ": truncated .npy header");
  const std::string header(reinterpret_cast<const char*>(bytes + header_start), header_length);

  std::string descr = header_value(header, "descr", where);
  if (descr.size() < 2 || descr.front() != '\'' || descr.back() != '\'') {
    throw AotError(where + ": the .npy header's descr is not a quoted string");
  }
  descr = descr.substr(1, descr.size() - 2);
  if (descr == "=f4") descr = "<f4";
  const auto type = descr_types().find(descr);
  if (type == descr_types().end()) throw AotError(where + ": dtype '" + descr + "' is not supported");
  const bool fortran = header_value(header, "fortran_order", where) == "True";

  std::vector<int64_t> sizes;
  const std::string shape = header_value(header, "shape", where);
  size_t pos = 1;
  while (pos < shape.size()) {
    while (pos < shape.size() && (shape[pos] == ' ' || shape[pos] == ',')) ++pos;
    if (pos >= shape.size() || shape[pos] == ')') break;
    size_t used = 0;
    try {
      sizes.push_back(std::stoll(shape.substr(pos), &used));
    } catch (const std::exception&) {
      throw AotError(where + ": malformed shape " + shape);
    }
    if (sizes.back() < 0) throw AotError(where + ": negative size in shape " + shape);
    pos += used;
  }

  // The byte count is checked against the data before anything is allocated:
  // a header of a few bytes may claim terabytes.
  const size_t data_start = header_start + header_length;
  uint64_t nbytes = runtime::element_size(type->second);
  for (int64_t dim : sizes) {
    if (__builtin_mul_overflow(nbytes, static_cast<uint64_t>(dim), &nbytes)) {
      throw AotError(where + ": shape " + shape + " overflows");
    }
  }
  if (nbytes > size - data_start) {
    throw AotError(where + ": holds " + std::to_string(size - data_start) + " bytes of data, but shape " + shape +
                   " of " + descr + " needs " + std::to_string(nbytes));
  }
  HostTensor tensor = HostTensor::zeros(type->second, sizes);
  if (!fortran || sizes.size() < 2) {
    std::memcpy(tensor.data(), bytes + data_start, tensor.nbytes());
    return tensor;
  }
  // Fortran order: read as the reversed shape, then transpose into place.
  std::vector<int64_t> reversed(sizes.rbegin(), sizes.rend());
  HostTensor column_major = HostTensor::zeros(type->second, reversed);
  std::memcpy(column_major.data(), bytes + data_start, tensor.nbytes());
  std::vector<int64_t> strides = contiguous_strides(reversed);
  std::reverse(strides.begin(), strides.end());
  tensor.copy_from(HostTensor(type->second, sizes, strides, 0, column_major.storage()));
  return tensor;
}

std::vector<std::pair<std::string, HostTensor>> read_npz(const std::string& path) {
  const ZipArchive archive = ZipArchive::open_flat(path);
  std::vector<std::pair<std::string, HostTensor>> arrays;
  for (const std::string& entry : archive.entries()) {
    const std::string suffix = ".npy";
    if (entry.size() <= suffix.size() || entry.compare(entry.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    const auto data = archive.data(entry);
    const std::string name = entry.substr(0, entry.size() - suffix.size());
    arrays.emplace_back(name, parse_npy(data.data(), data.size(), path + ": array '" + name + "'"));
  }
  if (arrays.empty()) throw AotError(path + ": holds no .npy arrays");
  return arrays;
}

std::string npy_bytes(const HostTensor& tensor) {
  // Python's tuple syntax: (), (3,), (2, 3).
  std::string shape = "(";
  for (size_t i = 0; i < tensor.rank(); ++i) {
    if (i > 0) shape += " ";
    shape += std::to_string(tensor.sizes()[i]) + ",";
  }
  if (tensor.rank() > 1) shape.pop_back();
  shape += ")";
  std::string header = "{'descr': '" + descr_of(tensor.dtype()) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so that the data starts on a 64-byte boundary, ending with a newline.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string bytes = "\x93NUMPY";
  bytes += static_cast<char>(1);
  bytes += static_cast<char>(0);
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>((header.size() >> 8) & 0xff);
  bytes += header;
  const HostTensor dense = tensor.is_contiguous() ? tensor : tensor.clone();
  bytes.append(static_cast<const char*>(dense.data()), dense.nbytes());
  return bytes;
}

void write_npz(const std::string& path, const std::vector<std::pair<std::string, HostTensor>>& arrays) {
  zipFile zip = zipOpen64(path.c_str(), APPEND_STATUS_CREATE);
  if (zip == nullptr) throw AotError(path + ": cannot create the file");
  for (const auto& [name, tensor] : arrays) {
    const std::string bytes = npy_bytes(tensor);
    const std::string entry = name + ".npy";
    zip_fileinfo info{};
    if (zipOpenNewFileInZip64(zip, entry.c_str(), &info, nullptr, 0, nullptr, 0, nullptr, 0, 0, 1) != ZIP_OK ||
        zipWriteInFileInZip(zip, bytes.data(), static_cast<unsigned>(bytes.size())) != ZIP_OK ||
        zipCloseFileInZip(zip) != ZIP_OK) {
      zipClose(zip, nullptr);
      throw AotError(path + ": cannot write array '" + name + "'");
    }
  }
  if (zipClose(zip, nullptr) != ZIP_OK) throw AotError(path + ": cannot finish writing the file");
}

}  // namespace kiln::aot
