// Decompositions of the convolution forms decompose_nn.cpp leaves: string
// padding ("valid", "same": symmetric, with a pad in front of an odd
// remainder as PyTorch pads), torch's internal _convolution entry points and
// the CPU fallbacks (thnn_conv2d, slow_conv3d); im2col as pad + unfold; max_unpool as a scatter into zeros;
// and 3-D nearest and trilinear upsampling as two separable passes of the
// 2-D kernels.
#include "aot/passes/decompositions.h"

namespace kiln::aot::passes {
namespace {

std::vector<int64_t> int_list(const Argument& value, size_t n) {
  std::vector<int64_t> out;
  for (const Argument& item : expand_int_list(value, n)) out.push_back(item.to_int());
  return out;
}

// convolution with padding "valid" or "same" (stride 1): "same" pads each
// spatial dim by dilation * (k - 1), half in front, the odd rest behind.
void decompose_string_padding(Rewriter& r, const std::string& padding, size_t spatial) {
  Node* x = r.tensor_arg(0);
  const std::vector<int64_t> w = sizes_of(r, r.tensor_arg(1));
  if (x->meta.tensor().rank() != spatial + 2 || w.size() != spatial + 2) r.fail("expects a batched input");
  const std::vector<int64_t> stride = int_list(r.arg(3), spatial), dilation = int_list(r.arg(5), spatial);
  std::vector<int64_t> symmetric(spatial, 0);
  std::vector<int64_t> extra;  // constant_pad_nd order: last dim first, (front, back)
  bool asymmetric = false;
  if (padding == "same") {
    for (int64_t s : stride) {
      if (s != 1) r.fail("padding='same' needs stride 1");
    }
    extra.assign(2 * spatial, 0);
    for (size_t d = 0; d < spatial; ++d) {
      const int64_t total = dilation[d] * (w[d + 2] - 1);
      symmetric[d] = total / 2;
      if (total % 2 != 0) {
        extra[2 * (spatial - 1 - d) + 1] = 1;
        asymmetric = true;
      }
    }
  } else if (padding != "valid") {
    r.fail("padding must be 'valid' or 'same', got '" + padding + "'");
  }
  if (asymmetric) x = r.op("aten::constant_pad_nd", {x, ints(extra), 0.0});
  r.replace_with(r.op("aten::convolution", {x, r.arg(1), r.arg(2), ints(stride), ints(symmetric), ints(dilation), false,
                                            ints(std::vector<int64_t>(spatial, 0)), r.arg(6)}));
}

// thnn_conv2d / slow_conv3d(self, weight, kernel_size, bias, stride, padding).
void decompose_fallback_conv(Rewriter& r, size_t spatial) {
  r.replace_with(r.op("aten::convolution", {r.arg(0), r.arg(1), r.arg(3), ints(int_list(r.arg(4), spatial)),
                                            ints(int_list(r.arg(5), spatial)), ints(std::vector<int64_t>(spatial, 1)), false,
                                            ints(std::vector<int64_t>(spatial, 0)), int64_t{1}}));
}

// im2col(x, kernel, dilation, padding, stride): the padded input unfolded
// along H and W, blocks laid out as [N, C * kh * kw, L].
void decompose_im2col(Rewriter& r) {
  const std::vector<int64_t> k = int_list(r.arg(1), 2), dil = int_list(r.arg(2), 2), pad = int_list(r.arg(3), 2),
                             stride = int_list(r.arg(4), 2);
  if (dil[0] != 1 || dil[1] != 1) r.fail("im2col with dilation is not supported");
  Node* x = r.tensor_arg(0);
  const std::vector<int64_t> s = sizes_of(r, x);
  if (s.size() != 4) r.fail("expects a batched 4-D input");
  Node* padded = r.op("aten::constant_pad_nd", {x, ints({pad[1], pad[1], pad[0], pad[0]}), 0.0});
  Node* blocks = r.op("aten::unfold", {r.op("aten::unfold", {padded, int64_t{2}, k[0], stride[0]}), int64_t{3}, k[1], stride[1]});
  const std::vector<int64_t> b = sizes_of(r, blocks);  // [N, C, oh, ow, kh, kw]
  Node* moved = r.op("aten::clone", {r.op("aten::permute", {blocks, ints({0, 1, 4, 5, 2, 3})})});
  r.replace_with(r.op("aten::view", {moved, ints({s[0], s[1] * k[0] * k[1], b[2] * b[3]})}));
}

// max_unpool: each value written at its flat index of a zero output.
void decompose_max_unpool(Rewriter& r, size_t spatial) {
  Node* x = r.tensor_arg(0);
  const std::vector<int64_t> s = sizes_of(r, x);
  if (s.size() != spatial + 2) r.fail("expects a batched input");
  const std::vector<int64_t> out = int_list(r.arg(2), spatial);
  int64_t plane = 1;
  for (int64_t o : out) plane *= o;
  Node* zeros = r.op("aten::full", {ints({s[0], s[1], plane}), 0.0}, {{"dtype", x->meta.tensor().dtype}});
  Node* flat = r.op("aten::scatter.src", {zeros, int64_t{2}, r.op("aten::view", {r.arg(1), ints({s[0], s[1], -1})}),
                                          r.op("aten::view", {x, ints({s[0], s[1], -1})})});
  std::vector<int64_t> shape = {s[0], s[1]};
  shape.insert(shape.end(), out.begin(), out.end());
  r.replace_with(r.op("aten::view", {flat, ints(shape)}));
}

// 3-D resampling, separable: (H, W) by the 2-D kernel on [N, C * D, H, W],
// then D by the 2-D kernel on [N, C, D, H' * W'] (an identity along the
// second dim). sizes are the output's D, H, W; scales, when given, the factors.
Node* resize_3d(Rewriter& r, bool linear, const std::vector<int64_t>& sizes, const std::vector<double>& scales, const Argument& align) {
  Node* x = r.tensor_arg(0);
  const std::vector<int64_t> s = sizes_of(r, x);
  if (s.size() != 5) r.fail("expects a batched 5-D input");
  const auto resize = [&](Node* in, const Argument& out_size, const Argument& factors) {
    return linear ? r.op("aten::upsample_bilinear2d.vec", {in, out_size, align, factors})
                  : r.op("aten::upsample_nearest2d.vec", {in, out_size, factors});
  };
  const bool by_scale = !scales.empty();
  Node* hw = resize(r.op("aten::view", {x, ints({s[0], s[1] * s[2], s[3], s[4]})}), by_scale ? Argument(None{}) : ints({sizes[1], sizes[2]}),
                    by_scale ? Argument(ArgumentList{scales[1], scales[2]}) : Argument(None{}));
  const std::vector<int64_t> h = sizes_of(r, hw);
  Node* d = resize(r.op("aten::view", {hw, ints({s[0], s[1], s[2], h[2] * h[3]})}),
                   by_scale ? Argument(None{}) : ints({sizes[0], h[2] * h[3]}),
                   by_scale ? Argument(ArgumentList{scales[0], 1.0}) : Argument(None{}));
  return r.op("aten::view", {d, ints({s[0], s[1], sizes_of(r, d)[2], h[2], h[3]})});
}

std::vector<double> doubles(const Argument& value) {
  std::vector<double> out;
  if (!value.is_list()) return out;
  for (const Argument& item : value.list()) out.push_back(item.is_int() ? static_cast<double>(item.to_int()) : item.to_double());
  return out;
}

void decompose_upsample_3d(Rewriter& r, bool linear, const Argument& output_size, const Argument& scales, const Argument& align) {
  std::vector<double> factors = doubles(scales);
  std::vector<int64_t> sizes;
  if (factors.empty()) {
    if (!output_size.is_list()) r.fail("needs output_size or scale_factors");
    sizes = int_list(output_size, 3);
  }
  r.replace_with(resize_3d(r, linear, sizes, factors, align));
}

// upsample_trilinear3d.default(self, output_size, align_corners, scales_d,
// scales_h, scales_w): scales set the sampling step without align_corners, so
// given, they must be all three and give output_size; the .vec form takes them.
void decompose_trilinear_3d(Rewriter& r) {
  const bool align = r.bool_arg(2);
  size_t given = 0;
  for (size_t i = 3; i < 6; ++i) given += r.arg(i).is_none() ? 0 : 1;
  if (align || given == 0) {
    decompose_upsample_3d(r, true, r.arg(1), None{}, r.arg(2));
    return;
  }
  if (given != 3) r.fail("scales for some of the three dims but not all do not decompose");
  const std::vector<int64_t> in = sizes_of(r, r.tensor_arg(0)), out = int_list(r.arg(1), 3);
  for (size_t i = 0; i < 3; ++i) {
    if (in.size() != 5 || static_cast<int64_t>(static_cast<double>(in[2 + i]) * r.float_arg(3 + i)) != out[i]) {
      r.fail("scales " + to_string(r.arg(3)) + ", " + to_string(r.arg(4)) + ", " + to_string(r.arg(5)) +
             " do not give output_size " + to_string(r.arg(1)));
    }
  }
  decompose_upsample_3d(r, true, None{}, ArgumentList{r.arg(3), r.arg(4), r.arg(5)}, r.arg(2));
}

}  // namespace

void add_conv_decompositions(DecompositionTable& t) {
  for (size_t n : {1, 2, 3}) {
    t["aten::conv" + std::to_string(n) + "d.padding"] = [n](Rewriter& r) { decompose_string_padding(r, r.arg(4).to_string(), n); };
  }
  t["aten::_convolution_mode.default"] = [](Rewriter& r) {
    decompose_string_padding(r, r.arg(4).to_string(), r.tensor_arg(0)->meta.tensor().rank() - 2);
  };
  // (input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, benchmark, ...)
  t["aten::_convolution.deprecated"] = [](Rewriter& r) {
    r.replace_with(r.op("aten::convolution", {r.arg(0), r.arg(1), r.arg(2), r.arg(3), r.arg(4), r.arg(5), r.arg(6), r.arg(7), r.arg(8)}));
  };
  t["aten::thnn_conv2d.default"] = [](Rewriter& r) { decompose_fallback_conv(r, 2); };
  t["aten::slow_conv3d.default"] = [](Rewriter& r) { decompose_fallback_conv(r, 3); };
  t["aten::im2col.default"] = decompose_im2col;
  t["aten::max_unpool2d.default"] = [](Rewriter& r) { decompose_max_unpool(r, 2); };
  t["aten::max_unpool3d.default"] = [](Rewriter& r) { decompose_max_unpool(r, 3); };
  // (self, output_size, scales_d, scales_h, scales_w): the sizes decide.
  t["aten::upsample_nearest3d.default"] = [](Rewriter& r) { decompose_upsample_3d(r, false, r.arg(1), None{}, None{}); };
  t["aten::upsample_nearest3d.vec"] = [](Rewriter& r) { decompose_upsample_3d(r, false, r.arg(1), r.arg(2), None{}); };
  t["aten::upsample_trilinear3d.vec"] = [](Rewriter& r) { decompose_upsample_3d(r, true, r.arg(1), r.arg(3), r.arg(2)); };
  t["aten::upsample_trilinear3d.default"] = decompose_trilinear_3d;
}

}  // namespace kiln::aot::passes
