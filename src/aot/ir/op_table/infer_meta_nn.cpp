// Meta rules of the neural-network ops: convolutions (transposed too), the
// matrix products, softmax, the normalizations with their statistics, pools
// and upsampling, with PyTorch's output-size formulas.
#include <algorithm>
#include <cmath>

#include "aot/ir/op_table/infer_meta_rules.h"

namespace kiln::aot::meta {
namespace {

SymExpr c(int64_t value) { return SymExpr::constant(value); }

struct ConvArgs {
  size_t stride, padding, dilation;
  std::optional<size_t> output_padding;
  bool transposed;
  int64_t groups;
};

ValueMeta convolution(const Call& call, const ConvArgs& a) {
  const TensorMeta& input = call.tensor(0);
  const TensorMeta& weight = call.tensor(1);
  if (input.rank() < 3 || weight.rank() != input.rank()) {
    call.fail("expects input and weight of equal rank >= 3, got " + input.to_string() + " and " + weight.to_string());
  }
  const size_t spatial = input.rank() - 2;
  const auto stride = call.int_list_of(a.stride, spatial);
  const auto padding = call.int_list_of(a.padding, spatial);
  const auto dilation = call.int_list_of(a.dilation, spatial);
  const auto output_padding = a.output_padding ? call.int_list_of(*a.output_padding, spatial) : std::vector<int64_t>(spatial, 0);
  if (a.groups <= 0) call.fail("groups must be positive, got " + std::to_string(a.groups));
  for (size_t d = 0; d < spatial; ++d) {
    if (stride[d] <= 0) call.fail("stride must be positive, got " + to_string(call.arg(a.stride)));
    if (dilation[d] <= 0) call.fail("dilation must be positive, got " + to_string(call.arg(a.dilation)));
    if (padding[d] < 0) call.fail("padding must not be negative, got " + to_string(call.arg(a.padding)));
    if (a.transposed && (output_padding[d] < 0 || (output_padding[d] >= stride[d] && output_padding[d] >= dilation[d]))) {
      call.fail("output_padding must be smaller than stride or dilation, got " + to_string(call.arg(*a.output_padding)));
    }
  }
  if (const TensorMeta* bias = call.optional_tensor(2)) {
    const SymExpr out_channels = a.transposed ? weight.sizes[1] * c(a.groups) : weight.sizes[0];
    if (bias->rank() != 1 || (bias->sizes[0].is_constant() && out_channels.is_constant() && !(bias->sizes[0] == out_channels))) {
      call.fail("bias " + bias->to_string() + " does not match " + out_channels.to_string() + " output channels");
    }
  }
  // Channels: input C = weight[1] * groups (weight[0] for a transposed conv).
  const SymExpr& in_channels = input.sizes[1];
  const SymExpr expected = a.transposed ? weight.sizes[0] : weight.sizes[1] * c(a.groups);
  if (in_channels.is_constant() && expected.is_constant() && !(in_channels == expected)) {
    call.fail("input " + input.to_string() + " has " + in_channels.to_string() + " channels, but weight " +
              weight.to_string() + " with groups=" + std::to_string(a.groups) + " expects " + expected.to_string());
  }
  // weight[0] is the output channels, or the input channels of a transposed conv.
  if (weight.sizes[0].is_constant() && *weight.sizes[0].constant_value() % a.groups != 0) {
    call.fail("weight " + weight.to_string() + " has channels not divisible by groups=" + std::to_string(a.groups));
  }
  TensorMeta out(input.dtype, std::vector<SymExpr>{input.sizes[0]});
  out.sizes.push_back(a.transposed ? weight.sizes[1] * c(a.groups) : weight.sizes[0]);
  for (size_t d = 0; d < spatial; ++d) {
    const SymExpr& in = input.sizes[d + 2];
    const SymExpr effective_k = c(dilation[d]) * (weight.sizes[d + 2] - c(1)) + c(1);
    if (a.transposed) {
      out.sizes.push_back((in - c(1)) * c(stride[d]) - c(2 * padding[d]) + effective_k + c(output_padding[d]));
    } else {
      out.sizes.push_back(SymExpr::floordiv(in + c(2 * padding[d]) - effective_k, c(stride[d])) + c(1));
    }
    if (const auto size = out.sizes.back().constant_value(); size && *size <= 0) {
      call.fail("output size " + std::to_string(*size) + " along spatial dim " + std::to_string(d) +
                " is not positive (input " + input.to_string() + ", weight " + weight.to_string() + ")");
    }
  }
  return out;
}

ValueMeta mm(const Call& call, const TensorMeta& a, const TensorMeta& b, ScalarType dtype) {
  if (a.rank() != 2 || b.rank() != 2) call.fail("expects 2-D matrices, got " + a.to_string() + " and " + b.to_string());
  if (a.sizes[1] != b.sizes[0] && a.sizes[1].is_constant() && b.sizes[0].is_constant()) {
    call.fail("cannot multiply " + a.to_string() + " by " + b.to_string());
  }
  return TensorMeta(dtype, {a.sizes[0], b.sizes[1]});
}

ValueMeta addmm(const Call& call) {
  const TensorMeta& mat1 = call.tensor(1);
  TensorMeta out = std::get<TensorMeta>(mm(call, mat1, call.tensor(2), mat1.dtype));
  const TensorMeta& self = call.tensor(0);
  if (self.rank() > 2 || !(broadcast_shapes(call, {self.sizes, out.sizes}) == out.sizes)) {
    call.fail("self " + self.to_string() + " does not broadcast to " + out.to_string());
  }
  return out;
}

ValueMeta bmm(const Call& call) {
  const TensorMeta& a = call.tensor(0);
  const TensorMeta& b = call.tensor(1);
  if (a.rank() != 3 || b.rank() != 3) call.fail("expects 3-D batches of matrices, got " + a.to_string() + " and " + b.to_string());
  for (auto [x, y] : {std::pair{0, 0}, std::pair{2, 1}}) {
    const SymExpr& p = a.sizes[static_cast<size_t>(x)];
    const SymExpr& q = b.sizes[static_cast<size_t>(y)];
    if (!(p == q) && p.is_constant() && q.is_constant()) call.fail("cannot multiply " + a.to_string() + " by " + b.to_string());
  }
  return TensorMeta(a.dtype, {a.sizes[0], a.sizes[1], b.sizes[2]});
}

// torch.matmul: vectors gain a dim of 1 that the result drops again, and the
// batch dims broadcast.
ValueMeta matmul(const Call& call) {
  const TensorMeta& a = call.tensor(0);
  const TensorMeta& b = call.tensor(1);
  if (a.rank() == 0 || b.rank() == 0) call.fail("both operands need at least one dim, got " + a.to_string() + " and " + b.to_string());
  std::vector<SymExpr> as = a.sizes, bs = b.sizes;
  if (a.rank() == 1) as.insert(as.begin(), c(1));
  if (b.rank() == 1) bs.push_back(c(1));
  const SymExpr& inner_a = as.back();
  const SymExpr& inner_b = bs[bs.size() - 2];
  if (!(inner_a == inner_b) && inner_a.is_constant() && inner_b.is_constant()) {
    call.fail("cannot multiply " + a.to_string() + " by " + b.to_string());
  }
  std::vector<SymExpr> sizes = broadcast_shapes(call, {{as.begin(), as.end() - 2}, {bs.begin(), bs.end() - 2}});
  if (a.rank() > 1) sizes.push_back(as[as.size() - 2]);
  if (b.rank() > 1) sizes.push_back(bs.back());
  return TensorMeta(a.dtype, sizes);
}

ValueMeta softmax(const Call& call, bool half_to_float) {
  const TensorMeta& self = call.tensor(0);
  call.dim(call.integer(1), self.rank());
  ScalarType dtype = self.dtype;
  if (half_to_float) {
    if (self.dtype != ScalarType::Half) call.fail(std::string("half_to_float needs a float16 input, got ") + runtime::to_string(self.dtype));
    dtype = ScalarType::Float;
  }
  if (!runtime::is_floating_type(dtype)) call.fail(std::string("expects a floating-point tensor, got ") + runtime::to_string(dtype));
  return TensorMeta(dtype, self.sizes);
}

ValueMeta native_layer_norm(const Call& call) {
  const TensorMeta& input = call.tensor(0);
  const auto normalized = call.sym_list(1);
  if (normalized.empty() || normalized.size() > input.rank()) {
    call.fail("normalized_shape " + to_string(call.arg(1)) + " does not fit " + input.to_string());
  }
  const size_t first = input.rank() - normalized.size();
  TensorMeta stats(input.dtype, input.sizes);
  for (size_t d = first; d < input.rank(); ++d) {
    if (!(input.sizes[d] == normalized[d - first]) && input.sizes[d].is_constant() && normalized[d - first].is_constant()) {
      call.fail("normalized_shape " + to_string(call.arg(1)) + " does not match the trailing dims of " + input.to_string());
    }
    stats.sizes[d] = c(1);
  }
  return std::vector<TensorMeta>{TensorMeta(input.dtype, input.sizes), stats, stats};
}

ValueMeta native_group_norm(const Call& call) {
  const TensorMeta& input = call.tensor(0);
  const SymExpr n = call.sym_arg(3);
  const SymExpr channels = call.sym_arg(4);
  const int64_t groups = call.integer(6);
  if (input.rank() < 2) call.fail("expects an input of rank >= 2, got " + input.to_string());
  if (groups <= 0) call.fail("group must be positive, got " + std::to_string(groups));
  if (const auto ch = channels.constant_value(); ch && *ch % groups != 0) {
    call.fail(std::to_string(*ch) + " channels do not divide into " + std::to_string(groups) + " groups");
  }
  const TensorMeta stats(input.dtype, {n, c(groups)});
  return std::vector<TensorMeta>{TensorMeta(input.dtype, input.sizes), stats, stats};
}

// (input, weight, bias, mean, var, ...): the eval-mode kernel saves no statistics.
ValueMeta batch_norm_no_training(const Call& call) {
  const TensorMeta& input = call.tensor(0);
  if (input.rank() < 2) call.fail("expects an input of rank >= 2, got " + input.to_string());
  const TensorMeta empty(input.dtype, {c(0)});
  return std::vector<TensorMeta>{TensorMeta(input.dtype, input.sizes), empty, empty};
}

struct PoolArgs {
  size_t kernel, stride, padding;
  std::optional<size_t> dilation, ceil_mode;
};

SymExpr pooled_size(const Call& call, const SymExpr& in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
  if (p * 2 > d * (k - 1) + 1) {
    call.fail("padding " + std::to_string(p) + " must be at most half of the kernel size " + std::to_string(d * (k - 1) + 1));
  }
  const SymExpr span = in + c(2 * p - d * (k - 1) - 1);
  if (!ceil) return SymExpr::floordiv(span, c(s)) + c(1);
  const auto value = in.constant_value();
  if (!value) call.fail("ceil_mode needs static spatial sizes, got " + in.to_string());
  int64_t out = (*value + 2 * p - d * (k - 1) - 1 + (s - 1)) / s + 1;
  if ((out - 1) * s >= *value + p) --out;  // the last window must start inside the input or left padding
  return c(out);
}

// An input of `spatial` pooled dims after one (C) or two (N, C) others.
void check_pool_input(const Call& call, size_t spatial) {
  const TensorMeta& input = call.tensor(0);
  if (input.rank() != spatial + 1 && input.rank() != spatial + 2) {
    call.fail("expects a " + std::to_string(spatial + 1) + "-D or " + std::to_string(spatial + 2) + "-D input, got " +
              input.to_string());
  }
}

// The sizes of a 2-D or 3-D pool over the last `spatial` dims.
std::vector<SymExpr> pool_sizes(const Call& call, const PoolArgs& a, size_t spatial) {
  const TensorMeta& input = call.tensor(0);
  check_pool_input(call, spatial);
  const auto kernel = call.int_list_of(a.kernel, spatial);
  auto stride = call.int_list(a.stride);
  if (stride.empty()) stride = kernel;
  if (stride.size() == 1) stride.assign(spatial, stride[0]);
  if (stride.size() != spatial) {
    call.fail(call.arg_name(a.stride) + " must have 0, 1 or " + std::to_string(spatial) + " entries");
  }
  const auto padding = call.int_list_of(a.padding, spatial);
  const auto dilation = a.dilation ? call.int_list_of(*a.dilation, spatial) : std::vector<int64_t>(spatial, 1);
  const bool ceil = a.ceil_mode && call.boolean(*a.ceil_mode);
  std::vector<SymExpr> sizes = input.sizes;
  for (size_t i = 0; i < spatial; ++i) {
    if (kernel[i] <= 0 || stride[i] <= 0 || dilation[i] <= 0 || padding[i] < 0) {
      call.fail("kernel_size, stride and dilation must be positive and padding not negative");
    }
    SymExpr& size = sizes[input.rank() - spatial + i];
    size = pooled_size(call, size, kernel[i], stride[i], padding[i], dilation[i], ceil);
    if (const auto v = size.constant_value(); v && *v <= 0) call.fail("the pooled size is not positive for " + input.to_string());
  }
  return sizes;
}

ValueMeta adaptive_pool(const Call& call, size_t spatial) {
  const TensorMeta& input = call.tensor(0);
  check_pool_input(call, spatial);
  const auto output = call.sym_list(1);
  if (output.size() != spatial) {
    call.fail("output_size must have " + std::to_string(spatial) + " entries, got " + to_string(call.arg(1)));
  }
  std::vector<SymExpr> sizes = input.sizes;
  std::copy(output.begin(), output.end(), sizes.end() - static_cast<std::ptrdiff_t>(spatial));
  return TensorMeta(input.dtype, sizes);
}


// col2im: (N, C * kh * kw, L) or (C * kh * kw, L) folded into (N, C,
// output_size...) or (C, output_size...).
ValueMeta col2im(const Call& call) {
  const TensorMeta& input = call.tensor(0);
  if (input.rank() != 2 && input.rank() != 3) call.fail("expects a 2-D or 3-D input, got " + input.to_string());
  auto output = call.sym_list(1);
  if (output.size() == 1) output.push_back(output[0]);
  if (output.size() != 2) call.fail("output_size must have 2 entries, got " + to_string(call.arg(1)));
  const auto kernel = call.int_list_of(2, 2);
  if (kernel[0] <= 0 || kernel[1] <= 0) call.fail("kernel_size must be positive, got " + to_string(call.arg(2)));
  const SymExpr& rows = input.sizes[input.rank() - 2];
  if (const auto v = rows.constant_value(); v && *v % (kernel[0] * kernel[1]) != 0) {
    call.fail(input.to_string() + " has " + std::to_string(*v) + " rows, not a multiple of the kernel's " +
              std::to_string(kernel[0] * kernel[1]) + " elements");
  }
  std::vector<SymExpr> sizes(input.sizes.begin(), input.sizes.end() - 2);
  sizes.push_back(SymExpr::floordiv(rows, c(kernel[0] * kernel[1])));
  sizes.insert(sizes.end(), output.begin(), output.end());
  return TensorMeta(input.dtype, sizes);
}

// upsample .vec: output_size, or each spatial size times its scale, floored.
ValueMeta upsample_vec(const Call& call, size_t scales_arg) {
  const TensorMeta& input = call.tensor(0);
  if (input.rank() != 4) call.fail("expects a 4-D input, got " + input.to_string());
  std::vector<SymExpr> sizes = input.sizes;
  if (!call.is_none(1)) {
    if (!call.is_none(scales_arg)) call.fail("give output_size or scale_factors, not both");
    const auto output = call.sym_list(1);
    if (output.size() != 2) call.fail("output_size must have 2 entries, got " + to_string(call.arg(1)));
    sizes[2] = output[0];
    sizes[3] = output[1];
    return TensorMeta(input.dtype, sizes);
  }
  if (call.is_none(scales_arg) || !call.arg(scales_arg).is_list() || call.arg(scales_arg).list().size() != 2) {
    call.fail("needs output_size or two scale_factors, got " + to_string(call.arg(scales_arg)));
  }
  for (size_t i = 0; i < 2; ++i) {
    const Argument& scale = call.arg(scales_arg).list()[i];
    const double factor = scale.is_int() ? static_cast<double>(scale.to_int()) : scale.is_double() ? scale.to_double() : -1.0;
    if (factor <= 0.0) call.fail("scale_factors must be positive numbers, got " + to_string(call.arg(scales_arg)));
    const auto in = sizes[2 + i].constant_value();
    if (!in) call.fail("scale_factors need static spatial sizes, got " + input.to_string());
    sizes[2 + i] = c(static_cast<int64_t>(std::floor(static_cast<double>(*in) * factor)));
  }
  return TensorMeta(input.dtype, sizes);
}

ValueMeta upsample_default(const Call& call) {
  const TensorMeta& input = call.tensor(0);
  if (input.rank() != 4) call.fail("expects a 4-D input, got " + input.to_string());
  const auto output = call.sym_list(1);
  if (output.size() != 2) call.fail("output_size must have 2 entries, got " + to_string(call.arg(1)));
  return TensorMeta(input.dtype, {input.sizes[0], input.sizes[1], output[0], output[1]});
}

// input (N, C, H, W) sampled at grid (N, H_out, W_out, 2): (N, C, H_out, W_out).
ValueMeta grid_sampler_2d(const Call& call) {
  const TensorMeta& input = call.tensor(0);
  const TensorMeta& grid = call.tensor(1);
  if (input.rank() != 4 || grid.rank() != 4) {
    call.fail("expects a 4-D input and grid, got " + input.to_string() + " and " + grid.to_string());
  }
  if (grid.sizes[3].is_constant() && !(grid.sizes[3] == c(2))) call.fail("grid must end in a dim of 2, got " + grid.to_string());
  if (grid.dtype != input.dtype) call.fail("grid " + grid.to_string() + " must have input's dtype");
  for (int64_t mode : {call.integer(2), call.integer(3)}) {
    if (mode < 0 || mode > 2) call.fail("interpolation_mode and padding_mode must be in [0, 2]");
  }
  return TensorMeta(input.dtype, {input.sizes[0], input.sizes[1], grid.sizes[1], grid.sizes[2]});
}

// x1 [*, P, M] and x2 [*, R, M]: the broadcast batch dims, then [P, R].
ValueMeta cdist_forward(const Call& call) {
  const TensorMeta& x1 = call.tensor(0);
  const TensorMeta& x2 = call.tensor(1);
  if (x1.rank() < 2 || x2.rank() < 2) call.fail("expects x1 and x2 of 2 or more dims, got " + x1.to_string() + " and " + x2.to_string());
  const SymExpr& m1 = x1.sizes.back();
  const SymExpr& m2 = x2.sizes.back();
  if (m1.is_constant() && m2.is_constant() && !(m1 == m2)) {
    call.fail("x1 " + x1.to_string() + " and x2 " + x2.to_string() + " have different numbers of columns");
  }
  if (call.number(2) < 0) call.fail("p must be non-negative");
  if (!call.is_none(3) && (call.integer(3) < 0 || call.integer(3) > 2)) call.fail("compute_mode must be 0, 1, 2 or None");
  std::vector<SymExpr> sizes = broadcast_shapes(call, {std::vector<SymExpr>(x1.sizes.begin(), x1.sizes.end() - 2),
                                                        std::vector<SymExpr>(x2.sizes.begin(), x2.sizes.end() - 2)});
  sizes.push_back(x1.sizes[x1.rank() - 2]);
  sizes.push_back(x2.sizes[x2.rank() - 2]);
  return TensorMeta(x1.dtype, sizes);
}

std::vector<SymExpr> pool1d_sizes(const Call& call, const PoolArgs& a) {
  const TensorMeta& input = call.tensor(0);
  if (input.rank() != 2 && input.rank() != 3) call.fail("expects a 2-D or 3-D input, got " + input.to_string());
  const auto kernel = call.int_list_of(a.kernel, 1);
  auto stride = call.int_list(a.stride);
  if (stride.empty()) stride = kernel;
  if (stride.size() != 1) call.fail(call.arg_name(a.stride) + " must have 0 or 1 entries");
  const auto padding = call.int_list_of(a.padding, 1);
  const auto dilation = a.dilation ? call.int_list_of(*a.dilation, 1) : std::vector<int64_t>{1};
  const bool ceil = a.ceil_mode && call.boolean(*a.ceil_mode);
  std::vector<SymExpr> sizes = input.sizes;
  sizes.back() = pooled_size(call, sizes.back(), kernel[0], stride[0], padding[0], dilation[0], ceil);
  if (const auto v = sizes.back().constant_value(); v && *v <= 0) call.fail("the pooled size is not positive for " + input.to_string());
  return sizes;
}

void add_training_rules(RuleTable& t) {
  t["aten::conv2d.default"] = [](const Call& call) { return convolution(call, {3, 4, 5, std::nullopt, false, call.integer(6)}); };
  t["aten::conv1d.default"] = t["aten::conv2d.default"];
  t["aten::conv3d.default"] = t["aten::conv2d.default"];
  for (const char* op : {"aten::conv_transpose1d.default", "aten::conv_transpose2d.input"}) {
    t[op] = [](const Call& call) { return convolution(call, {3, 4, 7, 5, true, call.integer(6)}); };
  }
  t["aten::linear.default"] = [](const Call& call) {
    const TensorMeta& input = call.tensor(0);
    const TensorMeta& weight = call.tensor(1);
    if (weight.rank() != 2 || input.rank() == 0 || input.sizes.back() != weight.sizes[1]) {
      call.fail("cannot apply weight " + weight.to_string() + " to " + input.to_string());
    }
    TensorMeta out(input.dtype, input.sizes);
    out.sizes.back() = weight.sizes[0];
    return ValueMeta(out);
  };
  t["aten::matmul.default"] = matmul;
  t["aten::softmax.int"] = [](const Call& call) {
    const TensorMeta& self = call.tensor(0);
    call.dim(call.integer(1), self.rank());
    return ValueMeta(TensorMeta(call.dtype(2).value_or(self.dtype), self.sizes));
  };
  t["aten::log_softmax.int"] = t["aten::softmax.int"];
  for (const char* op : {"aten::layer_norm.default", "aten::group_norm.default", "aten::batch_norm.default"}) {
    t[op] = [](const Call& call) { return ValueMeta(TensorMeta(call.tensor(0).dtype, call.tensor(0).sizes)); };
  }
  t["aten::max_pool2d.default"] = [](const Call& call) {
    return ValueMeta(TensorMeta(call.tensor(0).dtype, pool_sizes(call, {1, 2, 3, 4, 5}, 2)));
  };
  t["aten::adaptive_avg_pool2d.default"] = [](const Call& call) { return adaptive_pool(call, 2); };
  t["aten::max_pool1d.default"] = [](const Call& call) {
    return ValueMeta(TensorMeta(call.tensor(0).dtype, pool1d_sizes(call, {1, 2, 3, 4, 5})));
  };
  t["aten::avg_pool1d.default"] = [](const Call& call) {
    return ValueMeta(TensorMeta(call.tensor(0).dtype, pool1d_sizes(call, {1, 2, 3, std::nullopt, 4})));
  };
  t["aten::adaptive_avg_pool1d.default"] = [](const Call& call) {
    const TensorMeta& input = call.tensor(0);
    if (input.rank() != 2 && input.rank() != 3) call.fail("expects a 2-D or 3-D input, got " + input.to_string());
    std::vector<SymExpr> sizes = input.sizes;
    sizes.back() = SymExpr::constant(call.int_list_of(1, 1)[0]);
    return ValueMeta(TensorMeta(input.dtype, sizes));
  };
  t["aten::upsample_nearest2d.default"] = upsample_default;
  t["aten::upsample_bilinear2d.default"] = upsample_default;
  t["aten::scaled_dot_product_attention.default"] = [](const Call& call) {
    TensorMeta out(call.tensor(0).dtype, call.tensor(0).sizes);
    if (out.rank() == 0 || call.tensor(2).rank() == 0) call.fail("query and value need at least one dim");
    out.sizes.back() = call.tensor(2).sizes.back();
    return ValueMeta(out);
  };
}

}  // namespace

void add_nn_rules(RuleTable& t) {
  t["aten::convolution.default"] = [](const Call& call) {
    return convolution(call, {3, 4, 5, 7, call.boolean(6), call.integer(8)});
  };
  t["aten::mm.default"] = [](const Call& call) { return mm(call, call.tensor(0), call.tensor(1), call.tensor(0).dtype); };
  t["aten::addmm.default"] = addmm;
  t["aten::bmm.default"] = bmm;
  t["aten::_softmax.default"] = [](const Call& call) { return softmax(call, call.boolean(2)); };
  t["aten::_log_softmax.default"] = [](const Call& call) { return softmax(call, call.boolean(2)); };
  t["aten::native_layer_norm.default"] = native_layer_norm;
  t["aten::native_group_norm.default"] = native_group_norm;
  t["aten::_native_batch_norm_legit_no_training.default"] = batch_norm_no_training;
  for (size_t spatial : {2, 3}) {
    const std::string rank = std::to_string(spatial) + "d";
    t["aten::max_pool" + rank + "_with_indices.default"] = [spatial](const Call& call) {
      const auto sizes = pool_sizes(call, {1, 2, 3, 4, 5}, spatial);
      return ValueMeta(std::vector<TensorMeta>{TensorMeta(call.tensor(0).dtype, sizes), TensorMeta(ScalarType::Long, sizes)});
    };
    t["aten::avg_pool" + rank + ".default"] = [spatial](const Call& call) {
      if (!call.is_none(6) && call.integer(6) == 0) call.fail("divisor_override must not be 0");
      return ValueMeta(TensorMeta(call.tensor(0).dtype, pool_sizes(call, {1, 2, 3, std::nullopt, 4}, spatial)));
    };
    t["aten::_adaptive_avg_pool" + rank + ".default"] = [spatial](const Call& call) { return adaptive_pool(call, spatial); };
  }
  t["aten::col2im.default"] = col2im;
  t["aten::upsample_nearest2d.vec"] = [](const Call& call) { return upsample_vec(call, 2); };
  t["aten::upsample_bilinear2d.vec"] = [](const Call& call) { return upsample_vec(call, 3); };
  t["aten::grid_sampler_2d.default"] = grid_sampler_2d;
  t["aten::_cdist_forward.default"] = cdist_forward;
  t["aten::_pdist_forward.default"] = [](const Call& call) {
    const TensorMeta& self = call.tensor(0);
    if (self.rank() != 2) call.fail("expects a 2-D input, got " + self.to_string());
    if (call.number(1) < 0) call.fail("p must be non-negative");
    const SymExpr& n = self.sizes[0];
    return ValueMeta(TensorMeta(self.dtype, {SymExpr::floordiv(n * (n - c(1)), c(2))}));
  };
  add_training_rules(t);
}

}  // namespace kiln::aot::meta
