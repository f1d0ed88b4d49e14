// The cost model that picks the operations run on one thread
// (kSmallOperationNs, compiled_graph.h).
#include "backends/onednn/runtime/blob_graph.h"
#include "backends/onednn/runtime/compiled_graph.h"
#include "backends/onednn/runtime/graph_builder.h"

namespace kiln::backends::onednn {

namespace {

// A value of rank 0 has no sizes vector (the object API writes none for an
// empty one): one element.
double numel(const fb::Value* value) {
  double n = 1;
  if (value->sizes() == nullptr) return n;
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
    if (weights != nullptr && rank_of(weights) > 0 && weights->sizes()->Get(0) > 0) {
      macs = out_elements * numel(weights) / static_cast<double>(weights->sizes()->Get(0));  // out x (ic/g x kernel)
    }
  } else if (operation->op_type() == fb::OperationKind::MatMul && inputs->size() > 0) {
    const fb::Value* a = value(inputs->Get(0));
    if (a != nullptr && rank_of(a) > 0) macs = out_elements * static_cast<double>(a->sizes()->Get(a->sizes()->size() - 1));
  }
  // An int8 operation (a quantized source, on a CPU where oneDNN runs int8
  // dot products as such: exact_int8_dot_products) multiplies four bytes per
  // 32-bit lane and moves a quarter of the bytes: a quarter of the time.
  // ShuffleNetV2's int8 1x1 convolutions at 64x64 took 2 us on one thread
  // and 4 on two, their float32 estimate above the threshold.
  const fb::Value* source = inputs->size() > 0 ? value(inputs->Get(0)) : nullptr;
  const bool int8 = source != nullptr && source->dtype() != fb::DataType::Float32 &&
                    exact_int8_dot_products(dnnl_get_effective_cpu_isa());
  return (macs / 30.0 + elements / 5.0) / (int8 ? 4.0 : 1.0);
}

}  // namespace kiln::backends::onednn
