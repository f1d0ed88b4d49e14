// Weights packed at lowering (onednn_graph.fbs PackedLayout). Init used to
// reorder every weight from its row-major named data into the layout oneDNN
// chose, in fresh memory: for a model of 100 MB of weights, most of its load.
// Here the lowering plans the blob as init will on this machine
// (runtime/implementations.h) and stores each float32 weight already in the
// layout its use is planned to read, so that init on a machine that makes the
// same choice reads it in place from the program's named data; elsewhere
// init reorders from the packed layout, as it did from row-major.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/onednn/aot/lowering.h"

namespace kiln::backends::onednn {

/// Packs each float32 constant of `lowered` that the plan reads in one
/// layout by every use (not dequantized int8 weights, not a layout no oneDNN
/// format tag describes): its Value gets `packed`, its named data the packed
/// bytes under their content key; named data no constant reads any more is
/// dropped. Throws AotError for a blob the runtime cannot plan.
void pack_weights(LoweredPartition* lowered);

/// A packed constant's bytes back in row-major order (what they were before
/// pack_weights). Throws AotError for a layout oneDNN cannot describe or
/// `bytes` of another size than the layout's.
std::vector<uint8_t> unpacked_bytes(const ::kiln::onednn::PackedLayoutT& layout, const std::vector<uint8_t>& bytes);

}  // namespace kiln::backends::onednn
