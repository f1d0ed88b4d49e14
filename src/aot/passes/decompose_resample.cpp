// Decompositions of the resampling modes that have no kernel of their own:
// nearest-exact (1-D, 2-D, 3-D) as one index_select per resized dim, with
// source indices computed as torch's CPU kernel computes them, and bicubic as
// grid_sampler_2d's bicubic mode on a grid of torch's source positions with
// border padding (its taps clamped to the input, as upsample_bicubic2d clamps
// them; both use the cubic convolution of A = -0.75).
#include <optional>
#include <vector>

#include "aot/passes/decompositions.h"

namespace kiln::aot::passes {
namespace {

// The resized dims (the last `in.size()`) of a call: input and output sizes
// and the scale factors given, if any (they set the sampling step).
struct Resize {
  std::vector<int64_t> in, out;
  std::vector<std::optional<double>> scales;
};

std::vector<int64_t> spatial_sizes(Rewriter& r, size_t spatial) {
  const TensorMeta& meta = r.tensor_arg(0)->meta.tensor();
  if (meta.rank() != spatial + 2) {
    r.fail("takes a [N, C, ...] input of " + std::to_string(spatial) + " resized dims, got " + meta.to_string());
  }
  std::vector<int64_t> sizes;
  for (size_t d = 2; d < meta.rank(); ++d) {
    const std::optional<int64_t> size = meta.sizes[d].constant_value();
    if (!size) r.fail("needs static sizes in the resized dims, got " + meta.to_string());
    sizes.push_back(*size);
  }
  return sizes;
}

std::optional<double> optional_double(Rewriter& r, size_t index) {
  if (r.arg(index).is_none()) return std::nullopt;
  return r.float_arg(index);
}

// The .default form: (self, output_size, [align_corners,] scales...).
Resize from_sizes(Rewriter& r, size_t spatial, size_t first_scale) {
  Resize resize{spatial_sizes(r, spatial), r.ints_arg(1), {}};
  if (resize.out.size() != spatial) r.fail("output_size needs " + std::to_string(spatial) + " sizes, got " + to_string(r.arg(1)));
  for (size_t i = 0; i < spatial; ++i) resize.scales.push_back(optional_double(r, first_scale + i));
  return resize;
}

// The .vec form: (input, output_size?, [align_corners,] scale_factors?), one of the two.
Resize from_vec(Rewriter& r, size_t spatial, size_t factors) {
  Resize resize{spatial_sizes(r, spatial), {}, std::vector<std::optional<double>>(spatial)};
  if (r.arg(1).is_none() == r.arg(factors).is_none()) r.fail("takes output_size or scale_factors, one of the two");
  if (!r.arg(1).is_none()) {
    resize.out = r.ints_arg(1);
    if (resize.out.size() != spatial) r.fail("output_size needs " + std::to_string(spatial) + " sizes, got " + to_string(r.arg(1)));
    return resize;
  }
  const ArgumentList& list = r.arg(factors).list();
  if (list.size() != spatial) r.fail("scale_factors needs " + std::to_string(spatial) + " factors, got " + to_string(r.arg(factors)));
  for (size_t i = 0; i < spatial; ++i) {
    const double factor = list[i].is_int() ? static_cast<double>(list[i].to_int()) : list[i].to_double();
    resize.scales[i] = factor;
    resize.out.push_back(static_cast<int64_t>(static_cast<double>(resize.in[i]) * factor));
  }
  return resize;
}

// torch's compute_scales_value<float>: the source step per output element.
float source_step(const Resize& resize, size_t i) {
  const std::optional<double>& scale = resize.scales[i];
  if (scale && *scale > 0) return static_cast<float>(1.0 / *scale);
  return static_cast<float>(resize.in[i]) / static_cast<float>(resize.out[i]);
}

Node* arange(Rewriter& r, int64_t n, ScalarType dtype) {
  return r.op("aten::arange.start_step", {int64_t{0}, n}, {{"dtype", dtype}});
}

// min(floor((dst + 0.5) * step), in - 1), the product in double rounded to
// float as torch's floorf takes it.
Node* nearest_exact_indices(Rewriter& r, const Resize& resize, size_t i) {
  Node* position = r.op("aten::add.Scalar", {arange(r, resize.out[i], ScalarType::Double), 0.5});
  position = r.op("aten::mul.Scalar", {position, static_cast<double>(source_step(resize, i))});
  Node* floor = r.op("aten::floor", {r.op("aten::_to_copy", {position}, {{"dtype", ScalarType::Float}})});
  Node* index = r.op("aten::_to_copy", {floor}, {{"dtype", ScalarType::Long}});
  return r.op("aten::clamp", {index, None{}, resize.in[i] - 1});
}

void decompose_nearest_exact(Rewriter& r, const Resize& resize) {
  Node* x = r.tensor_arg(0);
  for (size_t i = 0; i < resize.in.size(); ++i) {
    if (resize.out[i] < 1) r.fail("gives an empty output (size " + std::to_string(resize.out[i]) + ")");
    x = r.op("aten::index_select", {x, static_cast<int64_t>(i + 2), nearest_exact_indices(r, resize, i)});
  }
  r.replace_with(x);
}

// grid_sampler_2d's coordinate in [-1, 1] of each output element's source
// position: with align_corners dst * (in - 1) / (out - 1), the corners'
// centres at -1 and 1; without, (dst + 0.5) * step - 0.5, the edges at -1 and 1.
Node* grid_coordinates(Rewriter& r, const Resize& resize, size_t i, bool align_corners, ScalarType dtype) {
  const int64_t out = resize.out[i];
  Node* dst = arange(r, out, dtype);
  if (align_corners) {
    const double factor = out > 1 ? 2.0 / static_cast<double>(out - 1) : 0.0;
    return r.op("aten::add.Scalar", {r.op("aten::mul.Scalar", {dst, factor}), -1.0});
  }
  const double factor = 2.0 * static_cast<double>(source_step(resize, i)) / static_cast<double>(resize.in[i]);
  return r.op("aten::add.Scalar", {r.op("aten::mul.Scalar", {r.op("aten::add.Scalar", {dst, 0.5}), factor}), -1.0});
}

// upsample_bicubic2d: the [N, H', W', 2] grid of (x, y) positions, sampled
// bicubically with border padding; Half and BFloat16 sample in float.
void decompose_bicubic(Rewriter& r, const Resize& resize, bool align_corners) {
  Node* input = r.tensor_arg(0);
  const ScalarType dtype = input->meta.tensor().dtype;
  if (dtype != ScalarType::Float && dtype != ScalarType::Double && dtype != ScalarType::Half && dtype != ScalarType::BFloat16) {
    r.fail("takes a floating-point input, got " + input->meta.tensor().to_string());
  }
  const ScalarType compute = dtype == ScalarType::Double ? dtype : ScalarType::Float;
  if (dtype != compute) input = r.op("aten::_to_copy", {input}, {{"dtype", compute}});
  const int64_t h = resize.out[0], w = resize.out[1];
  if (h < 1 || w < 1) r.fail("gives an empty output (" + std::to_string(h) + " x " + std::to_string(w) + ")");
  Node* x = r.op("aten::expand", {r.op("aten::view", {grid_coordinates(r, resize, 1, align_corners, compute), ArgumentList{1, w}}),
                                  ArgumentList{h, w}});
  Node* y = r.op("aten::expand", {r.op("aten::view", {grid_coordinates(r, resize, 0, align_corners, compute), ArgumentList{h, 1}}),
                                  ArgumentList{h, w}});
  Node* grid = r.op("aten::unsqueeze", {r.op("aten::stack", {ArgumentList{x, y}, int64_t{-1}}), int64_t{0}});
  const Argument batch = r.sym_int(input->meta.tensor().sizes[0], {input});
  grid = r.op("aten::expand", {grid, ArgumentList{batch, h, w, int64_t{2}}});
  constexpr int64_t kBicubic = 2, kBorder = 1;
  Node* sampled = r.op("aten::grid_sampler_2d", {input, grid, kBicubic, kBorder, align_corners});
  r.replace_with(dtype == compute ? sampled : r.op("aten::_to_copy", {sampled}, {{"dtype", dtype}}));
}

}  // namespace

void add_resample_decompositions(DecompositionTable& t) {
  for (size_t n : {1, 2, 3}) {
    const std::string name = "aten::_upsample_nearest_exact" + std::to_string(n) + "d";
    t[name + ".default"] = [n](Rewriter& r) { decompose_nearest_exact(r, from_sizes(r, n, 2)); };
    t[name + ".vec"] = [n](Rewriter& r) { decompose_nearest_exact(r, from_vec(r, n, 2)); };
  }
  t["aten::upsample_bicubic2d.default"] = [](Rewriter& r) { decompose_bicubic(r, from_sizes(r, 2, 3), r.bool_arg(2)); };
  t["aten::upsample_bicubic2d.vec"] = [](Rewriter& r) { decompose_bicubic(r, from_vec(r, 2, 3), r.bool_arg(2)); };
}

}  // namespace kiln::aot::passes
