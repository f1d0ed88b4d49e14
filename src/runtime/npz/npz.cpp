#include "runtime/npz/npz.h"

#include <minizip/unzip.h>
#include <minizip/zip.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <utility>

#include "runtime/core/log.h"

namespace kiln::runtime {

namespace {

/// NumPy's dtype strings (the header's 'descr'), little-endian.
struct NpyDtype {
  const char* descr;
  ScalarType type;
};
constexpr NpyDtype kNpyDtypes[] = {
    {"<f4", ScalarType::Float},   {"<f8", ScalarType::Double},       {"<f2", ScalarType::Half},
    {"<i8", ScalarType::Long},    {"<i4", ScalarType::Int},          {"<i2", ScalarType::Short},
    {"|i1", ScalarType::Char},    {"|u1", ScalarType::Byte},         {"|b1", ScalarType::Bool},
    {"<u2", ScalarType::UInt16},  {"<u4", ScalarType::UInt32},       {"<u8", ScalarType::UInt64},
    {"<c8", ScalarType::ComplexFloat}, {"<c16", ScalarType::ComplexDouble},
};

const NpyDtype* dtype_of_descr(const std::string& descr) {
  // '=' is the machine's order: little-endian on every target Kiln builds for.
  const std::string little = descr.size() > 1 && descr[0] == '=' ? "<" + descr.substr(1) : descr;
  for (const NpyDtype& dtype : kNpyDtypes) {
    if (little == dtype.descr) return &dtype;
  }
  return nullptr;
}

const char* descr_of(ScalarType type) {
  for (const NpyDtype& dtype : kNpyDtypes) {
    if (dtype.type == type) return dtype.descr;
  }
  return nullptr;
}

Error fail(Error error, const std::string& where, const std::string& reason) {
  KILN_LOG(Error, "%s: %s", where.c_str(), reason.c_str());
  return error;
}

/// The text of `key`'s value in the header's Python dict literal: a quoted
/// string or a tuple whole, else up to the next comma or brace.
Error header_value(const std::string& header, const std::string& key, const std::string& where, std::string* value) {
  const std::string quoted = "'" + key + "':";
  const size_t at = header.find(quoted);
  if (at == std::string::npos) return fail(Error::InvalidArgument, where, "the .npy header has no '" + key + "'");
  size_t start = at + quoted.size();
  while (start < header.size() && header[start] == ' ') ++start;
  if (start < header.size() && (header[start] == '\'' || header[start] == '(')) {
    const size_t end = header.find(header[start] == '(' ? ')' : '\'', start + 1);
    if (end == std::string::npos) return fail(Error::InvalidArgument, where, "malformed .npy header");
    *value = header.substr(start, end - start + 1);
    return Error::Ok;
  }
  size_t end = start;
  while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
  *value = header.substr(start, end - start);
  return Error::Ok;
}

/// The sizes of a shape tuple: "()", "(3,)", "(2, 3)".
Error parse_shape(const std::string& shape, const std::string& where, std::vector<int64_t>* sizes) {
  size_t pos = 1;
  while (pos < shape.size()) {
    while (pos < shape.size() && (shape[pos] == ' ' || shape[pos] == ',')) ++pos;
    if (pos >= shape.size() || shape[pos] == ')') break;
    if (shape[pos] == '-') return fail(Error::InvalidArgument, where, "negative size in shape " + shape);
    uint64_t size = 0;
    size_t digits = 0;
    for (; pos < shape.size() && shape[pos] >= '0' && shape[pos] <= '9'; ++pos, ++digits) {
      if (__builtin_mul_overflow(size, 10, &size) || __builtin_add_overflow(size, shape[pos] - '0', &size)) {
        return fail(Error::InvalidArgument, where, "shape " + shape + " overflows");
      }
    }
    if (digits == 0 || size > static_cast<uint64_t>(INT64_MAX)) {
      return fail(Error::InvalidArgument, where, "malformed shape " + shape);
    }
    sizes->push_back(static_cast<int64_t>(size));
  }
  return Error::Ok;
}

/// C-order bytes of an array whose `bytes` are in Fortran (column-major) order.
std::vector<uint8_t> c_order(const uint8_t* bytes, const std::vector<int64_t>& sizes, size_t width) {
  size_t numel = 1;
  for (int64_t size : sizes) numel *= static_cast<size_t>(size);
  std::vector<uint8_t> out(numel * width);
  std::vector<size_t> column_strides(sizes.size());
  size_t stride = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    column_strides[d] = stride;
    stride *= static_cast<size_t>(sizes[d]);
  }
  std::vector<int64_t> index(sizes.size(), 0);
  for (size_t flat = 0; flat < numel; ++flat) {
    size_t source = 0;
    for (size_t d = 0; d < sizes.size(); ++d) source += static_cast<size_t>(index[d]) * column_strides[d];
    std::memcpy(out.data() + flat * width, bytes + source * width, width);
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

bool ends_with(const std::string& text, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return text.size() >= n && text.compare(text.size() - n, n, suffix) == 0;
}

/// Deflate expands at most ~1032 times; a claim beyond that is a lie.
constexpr uint64_t kMaxDeflateRatio = 1032;

/// The current entry's bytes, after checking its sizes against the file's.
Result<std::vector<uint8_t>> read_entry(unzFile zip, const unz_file_info64& info, uint64_t file_size,
                                        const std::string& where) {
  const bool stored = info.compression_method == 0;
  if (info.compressed_size > file_size ||
      (stored ? info.uncompressed_size != info.compressed_size
              : info.uncompressed_size > info.compressed_size * kMaxDeflateRatio + 64)) {
    return fail(Error::InvalidArgument, where, "the entry's sizes do not fit the file (a corrupt archive)");
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(info.uncompressed_size));
  if (unzOpenCurrentFile(zip) != UNZ_OK) return fail(Error::InvalidArgument, where, "cannot open the entry");
  const int read = bytes.empty() ? 0 : unzReadCurrentFile(zip, bytes.data(), static_cast<unsigned>(bytes.size()));
  const int closed = unzCloseCurrentFile(zip);  // checks the CRC
  if (read != static_cast<int>(bytes.size()) || closed != UNZ_OK) {
    return fail(Error::InvalidArgument, where, "the entry is cut short or corrupt");
  }
  return bytes;
}

}  // namespace

size_t NpyArray::numel() const {
  size_t count = 1;
  for (int64_t size : sizes) count *= static_cast<size_t>(size);
  return count;
}

size_t NpyArray::scalar_count() const { return numel() * (is_complex_type(dtype) ? 2 : 1); }

double NpyArray::scalar(size_t index) const {
  const uint8_t* at = data.data();
  const auto read = [&](auto zero) {
    decltype(zero) value;
    std::memcpy(&value, at + index * sizeof value, sizeof value);
    return value;
  };
  switch (dtype) {
    case ScalarType::Float: case ScalarType::ComplexFloat: return read(float{});
    case ScalarType::Double: case ScalarType::ComplexDouble: return read(double{});
    case ScalarType::Half: return static_cast<float>(read(Half{}));
    case ScalarType::BFloat16: return static_cast<float>(read(BFloat16{}));
    case ScalarType::Long: return static_cast<double>(read(int64_t{}));
    case ScalarType::Int: return read(int32_t{});
    case ScalarType::Short: return read(int16_t{});
    case ScalarType::Char: return read(int8_t{});
    case ScalarType::Byte: return read(uint8_t{});
    case ScalarType::Bool: return read(uint8_t{}) != 0 ? 1.0 : 0.0;
    case ScalarType::UInt16: return read(uint16_t{});
    case ScalarType::UInt32: return read(uint32_t{});
    case ScalarType::UInt64: return static_cast<double>(read(uint64_t{}));
    default: return __builtin_nan("");
  }
}

std::string describe_tensor(ScalarType dtype, const std::vector<int64_t>& sizes) {
  std::string text = std::string(short_name(dtype)) + "[";
  for (size_t d = 0; d < sizes.size(); ++d) text += (d ? ", " : "") + std::to_string(sizes[d]);
  return text + "]";
}

bool has_npy_dtype(ScalarType dtype) { return descr_of(dtype) != nullptr; }

Result<NpyArray> parse_npy(const void* data, size_t size, const std::string& where) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  if (size < 10 || std::memcmp(bytes, "\x93NUMPY", 6) != 0) return fail(Error::InvalidArgument, where, "not a .npy array");
  const uint8_t major = bytes[6];
  size_t header_length = bytes[8] | (bytes[9] << 8);
  size_t header_start = 10;
  if (major == 2 || major == 3) {
    if (size < 12) return fail(Error::InvalidArgument, where, "truncated .npy header");
    header_length |= (static_cast<size_t>(bytes[10]) << 16) | (static_cast<size_t>(bytes[11]) << 24);
    header_start = 12;
  } else if (major != 1) {
    return fail(Error::NotSupported, where, ".npy format version " + std::to_string(major) + " is not supported");
  }
  if (header_length > size - header_start) return fail(Error::InvalidArgument, where, "truncated .npy header");
  const std::string header(reinterpret_cast<const char*>(bytes + header_start), header_length);

  std::string descr, fortran, shape;
  KILN_TRY(header_value(header, "descr", where, &descr));
  KILN_TRY(header_value(header, "fortran_order", where, &fortran));
  KILN_TRY(header_value(header, "shape", where, &shape));
  if (descr.size() < 2 || descr.front() != '\'' || descr.back() != '\'') {
    return fail(Error::InvalidArgument, where, "the .npy header's descr is not a quoted string");
  }
  descr = descr.substr(1, descr.size() - 2);
  const NpyDtype* dtype = dtype_of_descr(descr);
  if (dtype == nullptr) return fail(Error::NotSupported, where, "dtype '" + descr + "' is not supported");
  if (shape.empty() || shape.front() != '(') return fail(Error::InvalidArgument, where, "malformed shape " + shape);

  NpyArray array;
  array.dtype = dtype->type;
  KILN_TRY(parse_shape(shape, where, &array.sizes));
  // The byte count is checked against the data before anything is allocated:
  // a header of a few bytes may claim terabytes.
  const size_t data_start = header_start + header_length;
  uint64_t nbytes = element_size(array.dtype);
  for (int64_t dim : array.sizes) {
    if (__builtin_mul_overflow(nbytes, static_cast<uint64_t>(dim), &nbytes)) {
      return fail(Error::InvalidArgument, where, "shape " + shape + " overflows");
    }
  }
  if (nbytes > size - data_start) {
    return fail(Error::InvalidArgument, where,
                "holds " + std::to_string(size - data_start) + " bytes of data, but shape " + shape + " of " + descr +
                    " needs " + std::to_string(nbytes));
  }
  if (fortran == "True" && array.sizes.size() > 1) {
    array.data = c_order(bytes + data_start, array.sizes, element_size(array.dtype));
  } else {
    array.data.assign(bytes + data_start, bytes + data_start + nbytes);
  }
  return array;
}

Result<std::vector<uint8_t>> npy_bytes(const NpyArray& array) {
  const char* descr = descr_of(array.dtype);
  const std::string what = std::string("an array of ") + to_string(array.dtype);
  if (descr == nullptr) return fail(Error::NotSupported, what, "NumPy has no dtype for it");
  if (array.data.size() != array.numel() * element_size(array.dtype)) {
    return fail(Error::InvalidArgument, what,
                "holds " + std::to_string(array.data.size()) + " bytes, its sizes need " +
                    std::to_string(array.numel() * element_size(array.dtype)));
  }
  // Python's tuple syntax: (), (3,), (2, 3).
  std::string shape = "(";
  for (size_t i = 0; i < array.sizes.size(); ++i) shape += (i ? " " : "") + std::to_string(array.sizes[i]) + ",";
  if (array.sizes.size() > 1) shape.pop_back();
  shape += ")";
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Padded so that the data starts on a 64-byte boundary, ending with a newline.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::vector<uint8_t> bytes = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<uint8_t>(header.size() & 0xff),
                                static_cast<uint8_t>(header.size() >> 8)};
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), array.data.begin(), array.data.end());
  return bytes;
}

Result<std::vector<NamedArray>> read_npz(const std::string& path) {
  struct stat file{};
  if (::stat(path.c_str(), &file) != 0) {
    return fail(Error::AccessFailed, path, std::string("cannot open (") + std::strerror(errno) + ")");
  }
  std::unique_ptr<void, int (*)(unzFile)> zip(unzOpen64(path.c_str()), unzClose);
  if (!zip) return fail(Error::InvalidArgument, path, "not a zip archive, or a truncated one");
  std::vector<NamedArray> arrays;
  for (int status = unzGoToFirstFile(zip.get()); status != UNZ_END_OF_LIST_OF_FILE;
       status = unzGoToNextFile(zip.get())) {
    if (status != UNZ_OK) return fail(Error::InvalidArgument, path, "a broken zip directory");
    unz_file_info64 info;
    char name[1024];
    if (unzGetCurrentFileInfo64(zip.get(), &info, name, sizeof name, nullptr, 0, nullptr, 0) != UNZ_OK) {
      return fail(Error::InvalidArgument, path, "cannot read a zip entry's header");
    }
    std::string entry = name;
    if (!ends_with(entry, ".npy") || entry.size() == 4) continue;
    entry.resize(entry.size() - 4);
    const std::string where = path + ": array '" + entry + "'";
    KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes,
                          read_entry(zip.get(), info, static_cast<uint64_t>(file.st_size), where));
    KILN_ASSIGN_OR_RETURN(NpyArray array, parse_npy(bytes.data(), bytes.size(), where));
    arrays.push_back({std::move(entry), std::move(array)});
  }
  if (arrays.empty()) return fail(Error::InvalidArgument, path, "holds no .npy arrays");
  return arrays;
}

Error write_npz(const std::string& path, const std::vector<NamedArray>& arrays) {
  // Every array is checked before the file is created.
  std::vector<std::vector<uint8_t>> entries;
  for (const NamedArray& named : arrays) {
    Result<std::vector<uint8_t>> bytes = npy_bytes(named.array);
    if (!bytes.ok()) return fail(bytes.error(), path, "cannot write array '" + named.name + "'");
    entries.push_back(std::move(bytes.get()));
  }
  zipFile zip = zipOpen64(path.c_str(), APPEND_STATUS_CREATE);
  if (zip == nullptr) return fail(Error::AccessFailed, path, std::string("cannot create the file (") + std::strerror(errno) + ")");
  for (size_t i = 0; i < arrays.size(); ++i) {
    const std::string entry = arrays[i].name + ".npy";
    zip_fileinfo info{};
    if (zipOpenNewFileInZip64(zip, entry.c_str(), &info, nullptr, 0, nullptr, 0, nullptr, 0, 0, 1) != ZIP_OK ||
        zipWriteInFileInZip(zip, entries[i].data(), static_cast<unsigned>(entries[i].size())) != ZIP_OK ||
        zipCloseFileInZip(zip) != ZIP_OK) {
      zipClose(zip, nullptr);
      return fail(Error::AccessFailed, path, "cannot write array '" + arrays[i].name + "'");
    }
  }
  if (zipClose(zip, nullptr) != ZIP_OK) return fail(Error::AccessFailed, path, "cannot finish writing the file");
  return Error::Ok;
}

}  // namespace kiln::runtime
