// OneDnnBackend, the AOT side of the oneDNN CPU backend: `supports` says per
// node whether oneDNN can run it as PyTorch computes it (node_ops.h, with the
// reason when not); `preprocess` fuses a partition (fusion.h), writes its
// graph as a blob (onednn_blob.h + onednn_graph.fbs) and its weights to the
// program's named data, deduplicated by content (weights.h).
// Registered by a static initializer: link `kiln_backends_onednn`.
#pragma once

#include <vector>

#include "aot/delegate/backend_details.h"

namespace kiln::backends::onednn {

class OneDnnBackend : public aot::BackendDetails {
 public:
  std::string id() const override;
  /// The blob, the weights as named data, and operation debug id -> the
  /// debug handles of every node it fused. Throws AotError naming the node
  /// when one is not supported, and for a partition that mutates buffers.
  aot::PreprocessResult preprocess(const aot::ExportedProgram& edge_program,
                                   const std::vector<aot::CompileSpec>& compile_specs) const override;
  /// Supported when describe_node accepts the node; a layout op (view,
  /// permute, ...) only next to a compute op it supports, as a delegate call
  /// that only moves data costs more than it saves.
  aot::NodeSupport supports(const aot::Node& node, const aot::ExportedProgram& program) const override;
  std::vector<std::string> supported_ops() const override;
};

}  // namespace kiln::backends::onednn
