// The op-conformance cases: per op, typical and odd shapes (7x5 images, 3 or
// 19 channels, batch 1 and 2) and the op's parameter variants. Layout ops
// follow a relu, since OneDnnBackend takes a layout op only next to a
// compute op it runs. Last, chains the lowering fuses (batch norm folded,
// post-ops, attention), so the fused primitives are compared too.
#include "backends/onednn/test/conformance_cases.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "aot/ir/testing/aot_testing.h"

namespace kiln::backends::onednn::testing {

using aot::ArgumentList;
using aot::f32;
using aot::HostTensor;
using aot::Node;
using aot::None;

namespace {

enum class Values { kSigned, kPositive };

// Inputs and weights drawn from a fixed LCG: [-2, 2] (signed) or [0.25, 2.25]
// (positive: sqrt, divisors, variances), each tensor from its own seed.
HostTensor random_tensor(const std::vector<int64_t>& sizes, uint32_t seed, Values values) {
  HostTensor t = HostTensor::zeros(aot::ScalarType::Float, sizes);
  uint32_t state = seed * 2654435761u + 12345u;
  for (int64_t i = 0; i < t.numel(); ++i) {
    state = state * 1664525u + 1013904223u;
    const float unit = static_cast<float>(state >> 8) / static_cast<float>(1u << 24);
    t.data<float>()[i] = values == Values::kSigned ? 4.0f * unit - 2.0f : 2.0f * unit + 0.25f;
  }
  return t;
}

using aot::testing::ints;

// A GraphBuilder that also makes the inputs' values.
class CaseBuilder {
 public:
  Node* input(const std::vector<int64_t>& sizes, Values values = Values::kSigned) {
    inputs_.push_back(random_tensor(sizes, next_seed_++, values));
    std::vector<aot::SymExpr> symbolic(sizes.begin(), sizes.end());
    return b_.input("x" + std::to_string(inputs_.size() - 1), f32(symbolic));
  }
  Node* weight(const std::vector<int64_t>& sizes, Values values = Values::kSigned) {
    const uint32_t seed = next_seed_++;
    return b_.parameter("w" + std::to_string(seed), random_tensor(sizes, seed, values));
  }
  Node* call(const std::string& op, ArgumentList args, aot::KwargList kwargs = {}) {
    return b_.call(op, std::move(args), std::move(kwargs));
  }
  /// A weight of `sizes`, or None when `present` is false.
  ArgumentList optional_weight(bool present, const std::vector<int64_t>& sizes) {
    ArgumentList one;
    if (present) {
      one.emplace_back(weight(sizes));
    } else {
      one.emplace_back(None{});
    }
    return one;
  }
  Node* getitem(Node* value, int64_t index) { return b_.getitem(value, index); }
  Node* constant(const std::string& name, HostTensor value) { return b_.constant(name, std::move(value)); }
  ConformanceProgram finish(Node* output) && {
    b_.output({output});
    return {std::move(b_).build(), std::move(inputs_)};
  }

 private:
  aot::GraphBuilder b_;
  std::vector<HostTensor> inputs_;
  uint32_t next_seed_ = 1;
};

using Cases = std::vector<ConformanceCase>;

// op(x, args...) on one input of `sizes`.
ConformanceCase unary(const std::string& op, const std::string& name, std::vector<int64_t> sizes, ArgumentList args = {},
                      aot::KwargList kwargs = {}, Values values = Values::kSigned) {
  return {op, name, [=] {
            CaseBuilder c;
            ArgumentList all{c.input(sizes, values)};
            all.insert(all.end(), args.begin(), args.end());
            Node* y = c.call(op, all, kwargs);
            return std::move(c).finish(y);
          }};
}

// ---- convolution ----

struct Conv {
  std::vector<int64_t> input, weight;
  int64_t stride = 1, padding = 0, dilation = 1, groups = 1;
  bool transposed = false, bias = true;
  int64_t output_padding = 0;
};

ConformanceCase conv_case(const std::string& name, Conv p) {
  return {"aten::convolution.default", name, [=] {
            CaseBuilder c;
            Node* x = c.input(p.input);
            Node* w = c.weight(p.weight);
            const int64_t out = p.transposed ? p.weight[1] * p.groups : p.weight[0];
            const ArgumentList bias = c.optional_weight(p.bias, {out});
            const size_t spatial = p.input.size() - 2;
            auto each = [&](int64_t v) { return ints(std::vector<int64_t>(spatial, v)); };
            Node* y = c.call("aten::convolution", {x, w, bias[0], each(p.stride), each(p.padding), each(p.dilation),
                                                   p.transposed, each(p.output_padding), p.groups});
            return std::move(c).finish(y);
          }};
}

// A 3-D convolution (depth kernel 3, no depth padding, depth stride 1). The
// portable kernels convolve 1-D and 2-D images only, so its reference sums,
// per output depth d, the 2-D convolutions of input depth d + k with weight
// depth k: the same weights, sliced on the host.
ConformanceCase conv3d_case(const std::string& name, std::vector<int64_t> input, int64_t out, int64_t stride_hw,
                            int64_t pad_hw) {
  const int64_t kDepth = 3;
  const std::vector<int64_t> weight_sizes{out, input[1], kDepth, 3, 3};
  const int64_t out_depth = input[2] - kDepth + 1;
  ConformanceCase c{"aten::convolution.default", name, [=] {
                      CaseBuilder b;
                      Node* x = b.input(input);
                      Node* y = b.call("aten::convolution",
                                       {x, b.weight(weight_sizes), b.weight({out}), ints({1, stride_hw, stride_hw}),
                                        ints({0, pad_hw, pad_hw}), ints({1, 1, 1}), false, ints({0, 0, 0}), 1});
                      return std::move(b).finish(y);
                    }};
  c.reference = [=] {
    // The seeds CaseBuilder gave: input 1, weight 2, bias 3.
    const HostTensor weight = random_tensor(weight_sizes, 2, Values::kSigned);
    aot::GraphBuilder b;
    Node* x = b.input("x0", f32(std::vector<aot::SymExpr>(input.begin(), input.end())));
    Node* bias = b.parameter("bias", random_tensor({out}, 3, Values::kSigned));
    std::vector<Node*> slices;
    const int64_t plane = weight_sizes[3] * weight_sizes[4];
    for (int64_t k = 0; k < kDepth; ++k) {
      HostTensor w = HostTensor::zeros(aot::ScalarType::Float, {out, input[1], 3, 3});
      for (int64_t oc = 0; oc < out * input[1]; ++oc) {
        for (int64_t i = 0; i < plane; ++i) w.data<float>()[oc * plane + i] = weight.data<float>()[(oc * kDepth + k) * plane + i];
      }
      slices.push_back(b.parameter("w" + std::to_string(k), std::move(w)));
    }
    ArgumentList depths;
    for (int64_t d = 0; d < out_depth; ++d) {
      Node* sum = nullptr;
      for (int64_t k = 0; k < kDepth; ++k) {
        Node* conv = b.call("aten::convolution", {b.call("aten::select.int", {x, 2, d + k}), slices[static_cast<size_t>(k)],
                                                  k == 0 ? aot::Argument(bias) : aot::Argument(None{}), ints({stride_hw, stride_hw}),
                                                  ints({pad_hw, pad_hw}), ints({1, 1}), false, ints({0, 0}), 1});
        sum = sum == nullptr ? conv : b.call("aten::add.Tensor", {sum, conv});
      }
      depths.emplace_back(b.call("aten::unsqueeze", {sum, 2}));
    }
    b.output({b.call("aten::cat", {depths, 2})});
    return std::move(b).build();
  };
  return c;
}

// A convolution's result times a mask broadcast over its channels (a speech
// model's [N, 1, T]; a U-Net's [N, 1, H, W]) or plus a bias broadcast over
// the batch: not its post-op, which oneDNN would run on its reference kernel,
// but a binary operation after it (fast_forms/binary.cpp).
ConformanceCase conv_then(const char* name, const char* op, std::vector<int64_t> input, std::vector<int64_t> weight,
                          std::vector<int64_t> other) {
  return {"aten::convolution.default", name, [=] {
            CaseBuilder c;
            const size_t spatial = input.size() - 2;
            const auto each = [&](int64_t v) { return ints(std::vector<int64_t>(spatial, v)); };
            Node* y = c.call("aten::convolution", {c.input(input), c.weight(weight), c.weight({weight[0]}), each(1),
                                                   each(1), each(1), false, each(0), 1});
            Node* gated = c.call("aten::sigmoid", {y});
            return std::move(c).finish(c.call(op, {gated, c.input(other)}));
          }};
}

Cases convolution_cases() {
  return {
      conv_case("3x3_c3_to_8_7x5_batch2", {{2, 3, 7, 5}, {8, 3, 3, 3}, 1, 1}),
      conv_case("3x3_no_bias_batch1", {{1, 3, 7, 5}, {5, 3, 3, 3}, 1, 1, 1, 1, false, false}),
      conv_case("stride2_c3_7x5", {{2, 3, 7, 5}, {5, 3, 3, 3}, 2, 1}),
      conv_case("dilation2_c19_to_17", {{1, 19, 9, 7}, {17, 19, 3, 3}, 1, 2, 2}),
      conv_case("depthwise_groups_c5", {{2, 5, 7, 5}, {5, 1, 3, 3}, 1, 1, 1, 5}),
      conv_case("depthwise_stride2_c19", {{1, 19, 7, 5}, {19, 1, 3, 3}, 2, 1, 1, 19}),
      conv_case("grouped_3_c6_to_9", {{1, 6, 7, 5}, {9, 2, 3, 3}, 1, 1, 1, 3}),
      conv_case("pointwise_1x1_c19_to_17", {{2, 19, 7, 5}, {17, 19, 1, 1}}),
      conv_case("5x5_stride2_pad2_c3", {{1, 3, 9, 7}, {4, 3, 5, 5}, 2, 2}),
      conv_case("transposed_stride2_output_padding1", {{2, 3, 7, 5}, {3, 5, 3, 3}, 2, 1, 1, 1, true, true, 1}),
      conv_case("transposed_2x2_stride2_grouped", {{1, 4, 7, 5}, {4, 3, 2, 2}, 2, 0, 1, 2, true}),
      conv_case("transposed_dilation2", {{1, 3, 5, 4}, {3, 2, 3, 3}, 1, 2, 2, 1, true}),
      // A U-Net's upsampling: stride = kernel, no overlap (issue 37: 0.68 ms on brgconv_strided).
      conv_case("transposed_2x2_stride2_unet_c16_to_8_12x20", {{1, 16, 12, 20}, {16, 8, 2, 2}, 2, 0, 1, 1, true}),
      conv_case("transposed_3x3_stride3_batch2_no_bias", {{2, 5, 4, 3}, {5, 7, 3, 3}, 3, 0, 1, 1, true, false}),
      conv_case("conv1d_stride2_c3", {{2, 3, 11}, {5, 3, 3}, 2, 1}),
      conv3d_case("conv3d_c3_depth4_pad1", {2, 3, 4, 7, 5}, 4, 1, 1),
      conv3d_case("conv3d_c5_stride2_hw", {1, 5, 3, 7, 6}, 19, 2, 0),
      conv_then("conv1d_times_a_mask_over_channels", "aten::mul.Tensor", {2, 6, 19}, {5, 6, 3}, {2, 1, 19}),
      conv_then("times_a_mask_over_channels", "aten::mul.Tensor", {1, 6, 7, 5}, {3, 6, 3, 3}, {1, 1, 7, 5}),
      conv_then("plus_a_bias_over_the_batch", "aten::add.Tensor", {2, 6, 7, 5}, {3, 6, 3, 3}, {1, 3, 7, 5}),
  };
}

// ---- matmul ----

ConformanceCase matmul_case(const std::string& op, const std::string& name, std::vector<std::vector<int64_t>> shapes,
                            bool bias_first = false) {
  return {op, name, [=] {
            CaseBuilder c;
            ArgumentList args;
            for (size_t i = 0; i < shapes.size(); ++i) {
              // addmm's bias and linear's weight and bias are parameters, as exported.
              const bool weight = (bias_first && i == 0) || (op == "aten::linear.default" && i > 0);
              args.emplace_back(weight ? c.weight(shapes[i]) : c.input(shapes[i]));
            }
            return std::move(c).finish(c.call(op, args));
          }};
}

Cases matmul_cases() {
  return {
      matmul_case("aten::mm.default", "7x5_by_5x19", {{7, 5}, {5, 19}}),
      matmul_case("aten::mm.default", "1x33_by_33x3", {{1, 33}, {33, 3}}),
      matmul_case("aten::bmm.default", "batched_2x7x5_by_2x5x3", {{2, 7, 5}, {2, 5, 3}}),
      matmul_case("aten::bmm.default", "batched_3x1x17_by_3x17x19", {{3, 1, 17}, {3, 17, 19}}),
      matmul_case("aten::addmm.default", "bias_row_7x5_by_5x19", {{19}, {7, 5}, {5, 19}}, true),
      matmul_case("aten::addmm.default", "bias_full_3x17_by_17x5", {{3, 5}, {3, 17}, {17, 5}}, true),
      matmul_case("aten::linear.default", "batched_2x7x5_to_19", {{2, 7, 5}, {19, 5}, {19}}),
      matmul_case("aten::linear.default", "no_bias_7x33_to_3", {{7, 33}, {3, 33}}),
      // One row on constant weights: Kiln's matrix-vector product where the
      // CPU has AVX-512 (panel_gemv_f32.h), a last panel of columns cut short.
      matmul_case("aten::linear.default", "one_row_1x37_to_70", {{1, 37}, {70, 37}, {70}}),
      matmul_case("aten::linear.default", "one_row_no_bias_1x1x300_to_129", {{1, 1, 300}, {129, 300}}),
  };
}

// ---- normalization, softmax ----

// An inference batch norm of x's `channels`: weight, bias and mean drawn
// signed, the variance positive; its result.
Node* batch_norm(CaseBuilder& c, Node* x, int64_t channels) {
  const std::vector<int64_t> per_channel{channels};
  Node* bn = c.call("aten::_native_batch_norm_legit_no_training",
                    {x, c.weight(per_channel), c.weight(per_channel), c.weight(per_channel),
                     c.weight(per_channel, Values::kPositive), 0.1, 1e-5});
  return c.getitem(bn, 0);
}

ConformanceCase batch_norm_case(const std::string& name, std::vector<int64_t> sizes) {
  return {"aten::_native_batch_norm_legit_no_training.default", name, [=] {
            CaseBuilder c;
            Node* x = c.input(sizes);
            return std::move(c).finish(batch_norm(c, x, sizes[1]));
          }};
}

ConformanceCase layer_norm_case(const std::string& name, std::vector<int64_t> sizes, std::vector<int64_t> shape,
                                bool affine) {
  return {"aten::native_layer_norm.default", name, [=] {
            CaseBuilder c;
            Node* x = c.input(sizes);
            const ArgumentList w = c.optional_weight(affine, shape);
            const ArgumentList b = c.optional_weight(affine, shape);
            Node* ln = c.call("aten::native_layer_norm", {x, ints(shape), w[0], b[0], 1e-5});
            return std::move(c).finish(c.getitem(ln, 0));
          }};
}

// native_group_norm: a layer norm per group, then the per-channel affine;
// `conv_first`: on a convolution's (blocked) result, with a relu after.
ConformanceCase group_norm_case(const std::string& name, std::vector<int64_t> sizes, int64_t groups, bool weight,
                                bool bias, bool conv_first = false) {
  return {"aten::native_group_norm.default", name, [=] {
            CaseBuilder c;
            Node* x = c.input(sizes);
            if (conv_first) {
              x = c.call("aten::convolution", {x, c.weight({sizes[1], sizes[1], 3, 3}), None{}, ints({1, 1}), ints({1, 1}),
                                               ints({1, 1}), false, ints({0, 0}), 1});
            }
            int64_t spatial = 1;
            for (size_t i = 2; i < sizes.size(); ++i) spatial *= sizes[i];
            const ArgumentList w = c.optional_weight(weight, {sizes[1]});
            const ArgumentList b = c.optional_weight(bias, {sizes[1]});
            Node* gn = c.call("aten::native_group_norm", {x, w[0], b[0], sizes[0], sizes[1], spatial, groups, 1e-5});
            Node* y = c.getitem(gn, 0);
            return std::move(c).finish(conv_first ? c.call("aten::relu", {y}) : y);
          }};
}

Cases normalization_cases() {
  Cases cases = {
      group_norm_case("8_groups_of_2_batch2", {2, 16, 7, 5}, 8, true, true),
      group_norm_case("one_group_no_affine", {1, 6, 7, 5}, 1, false, false),
      group_norm_case("group_per_channel_weight_only", {1, 6, 4, 3}, 6, true, false),
      group_norm_case("bias_only_rank3", {2, 12, 19}, 4, false, true),
      group_norm_case("after_a_conv_then_relu", {1, 16, 9, 7}, 4, true, true, true),
      batch_norm_case("c3_7x5_batch2", {2, 3, 7, 5}),
      batch_norm_case("c19_batch1", {1, 19, 4, 3}),
      batch_norm_case("rank2_c17", {5, 17}),
      layer_norm_case("last_dim_19", {2, 7, 19}, {19}, true),
      layer_norm_case("last_two_dims_7x19", {2, 7, 19}, {7, 19}, true),
      layer_norm_case("no_affine_256", {3, 256}, {256}, false),
  };
  for (const char* op : {"aten::_softmax.default", "aten::_log_softmax.default"}) {
    cases.push_back(unary(op, "last_dim", {2, 3, 7, 5}, {-1, false}));
    cases.push_back(unary(op, "channels_dim1", {2, 3, 7, 5}, {1, false}));
    cases.push_back(unary(op, "batch_dim0", {2, 3, 7, 5}, {0, false}));
    cases.push_back(unary(op, "rows_of_19", {7, 19}, {1, false}));
  }
  return cases;
}

// ---- pooling, reduction, resampling ----

Cases pooling_cases() {
  const std::string max = "aten::max_pool2d_with_indices.default";
  auto max_pool = [&](const std::string& name, std::vector<int64_t> sizes, ArgumentList args) -> ConformanceCase {
    return {max, name, [=] {
              CaseBuilder c;
              ArgumentList all{c.input(sizes)};
              all.insert(all.end(), args.begin(), args.end());
              return std::move(c).finish(c.getitem(c.call(max, all), 0));
            }};
  };
  const std::string avg = "aten::avg_pool2d.default";
  return {
      max_pool("3x3_stride2_pad1_7x5", {2, 3, 7, 5}, {ints({3, 3}), ints({2, 2}), ints({1, 1})}),
      max_pool("2x2_ceil_mode_7x5", {1, 3, 7, 5}, {ints({2, 2}), ints({2, 2}), ints({0, 0}), ints({1, 1}), true}),
      max_pool("3x3_stride2_ceil_mode_pad1", {1, 19, 8, 6}, {ints({3, 3}), ints({2, 2}), ints({1, 1}), ints({1, 1}), true}),
      max_pool("dilation2", {1, 3, 9, 7}, {ints({3, 3}), ints({1, 1}), ints({1, 1}), ints({2, 2})}),
      max_pool("default_stride_3x2", {2, 3, 7, 5}, {ints({3, 2})}),
      unary(avg, "3x3_stride2_pad1_include_pad", {2, 3, 7, 5}, {ints({3, 3}), ints({2, 2}), ints({1, 1})}),
      unary(avg, "3x3_stride2_pad1_exclude_pad", {2, 3, 7, 5}, {ints({3, 3}), ints({2, 2}), ints({1, 1}), false, false}),
      unary(avg, "2x2_ceil_mode_exclude_pad", {1, 19, 7, 5}, {ints({2, 2}), ints({2, 2}), ints({0, 0}), true, false}),
      unary(avg, "default_stride_2x2", {1, 3, 6, 4}, {ints({2, 2})}),
      unary("aten::_adaptive_avg_pool2d.default", "6x4_to_3x2", {2, 3, 6, 4}, {ints({3, 2})}),
      unary("aten::_adaptive_avg_pool2d.default", "7x5_to_1x1", {1, 19, 7, 5}, {ints({1, 1})}),
      unary("aten::adaptive_avg_pool2d.default", "7x5_to_1x1", {2, 3, 7, 5}, {ints({1, 1})}),
      unary("aten::adaptive_avg_pool2d.default", "8x6_to_4x3", {1, 3, 8, 6}, {ints({4, 3})}),
  };
}

// A squeeze-excitation block on a 3x3 convolution's `channels`: their mean,
// a 1x1 convolution to `reduced` channels and `activation`, one back to
// `channels`, `gate` of that scaling the convolution's result.
ConformanceCase squeeze_excite(const char* name, int64_t channels, int64_t reduced, const char* activation,
                               std::function<Node*(CaseBuilder&, Node*)> gate) {
  return {"aten::mean.dim", name, [=] {
            CaseBuilder c;
            const auto one_by_one = [&](Node* x, int64_t out, int64_t in) {
              return c.call("aten::convolution", {x, c.weight({out, in, 1, 1}), c.weight({out}), ints({1, 1}),
                                                  ints({0, 0}), ints({1, 1}), false, ints({0, 0}), 1});
            };
            Node* y = c.call("aten::convolution", {c.input({1, 5, 6, 5}), c.weight({channels, 5, 3, 3}), None{},
                                                   ints({1, 1}), ints({1, 1}), ints({1, 1}), false, ints({0, 0}), 1});
            Node* squeezed = c.call("aten::mean.dim", {y, ints({-1, -2}), true});
            Node* middle = c.call(activation, {one_by_one(squeezed, reduced, channels)});
            Node* scale = gate(c, one_by_one(middle, channels, reduced));
            return std::move(c).finish(c.call("aten::mul.Tensor", {y, scale}));
          }};
}

Cases reduction_cases() {
  return {
      unary("aten::mean.dim", "hw_keepdim", {2, 3, 7, 5}, {ints({2, 3}), true}),
      unary("aten::mean.dim", "hw_no_keepdim", {2, 19, 7, 5}, {ints({-1, -2}), false}),
      unary("aten::mean.dim", "last_dim", {3, 7, 19}, {ints({-1})}),
      unary("aten::mean.dim", "volume_keepdim", {1, 3, 2, 7, 5}, {ints({2, 3, 4}), true}),
      unary("aten::mean.dim", "channels_and_width", {2, 3, 7, 5}, {ints({1, 3}), true}),
      // squeeze-excite: the mean of a convolution's result (channels-last or
      // blocked), a gate from it, the result scaled by the gate.
      {"aten::mean.dim", "squeeze_excite_after_a_conv", [] {
         CaseBuilder c;
         Node* y = c.call("aten::convolution", {c.input({1, 3, 9, 7}), c.weight({32, 3, 3, 3}), None{}, ints({1, 1}),
                                                ints({1, 1}), ints({1, 1}), false, ints({0, 0}), 1});
         Node* squeezed = c.call("aten::mean.dim", {y, ints({-1, -2}), true});
         Node* gate = c.call("aten::convolution", {squeezed, c.weight({32, 32, 1, 1}), c.weight({32}), ints({1, 1}),
                                                   ints({0, 0}), ints({1, 1}), false, ints({0, 0}), 1});
         return std::move(c).finish(c.call("aten::mul.Tensor", {y, c.call("aten::sigmoid", {gate})}));
       }},
      // EfficientNet's: the gate through a silu and a sigmoid, each 1x1
      // convolution of the one-pixel mean Kiln's matrix-vector product
      // (panel_gemv_f32.h).
      squeeze_excite("squeeze_excite_silu_of_96_channels", 96, 24, "aten::silu",
                     [](CaseBuilder& c, Node* gate) { return c.call("aten::sigmoid", {gate}); }),
      // MobileNetV3's: a relu after the first 1x1 convolution, a hardsigmoid gate.
      squeeze_excite("squeeze_excite_hardsigmoid_of_40_channels", 40, 16, "aten::relu",
                     [](CaseBuilder& c, Node* gate) { return c.call("aten::hardsigmoid", {gate}); }),
      // The same gate as core ATen decomposes a hardsigmoid: clamp(clamp(x + 3, 0), None, 6) / 6.
      squeeze_excite("squeeze_excite_decomposed_hardsigmoid_of_40_channels", 40, 16, "aten::relu",
                     [](CaseBuilder& c, Node* gate) {
                       Node* add = c.call("aten::add.Tensor", {gate, 3});
                       Node* six = c.call("aten::clamp", {c.call("aten::clamp", {add, 0}), None{}, 6});
                       return c.call("aten::div.Tensor", {six, 6});
                     }),
      // A U-Net's channel mean, x.mean(1, keepdim=True) (issue 37: 0.32 ms on ref:any).
      unary("aten::mean.dim", "channels_keepdim_unet_c8_24x40", {1, 8, 24, 40}, {ints({1}), true}),
      unary("aten::mean.dim", "channels_batch2", {2, 19, 7, 5}, {ints({1})}),
      // Over a sequence of one token: the source itself (fast_forms/reductions.cpp).
      unary("aten::mean.dim", "over_a_dim_of_size_1", {2, 1, 19}, {ints({1})}),
      unary("aten::sum.dim_IntList", "channels", {2, 3, 7, 5}, {ints({1})}),
      unary("aten::sum.dim_IntList", "rows_keepdim", {7, 19}, {ints({0}), true}),
  };
}

Cases resampling_cases() {
  const std::vector<int64_t> image{2, 3, 7, 5};
  const ArgumentList twice{2.0, 2.0};
  return {
      unary("aten::upsample_nearest2d.vec", "scale2_7x5", image, {None{}, twice}),
      unary("aten::upsample_nearest2d.vec", "size_21x10", image, {ints({21, 10}), None{}}),
      unary("aten::upsample_bilinear2d.vec", "scale2_7x5", image, {None{}, false, twice}),
      unary("aten::upsample_bilinear2d.vec", "size_11x9", image, {ints({11, 9}), false, None{}}),
      unary("aten::upsample_bilinear2d.vec", "down_to_4x3", image, {ints({4, 3}), false, None{}}),
      unary("aten::upsample_nearest2d.default", "size_14x15", {1, 3, 7, 5}, {ints({14, 15})}),
      unary("aten::upsample_bilinear2d.default", "bilinear_size_13x6_of_19_channels", {1, 19, 7, 5}, {ints({13, 6}), false}),
  };
}

// ---- concat, pad ----

ConformanceCase cat_case(const std::string& name, std::vector<std::vector<int64_t>> shapes, int64_t dim) {
  return {"aten::cat.default", name, [=] {
            CaseBuilder c;
            ArgumentList tensors;
            for (const auto& sizes : shapes) tensors.emplace_back(c.input(sizes));
            return std::move(c).finish(c.call("aten::cat", {tensors, dim}));
          }};
}

// pad (asymmetric) then a 3x3 convolution: how PyTorch exports padding='same'
// with an even kernel, the padding aten::convolution cannot say.
ConformanceCase pad_then_conv() {
  return {"aten::constant_pad_nd.default", "asymmetric_then_conv", [] {
            CaseBuilder c;
            Node* padded = c.call("aten::constant_pad_nd", {c.input({1, 3, 7, 5}), ints({0, 1, 1, 0})});
            Node* y = c.call("aten::convolution", {padded, c.weight({4, 3, 2, 2}), None{}, ints({1, 1}), ints({0, 0}),
                                                   ints({1, 1}), false, ints({0, 0}), 1});
            return std::move(c).finish(y);
          }};
}

// TensorFlow's "same" padding before a strided depthwise convolution (Hugging
// Face's MobileNetV2): the zero pad is the convolution's own, unequal padding.
ConformanceCase same_pad_then_depthwise() {
  return {"aten::constant_pad_nd.default", "tf_same_then_depthwise_stride2", [] {
            CaseBuilder c;
            Node* padded = c.call("aten::constant_pad_nd", {c.input({2, 8, 9, 6}), ints({0, 1, 0, 1})});
            Node* y = c.call("aten::convolution", {padded, c.weight({8, 1, 3, 3}), c.weight({8}), ints({2, 2}),
                                                   ints({0, 0}), ints({1, 1}), false, ints({0, 0}), 8});
            return std::move(c).finish(c.call("aten::hardtanh", {y, 0.0, 6.0}));
          }};
}

// DenseNet's first block: a max pool's result (written in the layout of the
// convolution before it) joined with convolutions' (their own layout), each
// join read by a batch norm and a relu, then a 1x1 convolution. The images
// join in one layout, not plain (layout_builders.cpp).
ConformanceCase dense_block() {
  return {"aten::cat.default", "dense_block_of_a_pool_and_convolutions", [] {
            CaseBuilder c;
            auto conv = [&](Node* x, std::vector<int64_t> weight, int64_t stride, int64_t padding) {
              return c.call("aten::convolution", {x, c.weight(weight), None{}, ints({stride, stride}),
                                                  ints({padding, padding}), ints({1, 1}), false, ints({0, 0}), 1});
            };
            int norms = 0;
            auto norm_relu = [&](Node* x, int64_t channels) {
              // A variance near the convolutions' keeps the values near 1.
              const std::vector<int64_t> per_channel{channels};
              HostTensor variance = HostTensor::zeros(aot::ScalarType::Float, per_channel);
              for (int64_t i = 0; i < channels; ++i) variance.data<float>()[i] = 400.0f + static_cast<float>(i);
              Node* bn = c.call("aten::_native_batch_norm_legit_no_training",
                                {x, c.weight(per_channel), c.weight(per_channel), c.weight(per_channel),
                                 c.constant("variance_" + std::to_string(norms++), std::move(variance)), 0.1, 1e-5});
              return c.call("aten::relu", {c.getitem(bn, 0)});
            };
            Node* stem = c.call("aten::relu", {conv(c.input({1, 3, 32, 32}), {64, 3, 7, 7}, 2, 3)});
            Node* pool = c.call("aten::max_pool2d_with_indices", {stem, ints({3, 3}), ints({2, 2}), ints({1, 1})});
            Node* pooled = c.getitem(pool, 0);
            ArgumentList features{pooled};
            int64_t channels = 64;
            for (int layer = 0; layer < 3; ++layer) {
              Node* joined = layer == 0 ? pooled : c.call("aten::cat", {features, 1});
              Node* narrow = norm_relu(conv(norm_relu(joined, channels), {64, channels, 1, 1}, 1, 0), 64);
              features.emplace_back(conv(narrow, {32, 64, 3, 3}, 1, 1));
              channels += 32;
            }
            return std::move(c).finish(conv(norm_relu(c.call("aten::cat", {features, 1}), channels),
                                            {32, channels, 1, 1}, 1, 0));
          }};
}

// RegNetY's squeeze-excitation: a grouped convolution (8 channels a group),
// its mean over the image through two 1x1 convolutions to a gate, the image
// times the gate, then a 1x1 convolution. The product is taken in one layout
// with the convolutions', not plain (layout_builders.cpp).
ConformanceCase squeeze_excitation() {
  return {"aten::mul.Tensor", "squeeze_excitation_of_a_grouped_convolution", [] {
            CaseBuilder c;
            auto conv = [&](Node* x, std::vector<int64_t> weight, int64_t padding, int64_t groups) {
              return c.call("aten::convolution", {x, c.weight(weight), c.weight({weight[0]}), ints({1, 1}),
                                                  ints({padding, padding}), ints({1, 1}), false, ints({0, 0}), groups});
            };
            Node* x = c.call("aten::relu", {conv(c.input({1, 32, 12, 12}), {32, 8, 3, 3}, 1, 4)});
            Node* pooled = c.call("aten::mean.dim", {x, ints({2, 3}), true});
            Node* gate = c.call("aten::sigmoid", {conv(c.call("aten::relu", {conv(pooled, {8, 32, 1, 1}, 0, 1)}),
                                                       {32, 8, 1, 1}, 0, 1)});
            return std::move(c).finish(conv(c.call("aten::mul.Tensor", {x, gate}), {48, 32, 1, 1}, 0, 1));
          }};
}

// The same on images of one pixel, two of them: the product is the second
// convolution's binary post-op, and that convolution a matmul (fast_forms.h).
ConformanceCase squeeze_excitation_of_one_pixel() {
  return {"aten::mul.Tensor", "squeeze_excitation_of_one_pixel", [] {
            CaseBuilder c;
            auto conv = [&](Node* x, std::vector<int64_t> weight) {
              return c.call("aten::convolution", {x, c.weight(weight), c.weight({weight[0]}), ints({1, 1}),
                                                  ints({0, 0}), ints({1, 1}), false, ints({0, 0}), 1});
            };
            Node* x = c.input({2, 24, 1, 1});
            Node* gate = c.call("aten::sigmoid", {conv(c.call("aten::relu", {conv(x, {8, 24, 1, 1})}), {24, 8, 1, 1})});
            return std::move(c).finish(c.call("aten::mul.Tensor", {x, gate}));
          }};
}

// A crop of a convolution's result (oneDNN's blocked layout) then a matmul:
// the encoder's select of q, k, v between two oneDNN ops.
ConformanceCase crop_between_compute_ops(const std::string& op, const std::string& name, ArgumentList args) {
  return {op, name, [=] {
            CaseBuilder c;
            Node* conv = c.call("aten::convolution", {c.input({1, 3, 7, 5}), c.weight({19, 3, 3, 3}), None{},
                                                      ints({1, 1}), ints({1, 1}), ints({1, 1}), false, ints({0, 0}), 1});
            ArgumentList all{conv};
            all.insert(all.end(), args.begin(), args.end());
            Node* cropped = c.call(op, all);
            return std::move(c).finish(c.call("aten::relu", {cropped}));
          }};
}

Cases crop_cases() {
  return {
      unary("aten::slice.Tensor", "dim1_1_to_3", {2, 5, 7}, {1, 1, 3}),
      unary("aten::slice.Tensor", "last_dim_negative_start", {3, 7, 19}, {-1, -5, None{}}),
      unary("aten::slice.Tensor", "end_past_the_size", {2, 3, 7, 5}, {0, 1, 100}),
      unary("aten::slice.Tensor", "whole_dim", {7, 19}, {0, None{}, None{}}),
      crop_between_compute_ops("aten::slice.Tensor", "channels_5_to_17_of_a_conv", {1, 5, 17}),
      unary("aten::slice_copy.Tensor", "dim2_2_to_6", {2, 3, 7, 5}, {2, 2, 6}),
      unary("aten::select.int", "first_of_three", {3, 7, 1, 19}, {0, 0}),
      unary("aten::select.int", "negative_index", {2, 3, 7, 5}, {-1, -1}),
      crop_between_compute_ops("aten::select.int", "channel_11_of_a_conv", {1, 11}),
      unary("aten::select_copy.int", "middle_row", {7, 19}, {0, 3}),
      // One block of a product's rows, read in place by the next product
      // (an encoder's q, k, v split on an outer dimension; an LSTM's gates
      // of one time step).
      {"aten::select.int", "row_block_of_a_product_then_a_product", [] {
         CaseBuilder c;
         Node* rows = c.call("aten::view", {c.call("aten::mm", {c.input({12, 8}), c.weight({8, 6})}), ints({3, 4, 6})});
         return std::move(c).finish(c.call("aten::mm", {c.call("aten::select.int", {rows, 0, 1}), c.weight({6, 5})}));
       }},
  };
}

Cases concat_pad_cases() {
  return {
      cat_case("channels_3_and_19", {{2, 3, 7, 5}, {2, 19, 7, 5}}, 1),
      cat_case("last_dim_three", {{7, 5}, {7, 1}, {7, 3}}, -1),
      cat_case("batch_dim0", {{1, 3, 7, 5}, {2, 3, 7, 5}}, 0),
      // More tensors than one oneDNN concat joins (kMaxConcatInputs): a
      // DenseNet block's cat, lowered as a tree of concats.
      cat_case("23_feature_maps", std::vector<std::vector<int64_t>>(23, {1, 2, 7, 5}), 1),
      cat_case("50_rows", std::vector<std::vector<int64_t>>(50, {1, 19}), 0),
      unary("aten::constant_pad_nd.default", "last_dim_1_2_value", {2, 3, 7, 5}, {ints({1, 2}), 0.5}),
      unary("aten::constant_pad_nd.default", "asymmetric_hw", {2, 3, 7, 5}, {ints({0, 1, 2, 0})}),
      unary("aten::constant_pad_nd.default", "channels_too", {1, 3, 7, 5}, {ints({1, 1, 1, 1, 2, 0}), -1.0}),
      pad_then_conv(),
      same_pad_then_depthwise(),
      dense_block(),
      squeeze_excitation(),
      squeeze_excitation_of_one_pixel(),
  };
}

// ---- elementwise ----

Cases activation_cases() {
  const std::vector<int64_t> image{2, 3, 7, 5};
  const std::vector<int64_t> rows{7, 19};
  Cases cases;
  for (const char* op : {"aten::relu.default", "aten::sigmoid.default", "aten::silu.default", "aten::tanh.default",
                         "aten::exp.default", "aten::abs.default", "aten::hardswish.default",
                         "aten::hardsigmoid.default"}) {
    cases.push_back(unary(op, "image_7x5", image));
    cases.push_back(unary(op, "rows_of_19", rows));
  }
  // hardswish/hardsigmoid bend at +-3: widen the input past them.
  for (const char* op : {"aten::hardswish.default", "aten::hardsigmoid.default"}) {
    cases.push_back({op, "past_the_bends", [op] {
                       CaseBuilder c;
                       Node* y = c.call(op, {c.call("aten::mul.Scalar", {c.input({3, 19}), 2.5})});
                       return std::move(c).finish(y);
                     }});
  }
  // nn.PReLU() as decomposed, where(y > 0, y, w * y) of one learned slope:
  // a relu with that slope, the convolution's post-op (fusion/activation.cpp).
  cases.push_back({"aten::convolution.default", "then_prelu_of_one_slope", [] {
                     CaseBuilder c;
                     Node* y = c.call("aten::convolution", {c.input({2, 3, 7, 5}), c.weight({4, 3, 3, 3}), c.weight({4}),
                                                            ints({1, 1}), ints({1, 1}), ints({1, 1}), false, ints({0, 0}), 1});
                     Node* negative = c.call("aten::mul.Tensor", {c.weight({1}), y});
                     return std::move(c).finish(
                         c.call("aten::where.self", {c.call("aten::gt.Scalar", {y, 0}), y, negative}));
                   }});
  // Elementwise DAGs on small tensors, one Pointwise program each
  // (fusion/pointwise.cpp): a GRU cell on crops of its products, batch 2;
  // an LSTM cell whose state is read twice, its gates scaled to saturate;
  // gelu's tanh form spelled out (a cube, numbers, a column of biases).
  cases.push_back({"aten::sigmoid.default", "gru_cell_of_crops", [] {
                     CaseBuilder c;
                     Node* gx = c.input({2, 72});
                     Node* h = c.input({2, 24});
                     Node* gh = c.call("aten::addmm", {c.weight({72}), h, c.call("aten::permute", {c.weight({72, 24}), ints({1, 0})})});
                     const auto crop = [&](Node* x, int64_t i) { return c.call("aten::slice.Tensor", {x, 1, i * 24, (i + 1) * 24}); };
                     Node* r = c.call("aten::sigmoid", {c.call("aten::add.Tensor", {crop(gx, 0), crop(gh, 0)})});
                     Node* z = c.call("aten::sigmoid", {c.call("aten::add.Tensor", {crop(gx, 1), crop(gh, 1)})});
                     Node* n = c.call("aten::tanh", {c.call("aten::add.Tensor", {crop(gx, 2), c.call("aten::mul.Tensor", {r, crop(gh, 2)})})});
                     Node* next = c.call("aten::add.Tensor", {c.call("aten::mul.Tensor", {c.call("aten::sub.Tensor", {h, n}), z}), n});
                     return std::move(c).finish(next);
                   }});
  cases.push_back({"aten::tanh.default", "lstm_cell_state_read_twice", [] {
                     CaseBuilder c;
                     Node* g = c.call("aten::mul.Tensor", {c.input({1, 1, 64}), 40.0});
                     Node* state = c.input({1, 1, 16});
                     const auto gate = [&](int64_t i) { return c.call("aten::slice.Tensor", {g, 2, i * 16, (i + 1) * 16}); };
                     Node* i = c.call("aten::sigmoid", {gate(0)});
                     Node* f = c.call("aten::sigmoid", {gate(1)});
                     Node* u = c.call("aten::tanh", {gate(2)});
                     Node* o = c.call("aten::sigmoid", {gate(3)});
                     Node* next = c.call("aten::add.Tensor", {c.call("aten::mul.Tensor", {f, state}), c.call("aten::mul.Tensor", {i, u})});
                     Node* h = c.call("aten::mul.Tensor", {o, c.call("aten::tanh", {next})});
                     return std::move(c).finish(c.call("aten::add.Tensor", {h, c.call("aten::exp", {next})}));
                   }});
  cases.push_back({"aten::pow.Tensor_Scalar", "gelu_tanh_spelled_out", [] {
                     CaseBuilder c;
                     Node* x = c.call("aten::add.Tensor", {c.call("aten::mul.Tensor", {c.input({4, 33}), 3.0}), c.weight({4, 1})});
                     Node* inner = c.call("aten::mul.Tensor", {c.call("aten::add.Tensor", {x, c.call("aten::mul.Tensor", {c.call("aten::pow.Tensor_Scalar", {x, 3}), 0.044715})}), 0.7978845608028654});
                     Node* y = c.call("aten::mul.Tensor", {c.call("aten::mul.Tensor", {x, 0.5}), c.call("aten::add.Tensor", {c.call("aten::tanh", {inner}), 1.0})});
                     return std::move(c).finish(y);
                   }});
  cases.push_back(unary("aten::sqrt.default", "positive_image", image, {}, {}, Values::kPositive));
  cases.push_back(unary("aten::neg.default", "image", image));
  cases.push_back(unary("aten::leaky_relu.default", "slope_default", image));
  cases.push_back(unary("aten::leaky_relu.default", "slope_0_2", rows, {0.2}));
  cases.push_back(unary("aten::elu.default", "alpha_1", image));
  cases.push_back(unary("aten::elu.default", "alpha_0_5", rows, {0.5}));
  cases.push_back(unary("aten::clamp.default", "min_max", image, {-0.5, 1.0}));
  cases.push_back(unary("aten::clamp.default", "min_only", rows, {0.0}));
  cases.push_back(unary("aten::clamp.default", "max_only", rows, {None{}, 6.0 / 4}));
  cases.push_back(unary("aten::hardtanh.default", "default_bounds", image));
  cases.push_back(unary("aten::hardtanh.default", "relu6_bounds", rows, {0.0, 1.5}));
  cases.push_back(unary("aten::gelu.default", "tanh_approximation", image, {}, {{"approximate", "tanh"}}));
  cases.push_back(unary("aten::gelu.default", "tanh_approximation_rows", rows, {}, {{"approximate", "tanh"}}));
  cases.push_back(unary("aten::gelu.default", "erf", image));
  cases.push_back(unary("aten::gelu.default", "erf_rows", rows, {}, {{"approximate", "none"}}));
  cases.push_back(unary("aten::pow.Tensor_Scalar", "square", image, {2.0}));
  cases.push_back(unary("aten::pow.Tensor_Scalar", "cube_rows", rows, {3}));
  cases.push_back(unary("aten::pow.Tensor_Scalar", "square_root", image, {0.5}, {}, Values::kPositive));
  // GPT-2's tanh gelu as it spells it out: the cube's post-op, then more.
  cases.push_back({"aten::pow.Tensor_Scalar", "tanh_gelu_spelled_out", [] {
                     CaseBuilder c;
                     Node* x = c.input({3, 19});
                     Node* cube = c.call("aten::pow.Tensor_Scalar", {x, 3.0});
                     Node* inner = c.call("aten::add.Tensor", {x, c.call("aten::mul.Tensor", {cube, 0.044715})});
                     Node* t = c.call("aten::tanh.default", {c.call("aten::mul.Tensor", {inner, 0.7978845608})});
                     Node* half = c.call("aten::mul.Tensor", {x, 0.5});
                     Node* y = c.call("aten::mul.Tensor", {half, c.call("aten::add.Tensor", {t, 1.0})});
                     return std::move(c).finish(y);
                   }});
  return cases;
}

// x (op) y with `first` and `second` broadcast to one result; divisors positive.
ConformanceCase binary(const std::string& op, const std::string& name, std::vector<int64_t> first,
                       std::vector<int64_t> second) {
  return {op, name, [=] {
            CaseBuilder c;
            Node* x = c.input(first);
            Node* y = c.input(second, op == "aten::div.Tensor" ? Values::kPositive : Values::kSigned);
            return std::move(c).finish(c.call(op, {x, y}));
          }};
}

Cases binary_cases() {
  const std::vector<int64_t> image{2, 3, 7, 5};
  Cases cases;
  for (const char* op : {"aten::add.Tensor", "aten::sub.Tensor", "aten::mul.Tensor", "aten::div.Tensor",
                         "aten::maximum.default", "aten::minimum.default"}) {
    cases.push_back(binary(op, "same_shape", image, image));
    cases.push_back(binary(op, "second_per_channel", image, {3, 1, 1}));
    cases.push_back(binary(op, "second_row_batch1", {1, 7, 19}, {19}));
    // [..., n, 1] over [..., n, K] (an RMS norm's scale): run as [rows, K] and [rows, 1].
    cases.push_back(binary(op, "second_a_column", {2, 7, 19}, {2, 7, 1}));
    // A row per channel and per batch, broadcast over the rows: oneDNN's JIT
    // kernels broadcast the second but not the first (fast_forms/binary.cpp).
    cases.push_back(binary(op, "second_rows_per_channel", {2, 4, 5, 7}, {1, 4, 1, 7}));
    cases.push_back(binary(op, "second_rows_per_batch", {2, 4, 5, 7}, {2, 1, 1, 7}));
    // One number per batch, a column, a column per channel: on views of
    // merged dimensions (fast_forms/binary.cpp).
    cases.push_back(binary(op, "second_per_batch", image, {2, 1, 1, 1}));
    cases.push_back(binary(op, "second_one_column", image, {1, 1, 7, 1}));
    cases.push_back(binary(op, "second_columns_per_channel", image, {1, 3, 7, 1}));
    // A tensor of rank 0 (DeBERTa's scale): a value with no sizes in the blob.
    cases.push_back(binary(op, "second_of_rank_0", image, {}));
  }
  // A binary post-op broadcast otherwise than whole, per channel or as one
  // number (Swin V2's scores times a scale per head plus a bias the windows
  // share): oneDNN's JIT kernels take the post-op as a binary operation of
  // its own (fast_forms/binary.cpp).
  for (const auto& [name, bias] : std::vector<std::pair<std::string, std::vector<int64_t>>>{
           {"bias_per_image", {1, 3, 7, 5}}, {"bias_rows", {1, 1, 1, 5}}, {"bias_per_batch_and_row", {2, 1, 7, 5}}}) {
    cases.push_back({"aten::add.Tensor", "scaled_per_channel_plus_" + name, [=] {
                       CaseBuilder c;
                       Node* x = c.input(image);
                       Node* scaled = c.call("aten::mul.Tensor", {x, c.input({3, 1, 1})});
                       return std::move(c).finish(c.call("aten::add.Tensor", {scaled, c.input(bias)}));
                     }});
  }
  // GPT-J's rotary embedding: q * cos broadcast over the heads (rows under a
  // middle dimension), plus the rotated q * sin (a full-sized post-op): the
  // product in its moved form, the sum after it.
  cases.push_back({"aten::mul.Tensor", "rows_over_heads_plus_a_full_tensor", [] {
                     CaseBuilder c;
                     Node* x = c.input({1, 6, 4, 8});
                     Node* rotated = c.call("aten::neg", {c.input({1, 6, 4, 8})});
                     Node* scaled = c.call("aten::mul.Tensor", {x, c.input({1, 6, 1, 8})});
                     return std::move(c).finish(c.call("aten::add.Tensor", {scaled, rotated}));
                   }});
  // oneDNN broadcasts its second operand only: the lowering swaps these.
  for (const char* op : {"aten::add.Tensor", "aten::mul.Tensor", "aten::maximum.default", "aten::minimum.default"}) {
    cases.push_back(binary(op, "first_per_channel", {3, 1, 1}, image));
    cases.push_back(binary(op, "first_scalar_tensor", {1}, {7, 19}));
  }
  cases.push_back(unary("aten::add.Scalar", "plus_0_5", image, {0.5}));
  cases.push_back(unary("aten::add.Scalar", "alpha_2", image, {0.5, 2.0}));
  cases.push_back(unary("aten::sub.Scalar", "minus_1_25", image, {1.25}));
  cases.push_back(unary("aten::mul.Scalar", "times_3", image, {3.0}));
  cases.push_back(unary("aten::div.Scalar", "by_7", image, {7.0}));
  return cases;
}

// ---- layout ops, each on a relu's result ----

ConformanceCase layout(const std::string& op, const std::string& name, std::vector<int64_t> sizes, ArgumentList args,
                       aot::KwargList kwargs = {}) {
  return {op, name, [=] {
            CaseBuilder c;
            ArgumentList all{c.call("aten::relu", {c.input(sizes)})};
            all.insert(all.end(), args.begin(), args.end());
            return std::move(c).finish(c.call(op, all, kwargs));
          }};
}

Cases layout_cases() {
  const std::vector<int64_t> image{2, 3, 7, 5};
  const std::vector<int64_t> ones{2, 1, 7, 1};
  return {
      layout("aten::view.default", "flatten_hw", image, {ints({2, 3, 35})}),
      layout("aten::view_copy.default", "flatten_all_but_batch", image, {ints({2, -1})}),
      layout("aten::_unsafe_view.default", "to_6x35", image, {ints({6, 35})}),
      layout("aten::reshape.default", "to_42x5", image, {ints({42, 5})}),
      layout("aten::alias_copy.default", "image", image, {}),
      layout("aten::alias.default", "image", image, {}),
      layout("aten::unsqueeze.default", "dim2", image, {2}),
      layout("aten::unsqueeze_copy.default", "last", image, {-1}),
      layout("aten::squeeze.dim", "dim1", ones, {1}),
      layout("aten::squeeze.default", "every_1", ones, {}),
      layout("aten::squeeze.dims", "dims_1_3", ones, {ints({1, 3})}),
      layout("aten::squeeze_copy.dims", "dim3", ones, {ints({3})}),
      layout("aten::clone.default", "image", image, {}),
      layout("aten::clone.default", "contiguous_format", image, {}, {{"memory_format", aot::MemoryFormat::Contiguous}}),
      layout("aten::expand.default", "adds_a_leading_1", {7, 5}, {ints({1, 7, 5})}),
      layout("aten::expand_copy.default", "same_sizes", ones, {ints({2, 1, 7, 1})}),
      layout("aten::permute.default", "nchw_to_nhwc", image, {ints({0, 2, 3, 1})}),
      layout("aten::permute.default", "reverse", image, {ints({3, 2, 1, 0})}),
      layout("aten::permute_copy.default", "hw_swapped", image, {ints({0, 1, 3, 2})}),
      layout("aten::transpose.int", "dims_1_2", image, {1, 2}),
      layout("aten::transpose.int", "rows_19", {7, 19}, {0, 1}),
      layout("aten::transpose_copy.int", "dims_0_last", image, {0, -1}),
  };
}

// ---- fused chains: what the lowering folds into one oneDNN primitive ----

Node* conv3x3(CaseBuilder& c, Node* x, int64_t in, int64_t out, int64_t groups = 1) {
  return c.call("aten::convolution", {x, c.weight({out, in / groups, 3, 3}), c.weight({out}), ints({1, 1}), ints({1, 1}),
                                      ints({1, 1}), false, ints({0, 0}), groups});
}

ConformanceCase fused(const std::string& op, const std::string& name, std::function<Node*(CaseBuilder&)> body) {
  return {op, name, [body] {
            CaseBuilder c;
            Node* y = body(c);
            return std::move(c).finish(y);
          }};
}

Cases fusion_cases() {
  const std::string conv = "aten::convolution.default";
  return {
      fused(conv, "fused_batch_norm_relu", [](CaseBuilder& c) {
        Node* y = conv3x3(c, c.input({2, 3, 7, 5}), 3, 19);
        Node* bn = c.call("aten::_native_batch_norm_legit_no_training",
                          {y, c.weight({19}), c.weight({19}), c.weight({19}), c.weight({19}, Values::kPositive), 0.1, 1e-5});
        return c.call("aten::relu", {c.getitem(bn, 0)});
      }),
      fused(conv, "fused_residual_add_relu", [](CaseBuilder& c) {
        Node* x = c.input({1, 5, 7, 5});
        return c.call("aten::relu", {c.call("aten::add.Tensor", {conv3x3(c, x, 5, 5), x})});
      }),
      fused(conv, "depthwise_fused_relu6", [](CaseBuilder& c) {
        return c.call("aten::hardtanh", {conv3x3(c, c.input({2, 19, 7, 5}), 19, 19, 19), 0.0, 6.0});
      }),
      fused(conv, "fused_per_channel_scale_silu", [](CaseBuilder& c) {
        Node* y = c.call("aten::mul.Tensor", {conv3x3(c, c.input({1, 3, 7, 5}), 3, 4), c.input({4, 1, 1})});
        return c.call("aten::silu", {y});
      }),
      fused("aten::linear.default", "fused_gelu", [](CaseBuilder& c) {
        Node* y = c.call("aten::linear", {c.input({2, 7, 19}), c.weight({33, 19}), c.weight({33})});
        return c.call("aten::gelu", {y});
      }),
      // One row: Kiln's matrix-vector product with the activation after it
      // where the CPU has AVX-512; a gelu it does not have stays on oneDNN.
      fused("aten::linear.default", "one_row_fused_hardswish", [](CaseBuilder& c) {
        Node* y = c.call("aten::linear", {c.input({1, 45}), c.weight({70, 45}), c.weight({70})});
        return c.call("aten::hardswish", {y});
      }),
      fused("aten::linear.default", "one_row_fused_relu", [](CaseBuilder& c) {
        return c.call("aten::relu", {c.call("aten::linear", {c.input({1, 45}), c.weight({129, 45}), c.weight({129})})});
      }),
      // An LSTM's step: the hidden state's product plus the input's part.
      fused("aten::linear.default", "one_row_plus_a_row", [](CaseBuilder& c) {
        return c.call("aten::add.Tensor", {c.call("aten::linear", {c.input({1, 45}), c.weight({129, 45}), c.weight({129})}),
                                           c.input({1, 129})});
      }),
      fused("aten::linear.default", "one_row_fused_gelu", [](CaseBuilder& c) {
        return c.call("aten::gelu", {c.call("aten::linear", {c.input({1, 45}), c.weight({70, 45}), c.weight({70})})});
      }),
      // More post-ops than one primitive carries (kMaxPostOps): split.
      fused(conv, "post_op_chain_longer_than_the_limit", [](CaseBuilder& c) {
        Node* x = c.input({1, 3, 7, 5});
        Node* y = conv3x3(c, x, 3, 3);
        for (int i = 0; i < 16; ++i) {
          if (i % 2 == 0) {
            y = c.call("aten::mul.Scalar", {y, 0.9 + 0.02 * i});
          } else {
            y = i % 4 == 1 ? c.call("aten::tanh", {y}) : c.call("aten::add.Tensor", {y, x});
          }
        }
        return c.call("aten::relu", {y});
      }),
      // Activations core ATen spells out in several nodes (fusion/activation.cpp).
      fused("aten::mul.Tensor", "swish_as_decomposed_after_a_conv", [](CaseBuilder& c) {
        Node* y = conv3x3(c, c.input({1, 3, 7, 5}), 3, 19);
        return c.call("aten::mul.Tensor", {y, c.call("aten::sigmoid", {y})});
      }),
      fused("aten::mul.Tensor", "swish_sigmoid_first_on_an_input", [](CaseBuilder& c) {
        Node* x = c.input({2, 19, 7, 5});
        return c.call("aten::mul.Tensor", {c.call("aten::sigmoid", {x}), x});
      }),
      fused("aten::mul.Tensor", "hardswish_as_decomposed_after_a_conv", [](CaseBuilder& c) {
        Node* y = conv3x3(c, c.input({1, 3, 7, 5}), 3, 19);
        Node* six = c.call("aten::clamp", {c.call("aten::clamp", {c.call("aten::add.Tensor", {y, 3}), 0}), None{}, 6});
        return c.call("aten::div.Tensor", {c.call("aten::mul.Tensor", {y, six}), 6});
      }),
      fused("aten::mul.Tensor", "x_times_relu6_of_x_on_an_input", [](CaseBuilder& c) {
        Node* x = c.input({2, 3, 7, 5});
        return c.call("aten::mul.Tensor", {c.call("aten::hardtanh", {x, 0.0, 6.0}), x});
      }),
      fused("aten::mul.Tensor", "hardsigmoid_chain_read_twice_is_no_hardswish", [](CaseBuilder& c) {
        Node* y = conv3x3(c, c.input({1, 3, 7, 5}), 3, 4);
        Node* gate = c.call("aten::div.Tensor", {c.call("aten::clamp", {c.call("aten::add.Tensor", {y, 3}), 0, 6}), 6});
        return c.call("aten::add.Tensor", {c.call("aten::mul.Tensor", {y, gate}), gate});
      }),
      // torch's _safe_softmax as scaled_dot_product_attention decomposes it,
      // the mask with a row of -inf only (fusion/softmax.h): that row is 0.
      fused("aten::_softmax.default", "safe_softmax_of_masked_scores", [](CaseBuilder& c) {
        Node* scores = c.call("aten::bmm", {c.input({2, 5, 8}), c.call("aten::transpose.int", {c.input({2, 7, 8}), 1, 2})});
        HostTensor mask = HostTensor::zeros(aot::ScalarType::Float, {5, 7});
        for (int64_t j = 0; j < 7; ++j) mask.data<float>()[2 * 7 + j] = -INFINITY;  // row 2: every key masked
        for (int64_t i = 0; i < 5; ++i) mask.data<float>()[i * 7 + 6] = -INFINITY;  // the last key: masked everywhere
        Node* s = c.call("aten::add.Tensor", {scores, c.constant("mask", mask)});
        Node* y = c.call("aten::_softmax", {s, -1, false});
        Node* rows = c.call("aten::logical_not",
                            {c.call("aten::any.dim", {c.call("aten::logical_not", {c.call("aten::eq.Scalar", {s, -INFINITY})}), -1, true})});
        Node* out = c.call("aten::where.self", {rows, c.call("aten::full_like", {y, 0}), y});
        return c.call("aten::bmm", {out, c.input({2, 7, 8})});
      }),
      fused("aten::addmm.default", "fused_sigmoid", [](CaseBuilder& c) {
        return c.call("aten::sigmoid", {c.call("aten::addmm", {c.weight({17}), c.input({3, 5}), c.input({5, 17})})});
      }),
      fused("aten::bmm.default", "attention_scores_softmax", [](CaseBuilder& c) {
        Node* scores = c.call("aten::bmm", {c.input({2, 7, 16}), c.call("aten::transpose.int", {c.input({2, 7, 16}), 1, 2})});
        Node* scaled = c.call("aten::mul.Scalar", {scores, 0.25});
        return c.call("aten::bmm", {c.call("aten::_softmax", {scaled, -1, false}), c.input({2, 7, 16})});
      }),
  };
}

// ---- quantized (PT2E's quantize and dequantize ops around float ops) ----

// The int8 grid of the cases' activations: [-128, 127].
constexpr int64_t kQuantMin = -128, kQuantMax = 127;

// x on an int8 grid: dequantize(quantize(x)) of one scale and zero point.
Node* on_grid(CaseBuilder& c, Node* x, double scale, int64_t zero_point) {
  const auto int8 = aot::ScalarType::Char;
  Node* q = c.call("quantized_decomposed::quantize_per_tensor", {x, scale, zero_point, kQuantMin, kQuantMax, int8});
  return c.call("quantized_decomposed::dequantize_per_tensor", {q, scale, zero_point, kQuantMin, kQuantMax, int8});
}

// A weight of int8 values in [-127, 127] dequantized per output channel
// (axis 0), scales about 2 / 127 so that it spans [-2, 2] like the float cases.
Node* int8_weight(CaseBuilder& c, const std::vector<int64_t>& sizes, uint32_t seed) {
  HostTensor values = HostTensor::zeros(aot::ScalarType::Char, sizes);
  const HostTensor noise = random_tensor(sizes, seed, Values::kSigned);
  for (int64_t i = 0; i < values.numel(); ++i) {
    values.data<int8_t>()[i] = static_cast<int8_t>(std::lround(noise.data<float>()[i] * 63.5f));
  }
  HostTensor scales = HostTensor::zeros(aot::ScalarType::Float, {sizes[0]});
  HostTensor zero_points = HostTensor::zeros(aot::ScalarType::Long, {sizes[0]});
  for (int64_t o = 0; o < sizes[0]; ++o) scales.data<float>()[o] = 0.0157f * (1.0f + 0.05f * static_cast<float>(o % 7));
  const std::string id = std::to_string(seed);
  return c.call("quantized_decomposed::dequantize_per_channel",
                {c.constant("wq" + id, values), c.constant("ws" + id, scales), c.constant("wz" + id, zero_points), 0, -127,
                 127, aot::ScalarType::Char});
}

// x quantized dynamically, as PT2E writes it: choose_qparams, quantize and
// dequantize_per_tensor.tensor.
Node* dynamic(CaseBuilder& c, Node* x) {
  const auto int8 = aot::ScalarType::Char;
  Node* qparams = c.call("quantized_decomposed::choose_qparams.tensor", {x, kQuantMin, kQuantMax, 1.0 / 4096, int8});
  Node* scale = c.getitem(qparams, 0);
  Node* zero_point = c.getitem(qparams, 1);
  Node* q = c.call("quantized_decomposed::quantize_per_tensor.tensor", {x, scale, zero_point, kQuantMin, kQuantMax, int8});
  return c.call("quantized_decomposed::dequantize_per_tensor.tensor", {q, scale, zero_point, kQuantMin, kQuantMax, int8});
}

// One quantum of the result's grid (and a float32 rounding of the values it
// is computed from): oneDNN sums a convolution in another order than the
// portable kernels, which may move a value across a rounding boundary.
aot::testing::Tolerance one_quantum(double scale) { return {scale * 1.001 + 1e-5, 0}; }

ConformanceCase quantized(const std::string& op, const std::string& name, double result_scale,
                          std::function<Node*(CaseBuilder&)> body) {
  ConformanceCase c = fused(op, name, std::move(body));
  c.tolerance = one_quantum(result_scale);
  return c;
}

Cases quantized_cases() {
  const std::string quantize = "quantized_decomposed::quantize_per_tensor.default";
  const std::string dequantize = "quantized_decomposed::dequantize_per_tensor.default";
  const std::string per_channel = "quantized_decomposed::dequantize_per_channel.default";
  const double in_scale = 2.0 / 127, out_scale = 0.05;
  return {
      quantized(quantize, "grid_of_an_input_zero_point_3", 0.03, [](CaseBuilder& c) { return on_grid(c, c.input({2, 3, 7, 5}), 0.03, 3); }),
      quantized(dequantize, "grid_read_twice", 0.02, [](CaseBuilder& c) {
        Node* x = c.input({2, 19, 7, 5});
        const auto int8 = aot::ScalarType::Char;
        Node* q = c.call("quantized_decomposed::quantize_per_tensor", {x, 0.02, -4, kQuantMin, kQuantMax, int8});
        Node* a = c.call("quantized_decomposed::dequantize_per_tensor", {q, 0.02, -4, kQuantMin, kQuantMax, int8});
        Node* b = c.call("quantized_decomposed::dequantize_per_tensor", {q, 0.02, -4, kQuantMin, kQuantMax, int8});
        return c.call("aten::add.Tensor", {c.call("aten::relu", {a}), b});
      }),
      quantized(per_channel, "conv_relu_requantized", out_scale, [=](CaseBuilder& c) {
        Node* x = on_grid(c, c.input({2, 3, 7, 5}), in_scale, 0);
        Node* y = c.call("aten::convolution", {x, int8_weight(c, {8, 3, 3, 3}, 101), c.weight({8}), ints({1, 1}), ints({1, 1}),
                                               ints({1, 1}), false, ints({0, 0}), 1});
        return on_grid(c, c.call("aten::relu", {y}), out_scale, -128);
      }),
      quantized(per_channel, "depthwise_relu6_requantized_stride2", out_scale, [=](CaseBuilder& c) {
        Node* x = on_grid(c, c.input({1, 19, 7, 5}), in_scale, 2);
        Node* y = c.call("aten::convolution", {x, int8_weight(c, {19, 1, 3, 3}, 102), c.weight({19}), ints({2, 2}),
                                               ints({1, 1}), ints({1, 1}), false, ints({0, 0}), 19});
        return on_grid(c, c.call("aten::hardtanh", {y, 0.0, 6.0}), out_scale, -128);
      }),
      quantized(per_channel, "depthwise_5x5_hardswish_requantized", out_scale, [=](CaseBuilder& c) {
        Node* x = on_grid(c, c.input({1, 40, 9, 7}), in_scale, 3);
        Node* y = c.call("aten::convolution", {x, int8_weight(c, {40, 1, 5, 5}, 112), c.weight({40}), ints({1, 1}),
                                               ints({2, 2}), ints({1, 1}), false, ints({0, 0}), 40});
        return on_grid(c, c.call("aten::hardswish", {y}), out_scale, -100);
      }),
      // MobileNetV3's depthwise layers as PT2E leaves them: the result on a
      // grid of its own, then the hardswish, then the output's grid.
      quantized(per_channel, "depthwise_grid_then_hardswish", out_scale, [=](CaseBuilder& c) {
        Node* x = on_grid(c, c.input({1, 24, 7, 9}), in_scale, 5);
        Node* y = c.call("aten::convolution", {x, int8_weight(c, {24, 1, 3, 3}, 116), c.weight({24}), ints({2, 2}),
                                               ints({1, 1}), ints({1, 1}), false, ints({0, 0}), 24});
        Node* z = on_grid(c, y, out_scale * 2, 12);
        return on_grid(c, c.call("aten::hardswish", {z}), out_scale, -90);
      }),
      // EfficientNet's: the result on a grid of its own, then the silu.
      quantized(per_channel, "depthwise_grid_then_silu", out_scale, [=](CaseBuilder& c) {
        Node* x = on_grid(c, c.input({1, 48, 9, 8}), in_scale, -2);
        Node* y = c.call("aten::convolution", {x, int8_weight(c, {48, 1, 5, 5}, 117), c.weight({48}), ints({1, 1}),
                                               ints({2, 2}), ints({1, 1}), false, ints({0, 0}), 48});
        Node* z = on_grid(c, y, out_scale * 2, -5);
        return on_grid(c, c.call("aten::silu", {z}), out_scale, -110);
      }),
      quantized(per_channel, "depthwise_32_channels_requantized", out_scale, [=](CaseBuilder& c) {
        Node* x = on_grid(c, c.input({1, 32, 6, 9}), in_scale, -7);
        Node* y = c.call("aten::convolution", {x, int8_weight(c, {32, 1, 3, 3}, 113), c.weight({32}), ints({1, 1}),
                                               ints({1, 1}), ints({1, 1}), false, ints({0, 0}), 32});
        return on_grid(c, y, out_scale, 10);
      }),
      quantized(per_channel, "pointwise_requantized_zero_point_5", out_scale, [=](CaseBuilder& c) {
        Node* x = on_grid(c, c.input({2, 19, 7, 5}), in_scale, 0);
        Node* y = c.call("aten::convolution", {x, int8_weight(c, {17, 19, 1, 1}, 103), c.weight({17}), ints({1, 1}),
                                               ints({0, 0}), ints({1, 1}), false, ints({0, 0}), 1});
        return on_grid(c, y, out_scale * 4, 5);
      }),
      quantized(per_channel, "linear_requantized", out_scale, [=](CaseBuilder& c) {
        Node* x = on_grid(c, c.input({3, 19}), in_scale, 0);
        Node* y = c.call("aten::linear", {x, int8_weight(c, {17, 19}, 104), c.weight({17})});
        return on_grid(c, y, out_scale * 4, -3);
      }),
      // Dynamic quantization (a transformer's linears as PT2E quantizes
      // them): the scale and zero point from the activation's range at run
      // time; an int8 matmul, or a float op on the dequantized values.
      quantized("quantized_decomposed::choose_qparams.tensor", "dynamic_linear", 1e-4, [=](CaseBuilder& c) {
        return c.call("aten::linear", {dynamic(c, c.input({3, 19})), int8_weight(c, {17, 19}, 109), c.weight({17})});
      }),
      quantized("quantized_decomposed::choose_qparams.tensor", "dynamic_linear_3d_no_bias", 1e-4, [=](CaseBuilder& c) {
        return c.call("aten::linear", {dynamic(c, c.input({2, 5, 19})), int8_weight(c, {17, 19}, 110), None{}});
      }),
      quantized("quantized_decomposed::quantize_per_tensor.tensor", "dynamic_linear_relu", 1e-4, [=](CaseBuilder& c) {
        Node* y = c.call("aten::linear", {dynamic(c, c.input({4, 33})), int8_weight(c, {9, 33}, 111), c.weight({9})});
        return c.call("aten::relu", {y});
      }),
      quantized("quantized_decomposed::dequantize_per_tensor.tensor", "dynamic_values_read_by_a_float_op", 1e-4,
                [=](CaseBuilder& c) {
                  Node* x = dynamic(c, c.input({3, 19}));
                  return c.call("aten::add.Tensor", {c.call("aten::linear", {x, int8_weight(c, {19, 19}, 112), None{}}), x});
                }),
      // MobileNet as PT2E quantizes it: the relu6 between two grids of the
      // same parameters (fusion/quantize.cpp folds it into the convolution).
      quantized(dequantize, "relu6_between_two_grids", out_scale, [=](CaseBuilder& c) {
        Node* x = on_grid(c, c.input({1, 19, 7, 5}), in_scale, 0);
        Node* y = c.call("aten::convolution", {x, int8_weight(c, {19, 1, 3, 3}, 108), c.weight({19}), ints({1, 1}),
                                               ints({1, 1}), ints({1, 1}), false, ints({0, 0}), 19});
        Node* six = c.call("aten::hardtanh", {on_grid(c, y, out_scale, -20), 0.0, 6.0});
        return on_grid(c, six, out_scale, -20);
      }),
      // EfficientNet's silu as PT2E leaves it, float32 between two grids,
      // spelled out as core ATen decomposes it: the convolution's post-ops
      // (its grid, the swish, the second grid).
      quantized(dequantize, "decomposed_silu_between_two_grids", out_scale, [=](CaseBuilder& c) {
        Node* x = on_grid(c, c.input({1, 19, 7, 5}), in_scale, 0);
        Node* y = c.call("aten::convolution", {x, int8_weight(c, {19, 19, 1, 1}, 115), c.weight({19}), ints({1, 1}),
                                               ints({0, 0}), ints({1, 1}), false, ints({0, 0}), 1});
        Node* z = on_grid(c, y, out_scale * 2, -7);
        Node* silu = c.call("aten::mul.Tensor", {z, c.call("aten::sigmoid", {z})});
        return on_grid(c, silu, out_scale, -100);
      }),
      // ShuffleNet's channel shuffle and concat as PT2E quantizes them: layout
      // ops and a concat between grids of the same parameters move int8 values.
      quantized(dequantize, "channel_shuffle_and_concat_on_their_grid", out_scale, [=](CaseBuilder& c) {
        Node* x = c.call("aten::relu", {c.call("aten::convolution", {on_grid(c, c.input({1, 8, 5, 5}), in_scale, 0),
                                                                     int8_weight(c, {8, 8, 1, 1}, 113), c.weight({8}),
                                                                     ints({1, 1}), ints({0, 0}), ints({1, 1}), false,
                                                                     ints({0, 0}), 1})});
        Node* y = on_grid(c, x, out_scale, -128);
        Node* shuffled = c.call("aten::view", {c.call("aten::permute", {c.call("aten::view", {y, ints({1, 2, 4, 5, 5})}),
                                                                         ints({0, 2, 1, 3, 4})}),
                                               ints({1, 8, 5, 5})});
        Node* z = on_grid(c, shuffled, out_scale, -128);
        return on_grid(c, c.call("aten::cat", {ArgumentList{z, y}, 1}), out_scale, -128);
      }),
      // The same shuffle as PT2E writes it for torchvision's ShuffleNetV2:
      // each layout op between two grids of its input's parameters.
      quantized(dequantize, "channel_shuffle_each_op_between_grids", out_scale, [=](CaseBuilder& c) {
        Node* x = c.call("aten::relu", {c.call("aten::convolution", {on_grid(c, c.input({1, 8, 5, 5}), in_scale, 0),
                                                                     int8_weight(c, {8, 8, 1, 1}, 118), c.weight({8}),
                                                                     ints({1, 1}), ints({0, 0}), ints({1, 1}), false,
                                                                     ints({0, 0}), 1})});
        Node* y = on_grid(c, x, out_scale, -128);
        Node* split = on_grid(c, c.call("aten::view", {y, ints({1, 2, 4, 5, 5})}), out_scale, -128);
        Node* swapped = on_grid(c, c.call("aten::permute", {split, ints({0, 2, 1, 3, 4})}), out_scale, -128);
        return on_grid(c, c.call("aten::view", {swapped, ints({1, 8, 5, 5})}), out_scale, -128);
      }),
      // ShuffleNet's channel split as PT2E quantizes it: each half a crop on
      // the grid of the values it takes (slices of one split).
      quantized(dequantize, "split_halves_as_crops_on_their_grid", out_scale, [=](CaseBuilder& c) {
        Node* x = c.call("aten::relu", {c.call("aten::convolution", {on_grid(c, c.input({1, 8, 5, 5}), in_scale, 0),
                                                                     int8_weight(c, {8, 8, 1, 1}, 114), c.weight({8}),
                                                                     ints({1, 1}), ints({0, 0}), ints({1, 1}), false,
                                                                     ints({0, 0}), 1})});
        Node* y = on_grid(c, x, out_scale, -128);
        Node* left = on_grid(c, c.call("aten::slice_copy.Tensor", {y, 1, 0, 4}), out_scale, -128);
        Node* right = on_grid(c, c.call("aten::slice_copy.Tensor", {y, 1, 4, 8}), out_scale, -128);
        return on_grid(c, c.call("aten::cat", {ArgumentList{right, left}, 1}), out_scale, -128);
      }),
      // ShuffleNetV2's shuffle and split as PT2E quantizes torchvision's
      // model: the layout ops between grids of their input's parameters,
      // then a reshape and the chunk's two slices with none, each half onto
      // a grid of its own; here both halves onto one, which the concat keeps.
      quantized(dequantize, "shuffle_and_split_onto_another_grid", out_scale, [=](CaseBuilder& c) {
        Node* x = c.call("aten::relu", {c.call("aten::convolution", {on_grid(c, c.input({1, 8, 5, 5}), in_scale, 0),
                                                                     int8_weight(c, {8, 8, 1, 1}, 126), c.weight({8}),
                                                                     ints({1, 1}), ints({0, 0}), ints({1, 1}), false,
                                                                     ints({0, 0}), 1})});
        Node* y = on_grid(c, x, out_scale, -128);
        Node* split = on_grid(c, c.call("aten::view", {y, ints({1, 2, 4, 5, 5})}), out_scale, -128);
        Node* swapped = on_grid(c, c.call("aten::transpose.int", {split, 1, 2}), out_scale, -128);
        Node* joined = c.call("aten::view", {swapped, ints({1, 8, 5, 5})});
        Node* left = on_grid(c, c.call("aten::slice_copy.Tensor", {joined, 1, 0, 4}), out_scale * 0.9, -120);
        Node* right = on_grid(c, c.call("aten::slice_copy.Tensor", {joined, 1, 4, 8}), out_scale * 0.9, -120);
        return on_grid(c, c.call("aten::cat", {ArgumentList{right, left}, 1}), out_scale * 0.9, -120);
      }),
      // Dynamic quantization leaves the activations float: the int8 weights
      // are stored as they are and dequantized when the method loads.
      quantized(per_channel, "float_source_grouped_int8_weights", 1e-4, [=](CaseBuilder& c) {
        return c.call("aten::convolution", {c.input({1, 6, 7, 5}), int8_weight(c, {9, 2, 3, 3}, 106), c.weight({9}),
                                            ints({1, 1}), ints({1, 1}), ints({1, 1}), false, ints({0, 0}), 3});
      }),
      quantized(per_channel, "float_source_int8_linear", 1e-4, [=](CaseBuilder& c) {
        return c.call("aten::linear", {c.input({2, 5, 19}), int8_weight(c, {17, 19}, 107), c.weight({17})});
      }),
      quantized(dequantize, "max_pool_sharing_its_input_grid", in_scale, [=](CaseBuilder& c) {
        Node* x = on_grid(c, c.input({1, 5, 7, 5}), in_scale, 0);
        Node* pool = c.call("aten::max_pool2d_with_indices", {x, ints({2, 2}), ints({2, 2})});
        return on_grid(c, c.getitem(pool, 0), in_scale, 0);
      }),
      // DenseNet's norm and relu as PT2E quantizes it: between two grids,
      // an int8 depthwise 1x1 convolution of the norm's scale and shift.
      quantized(dequantize, "batch_norm_relu_between_grids", out_scale, [=](CaseBuilder& c) {
        Node* x = on_grid(c, c.input({1, 40, 6, 7}), in_scale, 0);
        return on_grid(c, c.call("aten::relu", {batch_norm(c, x, 40)}), out_scale, -128);
      }),
      quantized(dequantize, "batch_norm_between_grids_of_a_concat", out_scale, [=](CaseBuilder& c) {
        Node* x = on_grid(c, c.input({1, 16, 6, 7}), in_scale, 0);
        auto conv = [&](Node* in, uint32_t seed) {
          return on_grid(c, c.call("aten::convolution", {in, int8_weight(c, {16, 16, 1, 1}, seed), c.weight({16}),
                                                          ints({1, 1}), ints({0, 0}), ints({1, 1}), false, ints({0, 0}), 1}),
                         out_scale * 4, 0);
        };
        Node* joined = on_grid(c, c.call("aten::cat", {ArgumentList{conv(x, 121), conv(x, 122)}, 1}), out_scale * 4, 0);
        Node* y = on_grid(c, c.call("aten::relu", {batch_norm(c, joined, 32)}), out_scale, -128);
        return on_grid(c, c.call("aten::convolution", {y, int8_weight(c, {8, 32, 1, 1}, 123), c.weight({8}), ints({1, 1}),
                                                         ints({0, 0}), ints({1, 1}), false, ints({0, 0}), 1}),
                       out_scale * 4, 0);
      }),
      // A squeeze-excitation as PT2E quantizes it (EfficientNet's): the
      // pool on its input's grid, the gate's convolutions between grids,
      // the gate times the image onto a third; two images, two gates. The
      // image's zero point is even: with an odd one the int8 pool may round
      // a tie one step from PyTorch (capabilities.h, averages_on_its_grid;
      // average_pool_on_its_grid below), which the gate's convolutions
      // carry past one step of the result.
      quantized(dequantize, "squeeze_excitation_between_grids", out_scale, [=](CaseBuilder& c) {
        Node* x = on_grid(c, c.input({2, 40, 6, 7}), in_scale, -28);
        Node* pooled = on_grid(c, c.call("aten::adaptive_avg_pool2d", {x, ints({1, 1})}), in_scale, -28);
        Node* squeezed = c.call("aten::convolution", {pooled, int8_weight(c, {10, 40, 1, 1}, 124), c.weight({10}),
                                                      ints({1, 1}), ints({0, 0}), ints({1, 1}), false, ints({0, 0}), 1});
        Node* hidden = on_grid(c, c.call("aten::silu", {on_grid(c, squeezed, out_scale * 4, 3)}), out_scale * 2, -100);
        Node* expanded = c.call("aten::convolution", {hidden, int8_weight(c, {40, 10, 1, 1}, 125), c.weight({40}),
                                                      ints({1, 1}), ints({0, 0}), ints({1, 1}), false, ints({0, 0}), 1});
        Node* gate = on_grid(c, c.call("aten::sigmoid", {on_grid(c, expanded, out_scale * 4, 7)}), 1.0 / 256, -128);
        return on_grid(c, c.call("aten::mul.Tensor", {gate, x}), out_scale, -30);
      }),
      // An average pool (padding left out) between grids of the same
      // parameters: the int8 values averaged and rounded onto their grid.
      quantized(dequantize, "average_pool_on_its_grid", in_scale, [=](CaseBuilder& c) {
        Node* x = on_grid(c, c.input({1, 24, 9, 8}), in_scale, 11);
        Node* pooled = c.call("aten::avg_pool2d", {x, ints({3, 3}), ints({2, 2}), ints({1, 1}), false, false, None{}});
        return on_grid(c, pooled, in_scale, 11);
      }),
      quantized(dequantize, "residual_add_relu_requantized", out_scale, [=](CaseBuilder& c) {
        Node* x = on_grid(c, c.input({1, 5, 7, 5}), in_scale, 0);
        Node* y = on_grid(c, c.call("aten::convolution", {x, int8_weight(c, {5, 5, 3, 3}, 105), c.weight({5}), ints({1, 1}),
                                                          ints({1, 1}), ints({1, 1}), false, ints({0, 0}), 1}),
                          out_scale * 4, 0);
        return on_grid(c, c.call("aten::relu", {c.call("aten::add.Tensor", {y, x})}), out_scale * 4, -128);
      }),
  };
}

}  // namespace

std::string test_name(const ConformanceCase& c) {
  std::string name = c.op.substr(c.op.find("::") + 2) + "_" + c.name;
  for (char& ch : name) if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

std::vector<ConformanceCase> conformance_cases() {
  std::vector<ConformanceCase> all;
  for (Cases (*family)() : {convolution_cases, matmul_cases, normalization_cases, pooling_cases, reduction_cases,
                            resampling_cases, concat_pad_cases, crop_cases, activation_cases, binary_cases, layout_cases,
                            fusion_cases, quantized_cases}) {
    Cases cases = family();
    all.insert(all.end(), std::make_move_iterator(cases.begin()), std::make_move_iterator(cases.end()));
  }
  return all;
}

}  // namespace kiln::backends::onednn::testing
