// NumPy's .npy and .npz files, which is how Python users hand tensors to
// `kiln run` and read its results back.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "aot/ir/host_tensor.h"

namespace kiln::aot {

/// The arrays of an .npz file (np.savez / np.savez_compressed is not
/// supported: entries must be stored), in the archive's order, keyed by name
/// without ".npy". Throws AotError naming the file and array on bad input.
std::vector<std::pair<std::string, HostTensor>> read_npz(const std::string& path);

/// One .npy array from its bytes; `where` names it in errors.
HostTensor parse_npy(const void* data, size_t size, const std::string& where);

/// The bytes of an .npy (format 1.0) holding `tensor`.
std::string npy_bytes(const HostTensor& tensor);

/// Writes `arrays` as an .npz file that np.load reads.
void write_npz(const std::string& path, const std::vector<std::pair<std::string, HostTensor>>& arrays);

}  // namespace kiln::aot
