// Arithmetic on two operands: add, sub, mul, div (with its rounding modes),
// pow, minimum and maximum, every Tensor and Scalar overload through one path.
// Operands promote as PyTorch's result_type (0-dim tensors and Scalars taking
// part), broadcast, are computed in the promoted dtype (float for Half and
// BFloat16) and cast to out's dtype as PyTorch's out= allows.
#include <cmath>
#include <cstring>
#include <type_traits>

#include "kernels/portable/complex.h"
#include "kernels/portable/kernels.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/elementwise.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/scalar.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::Tensor;
using util::KernelArgs;
using util::Operand;

enum class Arith { Add, Sub, Mul, Div, DivTrunc, DivFloor, Pow, Minimum, Maximum, Fmod, Remainder, Atan2 };

// Exponents PyTorch's pow with a Scalar exponent computes without pow(), which
// rounds differently (x * x * x is not pow(x, 3)).
enum class PowForm { General, Sqrt, Rsqrt, Square, Cube, Reciprocal, InverseSquare };

PowForm pow_form(const EValue& exponent) {
  const double e = exponent.toScalarAsDouble();
  if (e == 0.5) return PowForm::Sqrt;
  if (e == -0.5) return PowForm::Rsqrt;
  if (e == 2) return PowForm::Square;
  if (e == 3) return PowForm::Cube;
  if (e == -1) return PowForm::Reciprocal;
  if (e == -2) return PowForm::InverseSquare;
  return PowForm::General;
}

template <typename K>
constexpr bool kFloating = std::is_floating_point_v<K>;
template <typename K>
constexpr bool kBool = std::is_same_v<K, bool>;

// Rounding applied to every intermediate result of a division: none, or to
// a 16-bit float T (PyTorch's Half and BFloat16 arithmetic rounds each op).
struct Unrounded {
  template <typename K>
  K operator()(K value) const {
    return value;
  }
};
template <typename T>
struct RoundedTo {
  float operator()(float value) const { return util::convert<float>(util::store_as<T>(value)); }
};

// Python's floor division: the quotient rounded toward -inf, computed from
// fmod so that it is exact where (x - fmod(x, y)) / y is.
template <typename K, typename Round = Unrounded>
K floor_divide(K x, K y, Round r = {}) {
  if constexpr (kFloating<K>) {
    if (y == 0) return r(x / y);
    const K mod = std::fmod(x, y);
    K quotient = r(r(x - mod) / y);
    if (mod != 0 && (y < 0) != (mod < 0)) quotient = r(quotient - 1);
    if (quotient == 0) return std::copysign(K(0), x / y);
    K floored = std::floor(quotient);
    if (r(quotient - floored) > K(0.5)) floored = r(floored + 1);
    return floored;
  } else {
    // y == 0 was rejected before; y == -1 would overflow for the lowest x.
    if (y == -1) return util::wrapping_sub(K(0), x);
    const K quotient = x / y;
    return x % y != 0 && (x < 0) != (y < 0) ? quotient - 1 : quotient;
  }
}

template <typename K, typename Round = Unrounded>
K trunc_divide(K x, K y, Round r = {}) {
  if constexpr (kFloating<K>) {
    return std::trunc(r(x / y));
  } else {
    if (y == -1) return util::wrapping_sub(K(0), x);
    return x / y;
  }
}

// Integral pow by squaring, wrapping as PyTorch's; a negative exponent gives
// 0 except for bases 1 and -1. A Bool base only meets a Bool exponent.
template <typename K>
K integer_pow(K base, K exponent) {
  if constexpr (kBool<K>) {
    return exponent ? base : true;
  } else {
    if (exponent < 0) return base == 1 ? K(1) : base == -1 ? ((exponent & 1) ? K(-1) : K(1)) : K(0);
    K result = 1;
    while (exponent != 0) {
      if (exponent & 1) result = util::wrapping_mul(result, base);
      exponent >>= 1;
      base = util::wrapping_mul(base, base);
    }
    return result;
  }
}

// C's fmod (the sign of x), and Python's remainder (the sign of y), as
// PyTorch computes them; integer divisors of 0 were rejected before, and
// y == -1 gives 0 (x % -1 would overflow for the lowest x).
template <typename K>
K fmod_of(K x, K y) {
  if constexpr (kFloating<K>) {
    return std::fmod(x, y);
  } else {
    return y == -1 ? K(0) : static_cast<K>(x % y);
  }
}
template <typename K>
K remainder_of(K x, K y) {
  const K mod = fmod_of(x, y);
  if constexpr (kFloating<K>) {
    return mod != 0 && (y < 0) != (mod < 0) ? mod + y : mod;
  } else {
    return mod != 0 && (y < 0) != (mod < 0) ? static_cast<K>(mod + y) : mod;
  }
}

// NaN propagates; between equal values (-0.0 and 0.0) self is returned.
template <typename K>
K minimum(K x, K y) {
  if constexpr (kFloating<K>) {
    if (x != x) return x;
    if (y != y) return y;
  }
  return y < x ? y : x;
}
template <typename K>
K maximum(K x, K y) {
  if constexpr (kFloating<K>) {
    if (x != x) return x;
    if (y != y) return y;
  }
  return x < y ? y : x;
}

struct ArithParams {
  const EValue* alpha = nullptr;     // add and sub
  const EValue* exponent = nullptr;  // pow with a Scalar exponent
  PowForm pow_form = PowForm::General;
};

// alpha (1 if absent) as the result type T computes it, negated for sub:
// PyTorch subtracts by adding -alpha * other, negating an Int alpha in int64
// (so the lowest int64 stays itself).
template <typename T>
util::compute_t<T> signed_alpha(const EValue* alpha, bool negate) {
  using K = util::compute_t<T>;
  if (alpha == nullptr) return negate ? K(-1) : K(1);
  if (alpha->isInt()) {
    const int64_t v = negate ? util::wrapping_sub(int64_t{0}, alpha->toInt()) : alpha->toInt();
    return util::convert<K>(util::scalar_to<T>(EValue(v)));
  }
  if (alpha->isDouble() && negate) return util::convert<K>(util::scalar_to<T>(EValue(-alpha->toDouble())));
  return util::convert<K>(util::scalar_to<T>(*alpha));
}

// Each compute_* runs an op on the checked operands with the common dtype T,
// K being what T computes in.
template <typename T, typename F>
void map_arith(const Operand (&in)[2], const Tensor& out, F f) {
  util::map_elementwise<T, T, T>(in, out, f);
}

// x + alpha * other (sub: alpha negated).
template <typename T>
void compute_add(Arith op, const Operand (&in)[2], const Tensor& out, const EValue* alpha_arg) {
  using K = util::compute_t<T>;
  if constexpr (kBool<K>) {
    // Bool + Bool is logical or, a Bool alpha scaling other; sub never gets here.
    const bool alpha = alpha_arg == nullptr || util::scalar_to<bool>(*alpha_arg);
    map_arith<T>(in, out, [alpha](bool x, bool y) { return x || (alpha && y); });
  } else if constexpr (kFloating<K>) {
    // alpha = +-1 needs no product (and vectorizes). Otherwise PyTorch fuses
    // x + alpha * y into one rounding (fmadd; in float for Half and BFloat16,
    // as its vectorized loops do).
    const K alpha = signed_alpha<T>(alpha_arg, op == Arith::Sub);
    if (alpha == 1) return map_arith<T>(in, out, [](K x, K y) { return x + y; });
    if (alpha == -1) return map_arith<T>(in, out, [](K x, K y) { return x - y; });
    map_arith<T>(in, out, [alpha](K x, K y) { return std::fma(alpha, y, x); });
  } else {
    const K alpha = signed_alpha<T>(alpha_arg, op == Arith::Sub);
    map_arith<T>(in, out, [alpha](K x, K y) { return util::wrapping_add(x, util::wrapping_mul(alpha, y)); });
  }
}

// div with rounding_mode "trunc" or "floor".
template <typename T>
void compute_rounding_division(Arith op, const Operand (&in)[2], const Tensor& out) {
  using K = util::compute_t<T>;
  if constexpr (util::is_half_v<T>) {
    // Each step rounds to T, unless other is read at float precision (a
    // single element), as PyTorch computes these.
    if (!in[1].exact) {
      const RoundedTo<T> r;
      if (op == Arith::DivTrunc) return map_arith<T>(in, out, [r](K x, K y) { return trunc_divide(x, y, r); });
      return map_arith<T>(in, out, [r](K x, K y) { return floor_divide(x, y, r); });
    }
  }
  if (op == Arith::DivTrunc) return map_arith<T>(in, out, [](K x, K y) { return trunc_divide(x, y); });
  map_arith<T>(in, out, [](K x, K y) { return floor_divide(x, y); });
}

template <typename T>
void compute_pow(const Operand (&in)[2], const Tensor& out, const EValue* exponent, PowForm form) {
  using K = util::compute_t<T>;
  if constexpr (!kFloating<K>) {
    map_arith<T>(in, out, [](K x, K y) { return integer_pow(x, y); });
  } else {
    // BFloat16 rounds the inner product of the cube and inverse square to its
    // dtype, as PyTorch's BFloat16 arithmetic does.
    const auto step = [](K v) -> K {
      if constexpr (std::is_same_v<T, runtime::BFloat16>) return RoundedTo<T>{}(v);
      else return v;
    };
    switch (form) {
      case PowForm::Sqrt: return map_arith<T>(in, out, [](K x, K) { return std::sqrt(x); });
      case PowForm::Rsqrt: return map_arith<T>(in, out, [](K x, K) { return K(1) / std::sqrt(x); });
      case PowForm::Square: return map_arith<T>(in, out, [](K x, K) { return x * x; });
      case PowForm::Cube: return map_arith<T>(in, out, [step](K x, K) { return step(x * x) * x; });
      case PowForm::Reciprocal: return map_arith<T>(in, out, [](K x, K) { return K(1) / x; });
      case PowForm::InverseSquare: return map_arith<T>(in, out, [step](K x, K) { return K(1) / step(x * x); });
      case PowForm::General: break;
    }
    if (exponent == nullptr) return map_arith<T>(in, out, [](K x, K y) { return std::pow(x, y); });
    // A Scalar exponent keeps double precision for a float base (as in
    // PyTorch, where 1e10f ** -1.95 is not 1e10f ** -1.95f); a 16-bit base
    // rounds it to its dtype.
    double e = exponent->toScalarAsDouble();
    if constexpr (util::is_half_v<T>) e = util::convert<float>(util::scalar_to<T>(*exponent));
    map_arith<T>(in, out, [e](K x, K) { return static_cast<K>(std::pow(static_cast<double>(x), e)); });
  }
}

template <typename T>
void compute(Arith op, const Operand (&in)[2], const Tensor& out, const ArithParams& params) {
  using K = util::compute_t<T>;
  switch (op) {
    case Arith::Add:
    case Arith::Sub: return compute_add<T>(op, in, out, params.alpha);
    case Arith::Mul: return map_arith<T>(in, out, [](K x, K y) { return util::wrapping_mul(x, y); });
    case Arith::Minimum: return map_arith<T>(in, out, [](K x, K y) { return minimum(x, y); });
    case Arith::Maximum: return map_arith<T>(in, out, [](K x, K y) { return maximum(x, y); });
    case Arith::Pow: return compute_pow<T>(in, out, params.exponent, params.pow_form);
    case Arith::Fmod:
    case Arith::Remainder:
      if constexpr (!kBool<K>) {  // Bool is refused before
        if (op == Arith::Fmod) return map_arith<T>(in, out, [](K x, K y) { return fmod_of(x, y); });
        return map_arith<T>(in, out, [](K x, K y) { return remainder_of(x, y); });
      }
      return;
    case Arith::Atan2:
      if constexpr (kFloating<K>) map_arith<T>(in, out, [](K x, K y) { return std::atan2(x, y); });
      return;
    case Arith::Div:
    case Arith::DivTrunc:
    case Arith::DivFloor:
      // Bool never gets here (checked), nor an integral true division.
      if constexpr (!kBool<K>) {
        if (op != Arith::Div) return compute_rounding_division<T>(op, in, out);
        if constexpr (kFloating<K>) map_arith<T>(in, out, [](K x, K y) { return x / y; });
      }
      return;
  }
}

// True if some value of `operand` is 0 once cast to the integral T.
template <typename T>
bool has_zero(const Operand& operand) {
  if (operand.is_scalar()) return util::scalar_to<T>(*operand.scalar) == T(0);
  bool zero = false;
  util::visit_real_or_bool_or_half(operand.tensor.scalar_type(), [&](auto tag) {
    using S = typename decltype(tag)::type;
    const S* data = operand.tensor.const_data_ptr<S>();
    // A tensor's storage is dense in its dim order: numel elements.
    for (ssize_t i = 0; i < operand.tensor.numel(); ++i) zero |= util::convert<T>(data[i]) == T(0);
  });
  return zero;
}

const char* arith_name(Arith op) {
  switch (op) {
    case Arith::Sub: return "subtraction";
    case Arith::DivTrunc: return "division with rounding_mode 'trunc'";
    case Arith::DivFloor: return "division with rounding_mode 'floor'";
    case Arith::Pow: return "pow";
    case Arith::Fmod: return "fmod";
    case Arith::Remainder: return "remainder";
    default: return "this op";
  }
}

// Checks the Scalar arguments that must suit the result: alpha (PyTorch's
// alpha_check and its overflow check) and an integral pow's exponent.
bool check_scalars(KernelArgs& a, Arith op, const Operand& exponent, const EValue* alpha, ScalarType result) {
  if (alpha != nullptr) {
    if (alpha->isBool() && result != ScalarType::Bool) {
      a.fail(Error::InvalidArgument, "'alpha' is a Bool, which is only supported for Bool results (here %s)",
             runtime::to_string(result));
      return false;
    }
    if (alpha->isDouble() && util::type_category(result) < util::TypeCategory::Floating) {
      a.fail(Error::InvalidArgument, "'alpha' must not be a floating point number for a %s result",
             runtime::to_string(result));
      return false;
    }
    bool fits = true;
    util::visit_real_or_bool_or_half(result,
                                     [&](auto tag) { fits = util::scalar_fits<typename decltype(tag)::type>(*alpha); });
    if (!fits) {
      a.fail(Error::InvalidArgument, "'alpha' %g cannot be converted to %s without overflow", alpha->toScalarAsDouble(),
             runtime::to_string(result));
      return false;
    }
  }
  if (op == Arith::Pow && exponent.is_scalar() && util::is_half(result)) {
    // PyTorch converts the exponent to a 16-bit result's dtype with its
    // overflow check (but not to float or double).
    const bool fits = result == ScalarType::Half ? util::scalar_fits<runtime::Half>(*exponent.scalar)
                                                 : util::scalar_fits<runtime::BFloat16>(*exponent.scalar);
    if (!fits) {
      a.fail(Error::InvalidArgument, "'%s' %g cannot be converted to %s without overflow", exponent.name,
             exponent.scalar->toScalarAsDouble(), runtime::to_string(result));
      return false;
    }
  }
  if (op == Arith::Pow && exponent.is_scalar() && util::type_category(result) == util::TypeCategory::Integral) {
    const EValue& e = *exponent.scalar;
    if (e.isInt() && e.toInt() < 0) {
      a.fail(Error::InvalidArgument, "'%s' is %lld: integers to negative integer powers are not allowed",
             exponent.name, static_cast<long long>(e.toInt()));
      return false;
    }
    const bool fits = result == ScalarType::Int ? util::scalar_fits<int32_t>(e) : util::scalar_fits<int64_t>(e);
    if (!fits) {
      a.fail(Error::InvalidArgument, "'%s' %g cannot be converted to %s without overflow", exponent.name,
             e.toScalarAsDouble(), runtime::to_string(result));
      return false;
    }
  }
  return true;
}

// Checks the operands and out (resizing it), then computes.
// `strict_out`: out must have the result dtype (the overloads PyTorch does
// not cast for), rather than any dtype the result casts to.
void run_arith(KernelArgs& a, Arith op, const Operand& self, const Operand& other, const EValue* alpha,
               const Tensor& out, bool strict_out) {
  Operand inputs[2] = {self, other};
  if (!util::check_elementwise_dtypes(a, inputs)) return;
  if (op == Arith::Sub && (self.dtype() == ScalarType::Bool || other.dtype() == ScalarType::Bool)) {
    a.fail(Error::InvalidArgument, "'%s' is Bool; subtraction with a Bool is not supported (use logical_not)",
           self.dtype() == ScalarType::Bool ? self.name : other.name);
    return;
  }
  ScalarType common;
  if (!util::result_type(inputs, &common)) {
    a.fail(Error::InvalidArgument, "'%s' (%s) and '%s' (%s) have no promoted dtype", self.name,
           runtime::to_string(self.dtype()), other.name, runtime::to_string(other.dtype()));
    return;
  }
  if ((op == Arith::Div || op == Arith::Atan2) && util::type_category(common) < util::TypeCategory::Floating) {
    common = ScalarType::Float;
  }
  const bool modulo = op == Arith::Fmod || op == Arith::Remainder;
  const bool pow_by_scalar = op == Arith::Pow && other.is_scalar();
  if (common == ScalarType::Bool &&
      (op == Arith::DivTrunc || op == Arith::DivFloor || modulo || (op == Arith::Pow && !pow_by_scalar))) {
    a.fail(Error::InvalidArgument, "'%s' and '%s' are Bool; %s is not supported for Bool", self.name, other.name,
           arith_name(op));
    return;
  }
  // PyTorch's pow with the Scalar base 1 fills out with 1 whatever its dtype.
  const bool fills_one = op == Arith::Pow && self.is_scalar() && !self.scalar->isBool() &&
                         self.scalar->toScalarAsDouble() == 1;
  const ScalarType out_dtype = out.scalar_type();
  if (!util::is_real_or_bool_or_half(out_dtype) || (!fills_one && !util::can_cast(common, out_dtype)) ||
      (strict_out && out_dtype != common)) {
    a.fail(Error::InvalidArgument, "'out' has dtype %s, which the %s result cannot be %s",
           runtime::to_string(out_dtype), runtime::to_string(common), strict_out ? "written to" : "cast to");
    return;
  }
  if (!check_scalars(a, op, other, alpha, common) || !util::resize_to_broadcast(a, inputs, out)) return;
  if ((op == Arith::DivTrunc || op == Arith::DivFloor || modulo) &&
      util::type_category(common) == util::TypeCategory::Integral && out.numel() > 0) {
    bool zero = false;
    util::visit_real_or_bool_or_half(common, [&](auto tag) {
      using I = typename decltype(tag)::type;
      if constexpr (std::is_integral_v<I> && !std::is_same_v<I, bool>) zero = has_zero<I>(other);
    });
    if (zero) {
      a.fail(Error::InvalidArgument, "'%s' holds a zero: integer %s by zero", other.name,
             modulo ? arith_name(op) : "division");
      return;
    }
  }
  // PyTorch's CPU mul and div read a single-element `other` of a 16-bit float
  // computation at float precision.
  const bool scales = op == Arith::Mul || op == Arith::Div || op == Arith::DivTrunc || op == Arith::DivFloor;
  inputs[1].exact = scales && util::is_half(common) && (other.is_scalar() || other.tensor.numel() == 1);
  ArithParams params;
  params.alpha = alpha;
  if (pow_by_scalar) {
    params.exponent = other.scalar;
    // PyTorch computes Half powers with pow() whatever the exponent.
    if (common != ScalarType::Half) params.pow_form = pow_form(*other.scalar);
  }
  util::visit_real_or_bool_or_half(common,
                                   [&](auto tag) { compute<typename decltype(tag)::type>(op, inputs, out, params); });
}

enum class Extra { None, Alpha, RoundingMode };

// Where the schema puts each argument: self and other (a Tensor or a Scalar,
// with their schema names), an optional alpha or rounding_mode, then out; and
// whether out must have the result dtype (PyTorch's Scalar overloads of add,
// sub, mul and div) rather than any dtype the result casts to.
struct Signature {
  const char* self_name;
  bool self_scalar;
  const char* other_name;
  bool other_scalar;
  Extra extra;
  bool strict_out;
};

constexpr Signature kTensorTensor{"self", false, "other", false, Extra::None, false};
constexpr Signature kTensorTensorAlpha{"self", false, "other", false, Extra::Alpha, false};
constexpr Signature kTensorTensorMode{"self", false, "other", false, Extra::RoundingMode, false};
constexpr Signature kTensorScalar{"self", false, "other", true, Extra::None, true};
constexpr Signature kTensorScalarAlpha{"self", false, "other", true, Extra::Alpha, true};
constexpr Signature kTensorScalarMode{"self", false, "other", true, Extra::RoundingMode, true};
constexpr Signature kTensorScalarCast{"self", false, "other", true, Extra::None, false};
constexpr Signature kPowTensorTensor{"self", false, "exponent", false, Extra::None, false};
constexpr Signature kPowTensorScalar{"self", false, "exponent", true, Extra::None, false};
constexpr Signature kPowScalarTensor{"self", true, "exponent", false, Extra::None, false};

bool read_operand(KernelArgs& a, size_t index, const char* name, bool scalar, Operand* out) {
  if (scalar) {
    const EValue* value = nullptr;
    if (!a.scalar(index, name, &value)) return false;
    *out = Operand::of(name, *value);
    return true;
  }
  Tensor t;
  if (!a.tensor(index, name, &t)) return false;
  *out = Operand::of(name, t);
  return true;
}

// rounding_mode: None keeps true division; "trunc" and "floor" round.
bool read_rounding_mode(KernelArgs& a, const EValue& mode, Arith* op) {
  if (mode.isNone()) return true;
  if (!mode.isString()) {
    a.fail(Error::InvalidArgument, "'rounding_mode' must be None or a String, got %s", runtime::to_string(mode.tag()));
    return false;
  }
  const Span<const char> text = mode.toString();
  const auto is = [&](const char* word) {
    return text.size() == std::strlen(word) && std::memcmp(text.data(), word, text.size()) == 0;
  };
  if (is("trunc")) *op = Arith::DivTrunc;
  else if (is("floor")) *op = Arith::DivFloor;
  else {
    a.fail(Error::InvalidArgument, "'rounding_mode' must be None, 'trunc' or 'floor', got '%.*s'",
           static_cast<int>(text.size()), text.data());
    return false;
  }
  return true;
}

void arith_kernel(KernelRuntimeContext& ctx, Span<EValue*> args, const char* name, Arith op, const Signature& sig) {
  KernelArgs a(ctx, name, args);
  const size_t out_index = sig.extra == Extra::None ? 2 : 3;
  Operand self, other;
  Tensor out;
  const EValue* alpha = nullptr;
  if (!a.check_count(out_index + 1) || !read_operand(a, 0, sig.self_name, sig.self_scalar, &self) ||
      !read_operand(a, 1, sig.other_name, sig.other_scalar, &other) ||
      (sig.extra == Extra::Alpha && !a.scalar(2, "alpha", &alpha)) ||
      (sig.extra == Extra::RoundingMode && !read_rounding_mode(a, *args[2], &op)) ||
      !a.tensor(out_index, "out", &out)) {
    return;
  }
  run_arith(a, op, self, other, alpha, out, sig.strict_out);
}

}  // namespace

void add_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  arith_kernel(ctx, args, "aten::add.out", Arith::Add, kTensorTensorAlpha);
}
void sub_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  arith_kernel(ctx, args, "aten::sub.out", Arith::Sub, kTensorTensorAlpha);
}
void mul_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  if (has_complex_tensor(args)) {
    complex_mul_out(ctx, args);
    return;
  }
  arith_kernel(ctx, args, "aten::mul.out", Arith::Mul, kTensorTensor);
}
void div_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  arith_kernel(ctx, args, "aten::div.out", Arith::Div, kTensorTensor);
}
void div_out_mode(KernelRuntimeContext& ctx, Span<EValue*> args) {
  arith_kernel(ctx, args, "aten::div.out_mode", Arith::Div, kTensorTensorMode);
}
void add_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  arith_kernel(ctx, args, "aten::add.Scalar_out", Arith::Add, kTensorScalarAlpha);
}
void sub_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  arith_kernel(ctx, args, "aten::sub.Scalar_out", Arith::Sub, kTensorScalarAlpha);
}
void mul_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  arith_kernel(ctx, args, "aten::mul.Scalar_out", Arith::Mul, kTensorScalar);
}
void div_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  arith_kernel(ctx, args, "aten::div.Scalar_out", Arith::Div, kTensorScalar);
}
void div_scalar_mode_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  arith_kernel(ctx, args, "aten::div.Scalar_mode_out", Arith::Div, kTensorScalarMode);
}
void pow_tensor_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  arith_kernel(ctx, args, "aten::pow.Tensor_Tensor_out", Arith::Pow, kPowTensorTensor);
}
void pow_tensor_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  arith_kernel(ctx, args, "aten::pow.Tensor_Scalar_out", Arith::Pow, kPowTensorScalar);
}
void pow_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  arith_kernel(ctx, args, "aten::pow.Scalar_out", Arith::Pow, kPowScalarTensor);
}
void fmod_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  arith_kernel(ctx, args, "aten::fmod.Tensor_out", Arith::Fmod, kTensorTensor);
}
void fmod_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  arith_kernel(ctx, args, "aten::fmod.Scalar_out", Arith::Fmod, kTensorScalarCast);
}
void remainder_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  arith_kernel(ctx, args, "aten::remainder.Tensor_out", Arith::Remainder, kTensorTensor);
}
void remainder_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  arith_kernel(ctx, args, "aten::remainder.Scalar_out", Arith::Remainder, kTensorScalarCast);
}
void atan2_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  arith_kernel(ctx, args, "aten::atan2.out", Arith::Atan2, kTensorTensor);
}

void minimum_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  arith_kernel(ctx, args, "aten::minimum.out", Arith::Minimum, kTensorTensor);
}
void maximum_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  arith_kernel(ctx, args, "aten::maximum.out", Arith::Maximum, kTensorTensor);
}

}  // namespace kiln::kernels::portable
