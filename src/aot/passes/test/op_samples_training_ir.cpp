// Sample calls of the training-IR ops decomposed by decompose_elementwise,
// decompose_reduce and decompose_shape (and the nn ops beside them): small
// shapes, metas as torch records them.
#include "aot/passes/test/op_samples.h"

namespace kiln::aot::testing {
namespace {

using S = Sample;

void add_elementwise(std::map<std::string, SampleBuilder>& t) {
  const TensorMeta f23 = S::meta({2, 3}), b23 = S::meta(kBool, {2, 3});
  t["aten::addcmul.default"] = [=](S& s) {
    return one(s.call("aten::addcmul", {s.f32({2, 3}), s.f32({2, 3}), s.f32({3})}, f23, {{"value", 0.5}}));
  };
  t["aten::addcdiv.default"] = [=](S& s) {
    return one(s.call("aten::addcdiv", {s.f32({2, 3}), s.f32({2, 3}), s.f32({2, 3})}, f23, {{"value", 2.0}}));
  };
  t["aten::lerp.Scalar"] = binary("aten::lerp.Scalar", {2, 3}, {2, 3}, f23, {0.75});
  t["aten::lerp.Tensor"] = [=](S& s) { return one(s.call("aten::lerp.Tensor", {s.f32({2, 3}), s.f32({2, 3}), s.f32({2, 3})}, f23)); };
  t["aten::logaddexp.default"] = binary("aten::logaddexp", {2, 3}, {2, 3}, f23);
  t["aten::logaddexp2.default"] = binary("aten::logaddexp2", {2, 3}, {3}, f23);
  t["aten::logit.default"] = unary("aten::logit", {2, 3}, f23, {1e-6});
  t["aten::xlogy.Tensor"] = binary("aten::xlogy.Tensor", {2, 3}, {2, 3}, f23);
  t["aten::xlogy.Scalar_Other"] = unary("aten::xlogy.Scalar_Other", {2, 3}, f23, {2.0});
  t["aten::sinc.default"] = unary("aten::sinc", {2, 3}, f23);
  t["aten::deg2rad.default"] = unary("aten::deg2rad", {2, 3}, f23);
  t["aten::rad2deg.default"] = unary("aten::rad2deg", {2, 3}, f23);
  t["aten::frac.default"] = unary("aten::frac", {2, 3}, f23);
  t["aten::heaviside.default"] = binary("aten::heaviside", {2, 3}, {3}, f23);
  t["aten::square.default"] = unary("aten::square", {2, 3}, f23);
  t["aten::rsub.Tensor"] = binary("aten::rsub.Tensor", {2, 3}, {2, 3}, f23);
  t["aten::rsub.Scalar"] = unary("aten::rsub.Scalar", {2, 3}, f23, {1.0});
  t["aten::sgn.default"] = unary("aten::sgn", {2, 3}, f23);
  t["aten::floor_divide.default"] = binary("aten::floor_divide", {2, 3}, {2, 3}, f23);
  t["aten::floor_divide.Scalar"] = unary("aten::floor_divide.Scalar", {2, 3}, f23, {0.3});
  t["aten::float_power.Tensor_Tensor"] = binary("aten::float_power.Tensor_Tensor", {2, 3}, {2, 3}, S::meta(kF64, {2, 3}));
  t["aten::float_power.Tensor_Scalar"] = unary("aten::float_power.Tensor_Scalar", {2, 3}, S::meta(kF64, {2, 3}), {2.0});
  t["aten::float_power.Scalar"] = [](S& s) {
    return one(s.call("aten::float_power.Scalar", {2.0, s.f32({2, 3})}, S::meta(kF64, {2, 3})));
  };
  t["aten::clamp_min.Tensor"] = binary("aten::clamp_min.Tensor", {2, 3}, {3}, f23);
  t["aten::clamp_max.Tensor"] = binary("aten::clamp_max.Tensor", {2, 3}, {3}, f23);
  t["aten::hardshrink.default"] = unary("aten::hardshrink", {2, 3}, f23, {0.15});
  t["aten::softshrink.default"] = unary("aten::softshrink", {2, 3}, f23, {0.15});
  t["aten::celu.default"] = unary("aten::celu", {2, 3}, f23, {0.5});
  t["aten::selu.default"] = unary("aten::selu", {2, 3}, f23);
  t["aten::relu6.default"] = unary("aten::relu6", {2, 3}, f23);
  t["aten::softplus.default"] = unary("aten::softplus", {2, 3}, f23, {2.0, 0.2});
  t["aten::threshold.default"] = unary("aten::threshold", {2, 3}, f23, {0.1, 20.0});
  t["aten::glu.default"] = unary("aten::glu", {2, 4}, S::meta({2, 2}));
  t["aten::log_sigmoid.default"] = unary("aten::log_sigmoid", {2, 3}, f23);
  t["aten::log_sigmoid_forward.default"] = [=](S& s) {
    Node* call = s.call("aten::log_sigmoid_forward", {s.f32({2, 3})}, std::vector<TensorMeta>{f23, S::meta({0})});
    return items(s, call, 1);
  };
  t["aten::nan_to_num.default"] = unary("aten::nan_to_num", {2, 3}, f23, {0.0, 1.0});
  t["aten::isfinite.default"] = unary("aten::isfinite", {2, 3}, b23);
  t["aten::isposinf.default"] = unary("aten::isposinf", {2, 3}, b23);
  t["aten::isneginf.default"] = unary("aten::isneginf", {2, 3}, b23);
  t["aten::isreal.default"] = unary("aten::isreal", {2, 3}, b23);
  t["aten::isclose.default"] = binary("aten::isclose", {2, 3}, {2, 3}, b23, {1e-5, 1e-8, true});
  t["aten::where.Scalar"] = [=](S& s) { return one(s.call("aten::where.Scalar", {s.tensor(kBool, {2, 3}), 1.0, 0.5}, f23)); };
  t["aten::masked_fill.Tensor"] = [=](S& s) {
    return one(s.call("aten::masked_fill.Tensor", {s.f32({2, 3}), s.tensor(kBool, {2, 3}), s.f32({})}, f23));
  };
  t["aten::lift_fresh_copy.default"] = unary("aten::lift_fresh_copy", {2, 3}, f23);
  t["aten::lift_fresh.default"] = [=](S& s) {
    return one(s.call("aten::add.Tensor", {s.call("aten::lift_fresh", {s.f32({2, 3})}, f23), s.f32({2, 3})}, f23));
  };
  for (const auto& [name, dtype] : std::vector<std::pair<std::string, ScalarType>>{
           {"Byte", ScalarType::Byte}, {"Char", ScalarType::Char}, {"Double", kF64}, {"Float", kF32},
           {"Half", ScalarType::Half}, {"Int", kI32}, {"Long", kI64}, {"Short", ScalarType::Short}}) {
    t["aten::_cast_" + name + ".default"] = unary("aten::_cast_" + name, {2, 3}, S::meta(dtype, {2, 3}));
  }
}

void add_reductions(std::map<std::string, SampleBuilder>& t) {
  const TensorMeta f2 = S::meta({2}), scalar = S::meta({});
  t["aten::var.default"] = unary("aten::var", {2, 3}, scalar);
  t["aten::std.default"] = unary("aten::std", {2, 3}, scalar, {false});
  t["aten::std.dim"] = unary("aten::std.dim", {2, 3}, f2, {ArgumentList{1}});
  t["aten::std.correction"] = [=](S& s) {
    return one(s.call("aten::std.correction", {s.f32({2, 3}), ArgumentList{1}}, S::meta({2, 1}), {{"correction", 0}, {"keepdim", true}}));
  };
  for (const std::string op : {"var_mean", "std_mean"}) {
    t["aten::" + op + ".default"] = [=](S& s) {
      return items(s, s.call("aten::" + op, {s.f32({2, 3})}, std::vector<TensorMeta>{scalar, scalar}), 2);
    };
    t["aten::" + op + ".dim"] = [=](S& s) {
      return items(s, s.call("aten::" + op + ".dim", {s.f32({2, 3}), ArgumentList{1}}, std::vector<TensorMeta>{f2, f2}), 2);
    };
    t["aten::" + op + ".correction"] = [=](S& s) {
      return items(s, s.call("aten::" + op + ".correction", {s.f32({2, 3}), ArgumentList{0}}, std::vector<TensorMeta>{S::meta({3}), S::meta({3})},
                             {{"correction", 0}}),
                   2);
    };
  }
  t["aten::nansum.default"] = unary("aten::nansum", {2, 3}, f2, {ArgumentList{1}});
  t["aten::nanmean.default"] = unary("aten::nanmean", {2, 3}, scalar);
  t["aten::logsumexp.default"] = unary("aten::logsumexp", {2, 3}, f2, {ArgumentList{1}});
  t["aten::count_nonzero.dim_IntList"] = unary("aten::count_nonzero.dim_IntList", {2, 3}, S::meta(kI64, {2}), {ArgumentList{1}});
  t["aten::count_nonzero.default"] = unary("aten::count_nonzero", {2, 3}, S::meta(kI64, {}));
  t["aten::aminmax.default"] = [=](S& s) {
    return items(s, s.call("aten::aminmax", {s.f32({2, 3})}, std::vector<TensorMeta>{f2, f2}, {{"dim", 1}}), 2);
  };
  t["aten::norm.Scalar"] = unary("aten::norm.Scalar", {2, 3}, scalar, {3});
  t["aten::norm.ScalarOpt_dim"] = unary("aten::norm.ScalarOpt_dim", {2, 3}, f2, {1, ArgumentList{1}});
  t["aten::norm.ScalarOpt_dim_dtype"] = [=](S& s) {
    return one(s.call("aten::norm.ScalarOpt_dim_dtype", {s.f32({2, 3}), 2, ArgumentList{1}, false}, S::meta(kF64, {2}), {{"dtype", kF64}}));
  };
  t["aten::norm.ScalarOpt_dtype"] = [=](S& s) {
    return one(s.call("aten::norm.ScalarOpt_dtype", {s.f32({2, 3}), 2}, S::meta(kF64, {}), {{"dtype", kF64}}));
  };
  t["aten::frobenius_norm.dim"] = unary("aten::frobenius_norm.dim", {2, 3}, f2, {ArgumentList{1}});
  t["aten::trace.default"] = unary("aten::trace", {3, 3}, scalar);
  t["aten::dot.default"] = binary("aten::dot", {4}, {4}, scalar);
  t["aten::vdot.default"] = binary("aten::vdot", {4}, {4}, scalar);
  t["aten::mv.default"] = binary("aten::mv", {2, 4}, {4}, f2);
  t["aten::outer.default"] = binary("aten::outer", {2}, {3}, S::meta({2, 3}));
  t["aten::inner.default"] = binary("aten::inner", {2, 4}, {3, 4}, S::meta({2, 3}));
  t["aten::addr.default"] = [=](S& s) {
    return one(s.call("aten::addr", {s.f32({2, 3}), s.f32({2}), s.f32({3})}, S::meta({2, 3}), {{"beta", 0.5}, {"alpha", 2}}));
  };
  t["aten::baddbmm.default"] = [=](S& s) {
    return one(s.call("aten::baddbmm", {s.f32({2, 2, 3}), s.f32({2, 2, 4}), s.f32({2, 4, 3})}, S::meta({2, 2, 3}), {{"beta", 0.5}}));
  };
  t["aten::tensordot.default"] = [=](S& s) {
    return one(s.call("aten::tensordot", {s.f32({2, 3, 4}), s.f32({4, 3, 5}), ArgumentList{1, 2}, ArgumentList{1, 0}}, S::meta({2, 5})));
  };
  t["aten::kron.default"] = binary("aten::kron", {2, 3}, {2, 2}, S::meta({4, 6}));
}

void add_shapes(std::map<std::string, SampleBuilder>& t) {
  const TensorMeta f33 = S::meta({3, 3});
  t["aten::tril.default"] = unary("aten::tril", {3, 4}, S::meta({3, 4}), {1});
  t["aten::triu.default"] = unary("aten::triu", {3, 4}, S::meta({3, 4}), {-1});
  t["aten::eye.default"] = [=](S& s) {
    return one(s.call("aten::add.Tensor", {s.call("aten::eye", {3}, f33), s.f32({3, 3})}, f33));
  };
  t["aten::eye.m"] = [=](S& s) {
    return one(s.call("aten::add.Tensor", {s.call("aten::eye.m", {3, 2}, S::meta({3, 2})), s.f32({3, 2})}, S::meta({3, 2})));
  };
  t["aten::diag_embed.default"] = unary("aten::diag_embed", {2, 3}, S::meta({2, 4, 4}), {1});
  t["aten::diag.default"] = unary("aten::diag", {3}, S::meta({5, 5}), {-2});
  t["aten::diagflat.default"] = unary("aten::diagflat", {2, 2}, S::meta({4, 4}));
  t["aten::tile.default"] = unary("aten::tile", {2, 3}, S::meta({2, 4, 3}), {ArgumentList{2, 2, 1}});
  const auto stack = [](const std::string& op, Sizes a, TensorMeta out) -> SampleBuilder {
    return [=](S& s) { return one(s.call(op, {Argument(ArgumentList{s.f32(a), s.f32(a)})}, out)); };
  };
  t["aten::hstack.default"] = stack("aten::hstack", {2, 3}, S::meta({2, 6}));
  t["aten::vstack.default"] = stack("aten::vstack", {3}, S::meta({2, 3}));
  t["aten::dstack.default"] = stack("aten::dstack", {2, 3}, S::meta({2, 3, 2}));
  t["aten::column_stack.default"] = stack("aten::column_stack", {3}, S::meta({3, 2}));
  for (int n : {1, 2, 3}) {
    const std::string op = "aten::atleast_" + std::to_string(n) + "d.Sequence";
    Sizes out = n == 1 ? Sizes{1} : n == 2 ? Sizes{1, 1} : Sizes{1, 1, 1};
    t[op] = [=](S& s) {
      return items(s, s.call(op, {Argument(ArgumentList{s.f32({}), s.f32({2, 3, 4})})}, std::vector<TensorMeta>{S::meta(out), S::meta({2, 3, 4})}), 2);
    };
  }
  t["aten::broadcast_tensors.default"] = [](S& s) {
    return items(s, s.call("aten::broadcast_tensors", {Argument(ArgumentList{s.f32({2, 1}), s.f32({3})})},
                           std::vector<TensorMeta>{S::meta({2, 3}), S::meta({2, 3})}),
                 2);
  };
  t["aten::meshgrid.default"] = [](S& s) {
    return items(s, s.call("aten::meshgrid", {Argument(ArgumentList{s.f32({2}), s.f32({3})})}, std::vector<TensorMeta>{S::meta({2, 3}), S::meta({2, 3})}), 2);
  };
  t["aten::meshgrid.indexing"] = [](S& s) {
    return items(s, s.call("aten::meshgrid.indexing", {Argument(ArgumentList{s.f32({2}), s.f32({3})})},
                           std::vector<TensorMeta>{S::meta({3, 2}), S::meta({3, 2})}, {{"indexing", "xy"}}),
                 2);
  };
  t["aten::unbind.int"] = [](S& s) {
    return items(s, s.call("aten::unbind.int", {s.f32({2, 3}), 1}, std::vector<TensorMeta>(3, S::meta({2}))), 3);
  };
  t["aten::numpy_T.default"] = unary("aten::numpy_T", {2, 3, 4}, S::meta({4, 3, 2}));
  t["aten::flipud.default"] = unary("aten::flipud", {2, 3}, S::meta({2, 3}));
  t["aten::fliplr.default"] = unary("aten::fliplr", {2, 3}, S::meta({2, 3}));
  t["aten::rot90.default"] = unary("aten::rot90", {2, 3}, S::meta({3, 2}), {1, ArgumentList{0, 1}});
  t["aten::movedim.int"] = unary("aten::movedim.int", {2, 3, 4}, S::meta({3, 4, 2}), {0, -1});
  t["aten::movedim.intlist"] = unary("aten::movedim.intlist", {2, 3, 4}, S::meta({4, 2, 3}), {ArgumentList{2}, ArgumentList{0}});
  t["aten::pixel_shuffle.default"] = unary("aten::pixel_shuffle", {1, 8, 2, 3}, S::meta({1, 2, 4, 6}), {2});
  t["aten::pixel_unshuffle.default"] = unary("aten::pixel_unshuffle", {1, 2, 4, 6}, S::meta({1, 8, 2, 3}), {2});
  t["aten::channel_shuffle.default"] = unary("aten::channel_shuffle", {1, 6, 2}, S::meta({1, 6, 2}), {2});
  t["aten::native_channel_shuffle.default"] = unary("aten::native_channel_shuffle", {1, 6, 2}, S::meta({1, 6, 2}), {3});
  t["aten::repeat_interleave.self_int"] = unary("aten::repeat_interleave.self_int", {2, 3}, S::meta({2, 6}), {2, 1});
  t["aten::take_along_dim.default"] = [](S& s) {
    return one(s.call("aten::take_along_dim", {s.f32({2, 3}), s.tensor(kI64, {2, 2}), 1}, S::meta({2, 2})));
  };
  t["aten::one_hot.default"] = [](S& s) { return one(s.call("aten::one_hot", {s.tensor(kI64, {4}), 3}, S::meta(kI64, {4, 3}))); };
  t["aten::_unsafe_index.Tensor"] = [](S& s) {
    return one(s.call("aten::_unsafe_index.Tensor", {s.f32({3, 2}), ArgumentList{s.tensor(kI64, {2})}}, S::meta({2, 2})));
  };
  t["aten::_unsafe_index_put.default"] = [](S& s) {
    return one(s.call("aten::_unsafe_index_put", {s.f32({3, 2}), ArgumentList{s.tensor(kI64, {2})}, s.f32({2, 2})}, S::meta({3, 2})));
  };
  t["aten::_unsafe_masked_index.default"] = [](S& s) {
    return one(s.call("aten::_unsafe_masked_index", {s.f32({3, 2}), s.tensor(kBool, {2, 2}), ArgumentList{s.tensor(kI64, {2})}, 0.5},
                      S::meta({2, 2})));
  };
  t["aten::_unsafe_masked_index_put_accumulate.default"] = [](S& s) {
    return one(s.call("aten::_unsafe_masked_index_put_accumulate",
                      {s.f32({3, 2}), s.tensor(kBool, {2, 2}), ArgumentList{s.tensor(kI64, {2})}, s.f32({2, 2})}, S::meta({3, 2})));
  };
  t["aten::unsafe_split.Tensor"] = [](S& s) {
    return items(s, s.call("aten::unsafe_split.Tensor", {s.f32({4, 3}), 2}, std::vector<TensorMeta>(2, S::meta({2, 3}))), 2);
  };
  t["aten::unsafe_split_with_sizes.default"] = [](S& s) {
    return items(s, s.call("aten::unsafe_split_with_sizes", {s.f32({4, 3}), ArgumentList{1, 3}},
                           std::vector<TensorMeta>{S::meta({1, 3}), S::meta({3, 3})}),
                 2);
  };
  t["aten::linspace.default"] = [](S& s) {
    return one(s.call("aten::add.Tensor", {s.call("aten::linspace", {-1.0, 2.0, 7}, S::meta({7})), s.f32({7})}, S::meta({7})));
  };
  t["aten::logspace.default"] = [](S& s) {
    return one(s.call("aten::add.Tensor", {s.call("aten::logspace", {-1.0, 2.0, 7, 2.0}, S::meta({7})), s.f32({7})}, S::meta({7})));
  };
  t["aten::linspace.Tensor_Tensor"] = [](S& s) {
    return one(s.call("aten::add.Tensor", {s.call("aten::linspace.Tensor_Tensor", {s.f32({}), s.f32({}), 5}, S::meta({5})), s.f32({5})}, S::meta({5})));
  };
  t["aten::linspace.Tensor_Scalar"] = [](S& s) { return one(s.call("aten::linspace.Tensor_Scalar", {s.f32({}), 2.0, 5}, S::meta({5}))); };
  t["aten::linspace.Scalar_Tensor"] = [](S& s) { return one(s.call("aten::linspace.Scalar_Tensor", {-1.0, s.f32({}), 5}, S::meta({5}))); };
  t["aten::logspace.Tensor_Tensor"] = [](S& s) {
    return one(s.call("aten::logspace.Tensor_Tensor", {s.f32({}), s.f32({}), 5, 2.0}, S::meta({5})));
  };
  t["aten::logspace.Tensor_Scalar"] = [](S& s) { return one(s.call("aten::logspace.Tensor_Scalar", {s.f32({}), 2.0, 5}, S::meta({5}))); };
  t["aten::logspace.Scalar_Tensor"] = [](S& s) { return one(s.call("aten::logspace.Scalar_Tensor", {-1.0, s.f32({}), 5}, S::meta({5}))); };
  t["aten::empty_like.default"] = [](S& s) {
    Node* x = s.f32({2, 3});
    return one(s.call("aten::mul.Tensor", {s.call("aten::empty_like", {x}, S::meta({2, 3})), x}, S::meta({2, 3})));
  };
  t["aten::new_empty.default"] = [](S& s) {
    Node* x = s.f32({2, 3});
    return one(s.call("aten::mul.Tensor", {s.call("aten::new_empty", {x, ArgumentList{3}}, S::meta({3})), x}, S::meta({2, 3})));
  };
  t["aten::new_full.default"] = [](S& s) {
    Node* x = s.f32({2, 3});
    return one(s.call("aten::mul.Tensor", {s.call("aten::new_full", {x, ArgumentList{3}, 2.5}, S::meta({3})), x}, S::meta({2, 3})));
  };
  t["aten::fill.Tensor"] = [](S& s) { return one(s.call("aten::fill.Tensor", {s.f32({2, 3}), s.tensor(kF64, {})}, S::meta({2, 3}))); };
}

void add_losses(std::map<std::string, SampleBuilder>& t) {
  const TensorMeta scalar = S::meta({});
  t["aten::mse_loss.default"] = binary("aten::mse_loss", {2, 3}, {2, 3}, scalar);
  t["aten::l1_loss.default"] = binary("aten::l1_loss", {2, 3}, {2, 3}, S::meta({2, 3}), {0});
  t["aten::smooth_l1_loss.default"] = binary("aten::smooth_l1_loss", {2, 3}, {2, 3}, scalar, {2, 0.5});
  t["aten::huber_loss.default"] = binary("aten::huber_loss", {2, 3}, {2, 3}, scalar, {1, 0.5});
  t["aten::binary_cross_entropy.default"] = binary("aten::binary_cross_entropy", {2, 3}, {2, 3}, scalar);
  t["aten::binary_cross_entropy_with_logits.default"] = [=](S& s) {
    return one(s.call("aten::binary_cross_entropy_with_logits", {s.f32({2, 3}), s.f32({2, 3}), None{}, s.f32({3})}, scalar));
  };
  t["aten::kl_div.default"] = binary("aten::kl_div", {2, 3}, {2, 3}, scalar);
  for (const std::string op : {"nll_loss", "nll_loss_nd"}) {
    t["aten::" + op + ".default"] = [=](S& s) { return one(s.call("aten::" + op, {s.f32({2, 3}), s.tensor(kI64, {2})}, scalar)); };
  }
  t["aten::nll_loss2d.default"] = [=](S& s) {
    return one(s.call("aten::nll_loss2d", {s.f32({1, 3, 2, 2}), s.tensor(kI64, {1, 2, 2})}, scalar));
  };
  t["aten::nll_loss_forward.default"] = [=](S& s) {
    return items(s, s.call("aten::nll_loss_forward", {s.f32({2, 3}), s.tensor(kI64, {2}), s.f32({3}), 1, -100},
                           std::vector<TensorMeta>{scalar, scalar}),
                 2);
  };
  t["aten::nll_loss2d_forward.default"] = [=](S& s) {
    return items(s, s.call("aten::nll_loss2d_forward", {s.f32({1, 3, 2, 2}), s.tensor(kI64, {1, 2, 2}), None{}, 0, 1},
                           std::vector<TensorMeta>{S::meta({1, 2, 2}), scalar}),
                 2);
  };
  t["aten::cross_entropy_loss.default"] = [=](S& s) {
    return one(s.call("aten::cross_entropy_loss", {s.f32({2, 3}), s.tensor(kI64, {2})}, scalar));
  };
}

void add_layers(std::map<std::string, SampleBuilder>& t) {
  t["aten::rms_norm.default"] = [](S& s) { return one(s.call("aten::rms_norm", {s.f32({2, 4}), ArgumentList{4}, s.f32({4})}, S::meta({2, 4}))); };
  t["aten::_fused_rms_norm.default"] = [](S& s) {
    return items(s, s.call("aten::_fused_rms_norm", {s.f32({2, 4}), ArgumentList{4}, s.f32({4}), 1e-5},
                           std::vector<TensorMeta>{S::meta({2, 4}), S::meta({2, 1})}),
                 2);
  };
  t["aten::instance_norm.default"] = [](S& s) {
    return one(s.call("aten::instance_norm", {s.f32({2, 3, 4}), s.f32({3}), s.f32({3}), None{}, None{}, true, 0.1, 1e-5, false},
                      S::meta({2, 3, 4})));
  };
  t["aten::prelu.default"] = binary("aten::prelu", {2, 3, 4}, {3}, S::meta({2, 3, 4}));
  t["aten::_prelu_kernel.default"] = binary("aten::_prelu_kernel", {2, 3}, {3}, S::meta({2, 3}));
  t["aten::_scaled_dot_product_attention_math.default"] = [](S& s) {
    Node* call = s.call("aten::_scaled_dot_product_attention_math", {s.f32({1, 2, 4, 8}), s.f32({1, 2, 4, 8}), s.f32({1, 2, 4, 8})},
                        std::vector<TensorMeta>{S::meta({1, 2, 4, 8}), S::meta({1, 2, 4, 4})});
    return items(s, call, 1);
  };
  t["aten::_scaled_dot_product_flash_attention_for_cpu.default"] = [](S& s) {
    Node* call = s.call("aten::_scaled_dot_product_flash_attention_for_cpu", {s.f32({1, 2, 4, 8}), s.f32({1, 2, 4, 8}), s.f32({1, 2, 4, 8})},
                        std::vector<TensorMeta>{S::meta({1, 2, 4, 8}), S::meta({1, 2, 4})});
    return items(s, call, 1);
  };
  t["aten::_safe_softmax.default"] = unary("aten::_safe_softmax", {2, 3}, S::meta({2, 3}), {1});
  t["aten::cosine_similarity.default"] = binary("aten::cosine_similarity", {2, 3}, {2, 3}, S::meta({2}));
  t["aten::pairwise_distance.default"] = binary("aten::pairwise_distance", {2, 3}, {2, 3}, S::meta({2}));
  t["aten::bilinear.default"] = [](S& s) {
    return one(s.call("aten::bilinear", {s.f32({2, 3}), s.f32({2, 4}), s.f32({5, 3, 4}), s.f32({5})}, S::meta({2, 5})));
  };
  for (const std::string overload : {"default", "padding_idx"}) {
    t["aten::embedding_bag." + overload] = [=](S& s) {
      Node* offsets = s.call("aten::full", {ArgumentList{1}, 0}, S::meta(kI64, {1}), {{"dtype", kI64}});
      ArgumentList args = {s.f32({4, 3}), s.tensor(kI64, {4}), offsets};
      if (overload == "padding_idx") args.insert(args.end(), {false, 1, false, None{}, false, None{}});
      Node* bag = s.call("aten::embedding_bag" + (overload == "default" ? std::string() : "." + overload), args,
                         std::vector<TensorMeta>{S::meta({1, 3}), S::meta(kI64, {4}), S::meta(kI64, {1}), S::meta(kI64, {1})});
      return items(s, bag, 1);
    };
  }
  t["aten::max_pool1d_with_indices.default"] = [](S& s) {
    return items(s, s.call("aten::max_pool1d_with_indices", {s.f32({1, 2, 8}), ArgumentList{2}},
                           std::vector<TensorMeta>{S::meta({1, 2, 4}), S::meta(kI64, {1, 2, 4})}),
                 2);
  };
  t["aten::adaptive_max_pool1d.default"] = [](S& s) {
    return items(s, s.call("aten::adaptive_max_pool1d", {s.f32({1, 2, 8}), ArgumentList{4}},
                           std::vector<TensorMeta>{S::meta({1, 2, 4}), S::meta(kI64, {1, 2, 4})}),
                 2);
  };
  t["aten::max_pool3d.default"] = unary("aten::max_pool3d", {1, 1, 4, 4, 4}, S::meta({1, 1, 2, 2, 2}), {ArgumentList{2, 2, 2}});
  t["aten::upsample_nearest1d.default"] = unary("aten::upsample_nearest1d", {1, 2, 4}, S::meta({1, 2, 8}), {ArgumentList{8}});
  t["aten::upsample_nearest1d.vec"] = unary("aten::upsample_nearest1d.vec", {1, 2, 4}, S::meta({1, 2, 8}), {None{}, ArgumentList{2.0}});
  t["aten::upsample_linear1d.default"] = unary("aten::upsample_linear1d", {1, 2, 4}, S::meta({1, 2, 8}), {ArgumentList{8}, false});
  t["aten::upsample_linear1d.vec"] = unary("aten::upsample_linear1d.vec", {1, 2, 4}, S::meta({1, 2, 8}), {ArgumentList{8}, true, None{}});
}

}  // namespace

void add_training_ir_samples(std::map<std::string, SampleBuilder>& samples) {
  add_conv_index_linalg_samples(samples);
  add_resample_special_samples(samples);
  add_losses(samples);
  add_layers(samples);
  add_elementwise(samples);
  add_reductions(samples);
  add_shapes(samples);
}

}  // namespace kiln::aot::testing
