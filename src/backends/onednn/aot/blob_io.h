// OneDnnBackend's blob on the AOT side: writing a graph as onednn_blob.h lays
// it out (header, then the flatbuffer), reading one back with every check a
// runtime makes (header, flatbuffer Verifier), and a printout for tests and
// `kiln lower --print`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/onednn/onednn_graph_generated.h"

namespace kiln::backends::onednn {

/// The 16-byte header followed by `graph` as a flatbuffer.
std::vector<uint8_t> serialize_onednn_blob(const ::kiln::onednn::GraphT& graph);

/// The graph a blob holds. Throws AotError saying what is wrong: a short
/// blob, another magic or version, an extent past the end, a flatbuffer the
/// Verifier refuses.
std::unique_ptr<::kiln::onednn::GraphT> parse_onednn_blob(const std::vector<uint8_t>& blob);

/// The blob as text: a line with the counts, one line per value (id, kind,
/// index, sizes; constants without their key), then one line per operation
/// (id, kind, parameters, inputs and outputs with sizes, post-ops, debug id,
/// name). Throws AotError as parse_onednn_blob does.
std::string describe_onednn_blob(const std::vector<uint8_t>& blob);

}  // namespace kiln::backends::onednn
