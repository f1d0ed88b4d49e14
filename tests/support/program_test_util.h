// Helpers of the Program tests: .pte bytes from a file or from a fixture
// lowered by Kiln's AOT side, and a DataLoader of each kind over those bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "aot/emit/to_executorch.h"
#include "runtime/core/data_loader.h"
#include "schema/program_generated.h"

namespace kiln::runtime::testing {

/// ExecuTorch's .pte fixtures (tests/fixtures/pte, tools/fixtures/generate_pte.py).
inline const std::string kPteFixtures = KILN_SOURCE_DIR "/tests/fixtures/pte/";

/// The bytes of the file at `path` (a test failure if it cannot be read).
std::vector<uint8_t> read_file_bytes(const std::string& path);

/// Writes `bytes` to a fresh file in the test's temporary folder, removed
/// when the process exits; returns its path.
std::string write_temp_file(const std::vector<uint8_t>& bytes, const std::string& stem);

enum class LoaderKind { Buffer, File, Mmap };
const char* to_string(LoaderKind kind);
inline constexpr LoaderKind kAllLoaderKinds[] = {LoaderKind::Buffer, LoaderKind::File, LoaderKind::Mmap};

/// A loader of `kind` over `bytes` (which must outlive it for Buffer; File
/// and Mmap read a temporary copy on disk).
std::unique_ptr<DataLoader> make_loader(LoaderKind kind, const std::vector<uint8_t>& bytes);

/// `bytes` (a .pte) with its flatbuffer unpacked with the object API, changed
/// by `mutate`, packed again and put back in front of the original segments
/// (at the next 128-byte boundary, under a fresh extended header).
std::vector<uint8_t> repack(const std::vector<uint8_t>& bytes,
                            const std::function<void(executorch_flatbuffer::ProgramT&)>& mutate);

/// Golden fixture program `fixture`/`file` lowered (delegated whole to the
/// AllOps test backend if asked) and written by Kiln; made once per process.
const aot::ExecutorchProgram& kiln_program(const std::string& fixture, const std::string& file, bool delegate_whole);

/// (fixture, program file) of every program of the golden fixtures' manifest.
std::vector<std::pair<std::string, std::string>> fixture_program_files();

/// A Kiln .pte of y = relu(sin(x) * w + 2) lowered whole to DemoBackend: a
/// delegate whose blob is in a segment and whose weight `w` (ramp from -1 by
/// 0.4, 2x3 floats) is in the program's named data.
std::vector<uint8_t> demo_program_with_named_data();

}  // namespace kiln::runtime::testing
