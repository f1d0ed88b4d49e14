// Sample calls of the ops decompose_conv, decompose_index and
// decompose_linalg rewrite: small shapes, metas as torch records them.
#include "aot/passes/test/op_samples.h"

namespace kiln::aot::testing {
namespace {

using S = Sample;

void add_conv(std::map<std::string, SampleBuilder>& t) {
  t["aten::conv1d.padding"] = [](S& s) {
    return one(s.call("aten::conv1d.padding", {s.f32({1, 2, 8}), s.f32({3, 2, 4}), None{}, ArgumentList{1}, "same"}, S::meta({1, 3, 8})));
  };
  t["aten::conv2d.padding"] = [](S& s) {
    return one(s.call("aten::conv2d.padding", {s.f32({1, 2, 5, 5}), s.f32({3, 2, 3, 3}), s.f32({3}), ArgumentList{1, 1}, "valid"},
                      S::meta({1, 3, 3, 3})));
  };
  t["aten::conv3d.padding"] = [](S& s) {
    return one(s.call("aten::conv3d.padding", {s.f32({1, 1, 4, 4, 4}), s.f32({2, 1, 3, 3, 3}), None{}, ArgumentList{1, 1, 1}, "same"},
                      S::meta({1, 2, 4, 4, 4})));
  };
  t["aten::_convolution_mode.default"] = [](S& s) {
    return one(s.call("aten::_convolution_mode", {s.f32({1, 2, 5, 5}), s.f32({3, 2, 3, 3}), None{}, ArgumentList{1, 1}, "same",
                                                  ArgumentList{1, 1}, 1},
                      S::meta({1, 3, 5, 5})));
  };
  t["aten::_convolution.deprecated"] = [](S& s) {
    return one(s.call("aten::_convolution.deprecated",
                      {s.f32({1, 2, 5, 5}), s.f32({3, 2, 3, 3}), None{}, ArgumentList{1, 1}, ArgumentList{1, 1}, ArgumentList{1, 1}, false,
                       ArgumentList{0, 0}, 1, false, false, false},
                      S::meta({1, 3, 5, 5})));
  };
  t["aten::thnn_conv2d.default"] = [](S& s) {
    return one(s.call("aten::thnn_conv2d", {s.f32({1, 2, 5, 5}), s.f32({3, 2, 3, 3}), ArgumentList{3, 3}}, S::meta({1, 3, 3, 3})));
  };
  t["aten::slow_conv3d.default"] = [](S& s) {
    return one(s.call("aten::slow_conv3d", {s.f32({1, 1, 4, 4, 4}), s.f32({2, 1, 3, 3, 3}), ArgumentList{3, 3, 3}}, S::meta({1, 2, 2, 2, 2})));
  };
  t["aten::im2col.default"] = unary("aten::im2col", {1, 2, 4, 4}, S::meta({1, 8, 9}),
                                    {ArgumentList{2, 2}, ArgumentList{1, 1}, ArgumentList{1, 1}, ArgumentList{2, 2}});
  t["aten::max_unpool2d.default"] = [](S& s) {
    return one(s.call("aten::max_unpool2d", {s.f32({1, 1, 2, 2}), s.tensor(kI64, {1, 1, 2, 2}), ArgumentList{4, 4}}, S::meta({1, 1, 4, 4})));
  };
  t["aten::max_unpool3d.default"] = [](S& s) {
    return one(s.call("aten::max_unpool3d", {s.f32({1, 1, 1, 2, 2}), s.tensor(kI64, {1, 1, 1, 2, 2}), ArgumentList{2, 4, 4},
                                             ArgumentList{2, 2, 2}, ArgumentList{0, 0, 0}},
                      S::meta({1, 1, 2, 4, 4})));
  };
  t["aten::upsample_nearest3d.default"] = unary("aten::upsample_nearest3d", {1, 1, 2, 3, 3}, S::meta({1, 1, 4, 6, 5}), {ArgumentList{4, 6, 5}});
  t["aten::upsample_nearest3d.vec"] = unary("aten::upsample_nearest3d.vec", {1, 1, 2, 3, 3}, S::meta({1, 1, 4, 6, 6}),
                                            {None{}, ArgumentList{2.0, 2.0, 2.0}});
  t["aten::upsample_trilinear3d.vec"] = unary("aten::upsample_trilinear3d.vec", {1, 1, 2, 3, 3}, S::meta({1, 1, 3, 5, 4}),
                                              {ArgumentList{3, 5, 4}, false, None{}});
}

void add_index(std::map<std::string, SampleBuilder>& t) {
  const TensorMeta f23 = S::meta({2, 3});
  t["aten::copy.default"] = binary("aten::copy", {2, 3}, {3}, f23);
  t["aten::sym_numel.default"] = [](S& s) {
    Node* x = s.f32({2, 3});
    Node* n = call_with_meta(s.b, "aten::sym_numel", {x}, SymExpr::symbol("u0"));
    return one(s.call("aten::mul.Scalar", {x, n}, S::meta({2, 3})));
  };
  t["aten::_reshape_alias.default"] = unary("aten::_reshape_alias", {2, 3}, S::meta({3, 2}), {ArgumentList{3, 2}, ArgumentList{2, 1}});
  t["aten::_dim_arange.default"] = [](S& s) {
    Node* range = s.call("aten::_dim_arange", {s.f32({2, 3}), 1}, S::meta(kI64, {3}));
    return one(s.call("aten::add.Tensor", {range, s.tensor(kI64, {3})}, S::meta(kI64, {3})));
  };
  t["aten::squeeze_copy.dim"] = unary("aten::squeeze_copy.dim", {2, 1, 3}, f23, {1});
  t["aten::squeeze_copy.default"] = unary("aten::squeeze_copy", {2, 1, 3}, f23);
  t["aten::t_copy.default"] = unary("aten::t_copy", {2, 3}, S::meta({3, 2}));
  t["aten::sum_to_size.default"] = unary("aten::sum_to_size", {2, 3}, S::meta({1, 3}), {ArgumentList{1, 3}});
  t["aten::resize_as.default"] = binary("aten::resize_as", {2, 3}, {6}, S::meta({6}));
  t["aten::flatten_dense_tensors.default"] = [](S& s) {
    return one(s.call("aten::flatten_dense_tensors", {Argument(ArgumentList{s.f32({2, 3}), s.f32({4})})}, S::meta({10})));
  };
  t["aten::unflatten_dense_tensors.default"] = [](S& s) {
    Node* call = s.call("aten::unflatten_dense_tensors", {s.f32({10}), Argument(ArgumentList{s.f32({2, 3}), s.f32({4})})},
                        std::vector<TensorMeta>{S::meta({2, 3}), S::meta({4})});
    return items(s, call, 2);
  };
  t["aten::argsort.default"] = unary("aten::argsort", {2, 3}, S::meta(kI64, {2, 3}));
  t["aten::argsort.stable"] = [](S& s) {
    return one(s.call("aten::argsort.stable", {s.f32({2, 3})}, S::meta(kI64, {2, 3}), {{"stable", true}, {"dim", 0}}));
  };
  t["aten::msort.default"] = unary("aten::msort", {2, 3}, f23);
  t["aten::take.default"] = [](S& s) { return one(s.call("aten::take", {s.f32({2, 3}), s.tensor(kI64, {4})}, S::meta({4}))); };
  t["aten::index_add.default"] = [](S& s) {
    return one(s.call("aten::index_add", {s.f32({3, 4}), 1, s.tensor(kI64, {2}), s.f32({3, 2})}, S::meta({3, 4}), {{"alpha", 2}}));
  };
  t["aten::index_fill.int_Scalar"] = [](S& s) {
    return one(s.call("aten::index_fill.int_Scalar", {s.f32({3, 4}), 1, s.tensor(kI64, {2}), 1.5}, S::meta({3, 4})));
  };
  t["aten::index_fill.int_Tensor"] = [](S& s) {
    return one(s.call("aten::index_fill.int_Tensor", {s.f32({3, 4}), 0, s.tensor(kI64, {2}), s.tensor(kF64, {})}, S::meta({3, 4})));
  };
  t["aten::isin.Tensor_Tensor"] = [](S& s) {
    return one(s.call("aten::isin.Tensor_Tensor", {s.tensor(kI64, {2, 3}), s.tensor(kI64, {4})}, S::meta(kBool, {2, 3})));
  };
  t["aten::isin.Tensor_Scalar"] = [](S& s) {
    return one(s.call("aten::isin.Tensor_Scalar", {s.tensor(kI64, {2, 3}), 1}, S::meta(kBool, {2, 3}), {{"invert", true}}));
  };
  t["aten::isin.Scalar_Tensor"] = [](S& s) {
    return one(s.call("aten::isin.Scalar_Tensor", {1, s.tensor(kI64, {4})}, S::meta(kBool, {})));
  };
  t["aten::fft_fftshift.default"] = unary("aten::fft_fftshift", {2, 5}, S::meta({2, 5}));
  t["aten::fft_ifftshift.default"] = unary("aten::fft_ifftshift", {2, 5}, S::meta({2, 5}), {ArgumentList{1}});
  t["aten::_pad_circular.default"] = unary("aten::_pad_circular", {1, 2, 4}, S::meta({1, 2, 7}), {ArgumentList{2, 1}});
  t["aten::_pad_enum.default"] = unary("aten::_pad_enum", {1, 2, 4}, S::meta({1, 2, 7}), {ArgumentList{2, 1}, 1});
  t["aten::exp2.default"] = unary("aten::exp2", {2, 3}, f23);
  t["aten::special_xlog1py.default"] = binary("aten::special_xlog1py", {2, 3}, {2, 3}, f23);
  t["aten::special_xlog1py.other_scalar"] = unary("aten::special_xlog1py.other_scalar", {2, 3}, f23, {0.5});
  t["aten::special_xlog1py.self_scalar"] = [=](S& s) { return one(s.call("aten::special_xlog1py.self_scalar", {2.0, s.f32({2, 3})}, f23)); };
  t["aten::special_xlogy.default"] = binary("aten::special_xlogy", {2, 3}, {2, 3}, f23);
  t["aten::special_xlogy.other_scalar"] = unary("aten::special_xlogy.other_scalar", {2, 3}, f23, {2.0});
  t["aten::special_xlogy.self_scalar"] = [=](S& s) { return one(s.call("aten::special_xlogy.self_scalar", {2.0, s.f32({2, 3})}, f23)); };
  t["aten::xlogy.Scalar_Self"] = [=](S& s) { return one(s.call("aten::xlogy.Scalar_Self", {2.0, s.f32({2, 3})}, f23)); };
  t["aten::special_entr.default"] = unary("aten::special_entr", {2, 3}, f23);
  t["aten::special_round.default"] = [=](S& s) { return one(s.call("aten::special_round", {s.f32({2, 3})}, f23, {{"decimals", 1}})); };
  t["aten::special_softmax.default"] = unary("aten::special_softmax", {2, 3}, f23, {1});
  t["aten::special_log_softmax.default"] = unary("aten::special_log_softmax", {2, 3}, f23, {1});
}

void add_linalg(std::map<std::string, SampleBuilder>& t) {
  const TensorMeta scalar = S::meta({});
  t["aten::cross.default"] = binary("aten::cross", {2, 3}, {2, 3}, S::meta({2, 3}), {1});
  t["aten::linalg_cross.default"] = binary("aten::linalg_cross", {2, 3}, {1, 3}, S::meta({2, 3}));
  t["aten::linalg_vecdot.default"] = binary("aten::linalg_vecdot", {2, 3}, {2, 3}, S::meta({2}));
  t["aten::linalg_norm.default"] = unary("aten::linalg_norm", {2, 3}, S::meta({2}), {3, ArgumentList{1}});
  t["aten::linalg_norm.ord_str"] = unary("aten::linalg_norm.ord_str", {2, 3}, scalar, {"fro"});
  t["aten::linalg_matrix_norm.default"] = unary("aten::linalg_matrix_norm", {2, 3, 4}, S::meta({2}), {1});
  t["aten::linalg_matrix_norm.str_ord"] = unary("aten::linalg_matrix_norm.str_ord", {2, 3, 4}, S::meta({2}));
  t["aten::linalg_multi_dot.default"] = [=](S& s) {
    return one(s.call("aten::linalg_multi_dot", {Argument(ArgumentList{s.f32({3}), s.f32({3, 4}), s.f32({4, 2})})}, S::meta({2})));
  };
  t["aten::chain_matmul.default"] = [=](S& s) {
    return one(s.call("aten::chain_matmul", {Argument(ArgumentList{s.f32({2, 3}), s.f32({3, 4}), s.f32({4, 2})})}, S::meta({2, 2})));
  };
  t["aten::matrix_power.default"] = unary("aten::matrix_power", {2, 3, 3}, S::meta({2, 3, 3}), {3});
  t["aten::block_diag.default"] = [=](S& s) {
    return one(s.call("aten::block_diag", {Argument(ArgumentList{s.f32({2, 3}), s.f32({3}), s.f32({})})}, S::meta({4, 7})));
  };
  t["aten::renorm.default"] = unary("aten::renorm", {3, 4}, S::meta({3, 4}), {2, 0, 0.5});
  t["aten::norm_except_dim.default"] = unary("aten::norm_except_dim", {3, 4}, S::meta({3, 1}), {2, 0});
  t["aten::_weight_norm.default"] = binary("aten::_weight_norm", {3, 4}, {3, 1}, S::meta({3, 4}));
  t["aten::_weight_norm_interface.default"] = [=](S& s) {
    return items(s, s.call("aten::_weight_norm_interface", {s.f32({3, 4}), s.f32({3, 1})}, std::vector<TensorMeta>{S::meta({3, 4}), S::meta({3, 1})}),
                 2);
  };
  t["aten::_euclidean_dist.default"] = binary("aten::_euclidean_dist", {2, 3}, {4, 3}, S::meta({2, 4}));
  t["aten::baddbmm.dtype"] = [=](S& s) {
    return one(s.call("aten::baddbmm.dtype", {s.f32({1, 2, 2}), s.f32({1, 2, 3}), s.f32({1, 3, 2}), kF64}, S::meta(kF64, {1, 2, 2})));
  };
  t["aten::trapezoid.dx"] = [=](S& s) { return one(s.call("aten::trapezoid.dx", {s.f32({2, 5})}, S::meta({2}), {{"dx", 0.5}})); };
  t["aten::trapezoid.x"] = binary("aten::trapezoid.x", {2, 5}, {5}, S::meta({2}));
  t["aten::cumulative_trapezoid.dx"] = [=](S& s) {
    return one(s.call("aten::cumulative_trapezoid.dx", {s.f32({2, 5})}, S::meta({2, 4}), {{"dx", 0.5}}));
  };
  t["aten::cumulative_trapezoid.x"] = binary("aten::cumulative_trapezoid.x", {2, 5}, {5}, S::meta({2, 4}));
  t["aten::trapz.dx"] = [=](S& s) { return one(s.call("aten::trapz.dx", {s.f32({2, 5})}, S::meta({2}), {{"dx", 0.5}})); };
  t["aten::vander.default"] = unary("aten::vander", {4}, S::meta({4, 3}), {3});
  t["aten::linalg_vander.default"] = unary("aten::linalg_vander", {2, 3}, S::meta({2, 3, 3}));
  t["aten::cov.default"] = unary("aten::cov", {2, 5}, S::meta({2, 2}));
  t["aten::corrcoef.default"] = unary("aten::corrcoef", {2, 5}, S::meta({2, 2}));
  t["aten::affine_grid_generator.default"] = unary("aten::affine_grid_generator", {2, 2, 3}, S::meta({2, 3, 4, 2}),
                                                   {ArgumentList{2, 1, 3, 4}, false});
}

}  // namespace

void add_conv_index_linalg_samples(std::map<std::string, SampleBuilder>& samples) {
  add_conv(samples);
  add_index(samples);
  add_linalg(samples);
}

}  // namespace kiln::aot::testing
