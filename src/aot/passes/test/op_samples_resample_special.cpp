// Sample calls of the ops decompose_resample, decompose_special and
// decompose_quantile rewrite, and of _chunk_cat, the centred stft and istft: small
// shapes, metas as torch records them.
#include "aot/passes/test/op_samples.h"

namespace kiln::aot::testing {
namespace {

using S = Sample;

void add_resample(std::map<std::string, SampleBuilder>& t) {
  t["aten::_upsample_nearest_exact1d.default"] = unary("aten::_upsample_nearest_exact1d", {1, 2, 5}, S::meta({1, 2, 8}), {ArgumentList{8}});
  t["aten::_upsample_nearest_exact1d.vec"] = unary("aten::_upsample_nearest_exact1d.vec", {1, 2, 5}, S::meta({1, 2, 7}),
                                                   {None{}, ArgumentList{1.5}});
  t["aten::_upsample_nearest_exact2d.default"] = unary("aten::_upsample_nearest_exact2d", {1, 1, 3, 4}, S::meta({1, 1, 5, 7}),
                                                       {ArgumentList{5, 7}});
  t["aten::_upsample_nearest_exact2d.vec"] = unary("aten::_upsample_nearest_exact2d.vec", {1, 1, 3, 4}, S::meta({1, 1, 6, 6}),
                                                   {None{}, ArgumentList{2.0, 1.5}});
  t["aten::_upsample_nearest_exact3d.default"] = unary("aten::_upsample_nearest_exact3d", {1, 1, 2, 3, 3}, S::meta({1, 1, 3, 4, 5}),
                                                       {ArgumentList{3, 4, 5}});
  t["aten::_upsample_nearest_exact3d.vec"] = unary("aten::_upsample_nearest_exact3d.vec", {1, 1, 2, 3, 3}, S::meta({1, 1, 4, 3, 4}),
                                                   {None{}, ArgumentList{2.0, 1.0, 1.5}});
  t["aten::upsample_bicubic2d.default"] = unary("aten::upsample_bicubic2d", {1, 2, 3, 4}, S::meta({1, 2, 5, 7}),
                                                {ArgumentList{5, 7}, true});
  t["aten::upsample_bicubic2d.vec"] = unary("aten::upsample_bicubic2d.vec", {2, 1, 3, 4}, S::meta({2, 1, 5, 7}),
                                            {ArgumentList{5, 7}, false, None{}});
  t["aten::upsample_trilinear3d.default"] = unary("aten::upsample_trilinear3d", {1, 1, 2, 3, 3}, S::meta({1, 1, 3, 5, 4}),
                                                  {ArgumentList{3, 5, 4}, false});
}

void add_special(std::map<std::string, SampleBuilder>& t) {
  const TensorMeta f23 = S::meta({2, 3});
  t["aten::special_gammaln.default"] = unary("aten::special_gammaln", {2, 3}, f23);
  t["aten::special_ndtr.default"] = unary("aten::special_ndtr", {2, 3}, f23);
  t["aten::special_log_ndtr.default"] = unary("aten::special_log_ndtr", {2, 3}, f23);
  t["aten::mvlgamma.default"] = unary("aten::mvlgamma", {2, 3}, f23, {3});
  t["aten::quantile.scalar"] = unary("aten::quantile.scalar", {2, 3}, S::meta({2}), {0.25, 1});
  // q in [0, 1] (torch checks it when it runs): a sigmoid of the input.
  const auto q = [](S& s, int64_t n) { return s.call("aten::sigmoid", {s.f32({n})}, S::meta({n})); };
  t["aten::quantile.default"] = [q](S& s) {
    return one(s.call("aten::quantile", {s.f32({2, 3}), q(s, 4), 0, true}, S::meta({4, 1, 3})));
  };
  t["aten::nanquantile.scalar"] = [](S& s) {
    return one(s.call("aten::nanquantile.scalar", {s.f32({2, 3}), 0.5}, S::meta({}), {{"interpolation", "midpoint"}}));
  };
  t["aten::nanquantile.default"] = [q](S& s) {
    return one(s.call("aten::nanquantile", {s.f32({2, 3}), q(s, 2), 1}, S::meta({2, 2}), {{"interpolation", "nearest"}}));
  };
}

void add_tensor(std::map<std::string, SampleBuilder>& t) {
  t["aten::_chunk_cat.default"] = [](S& s) {
    return one(s.call("aten::_chunk_cat", {ArgumentList{s.f32({3}), s.f32({2, 2})}, 0, 2}, S::meta({2, 4})));
  };
  t["aten::stft.center"] = [](S& s) {
    return one(s.call("aten::stft.center", {s.f32({32}), 8, 2, 8, s.f32({8}), true, "reflect", false, true, true}, S::meta(kC64, {5, 17})));
  };
  t["aten::istft.default"] = [](S& s) {
    return one(s.call("aten::istft", {s.tensor(kC64, {2, 5, 9}), 8, 2, 6, None{}, true}, S::meta({2, 16})));
  };
}

}  // namespace

void add_resample_special_samples(std::map<std::string, SampleBuilder>& samples) {
  add_resample(samples);
  add_special(samples);
  add_tensor(samples);
}

}  // namespace kiln::aot::testing
