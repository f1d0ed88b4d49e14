// logical_not, eq.Scalar, where.self, full_like, and the Scalar overloads
// of add, sub, mul and div.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/scalar.h"
#include "kernels/portable/util/strided.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

enum class ScalarOp { Add, Sub, Mul, Div };

template <ScalarOp kOp>
void scalar_binary_out(KernelRuntimeContext& ctx, Span<EValue*> args, const char* op) {
  KernelArgs a(ctx, op, args);
  constexpr bool kHasAlpha = kOp == ScalarOp::Add || kOp == ScalarOp::Sub;
  constexpr size_t kCount = kHasAlpha ? 4 : 3;
  Tensor self, out;
  const EValue* other = nullptr;
  const EValue* alpha = nullptr;
  if (!a.check_count(kCount) || !a.tensor(0, "self", &self) || !a.scalar(1, "other", &other) ||
      (kHasAlpha && !a.scalar(2, "alpha", &alpha)) || !a.tensor(kCount - 1, "out", &out)) {
    return;
  }
  if (!util::is_real_or_bool(self.scalar_type())) {
    a.fail(Error::InvalidArgument, "'self' has unsupported dtype %s", runtime::to_string(self.scalar_type()));
    return;
  }
  ScalarType expected = util::with_number(self.scalar_type(), *other);
  if (kOp == ScalarOp::Div && !util::is_floating(expected)) expected = ScalarType::Float;
  if (kOp == ScalarOp::Sub && (self.scalar_type() == ScalarType::Bool || other->isBool())) {
    a.fail(Error::InvalidArgument, "'%s' is a Bool; subtraction with a bool is not supported",
           other->isBool() ? "other" : "self");
    return;
  }
  // PyTorch's alpha_check: a Bool alpha only for Bool results, a floating
  // alpha only for floating results.
  if (alpha != nullptr && ((alpha->isBool() && expected != ScalarType::Bool) ||
                           (alpha->isDouble() && !util::is_floating(expected)))) {
    a.fail(Error::InvalidArgument, "'alpha' (a %s) does not suit a %s result", runtime::to_string(alpha->tag()),
           runtime::to_string(expected));
    return;
  }
  if (!a.check_dtype(out, "out", expected) || !a.resize_out(out, "out", self.sizes())) return;
  util::visit_real_or_bool(self.scalar_type(), [&](auto in_tag) {
    using In = typename decltype(in_tag)::type;
    util::visit_real_or_bool(expected, [&](auto out_tag) {
      using C = typename decltype(out_tag)::type;
      const C s = util::scalar_to<C>(*other);
      const C al = alpha != nullptr ? util::scalar_to<C>(*alpha) : C(1);
      util::map_unary<In, C>(self, out, [=](In x) -> C {
        const C v = static_cast<C>(x);
        // Floating add/sub fuse x + alpha * other into one rounding, as torch's fmadd.
        if constexpr (std::is_floating_point_v<C> && kOp == ScalarOp::Add) return std::fma(al, s, v);
        else if constexpr (std::is_floating_point_v<C> && kOp == ScalarOp::Sub) return std::fma(-al, s, v);
        else if constexpr (kOp == ScalarOp::Add) return util::wrapping_add(v, util::wrapping_mul(al, s));
        else if constexpr (kOp == ScalarOp::Sub) return util::wrapping_sub(v, util::wrapping_mul(al, s));
        else if constexpr (kOp == ScalarOp::Mul) return util::wrapping_mul(v, s);
        else return static_cast<C>(v / s);
      });
    });
  });
}

}  // namespace

void add_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  scalar_binary_out<ScalarOp::Add>(ctx, args, "aten::add.Scalar_out");
}
void sub_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  scalar_binary_out<ScalarOp::Sub>(ctx, args, "aten::sub.Scalar_out");
}
void mul_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  scalar_binary_out<ScalarOp::Mul>(ctx, args, "aten::mul.Scalar_out");
}
void div_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  scalar_binary_out<ScalarOp::Div>(ctx, args, "aten::div.Scalar_out");
}

void logical_not_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::logical_not.out", args);
  Tensor self, out;
  if (!a.check_count(2) || !a.tensor(0, "self", &self) || !a.tensor(1, "out", &out)) return;
  if (!util::is_real_or_bool(self.scalar_type()) || !util::is_real_or_bool(out.scalar_type())) {
    a.fail(Error::InvalidArgument, "'self' (%s) and 'out' (%s) must be bool or real", runtime::to_string(self.scalar_type()),
           runtime::to_string(out.scalar_type()));
    return;
  }
  if (!a.resize_out(out, "out", self.sizes())) return;
  util::visit_real_or_bool(self.scalar_type(), [&](auto in_tag) {
    using In = typename decltype(in_tag)::type;
    util::visit_real_or_bool(out.scalar_type(), [&](auto out_tag) {
      using Out = typename decltype(out_tag)::type;
      util::map_unary<In, Out>(self, out, [](In x) { return static_cast<Out>(x == In(0)); });
    });
  });
}

void eq_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::eq.Scalar_out", args);
  Tensor self, out;
  const EValue* other = nullptr;
  if (!a.check_count(3) || !a.tensor(0, "self", &self) || !a.scalar(1, "other", &other) || !a.tensor(2, "out", &out)) {
    return;
  }
  if (!util::is_real_or_bool(self.scalar_type())) {
    a.fail(Error::InvalidArgument, "'self' has unsupported dtype %s", runtime::to_string(self.scalar_type()));
    return;
  }
  if (!a.check_dtype(out, "out", ScalarType::Bool) || !a.resize_out(out, "out", self.sizes())) return;
  // Compared in the dtype of `self op other` (so f32 0.1 == 0.1 holds, as in torch).
  util::visit_real_or_bool(self.scalar_type(), [&](auto in_tag) {
    util::visit_real_or_bool(util::with_number(self.scalar_type(), *other), [&](auto cmp_tag) {
      using T = typename decltype(in_tag)::type;
      using C = typename decltype(cmp_tag)::type;
      const C value = util::scalar_to<C>(*other);
      util::map_unary<T, bool>(self, out, [value](T x) { return static_cast<C>(x) == value; });
    });
  });
}

void where_self_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::where.self_out", args);
  Tensor condition, self, other, out;
  if (!a.check_count(4) || !a.tensor(0, "condition", &condition) || !a.tensor(1, "self", &self) ||
      !a.tensor(2, "other", &other) || !a.tensor(3, "out", &out)) {
    return;
  }
  if (!a.check_dtype(condition, "condition", ScalarType::Bool)) return;
  ScalarType dtype;
  if (!util::is_real_or_bool(self.scalar_type()) || !util::is_real_or_bool(other.scalar_type()) ||
      !util::result_type(self, other, &dtype)) {
    a.fail(Error::InvalidArgument, "'self' (%s) and 'other' (%s) have no common dtype", runtime::to_string(self.scalar_type()),
           runtime::to_string(other.scalar_type()));
    return;
  }
  SizesType shape[util::kMaxDims], both[util::kMaxDims];
  size_t rank = 0, both_rank = 0;
  if (!util::broadcast_shape(self.sizes(), other.sizes(), both, &both_rank) ||
      !util::broadcast_shape(condition.sizes(), {both, both_rank}, shape, &rank)) {
    a.fail(Error::InvalidArgument, "'condition', 'self' and 'other' do not broadcast together");
    return;
  }
  if (!a.check_dtype(out, "out", dtype) || !a.resize_out(out, "out", {shape, rank})) return;
  util::StridedLayout<4> layout;
  util::set_index_space(layout, out.sizes());
  util::set_broadcast_strides(layout, 0, out);
  util::set_broadcast_strides(layout, 1, condition);
  util::set_broadcast_strides(layout, 2, self);
  util::set_broadcast_strides(layout, 3, other);
  util::visit_real_or_bool(self.scalar_type(), [&](auto a_tag) {
    using A = typename decltype(a_tag)::type;
    util::visit_real_or_bool(other.scalar_type(), [&](auto b_tag) {
      using B = typename decltype(b_tag)::type;
      util::visit_real_or_bool(dtype, [&](auto c_tag) {
        using C = typename decltype(c_tag)::type;
        C* o = out.mutable_data_ptr<C>();
        const bool* c = condition.const_data_ptr<bool>();
        const A* x = self.const_data_ptr<A>();
        const B* y = other.const_data_ptr<B>();
        util::for_each_row(layout, [&](const int64_t* offsets, int64_t n, const int64_t* inner) {
          for (int64_t i = 0; i < n; ++i) {
            o[offsets[0] + i * inner[0]] = c[offsets[1] + i * inner[1]] ? static_cast<C>(x[offsets[2] + i * inner[2]])
                                                                        : static_cast<C>(y[offsets[3] + i * inner[3]]);
          }
        });
      });
    });
  });
}

void full_like_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::full_like.out", args);
  Tensor self, out;
  const EValue* fill = nullptr;
  if (!a.check_count(4) || !a.tensor(0, "self", &self) || !a.scalar(1, "fill_value", &fill) || !a.tensor(3, "out", &out)) {
    return;
  }
  if (!util::is_real_or_bool(out.scalar_type())) {
    a.fail(Error::InvalidArgument, "'out' has unsupported dtype %s", runtime::to_string(out.scalar_type()));
    return;
  }
  if (!args[2]->isNone()) {
    int64_t format = 0;  // any memory format: every element gets the value
    if (!a.integer(2, "memory_format", &format)) return;
  }
  bool fits = false;
  util::visit_real_or_bool(out.scalar_type(),
                           [&](auto tag) { fits = util::scalar_fits<typename decltype(tag)::type>(*fill); });
  if (!fits) {
    a.fail(Error::InvalidArgument, "'fill_value' %g cannot be converted to %s without overflow",
           fill->toScalarAsDouble(), runtime::to_string(out.scalar_type()));
    return;
  }
  if (!a.resize_out(out, "out", self.sizes())) return;
  util::visit_real_or_bool(out.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T value = util::scalar_to<T>(*fill);
    T* o = out.mutable_data_ptr<T>();
    for (int64_t i = 0; i < out.numel(); ++i) o[i] = value;  // every element: the layout does not matter
  });
}

}  // namespace kiln::kernels::portable
