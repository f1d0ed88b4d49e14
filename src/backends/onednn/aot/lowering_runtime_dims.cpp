// The values of the GraphWriter (graph_writer.h) that take a run-time size.
#include "backends/onednn/aot/graph_writer.h"

#include "aot/ir/error.h"

namespace kiln::backends::onednn {

using aot::AotError;
using aot::Node;

// The value `node` names has its run-time size where the node's has.
void GraphWriter::mark_runtime_dim(const Node* node, int32_t value) {
  if (node == nullptr) return;
  if (auto it = runtime_dims_.find(node->name()); it != runtime_dims_.end()) {
    graph_->values[static_cast<size_t>(value)]->runtime_dim = it->second;
  }
}

}  // namespace kiln::backends::onednn
