// NumPy's .npy and .npz files as host tensors: how Python users hand tensors
// to `kiln run` on a .pt2 and read its results back. A thin adapter: the
// format is read and written by the runtime's reader and writer
// (runtime/npz/npz.h); this turns their arrays into HostTensors and back and
// their errors into AotError.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "aot/ir/host_tensor.h"
#include "runtime/npz/npz.h"

namespace kiln::aot {

/// A host tensor holding `array`'s elements (moved, not copied).
HostTensor to_host_tensor(runtime::NpyArray array);
/// `tensor`'s elements in row-major order as an array.
runtime::NpyArray to_array(const HostTensor& tensor);

/// The arrays of an .npz file (np.savez or np.savez_compressed), in the
/// archive's order, keyed by name without ".npy". Throws AotError naming the
/// file, the array and the reason on bad input.
std::vector<std::pair<std::string, HostTensor>> read_npz(const std::string& path);

/// One .npy array from its bytes; `where` names it in errors.
HostTensor parse_npy(const void* data, size_t size, const std::string& where);

/// The bytes of an .npy (format 1.0) holding `tensor`.
std::string npy_bytes(const HostTensor& tensor);

/// Writes `arrays` as an .npz file that np.load reads.
void write_npz(const std::string& path, const std::vector<std::pair<std::string, HostTensor>>& arrays);

}  // namespace kiln::aot
