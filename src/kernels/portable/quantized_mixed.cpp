// The ops ExecuTorch adds to quantized_decomposed with no PyTorch kernel, with
// the semantics of ExecuTorch's quantized kernels (kernels/quantized/cpu):
//   add.out           quantized a + b of one shape and dtype: each side
//                     dequantized ((q - zero_point) * scale, in double from a
//                     float scale, rounded to float), summed in float, and
//                     requantized in float (1 / out_scale in float, round half
//                     to even, plus the zero point, clamped).
//   mixed_mm.out      input [m, n] times int8 weight [n, p] whose row k is
//                     scaled by scales[k]: sum over k of (x * w) * s.
//   mixed_linear.out  input [m, n] times the transpose of int8 weight [p, n],
//                     one scale per output row or per group of its columns
//                     (2-D scales): sum over groups of (sum of x * w) * s.
// The matrix products accumulate in float in ExecuTorch's order (for Float
// the same results; Half inputs are rounded once, at the end, where
// ExecuTorch rounds every step). Neither takes zero points, as ExecuTorch's.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/quantize.h"
#include "kernels/portable/util/round.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;
using util::QuantRange;

// ---- add ----

struct Operand {
  double scale = 1.0;
  int64_t zero_point = 0;
  QuantRange range;
};

// An operand's scale, zero point and range from arguments `index` on, named
// with `prefix` ("a_", "b_", "out_").
bool read_operand(KernelArgs& a, size_t index, const char* prefix, ScalarType dtype, Operand* op) {
  char names[4][32];
  const char* suffixes[4] = {"scale", "zero_point", "quant_min", "quant_max"};
  for (int i = 0; i < 4; ++i) std::snprintf(names[i], sizeof names[i], "%s%s", prefix, suffixes[i]);
  op->range.dtype = dtype;
  return a.floating(index, names[0], &op->scale) && a.integer(index + 1, names[1], &op->zero_point) &&
         a.integer(index + 2, names[2], &op->range.min) && a.integer(index + 3, names[3], &op->range.max) &&
         util::check_quant_range(a, op->range, names[2], names[3]) && util::check_scale(a, names[0], -1, op->scale) &&
         util::check_zero_point(a, names[1], -1, op->zero_point, op->range);
}

bool same_shape(const Tensor& x, const Tensor& y) {
  if (x.dim() != y.dim()) return false;
  for (size_t d = 0; d < static_cast<size_t>(x.dim()); ++d) {
    if (x.sizes()[d] != y.sizes()[d]) return false;
  }
  return true;
}

// ExecuTorch's dequantize_val: an int64 difference times the float scale, in
// double, rounded to float.
float dequantize(int64_t q, const Operand& op, float scale) {
  return static_cast<float>(static_cast<double>(q - op.zero_point) * static_cast<double>(scale));
}

template <typename Q>
void add_values(const Q* x, const Q* y, Q* out, int64_t n, const Operand* ops) {
  const float scale_a = util::convert<float>(ops[0].scale), scale_b = util::convert<float>(ops[1].scale);
  const float inv_scale = 1.0f / util::convert<float>(ops[2].scale);
  const auto zero_point = static_cast<float>(ops[2].zero_point);
  for (int64_t i = 0; i < n; ++i) {
    const float sum = dequantize(x[i], ops[0], scale_a) + dequantize(y[i], ops[1], scale_b);
    const auto q = util::convert<int64_t>(zero_point + util::round_half_even(inv_scale * sum));
    out[i] = static_cast<Q>(std::clamp(q, ops[2].range.min, ops[2].range.max));
  }
}

// ---- mixed_mm and mixed_linear ----

bool check_rank(KernelArgs& a, const Tensor& t, const char* name, size_t rank) {
  if (static_cast<size_t>(t.dim()) == rank) return a.check_contiguous(t, name);
  a.fail(Error::InvalidArgument, "'%s' has %zd dims; it must be %zu-D", name, t.dim(), rank);
  return false;
}

bool check_matmul_operands(KernelArgs& a, const Tensor& input, const Tensor& weight, const Tensor& scales,
                           const std::optional<Tensor>& zero_points) {
  if (input.scalar_type() != ScalarType::Float && input.scalar_type() != ScalarType::Half) {
    a.fail(Error::InvalidArgument, "'input' has dtype %s; it must be Float or Half",
           runtime::to_string(input.scalar_type()));
    return false;
  }
  if (zero_points) {
    a.fail(Error::NotSupported, "'weight_zero_points' must be None: the weight's zero points are not supported");
    return false;
  }
  return check_rank(a, input, "input", 2) && check_rank(a, weight, "weight", 2) &&
         a.check_dtype(weight, "weight", ScalarType::Char) &&
         a.check_dtype(scales, "weight_scales", input.scalar_type()) && a.check_contiguous(scales, "weight_scales");
}

bool check_size(KernelArgs& a, const char* name, int64_t size, const char* what, int64_t expected) {
  if (size == expected) return true;
  a.fail(Error::InvalidArgument, "'%s' has %lld %s; it needs %lld", name, static_cast<long long>(size), what,
         static_cast<long long>(expected));
  return false;
}

// Output columns are done in runs of this many float sums, kept on the stack.
constexpr int64_t kColumns = 64;

template <typename T>
void mixed_mm(const Tensor& input, const Tensor& weight, const Tensor& scales, const Tensor& out) {
  const int64_t m = input.sizes()[0], n = input.sizes()[1], p = weight.sizes()[1];
  const T* x = input.const_data_ptr<T>();
  const int8_t* w = weight.const_data_ptr<int8_t>();
  const T* s = scales.const_data_ptr<T>();
  T* o = out.mutable_data_ptr<T>();
  float sums[kColumns];
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j0 = 0; j0 < p; j0 += kColumns) {
      const int64_t width = std::min(kColumns, p - j0);
      std::fill(sums, sums + width, 0.0f);
      for (int64_t k = 0; k < n; ++k) {
        const auto xk = static_cast<float>(x[i * n + k]), sk = static_cast<float>(s[k]);
        const int8_t* row = w + k * p + j0;
        for (int64_t j = 0; j < width; ++j) sums[j] += xk * static_cast<float>(row[j]) * sk;
      }
      for (int64_t j = 0; j < width; ++j) o[i * p + j0 + j] = util::store_as<T>(sums[j]);
    }
  }
}

template <typename T, typename Out>
void mixed_linear(const Tensor& input, const Tensor& weight, const Tensor& scales, const Tensor& out) {
  const int64_t m = input.sizes()[0], n = input.sizes()[1], p = weight.sizes()[0];
  const int64_t groups = scales.dim() == 2 ? scales.sizes()[1] : 1, group_size = n / groups;
  const T* x = input.const_data_ptr<T>();
  const int8_t* w = weight.const_data_ptr<int8_t>();
  const T* s = scales.const_data_ptr<T>();
  Out* o = out.mutable_data_ptr<Out>();
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < p; ++j) {
      float sum = 0.0f;
      for (int64_t g = 0; g < groups; ++g) {
        float partial = 0.0f;
        for (int64_t k = g * group_size; k < (g + 1) * group_size; ++k) {
          partial += static_cast<float>(x[i * n + k]) * static_cast<float>(w[j * n + k]);
        }
        sum += partial * static_cast<float>(s[j * groups + g]);
      }
      o[i * p + j] = util::store_as<Out>(sum);
    }
  }
}

template <typename F>
void visit_float_or_half(ScalarType t, F&& f) {
  if (t == ScalarType::Half) {
    f(util::TypeTag<runtime::Half>{});
  } else {
    f(util::TypeTag<float>{});
  }
}

}  // namespace

void quantized_add_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "quantized_decomposed::add.out", args);
  Tensor x, y, out;
  Operand ops[3];
  if (!a.check_count(15) || !a.tensor(0, "a", &x) || !a.tensor(5, "b", &y) || !a.tensor(14, "out", &out)) return;
  const ScalarType dtype = x.scalar_type();
  if (!util::is_quantized_dtype(dtype) || dtype == ScalarType::UInt16) {
    a.fail(Error::InvalidArgument, "'a' has dtype %s; it must be Byte, Char, Short or Int", runtime::to_string(dtype));
    return;
  }
  if (!a.check_dtype(y, "b", dtype) || !a.check_dtype(out, "out", dtype)) return;
  if (!same_shape(x, y)) {
    a.fail(Error::InvalidArgument, "'b' must have the shape of 'a' (the op does not broadcast)");
    return;
  }
  if (!read_operand(a, 1, "a_", dtype, &ops[0]) || !read_operand(a, 6, "b_", dtype, &ops[1]) ||
      !read_operand(a, 10, "out_", dtype, &ops[2]) || !a.check_contiguous(x, "a") || !a.check_contiguous(y, "b") ||
      !a.check_contiguous(out, "out") || !a.resize_out(out, "out", x.sizes())) {
    return;
  }
  util::visit_quantized(dtype, [&](auto tag) {
    using Q = typename decltype(tag)::type;
    add_values(x.const_data_ptr<Q>(), y.const_data_ptr<Q>(), out.mutable_data_ptr<Q>(), x.numel(), ops);
  });
}

void quantized_mixed_mm_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "quantized_decomposed::mixed_mm.out", args);
  Tensor input, weight, scales, out;
  std::optional<Tensor> zero_points;
  if (!a.check_count(5) || !a.tensor(0, "input", &input) || !a.tensor(1, "weight", &weight) ||
      !a.tensor(2, "weight_scales", &scales) || !a.optional_tensor(3, "weight_zero_points", &zero_points) ||
      !a.tensor(4, "out", &out) || !check_matmul_operands(a, input, weight, scales, zero_points) ||
      !check_rank(a, scales, "weight_scales", 1) ||
      !check_size(a, "weight", weight.sizes()[0], "rows", input.sizes()[1]) ||
      !check_size(a, "weight_scales", scales.sizes()[0], "elements", weight.sizes()[0]) ||
      !a.check_dtype(out, "out", input.scalar_type()) || !a.check_contiguous(out, "out")) {
    return;
  }
  const SizesType sizes[2] = {input.sizes()[0], weight.sizes()[1]};
  if (!a.resize_out(out, "out", {sizes, 2})) return;
  visit_float_or_half(input.scalar_type(), [&](auto tag) {
    mixed_mm<typename decltype(tag)::type>(input, weight, scales, out);
  });
}

void quantized_mixed_linear_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "quantized_decomposed::mixed_linear.out", args);
  Tensor input, weight, scales, out;
  std::optional<Tensor> zero_points;
  std::optional<ScalarType> dtype;
  if (!a.check_count(6) || !a.tensor(0, "input", &input) || !a.tensor(1, "weight", &weight) ||
      !a.tensor(2, "weight_scales", &scales) || !a.optional_tensor(3, "weight_zero_points", &zero_points) ||
      !util::optional_scalar_type_arg(a, args, 4, "dtype", &dtype) || !a.tensor(5, "out", &out) ||
      !check_matmul_operands(a, input, weight, scales, zero_points) ||
      !check_size(a, "weight", weight.sizes()[1], "columns", input.sizes()[1])) {
    return;
  }
  if ((scales.dim() != 1 && scales.dim() != 2) || scales.sizes()[0] != weight.sizes()[0]) {
    a.fail(Error::InvalidArgument, "'weight_scales' must be 1-D or 2-D with one row per row of 'weight' (%d)",
           weight.sizes()[0]);
    return;
  }
  const int64_t groups = scales.dim() == 2 ? scales.sizes()[1] : 1;
  if (groups == 0 || input.sizes()[1] % groups != 0) {
    a.fail(Error::InvalidArgument, "'weight_scales' has %lld groups per row, which do not divide the %d columns",
           static_cast<long long>(groups), input.sizes()[1]);
    return;
  }
  const ScalarType out_dtype = dtype.value_or(out.scalar_type());
  if (out_dtype != ScalarType::Float && out_dtype != ScalarType::Half) {
    a.fail(Error::InvalidArgument, "'%s' is %s; it must be Float or Half", dtype ? "dtype" : "out",
           runtime::to_string(out_dtype));
    return;
  }
  const SizesType sizes[2] = {input.sizes()[0], weight.sizes()[0]};
  if (!a.check_dtype(out, "out", out_dtype) || !a.check_contiguous(out, "out") || !a.resize_out(out, "out", {sizes, 2})) {
    return;
  }
  visit_float_or_half(input.scalar_type(), [&](auto in_tag) {
    visit_float_or_half(out_dtype, [&](auto out_tag) {
      mixed_linear<typename decltype(in_tag)::type, typename decltype(out_tag)::type>(input, weight, scales, out);
    });
  });
}

}  // namespace kiln::kernels::portable
