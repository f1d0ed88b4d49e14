// describe_onednn_blob: the blob as text, one line per value and per
// operation, for golden printouts in tests and `kiln lower --print`.
#include <cstdio>
#include <sstream>

#include <oneapi/dnnl/dnnl_debug.h>

#include "backends/onednn/aot/blob_io.h"
#include "backends/onednn/aot/node_ops.h"

namespace kiln::backends::onednn {

namespace {

std::string list(const std::vector<int64_t>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

std::string number(float value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

class Printer {
 public:
  explicit Printer(const fb::GraphT& graph) : graph_(graph) {}

  std::string print() {
    size_t constants = 0;
    for (const auto& value : graph_.values) constants += value->kind == fb::ValueKind::Constant;
    out_ << "graph: " << graph_.values.size() << " values (" << constants << " constants), " << graph_.operations.size()
         << " operations\n";
    for (size_t v = 0; v < graph_.values.size(); ++v) {
      out_ << "  " << value_text(static_cast<int32_t>(v)) << packed_text(*graph_.values[v]) << "\n";
    }
    for (size_t i = 0; i < graph_.operations.size(); ++i) print_operation(i, *graph_.operations[i]);
    return out_.str();
  }

 private:
  // "%3" with the value's kind: "%0 (input 0) f32[1, 3]", "%2 (constant) f32[4]",
  // "%5 (intermediate) i8[1, 8] scale 0.05 zero point -128".
  std::string value_text(int32_t id) const {
    if (id < 0) return "none";
    if (static_cast<size_t>(id) >= graph_.values.size()) return "%" + std::to_string(id) + " (out of range)";
    const fb::ValueT& value = *graph_.values[static_cast<size_t>(id)];
    std::string kind;
    switch (value.kind) {
      case fb::ValueKind::Input: kind = "input " + std::to_string(value.index); break;
      case fb::ValueKind::Output: kind = "output " + std::to_string(value.index); break;
      case fb::ValueKind::Constant: kind = "constant"; break;
      default: kind = "intermediate"; break;
    }
    switch (value.dtype) {
      case fb::DataType::Int8:
      case fb::DataType::UInt8: {
        const std::string type = value.dtype == fb::DataType::Int8 ? "i8" : "u8";
        if (value.kind == fb::ValueKind::Constant) return "%" + std::to_string(id) + " (" + kind + ") " + type + list(value.sizes);
        char scale[32];
        std::snprintf(scale, sizeof scale, "%g", static_cast<double>(value.scale));
        return "%" + std::to_string(id) + " (" + kind + ") " + type + list(value.sizes) + " scale " + scale +
               " zero point " + std::to_string(value.zero_point);
      }
      case fb::DataType::Float32: break;
    }
    return "%" + std::to_string(id) + " (" + kind + ") f32" + sizes_text(value);
  }

  // " packed Acdb16a[32, 3, 3, 3]": weights packed at lowering, in oneDNN's
  // format tag over the dims of the use they were packed for.
  static std::string packed_text(const fb::ValueT& value) {
    if (value.packed == nullptr) return "";
    const int tag = value.packed->format_tag;
    const char* name = tag > dnnl_format_tag_any && tag < dnnl_format_tag_last
                           ? dnnl_fmt_tag2str(static_cast<dnnl_format_tag_t>(tag)) : "(unknown tag)";
    return std::string(" packed ") + name + list(value.packed->dims);
  }

  // "[1, <=128, 576]": a run-time size shows its bound.
  static std::string sizes_text(const fb::ValueT& value) {
    if (value.runtime_dim < 0 || static_cast<size_t>(value.runtime_dim) >= value.sizes.size()) return list(value.sizes);
    std::string text = "[";
    for (size_t d = 0; d < value.sizes.size(); ++d) {
      text += (d ? ", " : "") + std::string(static_cast<int32_t>(d) == value.runtime_dim ? "<=" : "") + std::to_string(value.sizes[d]);
    }
    return text + "]";
  }

  // "%3[1, 4]" in an operation's line (the value lines say the kinds).
  std::string value_ref(int32_t id) const {
    if (id < 0) return "none";
    if (static_cast<size_t>(id) >= graph_.values.size()) return "%" + std::to_string(id) + "(out of range)";
    return "%" + std::to_string(id) + list(graph_.values[static_cast<size_t>(id)]->sizes);
  }

  std::string values_text(const std::vector<int32_t>& ids) const {
    std::string text;
    for (size_t i = 0; i < ids.size(); ++i) text += (i ? ", " : "") + value_ref(ids[i]);
    return text;
  }

  static std::string params(const fb::OperationKindUnion& op) {
    if (op.value == nullptr) return "(no parameters)";
    switch (op.type) {
      case fb::OperationKind::Convolution: {
        const auto& c = *op.AsConvolution();
        std::string text = "strides=" + list(c.strides) + " padding_l=" + list(c.padding_l) + " padding_r=" + list(c.padding_r) +
                           " dilations=" + list(c.dilations) + " groups=" + std::to_string(c.groups);
        if (c.transposed) text += " transposed output_padding=" + list(c.output_padding);
        return text;
      }
      case fb::OperationKind::MatMul: return op.AsMatMul()->transpose_b ? "transpose_b" : "";
      case fb::OperationKind::BatchNorm: return "epsilon=" + number(op.AsBatchNorm()->epsilon);
      case fb::OperationKind::LayerNorm:
        return "epsilon=" + number(op.AsLayerNorm()->epsilon) + " normalized_dims=" + std::to_string(op.AsLayerNorm()->normalized_dims);
      case fb::OperationKind::Softmax:
        return "axis=" + std::to_string(op.AsSoftmax()->axis) + (op.AsSoftmax()->log ? " log" : "");
      case fb::OperationKind::Pooling: {
        const auto& p = *op.AsPooling();
        return std::string(fb::EnumNamePoolingAlgorithm(p.algorithm)) + " kernel=" + list(p.kernel) + " strides=" + list(p.strides) +
               " padding_l=" + list(p.padding_l) + " padding_r=" + list(p.padding_r) + " dilations=" + list(p.dilations);
      }
      case fb::OperationKind::Reduction: return fb::EnumNameReductionAlgorithm(op.AsReduction()->algorithm);
      case fb::OperationKind::Resampling: return fb::EnumNameResamplingAlgorithm(op.AsResampling()->algorithm);
      case fb::OperationKind::Concat: return "axis=" + std::to_string(op.AsConcat()->axis);
      case fb::OperationKind::EltwiseOp:
        return op.AsEltwiseOp()->eltwise ? describe_eltwise(*op.AsEltwiseOp()->eltwise) : "(no eltwise)";
      case fb::OperationKind::BinaryOp: return fb::EnumNameBinaryAlgorithm(op.AsBinaryOp()->algorithm);
      case fb::OperationKind::Reorder:
        return op.AsReorder()->permutation.empty() ? "reshape" : "permutation=" + list(op.AsReorder()->permutation);
      case fb::OperationKind::Pad:
        return "before=" + list(op.AsPad()->before) + " after=" + list(op.AsPad()->after) + " value=" + number(op.AsPad()->value);
      case fb::OperationKind::Pointwise: return pointwise_text(*op.AsPointwise());
      default: return "";
    }
  }

  // "r2 = Add(r0, r1); r3 = Logistic(r2) views=[+0 (64, 1), ...]"
  static std::string pointwise_text(const fb::PointwiseT& p) {
    const size_t inputs = p.offsets.size();
    std::string text;
    for (size_t s = 0; s < p.steps.size(); ++s) {
      const fb::PointwiseStep& step = p.steps[s];
      text += (s ? "; r" : "r") + std::to_string(inputs + s) + " = ";
      if (step.is_binary()) {
        text += std::string(fb::EnumNameBinaryAlgorithm(step.binary())) + "(r" + std::to_string(step.a()) + ", r" +
                std::to_string(step.b()) + ")";
      } else {
        text += describe_eltwise(make_eltwise(step.eltwise(), step.alpha(), step.beta())) + "(r" + std::to_string(step.a()) + ")";
      }
    }
    const size_t rank = inputs == 0 ? 0 : p.strides.size() / inputs;
    text += " views=[";
    for (size_t i = 0; i < inputs; ++i) {
      const std::vector<int64_t> strides(p.strides.begin() + static_cast<std::ptrdiff_t>(i * rank),
                                         p.strides.begin() + static_cast<std::ptrdiff_t>((i + 1) * rank));
      text += (i ? ", +" : "+") + std::to_string(p.offsets[i]) + " " + list(strides);
    }
    return text + "]";
  }

  std::string post_op_text(const fb::PostOpT& post) const {
    if (const auto* eltwise = post.op.AsEltwise()) return "Eltwise " + describe_eltwise(*eltwise);
    if (const auto* binary = post.op.AsBinaryPostOp()) {
      return std::string("Binary ") + fb::EnumNameBinaryAlgorithm(binary->algorithm) + " " + value_ref(binary->input);
    }
    return "(empty post-op)";
  }

  void print_operation(size_t index, const fb::OperationT& op) {
    const std::string p = params(op.op);
    out_ << "  #" << index << " " << fb::EnumNameOperationKind(op.op.type) << (p.empty() ? "" : " " + p) << " ("
         << values_text(op.inputs) << ") -> " << values_text(op.outputs);
    if (!op.post_ops.empty()) {
      out_ << " post-ops [";
      for (size_t i = 0; i < op.post_ops.size(); ++i) out_ << (i ? ", " : "") << post_op_text(*op.post_ops[i]);
      out_ << "]";
    }
    out_ << " debug_id " << op.debug_id << " '" << op.name << "'\n";
  }

  const fb::GraphT& graph_;
  std::ostringstream out_;
};

}  // namespace

std::string describe_onednn_blob(const std::vector<uint8_t>& blob) { return Printer(*parse_onednn_blob(blob)).print(); }

}  // namespace kiln::backends::onednn
