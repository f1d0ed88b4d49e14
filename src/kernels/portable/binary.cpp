// add, sub, mul, div: broadcasting arithmetic with PyTorch's type promotion.
#include <type_traits>

#include <cmath>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/scalar.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

enum class BinaryOp { Add, Sub, Mul, Div };

template <BinaryOp kOp, typename C>
C apply(C x, C y, C alpha) {
  // PyTorch's CPU kernels fuse x + alpha * y into one rounding (fmadd).
  if constexpr (std::is_floating_point_v<C> && kOp == BinaryOp::Add) return std::fma(alpha, y, x);
  else if constexpr (std::is_floating_point_v<C> && kOp == BinaryOp::Sub) return std::fma(-alpha, y, x);
  else if constexpr (kOp == BinaryOp::Add) return util::wrapping_add(x, util::wrapping_mul(alpha, y));
  else if constexpr (kOp == BinaryOp::Sub) return util::wrapping_sub(x, util::wrapping_mul(alpha, y));
  else if constexpr (kOp == BinaryOp::Mul) return util::wrapping_mul(x, y);
  else return x / y;
}

// PyTorch's alpha_check: a bool alpha only for bool results, a floating alpha
// only for floating results.
bool check_alpha(KernelArgs& a, const EValue& alpha, ScalarType result) {
  if (alpha.isBool() && result != ScalarType::Bool) {
    a.fail(Error::InvalidArgument, "'alpha' is a Bool, which is only supported for Bool results (here %s)",
           runtime::to_string(result));
    return false;
  }
  if (alpha.isDouble() && !util::is_floating(result)) {
    a.fail(Error::InvalidArgument, "'alpha' must not be a floating point number for integral inputs (%s)",
           runtime::to_string(result));
    return false;
  }
  return true;
}

// Checks the operands and out; on success out has the broadcast shape.
template <BinaryOp kOp>
bool check_binary(KernelArgs& a, const Tensor& self, const Tensor& other, const EValue* alpha, const Tensor& out) {
  const ScalarType ts = self.scalar_type();
  const ScalarType to = other.scalar_type();
  if (!util::is_real_or_bool(ts) || !util::is_real_or_bool(to)) {
    a.fail(Error::InvalidArgument, "'%s' has unsupported dtype %s", util::is_real_or_bool(ts) ? "other" : "self",
           runtime::to_string(util::is_real_or_bool(ts) ? to : ts));
    return false;
  }
  if (kOp == BinaryOp::Sub && (ts == ScalarType::Bool || to == ScalarType::Bool)) {
    a.fail(Error::InvalidArgument, "'%s' is Bool; subtraction with a bool tensor is not supported",
           ts == ScalarType::Bool ? "self" : "other");
    return false;
  }
  ScalarType expected;
  if (!util::result_type(self, other, &expected)) {
    a.fail(Error::InvalidArgument, "'self' (%s) and 'other' (%s) have no promoted dtype", runtime::to_string(ts),
           runtime::to_string(to));
    return false;
  }
  if (kOp == BinaryOp::Div && !util::is_floating(expected)) expected = ScalarType::Float;
  if (!a.check_dtype(out, "out", expected)) return false;
  if (alpha != nullptr && !check_alpha(a, *alpha, expected)) return false;

  SizesType shape[util::kMaxDims];
  size_t rank = 0;
  if (!util::broadcast_shape(self.sizes(), other.sizes(), shape, &rank)) {
    char s[96], o[96];
    util::format_sizes(self.sizes(), s, sizeof s);
    util::format_sizes(other.sizes(), o, sizeof o);
    a.fail(Error::InvalidArgument, "'self' of shape %s and 'other' of shape %s do not broadcast", s, o);
    return false;
  }
  return a.resize_out(out, "out", {shape, rank});
}

template <BinaryOp kOp>
void binary_out(KernelRuntimeContext& ctx, Span<EValue*> args, const char* op) {
  constexpr bool kHasAlpha = kOp == BinaryOp::Add || kOp == BinaryOp::Sub;
  constexpr size_t kOutIndex = kHasAlpha ? 3 : 2;
  KernelArgs a(ctx, op, args);
  Tensor self, other, out;
  const EValue* alpha = nullptr;
  if (!a.check_count(kOutIndex + 1) || !a.tensor(0, "self", &self) || !a.tensor(1, "other", &other)) return;
  if (kHasAlpha && !a.scalar(2, "alpha", &alpha)) return;
  if (!a.tensor(kOutIndex, "out", &out)) return;
  if (!check_binary<kOp>(a, self, other, alpha, out)) return;

  // Computed in out's dtype, which check_binary made the result type.
  util::visit_real_or_bool(self.scalar_type(), [&](auto a_tag) {
    util::visit_real_or_bool(other.scalar_type(), [&](auto b_tag) {
      util::visit_real_or_bool(out.scalar_type(), [&](auto c_tag) {
        using A = typename decltype(a_tag)::type;
        using B = typename decltype(b_tag)::type;
        using C = typename decltype(c_tag)::type;
        // Sub never reaches here with bool, nor div with an integral out
        // (checked above); skip instantiating those.
        constexpr bool kBoolSub = kOp == BinaryOp::Sub && (std::is_same_v<A, bool> || std::is_same_v<B, bool> ||
                                                           std::is_same_v<C, bool>);
        constexpr bool kIntegralDiv = kOp == BinaryOp::Div && !std::is_floating_point_v<C>;
        if constexpr (!kBoolSub && !kIntegralDiv) {
          const C alpha_c = alpha != nullptr ? util::scalar_to<C>(*alpha) : C(1);
          util::map_binary<A, B, C>(self, other, out, [alpha_c](A x, B y) {
            return apply<kOp, C>(static_cast<C>(x), static_cast<C>(y), alpha_c);
          });
        }
      });
    });
  });
}

}  // namespace

void add_out(KernelRuntimeContext& ctx, Span<EValue*> args) { binary_out<BinaryOp::Add>(ctx, args, "aten::add.out"); }
void sub_out(KernelRuntimeContext& ctx, Span<EValue*> args) { binary_out<BinaryOp::Sub>(ctx, args, "aten::sub.out"); }
void mul_out(KernelRuntimeContext& ctx, Span<EValue*> args) { binary_out<BinaryOp::Mul>(ctx, args, "aten::mul.out"); }
void div_out(KernelRuntimeContext& ctx, Span<EValue*> args) { binary_out<BinaryOp::Div>(ctx, args, "aten::div.out"); }

}  // namespace kiln::kernels::portable
