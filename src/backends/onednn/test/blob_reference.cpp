#include "backends/onednn/test/blob_reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include "aot/ir/error.h"
#include "aot/interpreter/interpreter.h"
#include "aot/ir/graph_builder.h"
#include "aot/ir/testing/aot_testing.h"
#include "backends/onednn/aot/blob_io.h"
#include "backends/onednn/aot/node_ops.h"
#include "backends/onednn/aot/packing.h"

namespace kiln::backends::onednn::testing {

namespace fb = ::kiln::onednn;
using aot::AotError;
using aot::ArgumentList;
using aot::Node;
using aot::None;

namespace {

using aot::testing::ints;

class ReferenceBuilder {
 public:
  ReferenceBuilder(const fb::GraphT& graph, const aot::NamedDataStoreOutput& named_data) : graph_(graph), named_(named_data) {}

  aot::ExportedProgram build() && {
    add_inputs_and_constants();
    for (const auto& op : graph_.operations) add_operation(*op);
    std::map<uint32_t, Node*> outputs;
    for (size_t v = 0; v < graph_.values.size(); ++v) {
      if (graph_.values[v]->kind == fb::ValueKind::Output) outputs[graph_.values[v]->index] = node(static_cast<int32_t>(v));
    }
    std::vector<Node*> results;
    for (const auto& [index, result] : outputs) results.push_back(result);
    b_.output(results);
    return std::move(b_).build();
  }

 private:
  void add_inputs_and_constants() {
    std::map<uint32_t, size_t> inputs;
    for (size_t v = 0; v < graph_.values.size(); ++v) {
      const fb::ValueT& value = *graph_.values[v];
      if (value.kind == fb::ValueKind::Input) inputs[value.index] = v;
      if (value.kind != fb::ValueKind::Constant) continue;
      const std::vector<uint8_t>& stored = named_.get(value.constant_key);
      const std::vector<uint8_t> bytes = value.packed != nullptr ? unpacked_bytes(*value.packed, stored) : stored;
      const bool int8 = value.dtype == fb::DataType::Int8;
      aot::HostTensor tensor = aot::HostTensor::zeros(int8 ? aot::ScalarType::Char : aot::ScalarType::Float, value.sizes);
      if (bytes.size() != tensor.nbytes()) throw AotError("constant %" + std::to_string(v) + " has the wrong byte count");
      std::memcpy(tensor.data(), bytes.data(), bytes.size());
      nodes_[static_cast<int32_t>(v)] = b_.parameter("c" + std::to_string(v), tensor);
    }
    for (const auto& [index, v] : inputs) {
      nodes_[static_cast<int32_t>(v)] = b_.input("in" + std::to_string(index), aot::f32(std::vector<aot::SymExpr>(
                                                                                  graph_.values[v]->sizes.begin(), graph_.values[v]->sizes.end())));
    }
  }

  Node* node(int32_t value) const {
    auto it = nodes_.find(value);
    if (it == nodes_.end()) throw AotError("value %" + std::to_string(value) + " is read before it is written");
    return it->second;
  }
  aot::Argument optional(int32_t value) const { return value < 0 ? aot::Argument(None{}) : aot::Argument(node(value)); }
  Node* call(const std::string& op, ArgumentList args, aot::KwargList kwargs = {}) { return b_.call(op, std::move(args), std::move(kwargs)); }
  Node* first(Node* multi) { return b_.getitem(multi, 0); }

  // clamp(alpha * x + beta, 0, 1): oneDNN's hardsigmoid with the blob's alpha and beta.
  Node* hard_sigmoid(Node* x, const fb::EltwiseT& e) {
    Node* line = call("aten::add.Scalar", {call("aten::mul.Scalar", {x, double{e.alpha}}), double{e.beta}});
    return call("aten::clamp", {line, 0.0, 1.0});
  }

  Node* eltwise(Node* x, const fb::EltwiseT& e) {
    switch (e.algorithm) {
      case fb::EltwiseAlgorithm::Relu: return e.alpha == 0 ? call("aten::relu", {x}) : call("aten::leaky_relu", {x, double{e.alpha}});
      case fb::EltwiseAlgorithm::Clip: return call("aten::clamp", {x, double{e.alpha}, double{e.beta}});
      case fb::EltwiseAlgorithm::HardSwish: return call("aten::mul.Tensor", {x, hard_sigmoid(x, e)});
      case fb::EltwiseAlgorithm::HardSigmoid: return hard_sigmoid(x, e);
      case fb::EltwiseAlgorithm::Logistic: return call("aten::sigmoid", {x});
      case fb::EltwiseAlgorithm::Swish: return call("aten::silu", {x});
      case fb::EltwiseAlgorithm::GeluErf: return call("aten::gelu", {x});
      case fb::EltwiseAlgorithm::GeluTanh: return call("aten::gelu", {x}, {{"approximate", "tanh"}});
      case fb::EltwiseAlgorithm::Elu: return call("aten::elu", {x, double{e.alpha}});
      case fb::EltwiseAlgorithm::Tanh: return call("aten::tanh", {x});
      case fb::EltwiseAlgorithm::Exp: return call("aten::exp", {x});
      case fb::EltwiseAlgorithm::Abs: return call("aten::abs", {x});
      case fb::EltwiseAlgorithm::Sqrt: return call("aten::sqrt", {x});
      case fb::EltwiseAlgorithm::Square: return call("aten::mul.Tensor", {x, x});
      case fb::EltwiseAlgorithm::Linear:
        return call("aten::add.Scalar", {call("aten::mul.Scalar", {x, double{e.alpha}}), double{e.beta}});
      case fb::EltwiseAlgorithm::Round: return call("aten::round", {x});
    }
    throw AotError("unknown eltwise algorithm");
  }

  Node* binary(fb::BinaryAlgorithm algorithm, Node* a, Node* b) {
    switch (algorithm) {
      case fb::BinaryAlgorithm::Add: return call("aten::add.Tensor", {a, b});
      case fb::BinaryAlgorithm::Sub: return call("aten::sub.Tensor", {a, b});
      case fb::BinaryAlgorithm::Mul: return call("aten::mul.Tensor", {a, b});
      case fb::BinaryAlgorithm::Div: return call("aten::div.Tensor", {a, b});
      case fb::BinaryAlgorithm::Max: return call("aten::maximum", {a, b});
      case fb::BinaryAlgorithm::Min: return call("aten::minimum", {a, b});
    }
    throw AotError("unknown binary algorithm");
  }

  Node* contiguous(Node* x) { return call("aten::clone", {x}, {{"memory_format", aot::MemoryFormat::Contiguous}}); }

  Node* matmul(const fb::MatMulT& params, const std::vector<int32_t>& in) {
    Node* a = node(in.at(0));
    Node* b = node(in.at(1));
    const std::vector<int64_t> as = graph_.values[static_cast<size_t>(in[0])]->sizes;
    const std::vector<int64_t> bs = graph_.values[static_cast<size_t>(in[1])]->sizes;
    if (params.transpose_b) {
      std::vector<int64_t> perm(bs.size());
      for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
      std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
      b = contiguous(call("aten::permute", {b, ints(perm)}));
    }
    Node* result = nullptr;
    if (as.size() == 2 && bs.size() == 2) {
      result = call("aten::mm", {a, b});
    } else if (as.size() == 3 && bs.size() == 3) {
      result = call("aten::bmm", {a, b});
    } else if (as.size() == 3 && bs.size() == 2) {
      const int64_t n = params.transpose_b ? bs[0] : bs[1];
      Node* flat = call("aten::view", {contiguous(a), ints({as[0] * as[1], as[2]})});
      result = call("aten::view", {call("aten::mm", {flat, b}), ints({as[0], as[1], n})});
    } else {
      throw AotError("no reference for a MatMul of ranks " + std::to_string(as.size()) + " and " + std::to_string(bs.size()));
    }
    return in.size() > 2 && in[2] >= 0 ? call("aten::add.Tensor", {result, node(in[2])}) : result;
  }

  Node* pooling(const fb::PoolingT& p, Node* x, const std::vector<int64_t>& src) {
    const bool ceil = p.padding_r != p.padding_l;
    bool global = p.algorithm == fb::PoolingAlgorithm::AvgExcludePadding && p.kernel.size() + 2 == src.size();
    for (size_t i = 0; global && i < p.kernel.size(); ++i) {
      global = p.kernel[i] == src[i + 2] && p.padding_l[i] == 0 && p.padding_r[i] == 0;
    }
    if (global) {  // one window over every spatial dimension, at any rank
      std::vector<int64_t> dims(p.kernel.size());
      for (size_t i = 0; i < dims.size(); ++i) dims[i] = static_cast<int64_t>(i + 2);
      return call("aten::mean.dim", {x, ints(dims), true});
    }
    if (p.algorithm == fb::PoolingAlgorithm::Max) {
      return first(call("aten::max_pool2d_with_indices", {x, ints(p.kernel), ints(p.strides), ints(p.padding_l), ints(p.dilations), ceil}));
    }
    return call("aten::avg_pool2d", {x, ints(p.kernel), ints(p.strides), ints(p.padding_l), ceil,
                                     p.algorithm == fb::PoolingAlgorithm::AvgIncludePadding});
  }

  Node* reduction(const fb::ReductionT& r, Node* x, const std::vector<int64_t>& src, const std::vector<int64_t>& dst) {
    std::vector<int64_t> dims;
    for (size_t d = 0; d < src.size() && d < dst.size(); ++d) {
      if (dst[d] == 1) dims.push_back(static_cast<int64_t>(d));
    }
    if (r.algorithm == fb::ReductionAlgorithm::Mean) return call("aten::mean.dim", {x, ints(dims), true});
    if (r.algorithm == fb::ReductionAlgorithm::Sum) return call("aten::sum.dim_IntList", {x, ints(dims), true});
    if (r.algorithm == fb::ReductionAlgorithm::Max) return call("aten::amax", {x, ints(dims), true});
    throw AotError("no reference for a max/min reduction");
  }

  // A quantized value stands here for the float32 it holds: on its grid,
  // dequantize(quantize(x)) as PyTorch computes them.
  bool quantized(int32_t value) const { return graph_.values.at(static_cast<size_t>(value))->dtype != fb::DataType::Float32; }
  bool same_grid(int32_t a, int32_t b) const {
    const fb::ValueT& x = *graph_.values.at(static_cast<size_t>(a));
    const fb::ValueT& y = *graph_.values.at(static_cast<size_t>(b));
    return x.dtype == y.dtype && x.scale == y.scale && x.zero_point == y.zero_point;
  }
  Node* on_grid(Node* x, int32_t value) {
    const fb::ValueT& v = *graph_.values.at(static_cast<size_t>(value));
    const bool int8 = v.dtype == fb::DataType::Int8;
    const aot::ScalarType type = int8 ? aot::ScalarType::Char : aot::ScalarType::Byte;
    const int64_t lowest = int8 ? -128 : 0, highest = int8 ? 127 : 255;
    const double scale = v.scale;
    const int64_t zero_point = v.zero_point;
    Node* q = call("quantized_decomposed::quantize_per_tensor", {x, scale, zero_point, lowest, highest, type});
    return call("quantized_decomposed::dequantize_per_tensor", {q, scale, zero_point, lowest, highest, type});
  }

  // The integers q a quantized value holds (x = scale * (q - zero_point) on
  // its grid), as float32: what a binary post-op reads of it.
  Node* integers(Node* x, int32_t value) {
    const fb::ValueT& v = *graph_.values.at(static_cast<size_t>(value));
    Node* levels = call("aten::round", {call("aten::mul.Scalar", {x, 1.0 / static_cast<double>(v.scale)})});
    return call("aten::add.Scalar", {levels, static_cast<double>(v.zero_point)});
  }

  // An int8 convolution's or matmul's weights (input 3: their scales per
  // output channel) as the float32 weights they stand for.
  void dequantize_weights(const std::vector<int32_t>& in) {
    if (in.size() < 4 || in[3] < 0 || !dequantized_weights_.insert(in[1]).second) return;
    nodes_[in[1]] = call("quantized_decomposed::dequantize_per_channel",
                         {node(in[1]), node(in[3]), None{}, 0, -128, 127, aot::ScalarType::Char});
  }

  Node* operation(const fb::OperationT& op, const std::vector<int64_t>& dst) {
    const std::vector<int32_t>& in = op.inputs;
    if (op.op.type == fb::OperationKind::Convolution || op.op.type == fb::OperationKind::MatMul) dequantize_weights(in);
    Node* x = in.empty() ? nullptr : node(in[0]);
    const std::vector<int64_t> src = in.empty() ? std::vector<int64_t>{} : graph_.values[static_cast<size_t>(in[0])]->sizes;
    switch (op.op.type) {
      case fb::OperationKind::Convolution: {
        const auto& c = *op.op.AsConvolution();
        if (c.padding_r != c.padding_l) {
          // Unequal padding (a zero pad folded in, fast_forms/padding.cpp): the pad, then none.
          if (c.transposed) throw AotError("a transposed convolution with asymmetric padding");
          std::vector<int64_t> pads;  // constant_pad_nd's order: the last dimension first
          for (size_t d = c.padding_l.size(); d-- > 0;) {
            pads.push_back(c.padding_l[d]);
            pads.push_back(c.padding_r[d]);
          }
          return call("aten::convolution", {call("aten::constant_pad_nd", {x, ints(pads)}), node(in.at(1)),
                                            optional(in.at(2)), ints(c.strides),
                                            ints(std::vector<int64_t>(c.strides.size(), 0)), ints(c.dilations), false,
                                            ints(std::vector<int64_t>(c.strides.size(), 0)), c.groups});
        }
        const std::vector<int64_t> output_padding = c.transposed ? c.output_padding : std::vector<int64_t>(c.strides.size(), 0);
        return call("aten::convolution", {x, node(in.at(1)), optional(in.at(2)), ints(c.strides), ints(c.padding_l),
                                          ints(c.dilations), c.transposed, ints(output_padding), c.groups});
      }
      case fb::OperationKind::MatMul: return matmul(*op.op.AsMatMul(), in);
      case fb::OperationKind::BatchNorm:
        return first(call("aten::_native_batch_norm_legit_no_training",
                          {x, optional(in.at(3)), optional(in.at(4)), node(in.at(1)), node(in.at(2)), 0.1,
                           double{op.op.AsBatchNorm()->epsilon}}));
      case fb::OperationKind::LayerNorm: {
        const auto& ln = *op.op.AsLayerNorm();
        const std::vector<int64_t> shape(src.end() - ln.normalized_dims, src.end());
        return first(call("aten::native_layer_norm", {x, ints(shape), optional(in.at(1)), optional(in.at(2)), double{ln.epsilon}}));
      }
      case fb::OperationKind::Softmax:
        return call(op.op.AsSoftmax()->log ? "aten::_log_softmax" : "aten::_softmax", {x, int64_t{op.op.AsSoftmax()->axis}, false});
      case fb::OperationKind::Pooling: return pooling(*op.op.AsPooling(), x, src);
      case fb::OperationKind::Reduction: return reduction(*op.op.AsReduction(), x, src, dst);
      case fb::OperationKind::Resampling: {
        const std::vector<int64_t> size(dst.end() - 2, dst.end());
        if (op.op.AsResampling()->algorithm == fb::ResamplingAlgorithm::Nearest) {
          return call("aten::upsample_nearest2d.vec", {x, ints(size), None{}});
        }
        return call("aten::upsample_bilinear2d.vec", {x, ints(size), false, None{}});
      }
      case fb::OperationKind::Concat: {
        ArgumentList tensors;
        for (int32_t v : in) tensors.emplace_back(node(v));
        return call("aten::cat", {tensors, int64_t{op.op.AsConcat()->axis}});
      }
      case fb::OperationKind::EltwiseOp: return eltwise(x, *op.op.AsEltwiseOp()->eltwise);
      case fb::OperationKind::BinaryOp: return binary(op.op.AsBinaryOp()->algorithm, x, node(in.at(1)));
      case fb::OperationKind::Reorder: {
        const auto& perm = op.op.AsReorder()->permutation;
        if (perm.empty() && quantized(in[0]) != quantized(op.outputs.at(0))) {
          return quantized(op.outputs[0]) ? on_grid(x, op.outputs[0]) : contiguous(x);
        }
        if (perm.empty() && quantized(in[0]) && !same_grid(in[0], op.outputs.at(0))) return on_grid(x, op.outputs[0]);
        if (perm.empty()) return call("aten::view", {contiguous(x), ints(dst)});
        return contiguous(call("aten::permute", {x, ints(perm)}));
      }
      case fb::OperationKind::DynamicQuantize: {
        const auto& d = *op.op.AsDynamicQuantize();
        const auto int8 = aot::ScalarType::Char;
        const int64_t lowest = d.quant_min, highest = d.quant_max;
        Node* qparams = call("quantized_decomposed::choose_qparams.tensor", {x, lowest, highest, double{d.eps}, int8});
        Node* scale = b_.getitem(qparams, 0);
        Node* zero_point = b_.getitem(qparams, 1);
        Node* q = call("quantized_decomposed::quantize_per_tensor.tensor", {x, scale, zero_point, lowest, highest, int8});
        return call("quantized_decomposed::dequantize_per_tensor.tensor", {q, scale, zero_point, lowest, highest, int8});
      }
      case fb::OperationKind::Pad: {
        const auto& pad = *op.op.AsPad();
        std::vector<int64_t> pairs;
        for (size_t d = pad.before.size(); d-- > 0;) {
          pairs.push_back(pad.before[d]);
          pairs.push_back(pad.after[d]);
        }
        return call("aten::constant_pad_nd", {x, ints(pairs), double{pad.value}});
      }
      case fb::OperationKind::Pointwise: return pointwise(*op.op.AsPointwise(), in, dst);
      default: throw AotError("an operation without a kind");
    }
  }

  // Each source through its view (as_strided), then each step in order.
  Node* pointwise(const fb::PointwiseT& p, const std::vector<int32_t>& in, const std::vector<int64_t>& dst) {
    std::vector<Node*> registers;
    for (size_t i = 0; i < in.size(); ++i) {
      const std::vector<int64_t> strides(p.strides.begin() + static_cast<std::ptrdiff_t>(i * dst.size()),
                                         p.strides.begin() + static_cast<std::ptrdiff_t>((i + 1) * dst.size()));
      registers.push_back(contiguous(call("aten::as_strided", {contiguous(node(in[i])), ints(dst), ints(strides), p.offsets.at(i)})));
    }
    for (const fb::PointwiseStep& step : p.steps) {
      Node* a = registers.at(step.a());
      registers.push_back(step.is_binary() ? binary(step.binary(), a, registers.at(step.b()))
                                           : eltwise(a, make_eltwise(step.eltwise(), step.alpha(), step.beta())));
    }
    return registers.back();
  }

  void add_operation(const fb::OperationT& op) {
    const std::vector<int64_t>& dst = graph_.values.at(static_cast<size_t>(op.outputs.at(0)))->sizes;
    Node* result = operation(op, dst);
    for (const auto& post : op.post_ops) {
      if (const auto* e = post->op.AsEltwise()) {
        result = eltwise(result, *e);
      } else if (const auto* binary_post = post->op.AsBinaryPostOp()) {
        const int32_t input = binary_post->input;
        result = binary(binary_post->algorithm, result, quantized(input) ? integers(node(input), input) : node(input));
      }
    }
    if (quantized(op.outputs[0]) && op.op.type != fb::OperationKind::Reorder &&
        op.op.type != fb::OperationKind::DynamicQuantize) {
      result = on_grid(result, op.outputs[0]);
    }
    const std::vector<int64_t> sizes = result->meta.tensor().static_sizes();
    if (sizes != dst) {
      throw AotError("operation '" + op.name + "' computes " + result->meta.tensor().to_string() + " into a value of other sizes");
    }
    nodes_[op.outputs[0]] = result;
  }

  const fb::GraphT& graph_;
  const aot::NamedDataStoreOutput& named_;
  aot::GraphBuilder b_;
  std::map<int32_t, Node*> nodes_;
  std::set<int32_t> dequantized_weights_;
};

// Deterministic values in [-1, 1).
aot::HostTensor pseudo_random(const std::vector<int64_t>& sizes, uint32_t seed) {
  aot::HostTensor t = aot::HostTensor::zeros(aot::ScalarType::Float, sizes);
  uint32_t state = seed * 2654435761u + 1;
  for (int64_t i = 0; i < t.numel(); ++i) {
    state = state * 1664525u + 1013904223u;
    t.data<float>()[i] = static_cast<float>(state >> 8) / static_cast<float>(1 << 23) - 1.0f;
  }
  return t;
}

}  // namespace

aot::ExportedProgram reference_program(const std::vector<uint8_t>& blob, const aot::NamedDataStoreOutput& named_data) {
  const auto graph = parse_onednn_blob(blob);
  return ReferenceBuilder(*graph, named_data).build();
}

void expect_blob_computes_the_delegated_program(const aot::LoweredBackendModule& module) {
  const auto graph = parse_onednn_blob(module.processed_bytes());
  std::map<uint32_t, std::vector<int64_t>> input_sizes;
  for (const auto& value : graph->values) {
    if (value->kind == fb::ValueKind::Input) input_sizes[value->index] = value->sizes;
  }
  std::vector<aot::Value> inputs;
  for (const auto& [index, sizes] : input_sizes) inputs.emplace_back(pseudo_random(sizes, index + 1));
  aot::ExportedProgram reference = reference_program(module.processed_bytes(), module.named_data_store_output());
  const std::vector<aot::Value> expected = aot::run_delegated_program(module.original_module(), inputs);
  const std::vector<aot::Value> actual = aot::run_delegated_program(reference, inputs);
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const std::vector<double> e = std::get<aot::HostTensor>(expected[i]).to_doubles();
    const std::vector<double> a = std::get<aot::HostTensor>(actual[i]).to_doubles();
    ASSERT_EQ(a.size(), e.size()) << "output " << i;
    size_t mismatches = 0;
    for (size_t k = 0; k < e.size(); ++k) {
      const bool same = std::isnan(e[k]) ? std::isnan(a[k]) : std::fabs(a[k] - e[k]) <= 1e-4 * std::max(1.0, std::fabs(e[k]));
      if (!same && mismatches++ < 3) ADD_FAILURE() << "output " << i << " element " << k << ": " << a[k] << " vs " << e[k];
    }
    EXPECT_EQ(mismatches, 0u) << "output " << i;
  }
}

std::string describe_unpacked(const std::vector<uint8_t>& blob) {
  const std::unique_ptr<fb::GraphT> graph = parse_onednn_blob(blob);
  for (auto& value : graph->values) value->packed.reset();
  return describe_onednn_blob(serialize_onednn_blob(*graph));
}

aot::HostTensor constant_tensor(const fb::ValueT& value, const aot::NamedDataStoreOutput& named_data) {
  EXPECT_EQ(value.kind, fb::ValueKind::Constant);
  const std::vector<uint8_t>& stored = named_data.get(value.constant_key);
  const std::vector<uint8_t> bytes = value.packed != nullptr ? unpacked_bytes(*value.packed, stored) : stored;
  aot::HostTensor tensor = aot::HostTensor::zeros(aot::ScalarType::Float, value.sizes);
  EXPECT_EQ(bytes.size(), tensor.nbytes());
  std::memcpy(tensor.data(), bytes.data(), std::min(bytes.size(), tensor.nbytes()));
  return tensor;
}

}  // namespace kiln::backends::onednn::testing
