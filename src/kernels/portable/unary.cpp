// relu, sin, cos, tan.
#include <cmath>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/kernel_args.h"

namespace kiln::kernels::portable {

namespace {

using runtime::ScalarType;
using runtime::Tensor;
using util::KernelArgs;

// Reads `self` and `out`, checks out's dtype is `out_dtype(self's dtype)` and
// resizes out to self's shape.
template <typename OutDtypeFn>
bool read_unary_args(KernelArgs& a, Tensor* self, Tensor* out, OutDtypeFn out_dtype) {
  if (!a.check_count(2) || !a.tensor(0, "self", self) || !a.tensor(1, "out", out)) return false;
  ScalarType expected;
  if (!out_dtype(self->scalar_type(), &expected)) {
    a.fail(runtime::Error::InvalidArgument, "'self' has unsupported dtype %s", runtime::to_string(self->scalar_type()));
    return false;
  }
  return a.check_dtype(*out, "out", expected) && a.resize_out(*out, "out", self->sizes());
}

// sin/cos/tan: PyTorch promotes integral (and bool) inputs to the default
// float dtype, and computes in the out dtype.
template <typename F>
void floating_unary(KernelRuntimeContext& ctx, Span<EValue*> args, const char* op, F f) {
  KernelArgs a(ctx, op, args);
  Tensor self, out;
  auto out_dtype = [](ScalarType in, ScalarType* expected) {
    if (util::is_floating(in)) *expected = in;
    else if (util::is_real_or_bool(in)) *expected = ScalarType::Float;
    else return false;
    return true;
  };
  if (!read_unary_args(a, &self, &out, out_dtype)) return;
  util::visit_real_or_bool(self.scalar_type(), [&](auto in_tag) {
    using In = typename decltype(in_tag)::type;
    util::visit_floating(out.scalar_type(), [&](auto out_tag) {
      using Out = typename decltype(out_tag)::type;
      util::map_unary<In, Out>(self, out, [&](In x) { return f(static_cast<Out>(x)); });
    });
  });
}

}  // namespace

void relu_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::relu.out", args);
  Tensor self, out;
  auto out_dtype = [](ScalarType in, ScalarType* expected) {
    *expected = in;
    return util::is_real(in);
  };
  if (!read_unary_args(a, &self, &out, out_dtype)) return;
  util::visit_real(self.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    // `x < 0 ? 0 : x` keeps NaN, as PyTorch's relu (clamp_min) does.
    util::map_unary<T, T>(self, out, [](T x) { return x < T(0) ? T(0) : x; });
  });
}

void sin_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  floating_unary(ctx, args, "aten::sin.out", [](auto x) { return std::sin(x); });
}

void cos_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  floating_unary(ctx, args, "aten::cos.out", [](auto x) { return std::cos(x); });
}

void tan_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  floating_unary(ctx, args, "aten::tan.out", [](auto x) { return std::tan(x); });
}

}  // namespace kiln::kernels::portable
