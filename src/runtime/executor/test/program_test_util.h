// Helpers of the Program tests: .pte bytes from a file or from a fixture
// lowered by Kiln's AOT side, and a DataLoader of each kind over those bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/data_loader.h"

namespace kiln::runtime::testing {

/// The bytes of the file at `path` (a test failure if it cannot be read).
std::vector<uint8_t> read_file_bytes(const std::string& path);

/// Writes `bytes` to a fresh file in the test's temporary folder; returns its path.
std::string write_temp_file(const std::vector<uint8_t>& bytes, const std::string& stem);

enum class LoaderKind { Buffer, File, Mmap };
const char* to_string(LoaderKind kind);
inline constexpr LoaderKind kAllLoaderKinds[] = {LoaderKind::Buffer, LoaderKind::File, LoaderKind::Mmap};

/// A loader of `kind` over `bytes` (which must outlive it for Buffer; File
/// and Mmap read a temporary copy on disk).
std::unique_ptr<DataLoader> make_loader(LoaderKind kind, const std::vector<uint8_t>& bytes);

/// A Kiln .pte of y = relu(sin(x) * w + 2) lowered whole to DemoBackend: a
/// delegate whose blob is in a segment and whose weight `w` (ramp from -1 by
/// 0.4, 2x3 floats) is in the program's named data.
std::vector<uint8_t> demo_program_with_named_data();

}  // namespace kiln::runtime::testing
