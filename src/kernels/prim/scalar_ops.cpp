// executorch_prim::*.Scalar: arithmetic on the symbolic ints (and floats) a
// program computes at run time, with Python's rules. A Bool operand counts as
// an int, as in Python. Int arithmetic wraps instead of overflowing.
#include <cmath>
#include <cstdint>

#include "kernels/prim/prim_kernels.h"

namespace kiln::kernels::prim {

namespace {

using runtime::Error;

// One operand: an int (Int or Bool) or a double.
struct Number {
  bool is_int;
  int64_t i;
  double d;
};

bool read_number(KernelRuntimeContext& ctx, const char* op, const EValue* value, const char* name, Number* out) {
  if (value != nullptr && (value->isInt() || value->isBool())) {
    const int64_t i = value->isInt() ? value->toInt() : static_cast<int64_t>(value->toBool());
    *out = {true, i, static_cast<double>(i)};
    return true;
  }
  if (value != nullptr && value->isDouble()) {
    *out = {false, 0, value->toDouble()};
    return true;
  }
  ctx.fail(Error::InvalidArgument, "%s: '%s' must be an Int, Double or Bool, got %s", op, name,
           value == nullptr ? "null" : runtime::to_string(value->tag()));
  return false;
}

bool check_count(KernelRuntimeContext& ctx, const char* op, Span<EValue*> args, size_t expected) {
  if (args.size() == expected) return true;
  ctx.fail(Error::InvalidArgument, "%s: 'args' has %zu values, expected %zu", op, args.size(), expected);
  return false;
}

// Reads [a, b, result]; false (the context failed) on a bad argument.
bool read_binary(KernelRuntimeContext& ctx, const char* op, Span<EValue*> args, Number* a, Number* b) {
  return check_count(ctx, op, args, 3) && args[2] != nullptr && read_number(ctx, op, args[0], "a", a) &&
         read_number(ctx, op, args[1], "b", b);
}

int64_t wrap_add(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
int64_t wrap_sub(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
int64_t wrap_mul(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }

// Python's a // b for ints (rounds toward -inf); b != 0, and INT64_MIN // -1
// wraps as the other int ops do.
int64_t floor_div(int64_t a, int64_t b) {
  if (b == -1) return wrap_sub(0, a);
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Python's a % b for ints: the sign of b.
int64_t floor_mod(int64_t a, int64_t b) {
  if (b == -1) return 0;
  const int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

double floor_mod(double a, double b) {
  const double r = std::fmod(a, b);
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

template <typename IntOp, typename DoubleOp>
void arithmetic(KernelRuntimeContext& ctx, const char* op, Span<EValue*> args, IntOp int_op, DoubleOp double_op) {
  Number a, b;
  if (!read_binary(ctx, op, args, &a, &b)) return;
  *args[2] = a.is_int && b.is_int ? EValue(int_op(a.i, b.i)) : EValue(double_op(a.d, b.d));
}

template <typename Compare>
void comparison(KernelRuntimeContext& ctx, const char* op, Span<EValue*> args, Compare compare) {
  Number a, b;
  if (!read_binary(ctx, op, args, &a, &b)) return;
  // Two ints compare exactly (a double cannot hold every int64).
  const bool result = a.is_int && b.is_int ? compare(a.i, b.i) : compare(a.d, b.d);
  *args[2] = EValue(result);
}

bool check_divisor(KernelRuntimeContext& ctx, const char* op, const Number& b) {
  if (b.is_int ? b.i != 0 : b.d != 0.0) return true;
  ctx.fail(Error::InvalidArgument, "%s: division by zero", op);
  return false;
}

}  // namespace

void add_scalar(KernelRuntimeContext& ctx, Span<EValue*> args) {
  arithmetic(ctx, "executorch_prim::add.Scalar", args, wrap_add, [](double a, double b) { return a + b; });
}

void sub_scalar(KernelRuntimeContext& ctx, Span<EValue*> args) {
  arithmetic(ctx, "executorch_prim::sub.Scalar", args, wrap_sub, [](double a, double b) { return a - b; });
}

void mul_scalar(KernelRuntimeContext& ctx, Span<EValue*> args) {
  arithmetic(ctx, "executorch_prim::mul.Scalar", args, wrap_mul, [](double a, double b) { return a * b; });
}

void floordiv_scalar(KernelRuntimeContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "executorch_prim::floordiv.Scalar";
  Number a, b;
  if (!read_binary(ctx, kOp, args, &a, &b) || !check_divisor(ctx, kOp, b)) return;
  *args[2] = a.is_int && b.is_int ? EValue(floor_div(a.i, b.i)) : EValue(std::floor(a.d / b.d));
}

void truediv_scalar(KernelRuntimeContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "executorch_prim::truediv.Scalar";
  Number a, b;
  if (!read_binary(ctx, kOp, args, &a, &b) || !check_divisor(ctx, kOp, b)) return;
  *args[2] = EValue(a.d / b.d);
}

void mod_scalar(KernelRuntimeContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "executorch_prim::mod.Scalar";
  Number a, b;
  if (!read_binary(ctx, kOp, args, &a, &b) || !check_divisor(ctx, kOp, b)) return;
  *args[2] = a.is_int && b.is_int ? EValue(floor_mod(a.i, b.i)) : EValue(floor_mod(a.d, b.d));
}

void eq_scalar(KernelRuntimeContext& ctx, Span<EValue*> args) {
  comparison(ctx, "executorch_prim::eq.Scalar", args, [](auto a, auto b) { return a == b; });
}

void gt_scalar(KernelRuntimeContext& ctx, Span<EValue*> args) {
  comparison(ctx, "executorch_prim::gt.Scalar", args, [](auto a, auto b) { return a > b; });
}

void lt_scalar(KernelRuntimeContext& ctx, Span<EValue*> args) {
  comparison(ctx, "executorch_prim::lt.Scalar", args, [](auto a, auto b) { return a < b; });
}

void ge_scalar(KernelRuntimeContext& ctx, Span<EValue*> args) {
  comparison(ctx, "executorch_prim::ge.Scalar", args, [](auto a, auto b) { return a >= b; });
}

void le_scalar(KernelRuntimeContext& ctx, Span<EValue*> args) {
  comparison(ctx, "executorch_prim::le.Scalar", args, [](auto a, auto b) { return a <= b; });
}

void neg_scalar(KernelRuntimeContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "executorch_prim::neg.Scalar";
  Number a;
  if (!check_count(ctx, kOp, args, 2) || args[1] == nullptr || !read_number(ctx, kOp, args[0], "a", &a)) return;
  *args[1] = a.is_int ? EValue(wrap_sub(0, a.i)) : EValue(-a.d);
}

}  // namespace kiln::kernels::prim
