#include "backends/onednn/runtime/blob_graph.h"

#include <cmath>

#include "backends/onednn/graph_alignment.h"
#include "backends/onednn/onednn_blob.h"
#include "runtime/core/log.h"

namespace kiln::backends::onednn {

using runtime::Error;

namespace {

#define KILN_ONEDNN_REFUSE(cond, ...)                                                    \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      KILN_LOG(Error, "OneDnnBackend: refusing the blob of method '%s': " __VA_ARGS__); \
      return Error::DelegateInvalidCompatibility;                                        \
    }                                                                                    \
  } while (0)

const char* header_problem(BlobHeaderStatus status) {
  switch (status) {
    case BlobHeaderStatus::kTooSmall: return "shorter than its 16-byte header";
    case BlobHeaderStatus::kBadMagic: return "bad magic (expected KODN)";
    case BlobHeaderStatus::kBadVersion: return "wrong version";
    case BlobHeaderStatus::kBadExtent: return "the flatbuffer's offset and size do not fit the blob";
    case BlobHeaderStatus::kMisaligned: return "the flatbuffer does not start on an 8-byte boundary";
    case BlobHeaderStatus::kOk: break;
  }
  return "ok";
}

// Input and Output values: an index each, no two alike, numbered from 0.
Error check_argument_indices(const fb::Graph* graph, fb::ValueKind kind, const char* method, uint32_t* count) {
  const uint32_t num_values = graph->values()->size();
  uint32_t n = 0;
  for (uint32_t v = 0; v < num_values; ++v) n += graph->values()->Get(v)->kind() == kind ? 1 : 0;
  const char* what = kind == fb::ValueKind::Input ? "input" : "output";
  for (uint32_t v = 0; v < num_values; ++v) {
    const fb::Value* value = graph->values()->Get(v);
    if (value->kind() != kind) continue;
    KILN_ONEDNN_REFUSE(value->index() < n, "value %u is %s %u, but the graph has %u %ss", method, v, what,
                       value->index(), n, what);
    for (uint32_t w = 0; w < v; ++w) {
      const fb::Value* other = graph->values()->Get(w);
      KILN_ONEDNN_REFUSE(other->kind() != kind || other->index() != value->index(),
                         "values %u and %u are both %s %u", method, w, v, what, value->index());
    }
  }
  *count = n;
  return Error::Ok;
}

Error check_value(const fb::Value* value, uint32_t v, const char* method) {
  KILN_ONEDNN_REFUSE(value->kind() <= fb::ValueKind::MAX, "value %u has an unknown kind %u", method, v,
                     static_cast<unsigned>(value->kind()));
  KILN_ONEDNN_REFUSE(rank_of(value) <= kMaxRank, "value %u has %u dimensions (at most %u)", method, v,
                     rank_of(value), kMaxRank);
  int64_t numel = 1;
  for (uint32_t d = 0; d < rank_of(value); ++d) {
    const int64_t size = value->sizes()->Get(d);
    KILN_ONEDNN_REFUSE(size >= 1 && size < kMaxDimension, "value %u has size %lld in dimension %u", method, v,
                       static_cast<long long>(size), d);
    numel *= size;
    KILN_ONEDNN_REFUSE(numel <= kMaxNumel, "value %u has more than 2^40 elements", method, v);
  }
  KILN_ONEDNN_REFUSE(value->runtime_dim() >= -1 && value->runtime_dim() < static_cast<int32_t>(rank_of(value)) &&
                         (value->runtime_dim() < 0 || value->kind() != fb::ValueKind::Constant),
                     "value %u has run-time dimension %d", method, v, value->runtime_dim());
  KILN_ONEDNN_REFUSE(value->dtype() <= fb::DataType::MAX, "value %u has an unknown data type %u", method, v,
                     static_cast<unsigned>(value->dtype()));
  if (value->dtype() != fb::DataType::Float32) {
    KILN_ONEDNN_REFUSE(value->kind() != fb::ValueKind::Input && value->kind() != fb::ValueKind::Output,
                       "value %u is a quantized delegate argument; arguments are float32", method, v);
    KILN_ONEDNN_REFUSE(value->dynamic() || (value->scale() > 0 && value->scale() < INFINITY),
                       "quantized value %u has scale %g", method, v, static_cast<double>(value->scale()));
    const int32_t lowest = value->dtype() == fb::DataType::Int8 ? -128 : 0;
    KILN_ONEDNN_REFUSE(value->zero_point() >= lowest && value->zero_point() <= lowest + 255,
                       "quantized value %u has zero point %d outside its type", method, v, value->zero_point());
  }
  if (value->kind() == fb::ValueKind::Constant) {
    KILN_ONEDNN_REFUSE(value->constant_key() != nullptr && value->constant_key()->size() > 0,
                       "constant value %u has no named-data key", method, v);
  }
  if (const fb::PackedLayout* packed = value->packed()) {
    KILN_ONEDNN_REFUSE(value->kind() == fb::ValueKind::Constant && value->dtype() == fb::DataType::Float32,
                       "value %u is packed but is not a float32 constant", method, v);
    // Empty vectors are absent (flatbuffers writes none): a layout with no inner blocks.
    const auto* dims = packed->dims();
    const uint32_t rank = dims != nullptr ? dims->size() : 0;
    const uint32_t blocks = packed->inner_blocks() != nullptr ? packed->inner_blocks()->size() : 0;
    const uint32_t indices = packed->inner_indices() != nullptr ? packed->inner_indices()->size() : 0;
    KILN_ONEDNN_REFUSE(rank >= 1 && rank <= kMaxRank && packed->plain_strides() != nullptr &&
                           packed->plain_strides()->size() == rank && packed->strides() != nullptr &&
                           packed->strides()->size() == rank && blocks <= kMaxRank && indices == blocks,
                       "value %u has a malformed packed layout", method, v);
    int64_t packed_numel = 1;
    for (uint32_t d = 0; d < rank; ++d) {
      const int64_t size = dims->Get(d);
      KILN_ONEDNN_REFUSE(size >= 1 && size < kMaxDimension, "value %u's packed layout has size %lld in dimension %u",
                         method, v, static_cast<long long>(size), d);
      packed_numel *= size;
      KILN_ONEDNN_REFUSE(packed_numel <= numel, "value %u's packed layout has more elements than the value", method, v);
    }
    KILN_ONEDNN_REFUSE(packed_numel == numel, "value %u's packed layout has %lld elements; the value has %lld", method,
                       v, static_cast<long long>(packed_numel), static_cast<long long>(numel));
    for (uint32_t b = 0; b < indices; ++b) {
      KILN_ONEDNN_REFUSE(packed->inner_indices()->Get(b) >= 0 && packed->inner_indices()->Get(b) < rank,
                         "value %u's packed layout blocks dimension %lld of %u", method, v,
                         static_cast<long long>(packed->inner_indices()->Get(b)), rank);
    }
  }
  return Error::Ok;
}

// Which inputs an operation kind takes: at least `min`, at most `max`;
// inputs from `first_optional` on may be -1.
struct InputArity {
  uint32_t min, max, first_optional;
};

InputArity arity_of(fb::OperationKind kind) {
  switch (kind) {
    case fb::OperationKind::Convolution: return {2, 4, 2};
    case fb::OperationKind::MatMul: return {2, 4, 2};
    case fb::OperationKind::BatchNorm: return {3, 5, 3};
    case fb::OperationKind::LayerNorm: return {1, 3, 1};
    case fb::OperationKind::Concat: return {1, 1u << 16, 1u << 16};
    case fb::OperationKind::BinaryOp: return {2, 2, 2};
    case fb::OperationKind::DynamicQuantize: return {1, 1, 1};
    case fb::OperationKind::Pointwise: return {1, kMaxOperationArgs - 2, kMaxOperationArgs - 2};
    default: return {1, 1, 1};
  }
}

bool readable(const fb::Value* value, const bool* written, int32_t index) {
  return value->kind() == fb::ValueKind::Input || value->kind() == fb::ValueKind::Constant || written[index];
}

Error check_operation(const fb::Graph* graph, uint32_t o, bool* written, const char* method) {
  const fb::Operation* op = graph->operations()->Get(o);
  const int32_t num_values = static_cast<int32_t>(graph->values()->size());
  KILN_ONEDNN_REFUSE(op->op_type() != fb::OperationKind::NONE && op->op_type() <= fb::OperationKind::MAX &&
                         op->op() != nullptr,
                     "operation %u has no known kind", method, o);
  const char* name = fb::EnumNameOperationKind(op->op_type());
  KILN_ONEDNN_REFUSE(op->inputs() != nullptr && op->outputs() != nullptr, "operation %u (%s) has no inputs or outputs",
                     method, o, name);
  const InputArity arity = arity_of(op->op_type());
  const uint32_t num_inputs = op->inputs()->size();
  KILN_ONEDNN_REFUSE(num_inputs >= arity.min && num_inputs <= arity.max,
                     "operation %u (%s) has %u inputs (expected %u to %u)", method, o, name, num_inputs, arity.min,
                     arity.max);
  for (uint32_t i = 0; i < num_inputs; ++i) {
    const int32_t index = op->inputs()->Get(i);
    if (index == -1 && i >= arity.first_optional) continue;
    KILN_ONEDNN_REFUSE(index >= 0 && index < num_values, "operation %u (%s) input %u is value %d of %d", method, o,
                       name, i, index, num_values);
    KILN_ONEDNN_REFUSE(readable(graph->values()->Get(index), written, index),
                       "operation %u (%s) reads value %d before any operation writes it", method, o, name, index);
  }
  KILN_ONEDNN_REFUSE(op->outputs()->size() == 1, "operation %u (%s) has %u outputs (expected 1)", method, o, name,
                     op->outputs()->size());
  const int32_t out = op->outputs()->Get(0);
  KILN_ONEDNN_REFUSE(out >= 0 && out < num_values, "operation %u (%s) writes value %d of %d", method, o, name, out,
                     num_values);
  const fb::ValueKind out_kind = graph->values()->Get(out)->kind();
  KILN_ONEDNN_REFUSE(out_kind == fb::ValueKind::Intermediate || out_kind == fb::ValueKind::Output,
                     "operation %u (%s) writes value %d, an input or constant", method, o, name, out);
  KILN_ONEDNN_REFUSE(!written[out], "operation %u (%s) writes value %d, already written", method, o, name, out);
  if (op->post_ops() != nullptr) {
    for (uint32_t p = 0; p < op->post_ops()->size(); ++p) {
      const fb::PostOp* post = op->post_ops()->Get(p);
      KILN_ONEDNN_REFUSE(post->op_type() == fb::PostOpKind::Eltwise || post->op_type() == fb::PostOpKind::BinaryPostOp,
                         "operation %u (%s) post-op %u has no known kind", method, o, name, p);
      if (const fb::BinaryPostOp* binary = post->op_as_BinaryPostOp()) {
        const int32_t index = binary->input();
        KILN_ONEDNN_REFUSE(index >= 0 && index < num_values && index != out &&
                               readable(graph->values()->Get(index), written, index),
                           "operation %u (%s) post-op %u reads value %d, which is not readable there", method, o,
                           name, p, index);
      }
    }
  }
  written[out] = true;
  return Error::Ok;
}

}  // namespace

int64_t numel_of(const fb::Value* v) {
  int64_t n = 1;
  for (uint32_t d = 0; d < rank_of(v); ++d) n *= v->sizes()->Get(d);
  return n;
}

Error read_blob_graph(const void* data, size_t size, const char* method, runtime::MemoryAllocator* scratch,
                      BlobGraph* out) {
  BlobHeader header;
  const BlobHeaderStatus status = parse_blob_header(data, size, &header);
  if (status == BlobHeaderStatus::kBadVersion) {
    KILN_LOG(Error, "OneDnnBackend: refusing the blob of method '%s' (%zu bytes): version %u, this runtime reads %u to %u",
             method, size, header.version, kOldestBlobVersion, kBlobVersion);
    return Error::DelegateInvalidCompatibility;
  }
  KILN_ONEDNN_REFUSE(status == BlobHeaderStatus::kOk, "%zu bytes: %s", method, size, header_problem(status));
  const auto* flatbuffer = static_cast<const uint8_t*>(data) + header.flatbuffer_offset;
  flatbuffers::Verifier verifier(flatbuffer, header.flatbuffer_size);
  KILN_ONEDNN_REFUSE(fb::VerifyGraphBuffer(verifier), "the flatbuffer (%u bytes at %u) fails verification", method,
                     header.flatbuffer_size, header.flatbuffer_offset);
  const fb::Graph* graph = fb::GetGraph(flatbuffer);
  uint32_t where = 0;
  const char* misaligned = first_misaligned_vector(*graph, &where);
  KILN_ONEDNN_REFUSE(misaligned == nullptr, "the flatbuffer has a misaligned vector: %s at index %u", method,
                     misaligned, where);
  KILN_ONEDNN_REFUSE(graph->values() != nullptr && graph->operations() != nullptr, "the graph has no %s", method,
                     graph->values() == nullptr ? "values" : "operations");
  const uint32_t num_values = graph->values()->size();
  KILN_ONEDNN_REFUSE(num_values < (1u << 24), "the graph has %u values", method, num_values);
  for (uint32_t v = 0; v < num_values; ++v) KILN_TRY(check_value(graph->values()->Get(v), v, method));
  KILN_TRY(check_argument_indices(graph, fb::ValueKind::Input, method, &out->num_inputs));
  KILN_TRY(check_argument_indices(graph, fb::ValueKind::Output, method, &out->num_outputs));

  bool* written = scratch != nullptr ? scratch->allocateList<bool>(num_values) : nullptr;
  if (written == nullptr) {
    KILN_LOG(Error, "OneDnnBackend: method '%s': the method allocator has no room for the value table (%u bytes)",
             method, num_values);
    return Error::DelegateMemoryAllocationFailed;
  }
  for (uint32_t v = 0; v < num_values; ++v) written[v] = false;
  for (uint32_t o = 0; o < graph->operations()->size(); ++o) KILN_TRY(check_operation(graph, o, written, method));
  for (uint32_t v = 0; v < num_values; ++v) {
    KILN_ONEDNN_REFUSE(graph->values()->Get(v)->kind() != fb::ValueKind::Output || written[v],
                       "output value %u is never written", method, v);
  }
  out->graph = graph;
  return Error::Ok;
}

}  // namespace kiln::backends::onednn
