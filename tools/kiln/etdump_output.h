// `--etdump FILE [--debug-buffer FILE]` of kiln run and kiln generate: the
// runtime's EtdumpRecorder on the method they run, its ETDump (and the logged
// tensors' bytes) written when they are done. Runtime-level: it reads the
// .pte only for its program tag and needs nothing of the compiler, so it
// works in the runtime-only build's kiln too.
#pragma once

#include <memory>
#include <string>

#include "runtime/devtools/etdump_recorder.h"

namespace kiln::cli {

struct EtdumpRequest {
  std::string etdump_path;        ///< empty: no ETDump
  std::string debug_buffer_path;  ///< empty: outputs are not logged
  bool requested() const { return !etdump_path.empty(); }
};

/// A recorder whose runs are tagged with the program at `pte_path` (its size
/// and hash), logging outputs when a debug buffer is asked for. Throws
/// HostError if the .pte cannot be read.
std::unique_ptr<runtime::EtdumpRecorder> make_etdump_recorder(const EtdumpRequest& request, const std::string& pte_path);

/// Writes the ETDump (and the debug buffer) and prints one line on them;
/// throws HostError naming a file that cannot be written.
void write_etdump(const EtdumpRequest& request, const runtime::EtdumpRecorder& recorder);

}  // namespace kiln::cli
