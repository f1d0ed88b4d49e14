// The one check of a kiln.onednn.Graph flatbuffer that its verifier does not
// make, shared by the AOT reader (blob_io) and the runtime (blob_graph): the
// verifier aligns a vector's length field (4 bytes), not its data, so a
// corrupted offset can put a [long] 4 bytes off its 8-byte boundary, and
// reading it is then a misaligned load. The flatbuffer itself starts on an
// 8-byte boundary (parse_blob_header), so an aligned address is an aligned
// offset too.
#pragma once

#include <cstdint>

#include "backends/onednn/onednn_graph_generated.h"

namespace kiln::backends::onednn {

/// The name of the first non-empty [long] field of `graph` whose elements are not
/// 8-byte aligned ("values[3].sizes", "operations[2].strides"), or null.
/// `where` receives the value or operation index.
inline const char* first_misaligned_vector(const ::kiln::onednn::Graph& graph, uint32_t* where) {
  namespace fb = ::kiln::onednn;
  const auto misaligned = [](const flatbuffers::Vector<int64_t>* v) {
    return v != nullptr && v->size() != 0 && reinterpret_cast<uintptr_t>(v->data()) % sizeof(int64_t) != 0;
  };
  if (graph.values() != nullptr) {
    for (uint32_t i = 0; i < graph.values()->size(); ++i) {
      const fb::Value* value = graph.values()->Get(i);
      *where = i;
      if (value != nullptr && misaligned(value->sizes())) return "values[].sizes";
    }
  }
  if (graph.operations() == nullptr) return nullptr;
  for (uint32_t i = 0; i < graph.operations()->size(); ++i) {
    const fb::Operation* op = graph.operations()->Get(i);
    *where = i;
    if (op == nullptr) continue;
    if (const fb::Convolution* c = op->op_as_Convolution()) {
      if (misaligned(c->strides())) return "operations[].strides";
      if (misaligned(c->padding_l())) return "operations[].padding_l";
      if (misaligned(c->padding_r())) return "operations[].padding_r";
      if (misaligned(c->dilations())) return "operations[].dilations";
      if (misaligned(c->output_padding())) return "operations[].output_padding";
    } else if (const fb::Pooling* p = op->op_as_Pooling()) {
      if (misaligned(p->kernel())) return "operations[].kernel";
      if (misaligned(p->strides())) return "operations[].strides";
      if (misaligned(p->padding_l())) return "operations[].padding_l";
      if (misaligned(p->padding_r())) return "operations[].padding_r";
      if (misaligned(p->dilations())) return "operations[].dilations";
    } else if (const fb::Reorder* r = op->op_as_Reorder()) {
      if (misaligned(r->permutation())) return "operations[].permutation";
    } else if (const fb::Pad* pad = op->op_as_Pad()) {
      if (misaligned(pad->before())) return "operations[].before";
      if (misaligned(pad->after())) return "operations[].after";
    }
  }
  return nullptr;
}

}  // namespace kiln::backends::onednn
