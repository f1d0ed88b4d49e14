// The portable kernels, each a boxed kernel for the out-variant named beside
// it. `args` holds the schema's arguments in order (defaults filled in, the
// out tensor last) and then one return slot; see operator_registry.h.
//
// Every kernel validates its arguments (tags, dtypes, shapes), resizes `out`
// to the result's shape, and on any mismatch fails `ctx` with a message naming
// the op and the argument, leaving `out` unwritten. Numerics follow PyTorch's
// CPU kernels in the same dtype (float math for float tensors).
#pragma once

#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::kernels::portable {

using runtime::EValue;
using runtime::KernelRuntimeContext;
using runtime::Span;

/// aten::convolution.out: 2-D (NCHW) or 1-D (NCL) direct convolution with
/// stride, padding, dilation, groups and optional bias; float or double.
/// Transposed convolution is NotSupported.
void convolution_out(KernelRuntimeContext& ctx, Span<EValue*> args);

/// aten::relu.out: int32, int64, float or double; out has self's dtype.
void relu_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::sin.out, aten::cos.out, aten::tan.out: floating self gives out of
/// the same dtype; integral or bool self gives a Float out.
void sin_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void cos_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void tan_out(KernelRuntimeContext& ctx, Span<EValue*> args);

/// aten::add.out, aten::sub.out (with Scalar alpha), aten::mul.out,
/// aten::div.out: broadcasting, dtypes bool/int32/int64/float/double/half/
/// bfloat16 with PyTorch's type promotion (Float for div of two integral
/// tensors); out may have any dtype the result can be cast to (not floating
/// into integral, nor non-bool into bool). sub rejects bool. A non-unit alpha
/// is fused, x + alpha * other rounded once, as PyTorch's vectorized loops
/// (its scalar loop for short Half/BFloat16 tensors rounds the product first,
/// which can differ by one 16-bit ulp). Half/BFloat16 mul and div read a
/// single-element `other` unrounded, as PyTorch does.
void add_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void sub_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void mul_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void div_out(KernelRuntimeContext& ctx, Span<EValue*> args);

/// aten::mm.out: [n, m] x [m, p]; aten::addmm.out: beta * self + alpha * mm,
/// self broadcast to [n, p] and ignored when beta is 0. int32, int64, float or
/// double, contiguous.
void mm_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void addmm_out(KernelRuntimeContext& ctx, Span<EValue*> args);

/// aten::view_copy.out (size may hold one -1), aten::permute_copy.out
/// (negative dims allowed), aten::clone.out (memory_format None, contiguous
/// or preserve): any dtype.
void view_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void permute_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void clone_out(KernelRuntimeContext& ctx, Span<EValue*> args);

/// aten::bmm.out: a batch of matrix products; contiguous int32/int64/float/double.
void bmm_out(KernelRuntimeContext& ctx, Span<EValue*> args);

/// aten::_native_batch_norm_legit_no_training.out: batch norm with running
/// statistics (N, C, ...); out1/out2 may be empty ([0]), as torch's CPU eval
/// path leaves them, or [C] (then filled with the running mean and invstd).
/// Multi-output ops like this one get a return slot the kernel does not read.
void native_batch_norm_legit_no_training_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::native_layer_norm.out: out0 normalized, out1 mean, out2 rstd (input's
/// shape with the normalized dims 1); biased variance, accumulated in double.
void native_layer_norm_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::_softmax.out: softmax along one dim (max subtracted first); float or
/// double. half_to_float is NotSupported except as a no-op on Float input.
void softmax_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::max_pool2d_with_indices.out: (N, C, H, W) or (C, H, W); values and
/// flat (h * W + w) indices per plane, PyTorch's ceil_mode output size,
/// padding as -inf, NaN propagating.
void max_pool2d_with_indices_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::mean.out (mean.dim's out variant): dims None or [] mean all, sums in
/// double; out has `dtype` (Float or Double) or self's floating dtype.
/// aten::any.out (any.dim's): a Bool out. Any layout of self and out.
void mean_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void any_out(KernelRuntimeContext& ctx, Span<EValue*> args);

/// Scalar overloads: aten::{add,sub,mul,div}.Scalar_out, with the number
/// taking part in type promotion as PyTorch's wrapped numbers do; dtypes as
/// the Tensor overloads, but out must have the result dtype (PyTorch does not
/// cast for these).
void add_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void sub_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void mul_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void div_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::gelu.out ('none': erf form; 'tanh': the tanh approximation).
void gelu_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::logical_not.out (0/1 in out's dtype, any of the dtypes below),
/// aten::eq.Scalar_out (as the other comparisons below),
/// aten::where.self_out (broadcasting, result_type of self and other, out of
/// that dtype), aten::full_like.out (the value in out's dtype, which it must
/// fit as PyTorch checks, except for a single Half/BFloat16 element, which
/// PyTorch rounds to infinity). Dtypes bool/int32/int64/float/double/half/
/// bfloat16.
void logical_not_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void eq_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void where_self_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void full_like_out(KernelRuntimeContext& ctx, Span<EValue*> args);

/// Copies of view ops: aten::expand_copy.out, select_copy.int_out,
/// squeeze_copy.dims_out, unsqueeze_copy.out, transpose_copy.int_out,
/// slice_copy.Tensor_out. Any layout of self.
void expand_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void select_copy_int_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void squeeze_copy_dims_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void unsqueeze_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void transpose_copy_int_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void slice_copy_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args);

// ---- unary math and activations (unary.cpp, activation.cpp) ----

// ---- binary, comparison, logical, clamp, pow (binary.cpp, pointwise.cpp, compare.cpp) ----

/// Elementwise ops share these rules: dtypes bool/int32/int64/float/double/
/// half/bfloat16 (16-bit floats computed in float); operands broadcast;
/// 0-dim tensors and Scalars promote as PyTorch's result_type; `out` is
/// resized to the broadcast shape.
///
/// aten::pow.Tensor_Tensor_out, pow.Tensor_Scalar_out, pow.Scalar_out
/// (Scalar base): integral pow wraps, and a negative integral exponent gives
/// 0 except for bases 1 and -1, but a negative integral Scalar exponent of an
/// integral tensor fails as in PyTorch (so does one beyond the result dtype,
/// Half and BFloat16 included); 0^0 = 1; floating pow follows C's pow. As
/// PyTorch: a Scalar exponent is applied in double to a float base; the Scalar
/// exponents 0.5, -0.5, 2, 3, -1, -2 are sqrt, 1/sqrt and products (but Half
/// takes pow() for all, and BFloat16 rounds x * x in x^3 and x^-2); the
/// Scalar base 1 fills any out dtype with 1. Bool only as bool ** Bool Scalar.
/// PyTorch's general floating pow is not correctly rounded: results may
/// differ from it in the last bits.
void pow_tensor_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void pow_tensor_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void pow_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::div.out_mode, div.Scalar_mode_out: rounding_mode None (true
/// division, as div.out), "trunc" or "floor" (Python's //, also for floats:
/// -0.0 and inf/NaN as PyTorch); these keep integral dtypes, reject Bool
/// results, and fail on an integral division by zero. Half/BFloat16 round
/// every step to their dtype as PyTorch, except with a single-element other.
/// div.Scalar_mode_out's out must have the result dtype.
void div_out_mode(KernelRuntimeContext& ctx, Span<EValue*> args);
void div_scalar_mode_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::minimum.out, maximum.out: NaN propagates. Out as for add.
void minimum_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void maximum_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::clamp.out (Scalar? min, max; out of the result dtype) and
/// clamp.Tensor_out (Tensor? min, max, broadcast; out as for add):
/// min(max(self, min), max), so max wins when min > max; NaN in any operand
/// propagates; at least one bound; Bool results rejected (except by
/// clamp.Tensor_out with a single bound). Scalar bounds must fit a floating
/// result; for an integral result they saturate, except a min above or a max
/// below its range, which fails (as PyTorch).
void clamp_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void clamp_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// Comparisons aten::{eq,ne,lt,le,gt,ge}.Tensor_out and .Scalar_out (see
/// eq_scalar_out above): compared in the promoted dtype, 0/1 written in any
/// out dtype. NaN compares unequal to everything.
void eq_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void ne_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void lt_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void le_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void gt_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void ge_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void ne_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void lt_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void le_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void gt_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void ge_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::logical_and.out, logical_or.out, logical_xor.out: each operand's
/// truth value (nonzero; NaN is true) once cast to the promoted dtype, as
/// PyTorch does; any input dtypes, 0/1 in any out dtype.
void logical_and_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void logical_or_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void logical_xor_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::bitwise_not.out (out of self's dtype), bitwise_and.Tensor_out,
/// bitwise_or.Tensor_out (promoted; out as for add): Bool (logical) and
/// int32/int64 only.
void bitwise_not_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void bitwise_and_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void bitwise_or_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::masked_fill.Scalar_out: self where mask (Bool) is false, value where
/// true; self and mask broadcast; out has self's dtype; value must fit it
/// (PyTorch's overflow check, Half/BFloat16 included).
void masked_fill_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args);

// ---- reductions, scans, sort, softmax (reduce.cpp, sort.cpp, norm.cpp) ----

// ---- convolution, normalization, pooling, resizing (conv.cpp, group_norm.cpp, pool.cpp, upsample.cpp) ----

// ---- data movement and factories (shape.cpp, copy_views.cpp, index.cpp, factory.cpp) ----

}  // namespace kiln::kernels::portable
