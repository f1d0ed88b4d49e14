// Decompositions of pooling and upsampling: max_pool2d keeps the values of
// max_pool2d_with_indices, the 1-D pools run as the 2-D ones on the input
// unsqueezed to [N, C, 1, L], adaptive average pooling to 1x1 is a mean (as
// torch does it), and upsampling with sizes or scales becomes its .vec form.
#include <cmath>

#include "aot/passes/decompositions.h"

namespace kiln::aot::passes {
namespace {

void decompose_max_pool2d(Rewriter& r) {
  Node* pool = r.op("aten::max_pool2d_with_indices", {r.arg(0), r.arg(1), r.arg(2), r.arg(3), r.arg(4), r.arg(5)});
  r.replace_with(r.getitem(pool, 0));
}

// adaptive_avg_pool{2,3}d(self, output_size): an output of ones is the mean
// over the pooled dims.
Node* adaptive_avg_pool(Rewriter& r, Node* input, const ArgumentList& output_size) {
  const size_t n = output_size.size();
  if (output_size == ArgumentList(n, int64_t{1})) {
    ArgumentList dims;
    for (size_t d = 1; d <= n; ++d) dims.emplace_back(-static_cast<int64_t>(d));
    return r.op("aten::mean.dim", {input, std::move(dims), true});
  }
  return r.op(n == 2 ? "aten::_adaptive_avg_pool2d" : "aten::_adaptive_avg_pool3d", {input, output_size});
}

void decompose_adaptive_avg_pool(Rewriter& r, size_t n) {
  r.replace_with(adaptive_avg_pool(r, r.tensor_arg(0), expand_int_list(r.arg(1), n)));
}

// A 1-D op on [N, C, L] as the 2-D op on [N, C, 1, L]: `run` gets the
// unsqueezed input and returns the 2-D result, whose height is squeezed.
template <typename Run>
void as_2d(Rewriter& r, Run run) {
  const TensorMeta& input = r.tensor_arg(0)->meta.tensor();
  if (input.rank() != 2 && input.rank() != 3) r.fail("expects a 2-D or 3-D input, got " + input.to_string());
  Node* tall = r.op("aten::unsqueeze", {r.tensor_arg(0), -2});
  r.replace_with(r.op("aten::squeeze.dims", {run(tall), ArgumentList{Argument(int64_t{-2})}}));
}

int64_t single(Rewriter& r, size_t index) {
  const ArgumentList list = expand_int_list(r.arg(index), 1);
  if (list.size() != 1 || !list[0].is_int()) r.fail("argument " + std::to_string(index) + " must be one int, got " + to_string(r.arg(index)));
  return list[0].to_int();
}

// The 1-D pools' stride defaults to the kernel size (an empty list).
int64_t stride_or_kernel(Rewriter& r, size_t stride_arg, int64_t kernel) {
  return r.arg(stride_arg).is_list() && r.arg(stride_arg).list().empty() ? kernel : single(r, stride_arg);
}

// max_pool1d(self, kernel_size, stride, padding, dilation, ceil_mode).
void decompose_max_pool1d(Rewriter& r) {
  const int64_t kernel = single(r, 1);
  const ArgumentList stride{1, stride_or_kernel(r, 2, kernel)};
  as_2d(r, [&](Node* tall) {
    Node* pool = r.op("aten::max_pool2d_with_indices", {tall, ArgumentList{1, kernel}, stride, ArgumentList{0, single(r, 3)},
                                                        ArgumentList{1, single(r, 4)}, r.bool_arg(5)});
    return r.getitem(pool, 0);
  });
}

// avg_pool1d(self, kernel_size, stride, padding, ceil_mode, count_include_pad).
void decompose_avg_pool1d(Rewriter& r) {
  const int64_t kernel = single(r, 1);
  const ArgumentList stride{1, stride_or_kernel(r, 2, kernel)};
  as_2d(r, [&](Node* tall) {
    return r.op("aten::avg_pool2d", {tall, ArgumentList{1, kernel}, stride, ArgumentList{0, single(r, 3)}, r.bool_arg(4),
                                     r.bool_arg(5)});
  });
}

void decompose_adaptive_avg_pool1d(Rewriter& r) {
  const int64_t size = single(r, 1);
  as_2d(r, [&](Node* tall) { return adaptive_avg_pool(r, tall, {1, size}); });
}

// upsample_*2d.default(self, output_size, [align_corners,] scales_h, scales_w).
// The .vec form takes sizes or scales, not both: given scales must be the ones
// that produce output_size (they also set the sampling positions).
Argument upsample_scales(Rewriter& r, size_t scales_h) {
  const bool has_h = !r.arg(scales_h).is_none(), has_w = !r.arg(scales_h + 1).is_none();
  if (!has_h && !has_w) return None{};
  if (has_h != has_w) r.fail("a scale for only one of the two dims does not decompose");
  const TensorMeta& input = r.tensor_arg(0)->meta.tensor();
  const std::vector<int64_t> output = r.ints_arg(1);
  ArgumentList scales;
  for (size_t i = 0; i < 2; ++i) {
    const double scale = r.float_arg(scales_h + i);
    const auto in = input.rank() == 4 ? input.sizes[2 + i].constant_value() : std::nullopt;
    if (!in || output.size() != 2 || static_cast<int64_t>(std::floor(static_cast<double>(*in) * scale)) != output[i]) {
      r.fail("scales " + to_string(r.arg(scales_h)) + ", " + to_string(r.arg(scales_h + 1)) + " do not give output_size " +
             to_string(r.arg(1)) + " for " + input.to_string());
    }
    scales.emplace_back(scale);
  }
  return scales;
}

void decompose_upsample_nearest2d(Rewriter& r) {
  const Argument scales = upsample_scales(r, 2);
  const Argument sizes = scales.is_none() ? r.arg(1) : Argument(None{});
  r.replace_with(r.op("aten::upsample_nearest2d.vec", {r.arg(0), sizes, scales}));
}

void decompose_upsample_bilinear2d(Rewriter& r) {
  // With align_corners the scales do not affect the sampling positions.
  const Argument scales = r.bool_arg(2) ? Argument(None{}) : upsample_scales(r, 3);
  const Argument sizes = scales.is_none() ? r.arg(1) : Argument(None{});
  r.replace_with(r.op("aten::upsample_bilinear2d.vec", {r.arg(0), sizes, r.arg(2), scales}));
}

}  // namespace

void add_pool_decompositions(DecompositionTable& t) {
  t["aten::max_pool2d.default"] = decompose_max_pool2d;
  t["aten::adaptive_avg_pool2d.default"] = [](Rewriter& r) { decompose_adaptive_avg_pool(r, 2); };
  t["aten::adaptive_avg_pool3d.default"] = [](Rewriter& r) { decompose_adaptive_avg_pool(r, 3); };
  t["aten::max_pool1d.default"] = decompose_max_pool1d;
  t["aten::avg_pool1d.default"] = decompose_avg_pool1d;
  t["aten::adaptive_avg_pool1d.default"] = decompose_adaptive_avg_pool1d;
  t["aten::upsample_nearest2d.default"] = decompose_upsample_nearest2d;
  t["aten::upsample_bilinear2d.default"] = decompose_upsample_bilinear2d;
}

}  // namespace kiln::aot::passes
