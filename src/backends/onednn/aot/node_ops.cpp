// describe_node: a table from op name to a function that checks one node's
// arguments against what oneDNN computes the way PyTorch does, and fills the
// operation's parameters. Every refusal says which argument and why.
#include "backends/onednn/aot/node_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <sstream>

#include "aot/ir/op_table/op_schema.h"
#include "aot/ir/op_table/schema_binding.h"
#include "backends/onednn/aot/node_op_checks.h"

namespace kiln::backends::onednn {

using aot::Argument;
using aot::Node;
using aot::TensorMeta;

namespace {

using Args = std::vector<Argument>;

template <typename T>
NodeOp make_op(T params, std::vector<const Node*> inputs, std::vector<int64_t> sizes) {
  NodeOp op;
  op.op.Set(std::move(params));
  op.inputs = std::move(inputs);
  op.sizes = std::move(sizes);
  return op;
}

// ---- convolution and matmul ----

NodeOp convolution(const Node& node, const Args& args) {
  const TensorMeta& in = tensor_arg(args.at(0), "its input");
  const TensorMeta& weight = tensor_arg(args.at(1), "its weight");
  if (!args.at(2).is_none()) tensor_arg(args[2], "its bias");
  if (in.rank() < 3 || in.rank() > 5) refuse("its input has rank " + std::to_string(in.rank()) + "; oneDNN convolves 1-D, 2-D and 3-D images (rank 3 to 5)");
  if (weight.rank() != in.rank()) refuse("its weight has rank " + std::to_string(weight.rank()) + ", its input " + std::to_string(in.rank()));
  const size_t spatial = in.rank() - 2;
  fb::ConvolutionT conv;
  conv.strides = spatial_list(args.at(3), spatial, "stride", 1);
  conv.padding_l = spatial_list(args.at(4), spatial, "padding", 0);
  conv.padding_r = conv.padding_l;
  conv.dilations = spatial_list(args.at(5), spatial, "dilation", 1);
  conv.transposed = bool_arg(args.at(6), "transposed");
  conv.groups = int_arg(args.at(8), "groups");
  const std::vector<int64_t> in_sizes = in.static_sizes();
  const std::vector<int64_t> w_sizes = weight.static_sizes();
  if (conv.groups < 1 || in_sizes[1] % conv.groups != 0) {
    refuse("groups=" + std::to_string(conv.groups) + " does not divide its " + std::to_string(in_sizes[1]) + " input channels");
  }
  if (conv.transposed) {
    conv.output_padding = spatial_list(args.at(7), spatial, "output_padding", 0);
    for (size_t i = 0; i < spatial; ++i) {
      if (conv.output_padding[i] > conv.padding_l[i]) {
        refuse("output_padding " + list_text(conv.output_padding) + " exceeds padding " + list_text(conv.padding_l) +
               ": oneDNN's right padding would be negative");
      }
    }
  }
  const int64_t out_channels = conv.transposed ? w_sizes[1] * conv.groups : w_sizes[0];
  if (out_channels % conv.groups != 0) refuse("groups=" + std::to_string(conv.groups) + " does not divide its output channels");
  return make_op(std::move(conv), {args[0].node(), args[1].node(), optional_node(args[2])}, result_sizes(node));
}

// A bias broadcast to a [M, N] (or batched) result, as oneDNN's matmul takes it.
void check_bias(const Argument& bias, const std::vector<int64_t>& result) {
  const std::vector<int64_t> sizes = tensor_arg(bias, "its bias").static_sizes();
  if (sizes.size() > result.size()) refuse("its bias " + list_text(sizes) + " has more dimensions than the result");
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t target = result[result.size() - sizes.size() + i];
    if (sizes[i] != 1 && sizes[i] != target) refuse("its bias " + list_text(sizes) + " does not broadcast to " + list_text(result));
  }
}

NodeOp matmul(const Node& node, const Args& args, const Argument& a, const Argument& b, const Argument* bias,
              size_t rank, bool transpose_b) {
  const TensorMeta& am = tensor_arg(a, "its first matrix");
  const TensorMeta& bm = tensor_arg(b, "its second matrix");
  if (rank != 0 && (am.rank() != rank || bm.rank() != rank)) {
    refuse("its matrices have ranks " + std::to_string(am.rank()) + " and " + std::to_string(bm.rank()) + ", not " + std::to_string(rank));
  }
  if (am.rank() < 2 || (bm.rank() != 2 && bm.rank() != am.rank())) refuse("its operands' ranks do not fit a matmul");
  const std::vector<int64_t> sizes = result_sizes(node);
  if (bias != nullptr && !bias->is_none()) check_bias(*bias, sizes);
  (void)args;
  fb::MatMulT params;
  params.transpose_b = transpose_b;
  return make_op(std::move(params), {a.node(), b.node(), bias == nullptr ? nullptr : optional_node(*bias)}, sizes);
}

NodeOp addmm(const Node& node, const Args& args) {
  if (number_arg(args.at(3), "beta") != 1.0 || number_arg(args.at(4), "alpha") != 1.0) {
    refuse("beta=" + aot::to_string(args[3]) + ", alpha=" + aot::to_string(args[4]) + "; oneDNN's matmul adds the bias as is (beta=alpha=1)");
  }
  return matmul(node, args, args.at(1), args.at(2), &args.at(0), 2, false);
}
NodeOp mm(const Node& node, const Args& args) { return matmul(node, args, args.at(0), args.at(1), nullptr, 2, false); }
NodeOp bmm(const Node& node, const Args& args) { return matmul(node, args, args.at(0), args.at(1), nullptr, 3, false); }
NodeOp linear(const Node& node, const Args& args) {
  if (tensor_arg(args.at(1), "its weight").rank() != 2) refuse("its weight is not a matrix");
  return matmul(node, args, args.at(0), args.at(1), &args.at(2), 0, true);
}

// ---- normalization and softmax ----

NodeOp batch_norm(const Node& node, const Args& args) {
  const TensorMeta& in = tensor_arg(args.at(0), "its input");
  if (in.rank() < 2 || in.rank() > 5) refuse("its input has rank " + std::to_string(in.rank()) + "; oneDNN normalizes rank 2 to 5");
  const int64_t channels = in.static_sizes()[1];
  for (auto [index, what] : {std::pair{1, "weight"}, {2, "bias"}, {3, "running_mean"}, {4, "running_var"}}) {
    if (args.at(index).is_none()) {
      if (index >= 3) refuse(std::string("it has no ") + what);
      continue;
    }
    if (tensor_arg(args[index], std::string("its ") + what).static_sizes() != std::vector<int64_t>{channels}) {
      refuse(std::string("its ") + what + " is not one value per channel");
    }
  }
  only_first_result_used(node);
  fb::BatchNormT params;
  params.epsilon = static_cast<float>(number_arg(args.at(6), "eps"));
  NodeOp op = make_op(std::move(params),
                      {args[0].node(), args[3].node(), args[4].node(), optional_node(args[1]), optional_node(args[2])},
                      result_sizes(node));
  op.multi_output = true;
  return op;
}

NodeOp layer_norm(const Node& node, const Args& args) {
  const std::vector<int64_t> in = tensor_arg(args.at(0), "its input").static_sizes();
  const std::vector<int64_t> shape = int_list(args.at(1), "normalized_shape");
  if (shape.empty() || shape.size() > in.size() || !std::equal(shape.begin(), shape.end(), in.end() - static_cast<long>(shape.size()))) {
    refuse("normalized_shape " + list_text(shape) + " is not the input's trailing sizes " + list_text(in));
  }
  for (auto [index, what] : {std::pair{2, "weight"}, {3, "bias"}}) {
    if (!args.at(index).is_none() && tensor_arg(args[index], std::string("its ") + what).static_sizes() != shape) {
      refuse(std::string("its ") + what + " does not have the normalized shape");
    }
  }
  only_first_result_used(node);
  fb::LayerNormT params;
  params.epsilon = static_cast<float>(number_arg(args.at(4), "eps"));
  params.normalized_dims = static_cast<uint32_t>(shape.size());
  NodeOp op = make_op(std::move(params), {args[0].node(), optional_node(args[2]), optional_node(args[3])}, result_sizes(node));
  op.multi_output = true;
  return op;
}

// native_group_norm(x, weight?, bias?, N, C, HxW, group, eps): see
// NodeOp::group_norm. oneDNN 3.2 has no group normalization primitive; a
// layer norm over each group's elements computes the same statistics.
NodeOp group_norm(const Node& node, const Args& args) {
  const std::vector<int64_t> in = tensor_arg(args.at(0), "its input").static_sizes();
  if (in.size() < 2) refuse("its input has rank " + std::to_string(in.size()) + "; group norm needs (N, C, ...)");
  const int64_t groups = int_arg(args.at(6), "group");
  if (groups < 1 || in[1] % groups != 0) refuse("group=" + std::to_string(groups) + " does not divide " + std::to_string(in[1]) + " channels");
  for (auto [index, what] : {std::pair{1, "weight"}, {2, "bias"}}) {
    if (!args.at(index).is_none() && tensor_arg(args[index], std::string("its ") + what).static_sizes() != std::vector<int64_t>{in[1]}) {
      refuse(std::string("its ") + what + " is not one value per channel");
    }
  }
  only_first_result_used(node);
  NodeOp op;
  fb::LayerNormT normalization;
  normalization.epsilon = static_cast<float>(number_arg(args.at(7), "eps"));
  normalization.normalized_dims = 1;
  op.group_norm = normalization;
  op.groups = groups;
  const Node* weight = optional_node(args.at(1));
  const Node* bias = optional_node(args.at(2));
  if (weight != nullptr || bias != nullptr) {
    fb::BinaryOpT affine;
    affine.algorithm = weight != nullptr ? fb::BinaryAlgorithm::Mul : fb::BinaryAlgorithm::Add;
    op.op.Set(std::move(affine));
  } else {
    fb::EltwiseOpT identity;
    identity.eltwise = std::make_unique<fb::EltwiseT>(make_eltwise(fb::EltwiseAlgorithm::Linear, 1));
    op.op.Set(std::move(identity));
  }
  op.inputs = {args[0].node(), weight, bias};
  op.sizes = result_sizes(node);
  op.multi_output = true;
  return op;
}

NodeOp softmax(const Node& node, const Args& args, bool log) {
  const TensorMeta& in = tensor_arg(args.at(0), "its input");
  if (bool_arg(args.at(2), "half_to_float")) refuse("half_to_float=True; OneDnnBackend computes float32 only");
  fb::SoftmaxT params;
  params.axis = static_cast<int32_t>(normalize_dim(int_arg(args.at(1), "dim"), in.rank()));
  params.log = log;
  return make_op(std::move(params), {args[0].node()}, result_sizes(node));
}
NodeOp softmax(const Node& node, const Args& args) { return softmax(node, args, false); }
NodeOp log_softmax(const Node& node, const Args& args) { return softmax(node, args, true); }

// ---- pooling, reduction, resampling ----

// oneDNN's right padding for a window sliding over `in` to `out` positions:
// PyTorch's padding, plus what ceil_mode adds.
int64_t padding_right(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad) {
  const int64_t needed = (out - 1) * stride + (kernel - 1) * dilation + 1 - in - pad;
  return std::max(pad, needed);
}

fb::PoolingT pooling(const Node& node, const Args& args, bool has_dilation, fb::PoolingAlgorithm algorithm) {
  const TensorMeta& in = tensor_arg(args.at(0), "its input");
  if (in.rank() != 4) refuse("its input has rank " + std::to_string(in.rank()) + "; OneDnnBackend pools batched images (rank 4)");
  fb::PoolingT p;
  p.algorithm = algorithm;
  p.kernel = spatial_list(args.at(1), 2, "kernel_size", 1);
  p.strides = int_list(args.at(2), "stride").empty() ? p.kernel : spatial_list(args.at(2), 2, "stride", 1);
  p.padding_l = spatial_list(args.at(3), 2, "padding", 0);
  p.dilations = has_dilation ? spatial_list(args.at(4), 2, "dilation", 1) : std::vector<int64_t>{1, 1};
  const std::vector<int64_t> in_sizes = in.static_sizes();
  const std::vector<int64_t> out_sizes = result_sizes(node);
  for (size_t i = 0; i < 2; ++i) {
    if (2 * p.padding_l[i] > p.kernel[i]) refuse("padding " + list_text(p.padding_l) + " exceeds half the kernel " + list_text(p.kernel));
    p.padding_r.push_back(padding_right(in_sizes[2 + i], out_sizes[2 + i], p.kernel[i], p.strides[i], p.dilations[i], p.padding_l[i]));
  }
  return p;
}

NodeOp max_pool(const Node& node, const Args& args) {
  fb::PoolingT p = pooling(node, args, true, fb::PoolingAlgorithm::Max);
  only_first_result_used(node);
  NodeOp op = make_op(std::move(p), {args[0].node()}, result_sizes(node));
  op.multi_output = true;
  return op;
}

NodeOp avg_pool(const Node& node, const Args& args) {
  if (!args.at(6).is_none()) refuse("divisor_override=" + aot::to_string(args[6]) + "; oneDNN divides by the window size");
  const bool include_pad = bool_arg(args.at(5), "count_include_pad");
  fb::PoolingT p = pooling(node, args, false, include_pad ? fb::PoolingAlgorithm::AvgIncludePadding
                                                          : fb::PoolingAlgorithm::AvgExcludePadding);
  if (include_pad && p.padding_r != p.padding_l) {
    refuse("ceil_mode with count_include_pad: PyTorch does not count the windows' part past the padding, oneDNN would");
  }
  return make_op(std::move(p), {args[0].node()}, result_sizes(node));
}

NodeOp adaptive_avg_pool(const Node& node, const Args& args) {
  const TensorMeta& in = tensor_arg(args.at(0), "its input");
  if (in.rank() != 4) refuse("its input has rank " + std::to_string(in.rank()) + "; OneDnnBackend pools batched images (rank 4)");
  const std::vector<int64_t> in_sizes = in.static_sizes();
  const std::vector<int64_t> out = result_sizes(node);
  fb::PoolingT p;
  p.algorithm = fb::PoolingAlgorithm::AvgExcludePadding;
  for (size_t i = 2; i < 4; ++i) {
    if (in_sizes[i] % out[i] != 0) {
      refuse("output size " + list_text({out[2], out[3]}) + " does not divide input size " + list_text({in_sizes[2], in_sizes[3]}) +
             ": the windows would overlap unevenly");
    }
    p.kernel.push_back(in_sizes[i] / out[i]);
  }
  p.strides = p.kernel;
  p.padding_l = p.padding_r = {0, 0};
  p.dilations = {1, 1};
  return make_op(std::move(p), {args[0].node()}, out);
}

// Reduced dimensions that are exactly the spatial ones of a rank 3-5 tensor
// (N, C, spatial...): what pooling computes with one window.
bool is_global_pooling(const std::vector<bool>& reduced) {
  if (reduced.size() < 3 || reduced.size() > 5 || reduced[0] || reduced[1]) return false;
  return std::all_of(reduced.begin() + 2, reduced.end(), [](bool r) { return r; });
}

NodeOp reduction(const Node& node, const Args& args, fb::ReductionAlgorithm algorithm) {
  const std::vector<int64_t> in = tensor_arg(args.at(0), "its input").static_sizes();
  if (!args.at(3).is_none()) refuse("dtype=" + aot::to_string(args[3]) + "; OneDnnBackend reduces float32 to float32");
  std::vector<int64_t> dims = args.at(1).is_none() ? std::vector<int64_t>{} : int_list(args[1], "dim");
  if (dims.empty()) {
    dims.resize(in.size());
    std::iota(dims.begin(), dims.end(), 0);
  }
  std::vector<int64_t> kept = in;
  std::vector<bool> reduced(in.size(), false);
  for (int64_t dim : dims) {
    const auto d = static_cast<size_t>(normalize_dim(dim, in.size()));
    kept[d] = 1;
    reduced[d] = true;
  }
  if (algorithm == fb::ReductionAlgorithm::Mean && is_global_pooling(reduced)) {
    // The mean over every spatial dimension of a batched image (a global
    // average pool, squeeze-excite's mean): oneDNN's pooling reads the
    // channels-last and blocked layouts convolutions write; its reduction
    // wants them reordered to plain first, which cost more than the mean.
    fb::PoolingT p;
    p.algorithm = fb::PoolingAlgorithm::AvgExcludePadding;
    p.kernel.assign(in.begin() + 2, in.end());
    p.strides = p.kernel;
    p.padding_l.assign(in.size() - 2, 0);
    p.padding_r = p.padding_l;
    p.dilations.assign(in.size() - 2, 1);
    NodeOp op = make_op(std::move(p), {args[0].node()}, result_sizes(node));
    if (op.sizes != kept) op.keepdim_sizes = kept;
    return op;
  }
  fb::ReductionT params;
  params.algorithm = algorithm;
  NodeOp op = make_op(std::move(params), {args[0].node()}, result_sizes(node));
  if (op.sizes != kept) op.keepdim_sizes = kept;
  return op;
}
NodeOp mean(const Node& node, const Args& args) { return reduction(node, args, fb::ReductionAlgorithm::Mean); }
NodeOp sum(const Node& node, const Args& args) { return reduction(node, args, fb::ReductionAlgorithm::Sum); }

// upsample_*2d(.vec): output sizes from the meta; a scale given must be the
// ratio of the sizes, as oneDNN computes with it.
NodeOp upsample(const Node& node, const Args& args, fb::ResamplingAlgorithm algorithm, const Argument* align_corners,
                const std::vector<const Argument*>& scales) {
  const TensorMeta& in = tensor_arg(args.at(0), "its input");
  if (in.rank() != 4) refuse("its input has rank " + std::to_string(in.rank()) + "; OneDnnBackend resamples batched images (rank 4)");
  if (align_corners != nullptr && bool_arg(*align_corners, "align_corners")) refuse("align_corners=True; oneDNN resamples with half-pixel centers only");
  const std::vector<int64_t> in_sizes = in.static_sizes();
  const std::vector<int64_t> out = result_sizes(node);
  std::vector<double> given;
  for (const Argument* scale : scales) {
    if (scale->is_list()) {
      for (const Argument& s : scale->list()) given.push_back(number_arg(s, "scale_factors"));
    } else if (!scale->is_none()) {
      given.push_back(number_arg(*scale, "scale"));
    }
  }
  for (size_t i = 0; i < 2; ++i) {
    if (i < given.size() && static_cast<double>(in_sizes[2 + i]) * given[i] != static_cast<double>(out[2 + i])) {
      refuse("scale " + aot::to_string(aot::Argument(given[i])) + " is not output/input size: PyTorch samples with the given scale, oneDNN with the ratio");
    }
    if (algorithm == fb::ResamplingAlgorithm::Nearest && out[2 + i] % in_sizes[2 + i] != 0) {
      refuse("nearest resampling from " + list_text(in_sizes) + " to " + list_text(out) +
             " is not by a whole factor; oneDNN rounds source positions differently from PyTorch there");
    }
  }
  fb::ResamplingT params;
  params.algorithm = algorithm;
  return make_op(std::move(params), {args[0].node()}, out);
}
NodeOp upsample_nearest_vec(const Node& node, const Args& args) {
  return upsample(node, args, fb::ResamplingAlgorithm::Nearest, nullptr, {&args.at(2)});
}
NodeOp upsample_bilinear_vec(const Node& node, const Args& args) {
  return upsample(node, args, fb::ResamplingAlgorithm::Linear, &args.at(2), {&args.at(3)});
}
NodeOp upsample_nearest(const Node& node, const Args& args) {
  return upsample(node, args, fb::ResamplingAlgorithm::Nearest, nullptr, {&args.at(2), &args.at(3)});
}
NodeOp upsample_bilinear(const Node& node, const Args& args) {
  return upsample(node, args, fb::ResamplingAlgorithm::Linear, &args.at(2), {&args.at(3), &args.at(4)});
}

// ---- concat and pad ----

NodeOp cat(const Node& node, const Args& args) {
  if (!args.at(0).is_list() || args[0].list().empty()) refuse("it concatenates no tensors");
  const std::vector<int64_t> out = result_sizes(node);
  std::vector<const Node*> inputs;
  for (const Argument& tensor : args[0].list()) {
    if (tensor_arg(tensor, "a concatenated tensor").rank() != out.size()) refuse("its tensors differ in rank");
    inputs.push_back(tensor.node());
  }
  fb::ConcatT params;
  params.axis = static_cast<int32_t>(normalize_dim(int_arg(args.at(1), "dim"), out.size()));
  return make_op(std::move(params), std::move(inputs), out);
}

NodeOp constant_pad(const Node& node, const Args& args) {
  const size_t rank = tensor_arg(args.at(0), "its input").rank();
  const std::vector<int64_t> pad = int_list(args.at(1), "pad");
  if (pad.size() % 2 != 0 || pad.size() > 2 * rank) refuse("pad " + list_text(pad) + " is not before/after pairs for at most every dimension");
  fb::PadT params;
  params.before.assign(rank, 0);
  params.after.assign(rank, 0);
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    if (pad[2 * i] < 0 || pad[2 * i + 1] < 0) refuse("pad " + list_text(pad) + " crops (negative padding)");
    params.before[rank - 1 - i] = pad[2 * i];
    params.after[rank - 1 - i] = pad[2 * i + 1];
  }
  params.value = static_cast<float>(number_arg(args.at(2), "value"));
  return make_op(std::move(params), {args[0].node()}, result_sizes(node));
}

// slice (step 1) and select as a crop: a Pad with negative padding on one
// dimension. select writes the picked index as a dimension of 1, which a
// reshape then drops.
NodeOp crop(const Node& node, const Args& args, int64_t dim, int64_t start, int64_t end) {
  const std::vector<int64_t> in = tensor_arg(args.at(0), "its input").static_sizes();
  fb::PadT params;
  params.before.assign(in.size(), 0);
  params.after.assign(in.size(), 0);
  params.before[static_cast<size_t>(dim)] = -start;
  params.after[static_cast<size_t>(dim)] = end - in[static_cast<size_t>(dim)];
  std::vector<int64_t> cropped = in;
  cropped[static_cast<size_t>(dim)] = end - start;
  NodeOp op = make_op(std::move(params), {args[0].node()}, result_sizes(node));
  if (op.sizes != cropped) op.keepdim_sizes = cropped;
  return op;
}

// PyTorch's slice bounds: None is the whole dimension, a negative bound
// counts from its end, and both are clamped to it.
int64_t slice_bound(const Argument& arg, int64_t none, int64_t size, const std::string& what) {
  int64_t bound = arg.is_none() ? none : int_arg(arg, what);
  if (bound < 0) bound += size;
  return std::clamp<int64_t>(bound, 0, size);
}

NodeOp slice(const Node& node, const Args& args) {
  const std::vector<int64_t> in = tensor_arg(args.at(0), "its input").static_sizes();
  if (in.empty()) refuse("a 0-dimensional input has nothing to slice");
  const int64_t dim = normalize_dim(int_arg(args.at(1), "dim"), in.size());
  const int64_t size = in[static_cast<size_t>(dim)];
  const int64_t step = args.at(4).is_none() ? 1 : int_arg(args.at(4), "step");
  if (step != 1) refuse("step " + std::to_string(step) + "; OneDnnBackend slices with step 1 only");
  const int64_t start = slice_bound(args.at(2), 0, size, "start");
  const int64_t end = std::max(start, slice_bound(args.at(3), size, size, "end"));
  return crop(node, args, dim, start, end);
}

NodeOp select(const Node& node, const Args& args) {
  const std::vector<int64_t> in = tensor_arg(args.at(0), "its input").static_sizes();
  if (in.empty()) refuse("a 0-dimensional input has nothing to select from");
  const int64_t dim = normalize_dim(int_arg(args.at(1), "dim"), in.size());
  const int64_t size = in[static_cast<size_t>(dim)];
  int64_t index = int_arg(args.at(2), "index");
  if (index < -size || index >= size) {
    refuse("index " + std::to_string(index) + " is out of range for dim " + std::to_string(dim) + " of size " +
           std::to_string(size));
  }
  if (index < 0) index += size;
  return crop(node, args, dim, index, index + 1);
}

// ---- the op table ----

const std::map<std::string, NodeDescriber>& describers() {
  static const std::map<std::string, NodeDescriber> table = [] {
    std::map<std::string, NodeDescriber> t = {
        {"aten::convolution.default", convolution},
        {"aten::addmm.default", addmm},
        {"aten::mm.default", mm},
        {"aten::bmm.default", bmm},
        {"aten::linear.default", linear},
        {"aten::_native_batch_norm_legit_no_training.default", batch_norm},
        {"aten::native_layer_norm.default", layer_norm},
        {"aten::native_group_norm.default", group_norm},
        {"aten::_softmax.default", softmax},
        {"aten::_log_softmax.default", log_softmax},
        {"aten::max_pool2d_with_indices.default", max_pool},
        {"aten::avg_pool2d.default", avg_pool},
        {"aten::_adaptive_avg_pool2d.default", adaptive_avg_pool},
        {"aten::adaptive_avg_pool2d.default", adaptive_avg_pool},
        {"aten::mean.dim", mean},
        {"aten::sum.dim_IntList", sum},
        {"aten::upsample_nearest2d.vec", upsample_nearest_vec},
        {"aten::upsample_bilinear2d.vec", upsample_bilinear_vec},
        {"aten::upsample_nearest2d.default", upsample_nearest},
        {"aten::upsample_bilinear2d.default", upsample_bilinear},
        {"aten::cat.default", cat},
        {"aten::constant_pad_nd.default", constant_pad},
        {"aten::slice.Tensor", slice},
        {"aten::slice_copy.Tensor", slice},
        {"aten::select.int", select},
        {"aten::select_copy.int", select},
    };
    for (const auto& [name, describe] : elementwise_describers()) t.emplace(name, describe);
    for (const auto& [name, describe] : layout_describers()) t.emplace(name, describe);
    for (const auto& [name, describe] : quantized_describers()) t.emplace(name, describe);
    return t;
  }();
  return table;
}

}  // namespace

std::string qualified_op(const Node& node) {
  const aot::OpSchema* schema = aot::find_op_schema(node.target());
  return schema == nullptr ? "" : schema->qualified_name();
}

std::vector<std::string> supported_op_names() {
  std::vector<std::string> names;
  for (const auto& entry : describers()) names.push_back(entry.first);
  return names;
}

Supported<NodeOp> describe_node(const Node& node) {
  return supported([&] {
    const auto it = describers().find(qualified_op(node));
    if (it == describers().end()) refuse(node.target() + " is not an op OneDnnBackend has");
    if (!quantized_describers().count(it->first)) check_result(node);
    return it->second(node, aot::bind_node_arguments(node));
  });
}

std::string layout_problem(const Node& input, const std::string& what) {
  const auto* meta = std::get_if<TensorMeta>(&input.meta.val);
  if (!input.is_placeholder() || meta == nullptr) return "";
  const std::vector<uint8_t> order = meta->resolved_dim_order();
  for (size_t d = 0; d < order.size(); ++d) {
    if (order[d] != d) {
      return what + " '" + input.name() + "' is " + meta->to_string() + " in a permuted dim order; OneDnnBackend takes contiguous tensors";
    }
  }
  return "";
}

}  // namespace kiln::backends::onednn
