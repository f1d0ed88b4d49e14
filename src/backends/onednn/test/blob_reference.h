// A oneDNN blob read back as the ATen program it stands for (tests only):
// each operation becomes the core ATen ops computing what onednn_graph.fbs
// says it computes (post-ops included), Input values become user inputs in
// index order, Constant values parameters holding their named data, Output
// values the outputs in index order. Running it on the reference interpreter
// checks preprocess's graph (wiring, fusion, folded weights, value numbering)
// without the runtime half.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aot/delegate/backend_details.h"
#include "aot/delegate/lowered_backend_module.h"
#include "aot/ir/exported_program.h"
#include "aot/ir/host_tensor.h"
#include "backends/onednn/onednn_graph_generated.h"

namespace kiln::backends::onednn::testing {

/// Throws AotError for a blob it cannot read back (an operation with
/// parameters ATen cannot express, a value read before it is written).
aot::ExportedProgram reference_program(const std::vector<uint8_t>& blob, const aot::NamedDataStoreOutput& named_data);

/// The blob as describe_onednn_blob prints it, but with no weights packed:
/// what the lowering decided, the same on every CPU (pack_weights packs in
/// the layouts this CPU's kernels read).
std::string describe_unpacked(const std::vector<uint8_t>& blob);

/// A constant's float32 elements, row-major, from `named_data` (unpacked
/// when packed).
aot::HostTensor constant_tensor(const ::kiln::onednn::ValueT& value, const aot::NamedDataStoreOutput& named_data);

/// Runs `module`'s blob, as reference_program reads it, and the program it
/// was made from on the reference interpreter, on the same deterministic
/// inputs in [-1, 1); expects the same outputs (float32 tolerance 1e-4,
/// relative above 1: fusion and folding reorder the arithmetic).
void expect_blob_computes_the_delegated_program(const aot::LoweredBackendModule& module);

}  // namespace kiln::backends::onednn::testing
