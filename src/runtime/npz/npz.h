// NumPy's .npy arrays and .npz archives (a zip of .npy files): how users hand
// tensors to `kiln run` and read its results back. The one reader and writer
// of the format in the tree: the runtime session (`kiln run`, on the device
// too), the compiler's tools (aot/import/npz.h adapts the arrays to host
// tensors) and the tests all use it.
//
// Runtime rules: errors are values, and each is explained by one
// KILN_LOG(Error) line that names the file, the array and the reason. Every
// size a file claims is checked against the bytes it holds before anything
// is allocated for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/core/result.h"
#include "runtime/core/scalar_type.h"

namespace kiln::runtime {

/// One array: its dtype, its sizes and its elements in row-major (C) order.
struct NpyArray {
  ScalarType dtype = ScalarType::Float;
  std::vector<int64_t> sizes;
  std::vector<uint8_t> data;

  /// The product of the sizes (1 for a 0-dim array).
  size_t numel() const;
  /// The real numbers it holds: numel(), twice that for a complex dtype
  /// (each element's real and imaginary parts).
  size_t scalar_count() const;
  /// Number `index` of those (see scalar_count) as a double.
  double scalar(size_t index) const;
};

/// An array of an .npz, named as its entry without ".npy" ("arr_0").
struct NamedArray {
  std::string name;
  NpyArray array;
};

/// "f32[1, 3, 224, 224]": a dtype and sizes as messages print them.
std::string describe_tensor(ScalarType dtype, const std::vector<int64_t>& sizes);

/// Whether NumPy has a dtype for `dtype`: every ScalarType but BFloat16, the
/// quantized, bits and float8 types.
bool has_npy_dtype(ScalarType dtype);

/// Parses the bytes of one .npy file (format 1.0 to 3.0, little-endian; a
/// Fortran-ordered array comes back in C order). `where` names it in the log.
/// @retval InvalidArgument the bytes are not an .npy, or its header is
///     malformed, or it holds fewer bytes than its shape needs.
/// @retval NotSupported its format version or dtype.
[[nodiscard]] Result<NpyArray> parse_npy(const void* data, size_t size, const std::string& where);

/// The bytes of an .npy file (format 1.0) holding `array`.
/// @retval NotSupported the dtype has no NumPy dtype (has_npy_dtype).
/// @retval InvalidArgument its data is not numel() elements long.
[[nodiscard]] Result<std::vector<uint8_t>> npy_bytes(const NpyArray& array);

/// Every .npy entry of the .npz at `path` (stored, as np.savez writes, or
/// deflated, as np.savez_compressed does), in the archive's order.
/// @retval AccessFailed the file cannot be opened or read.
/// @retval InvalidArgument it is not a zip archive, an entry is corrupt or
///     not an .npy, or it holds no array.
/// @retval NotSupported an array's format version or dtype.
[[nodiscard]] Result<std::vector<NamedArray>> read_npz(const std::string& path);

/// Writes `arrays` as an .npz file that np.load reads (name.npy entries).
/// @retval AccessFailed the file cannot be created or written.
/// @retval NotSupported / InvalidArgument an array, as npy_bytes.
[[nodiscard]] Error write_npz(const std::string& path, const std::vector<NamedArray>& arrays);

}  // namespace kiln::runtime
