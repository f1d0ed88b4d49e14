// The runtime tests' reader of recorded tensors: the .npz archives numpy's
// savez and `kiln run --output` write (a zip of .npy files), read with
// minizip. For the runtime-only tree, which has no compiler and so no
// aot/import; test code, with exceptions: a file it cannot read throws
// std::runtime_error naming the file, the entry and the reason.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor_impl.h"

namespace kiln::runtime::testing {

/// One .npy array: its dtype, sizes and row-major bytes.
struct NpyArray {
  ScalarType dtype = ScalarType::Float;
  std::vector<SizesType> sizes;
  std::vector<uint8_t> data;

  size_t numel() const;
};

/// Parses the bytes of one .npy file (format 1.0 to 3.0, little-endian, C
/// order); `where` names it in errors.
NpyArray parse_npy(const std::vector<uint8_t>& bytes, const std::string& where);

/// Every array of the .npz at `path`, in the archive's order, named by its
/// entry name without ".npy" ("arr_0", "output_1").
std::vector<std::pair<std::string, NpyArray>> read_npz(const std::string& path);

}  // namespace kiln::runtime::testing
