// The cost model that picks the operations run on one thread
// (kSmallOperationNs, compiled_graph.h).
#include "backends/onednn/runtime/compiled_graph.h"

namespace kiln::backends::onednn {

namespace {

double numel(const fb::Value* value) {
  double n = 1;
  for (int64_t size : *value->sizes()) n *= static_cast<double>(size);
  return n;
}

}  // namespace

double estimated_ns(const fb::Graph* graph, const fb::Operation* operation) {
  const auto* values = graph->values();
  const auto value = [&](int32_t v) { return v >= 0 && static_cast<uint32_t>(v) < values->size() ? values->Get(v) : nullptr; };
  double elements = 0;
  for (int32_t v : *operation->inputs()) {
    if (const fb::Value* in = value(v)) elements += numel(in);
  }
  double out_elements = 0;
  for (int32_t v : *operation->outputs()) {
    if (const fb::Value* out = value(v)) out_elements += numel(out);
  }
  elements += out_elements;
  double macs = 0;
  const auto* inputs = operation->inputs();
  if (operation->op_type() == fb::OperationKind::Convolution && inputs->size() > 1) {
    const fb::Value* weights = value(inputs->Get(1));
    if (weights != nullptr && weights->sizes()->size() > 0 && weights->sizes()->Get(0) > 0) {
      macs = out_elements * numel(weights) / static_cast<double>(weights->sizes()->Get(0));  // out x (ic/g x kernel)
    }
  } else if (operation->op_type() == fb::OperationKind::MatMul && inputs->size() > 0) {
    const fb::Value* a = value(inputs->Get(0));
    if (a != nullptr && a->sizes()->size() > 0) macs = out_elements * static_cast<double>(a->sizes()->Get(a->sizes()->size() - 1));
  }
  return macs / 30.0 + elements / 5.0;
}

}  // namespace kiln::backends::onednn
