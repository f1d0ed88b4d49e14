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

// Only a MatMul takes run-time sizes (runtime_sizes.h); the partitioner
// took nothing else with one, so anything else is a lowering bug.
void GraphWriter::check_runtime_dims() const {
  for (const auto& op : graph_->operations) {
    bool dynamic = false;
    for (int32_t v : op->inputs) dynamic = dynamic || (v >= 0 && graph_->values[static_cast<size_t>(v)]->runtime_dim >= 0);
    for (int32_t v : op->outputs) dynamic = dynamic || graph_->values[static_cast<size_t>(v)]->runtime_dim >= 0;
    bool binary = false;
    for (const auto& post : op->post_ops) binary = binary || post->op.AsBinaryPostOp() != nullptr;
    if (dynamic && (op->op.type != fb::OperationKind::MatMul || binary)) {
      throw AotError("OneDnnBackend: '" + op->name + "' would be a " + fb::EnumNameOperationKind(op->op.type) +
                     " on a run-time size; OneDnnBackend runs only matmuls so");
    }
  }
}

}  // namespace kiln::backends::onednn
