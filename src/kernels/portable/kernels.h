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

/// aten::convolution.out: 1-D (NCL), 2-D (NCHW) or 3-D (NCDHW) direct convolution with
/// stride, padding, dilation, groups and optional bias; float or double,
/// contiguous. Transposed (1-D and 2-D; weight [in, out / groups, k...]) with
/// output_padding (below the stride or the dilation, as PyTorch requires).
void convolution_out(KernelRuntimeContext& ctx, Span<EValue*> args);

/// aten::add.out, aten::sub.out (with Scalar alpha), aten::mul.out,
/// aten::div.out: broadcasting, dtypes bool/int32/int64/float/double/half/
/// bfloat16 with PyTorch's type promotion (Float for div of two integral
/// tensors); out may have any dtype the result can be cast to (not floating
/// into integral, nor non-bool into bool). sub rejects bool. A non-unit alpha
/// is fused, x + alpha * other rounded once, as PyTorch's vectorized loops
/// (its scalar loop for short Half/BFloat16 tensors rounds the product first,
/// which can differ by one 16-bit ulp). Half/BFloat16 mul and div read a
/// single-element `other` unrounded, as PyTorch does. mul also takes complex
/// operands (complex.h).
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
/// aten::_softmax.out: softmax along one dim (max subtracted first), any
/// layout; float, double, Half or BFloat16 (computed in float). half_to_float
/// makes a Half or BFloat16 input give a Float out (as on CUDA), is a no-op
/// on Float and NotSupported on Double.
void softmax_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::max_pool2d_with_indices.out and max_pool3d_with_indices.out:
/// (N, C, spatial...) or (C, spatial...); values and flat indices per plane
/// (h * W + w, or (d * H + h) * W + w), PyTorch's ceil_mode output size,
/// padding as -inf, NaN propagating. Real, 16-bit float and 8- and 16-bit
/// integer dtypes, as PyTorch.
void max_pool2d_with_indices_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void max_pool3d_with_indices_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::mean.out (mean.dim's out variant): dims None or [] mean all, sums in
/// double; the result dtype is `dtype` if given, else out's (as PyTorch
/// infers it), and must be floating (Half and BFloat16 too); without `dtype`
/// self must be floating. aten::any.out (any.dim's): a Bool out, NaN counting
/// as true. Any layout of self and out.
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
/// aten::logical_not.out (0/1 in out's dtype, any of the dtypes below),
/// aten::eq.Scalar_out (as the other comparisons below),
/// aten::where.self_out (broadcasting, result_type of self and other, out of
/// that dtype), aten::full_like.out (the value in out's dtype, which it must
/// fit as PyTorch checks, except for a single Half/BFloat16 element, which
/// PyTorch rounds to infinity). Dtypes bool/int32/int64/float/double/half/
/// bfloat16.
void logical_not_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::isnan.out, aten::isinf.out: Bool per element (integers: false).
void isnan_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void isinf_out(KernelRuntimeContext& ctx, Span<EValue*> args);
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

/// Unary math and activations. Half and BFloat16 are computed in float and
/// rounded to nearest even; float in float, double in double, with the C
/// library's functions (so results may differ from PyTorch's vectorized
/// kernels in the last bit). `out` must have the dtype PyTorch gives the
/// result; any dim order of self and out.
///
/// Same dtype as self, for Int, Long, Float, Double, Half, BFloat16 (Bool is
/// rejected, as in PyTorch):
///   aten::neg.out, aten::abs.out (integers wrap: the minimum maps to itself;
///   a ComplexFloat/ComplexDouble self gives its magnitude in Float/Double);
///   aten::floor.out, aten::ceil.out, aten::round.out (halfway cases to even;
///   integral tensors are copied unchanged); aten::relu.out (keeps NaN).
/// aten::sign.out: the same dtypes and Bool (unchanged); -1, 0 or 1, with 0
/// for NaN and for -0.
void neg_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void abs_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void floor_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void ceil_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void round_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void relu_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void sign_out(KernelRuntimeContext& ctx, Span<EValue*> args);

/// Floating ops: a Float, Double, Half or BFloat16 self gives out of the same
/// dtype; Bool, Int or Long self is converted to float and gives a Float out.
/// aten::exp.out, log.out, log1p.out, sqrt.out, rsqrt.out (1 / sqrt),
/// reciprocal.out, erf.out, erfc.out, lgamma.out (log |gamma(x)|), sigmoid.out
/// (1 / (1 + exp(-x))), tanh.out, sin.out, cos.out, tan.out. IEEE results at
/// the edges: log(0) = -inf, sqrt(-1) = NaN, reciprocal(0) = inf, rsqrt(-0) =
/// -inf, lgamma of 0 and of the negative integers inf.
void exp_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void log_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void log1p_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void sqrt_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void rsqrt_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void reciprocal_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void erf_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void erfc_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void lgamma_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void sigmoid_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void tanh_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void sin_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void cos_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void tan_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void asin_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void acos_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void atan_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void sinh_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void cosh_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void asinh_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void acosh_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void atanh_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void expm1_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void log2_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void log10_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// Toward zero, in self's dtype (integers as they are).
void trunc_out(KernelRuntimeContext& ctx, Span<EValue*> args);

/// Activations on Float, Double, Half or BFloat16 (out of self's dtype):
///   aten::silu.out: x / (1 + exp(-x));
///   aten::hardswish.out: x * min(max(x + 3, 0), 6) / 6;
///   aten::hardsigmoid.out: min(max(x + 3, 0), 6) / 6;
///   aten::leaky_relu.out: x > 0 ? x : x * negative_slope;
///   aten::elu.out: x > 0 ? x * scale : expm1(x * input_scale) * alpha * scale;
///   aten::gelu.out: approximate 'none' (0.5 x (1 + erf(x / sqrt 2))) or
///   'tanh' (0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))).
/// Scalar arguments are converted to float (double for Double tensors) and
/// fail, as in PyTorch, if a finite value does not fit.
void silu_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void hardswish_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void hardsigmoid_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void leaky_relu_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void elu_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void gelu_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::hardtanh.out: clamp to [min_val, max_val] (max_val wins if they
/// cross; NaN stays NaN, a NaN bound gives NaN) for Int, Long, Float, Double,
/// Half and BFloat16. Floating tensors take the bounds rounded to their dtype
/// (failing if a finite bound overflows it); integral tensors take them
/// truncated to integers, and fail only for a min_val above or a max_val
/// below the dtype's range.
void hardtanh_out(KernelRuntimeContext& ctx, Span<EValue*> args);

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
/// fmod (the sign of self) and remainder (the sign of other) of the promoted
/// dtype (Bool refused, an integer 0 divisor an error); atan2 (floating,
/// integers promoted to Float).
void fmod_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void fmod_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void remainder_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void remainder_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void atan2_out(KernelRuntimeContext& ctx, Span<EValue*> args);
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
void bitwise_xor_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void bitwise_and_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void bitwise_or_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void bitwise_xor_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::masked_fill.Scalar_out: self where mask (Bool) is false, value where
/// true; self and mask broadcast; out has self's dtype; value must fit it
/// (PyTorch's overflow check, Half/BFloat16 included).
void masked_fill_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args);

// ---- reductions, scans, sort, softmax (reduce.cpp, sort.cpp, norm.cpp) ----
/// Reductions over a dim list (reduce.cpp). `dim` lists may hold negative
/// dims, in any order, each once; a 0-dim self takes dim 0 or -1. Self and
/// the outs may have any layout. dtypes: Bool, Int, Long, Float, Double,
/// Half, BFloat16 unless noted.
///
/// aten::sum.IntList_out (dim None or [] = all) and aten::prod.int_out (one
/// dim): the result dtype is `dtype` if given, else out's, as PyTorch infers
/// it; aten::sum.out and aten::prod.out (everything): `dtype`, else self's
/// with Bool and integral self widened to Long. Each input is cast to the
/// result dtype first; sums accumulate in double (floating) or int64 with
/// wraparound, products in float/double/int64; Bool results are any/all.
/// The sum of nothing is 0, the product 1.
void sum_intlist_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void sum_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void prod_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void prod_int_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::amax.out, aten::amin.out: dim [] = all; out has self's dtype; NaN
/// propagates. A reduced dim of size 0 is an error (no identity), as in PyTorch.
void amax_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void amin_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::argmax.out, aten::argmin.out: dim None = the index into flattened
/// self (keepdim then keeps every dim as 1); a Long out holding the first
/// index of the extreme, the first NaN if there is one. No Bool (as PyTorch).
/// aten::max.dim_max, aten::min.dim_min: the extreme along one dim and its
/// index, by the same rules, into outs `max`/`min` (self's dtype) and
/// `max_values`/`min_indices` (Long), as the schema names them. A reduced dim
/// of size 0 is an error.
void argmax_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void argmin_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void max_dim_max(KernelRuntimeContext& ctx, Span<EValue*> args);
void min_dim_min(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::var.correction_out: dim None or [] = all; sum of squared deviations
/// from the mean (two passes in double) over max(N - correction, 0), so inf
/// or NaN past N; correction None means 1. Floating self (Float, Double,
/// Half, BFloat16) and a floating out of any of those dtypes.
void var_correction_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::any.all_out, aten::all.all_out (everything), aten::all.out (one dim),
/// aten::any.dims_out, aten::all.dims_out (None = all, [] = none reduced):
/// a Bool out; NaN counts as true; any of nothing is false, all true.
void any_all_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void any_dims_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void all_all_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void all_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void all_dims_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::cumsum.out: running sums along one dim, in `dtype` if given, else
/// out's dtype (Long for Bool and integral self in PyTorch's functional
/// form); never Bool. Accumulated in double (floating) or int64.
void cumsum_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::_log_softmax.out (norm.cpp): x - max - log(sum(exp(x - max))) along
/// one dim; dtypes and half_to_float as _softmax.out.
void log_softmax_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::topk.values (sort.cpp): the k largest (or smallest) along `dim`,
/// always in sorted order, with their Long indices; NaN is larger than every
/// value; ties keep the lower index first. 0 <= k <= the dim's size (1 for a
/// 0-dim self). Int, Long, Float, Double, Half, BFloat16 (no Bool, as PyTorch).
/// aten::sort.values: sorted along `dim`, stable, NaN last (first when
/// descending), with the Long indices; Bool too. Any layout; no allocation.
void topk_values(KernelRuntimeContext& ctx, Span<EValue*> args);
void sort_values(KernelRuntimeContext& ctx, Span<EValue*> args);

// ---- convolution, normalization, pooling, resizing (conv.cpp, group_norm.cpp, pool.cpp, upsample.cpp) ----
/// aten::native_group_norm.out: input read as [N, C, HxW] (its element count
/// must match; its shape is out0's), normalized per (n, group) with the
/// biased variance; optional per-channel weight and bias of input's dtype.
/// out1 = mean and out2 = rstd, both [N, group]. Float or double, contiguous.
void native_group_norm_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::avg_pool2d.out, avg_pool3d.out: (N, C, spatial...) or (C,
/// spatial...); stride [] = kernel_size, padding at most half the kernel,
/// PyTorch's ceil_mode output size (the last window must start inside the
/// input or its left padding). The divisor is divisor_override, or the window
/// clipped to the padded input (count_include_pad) or to the input; int64
/// divides truncating. aten::_adaptive_avg_pool2d.out, _adaptive_avg_pool3d.out:
/// any output size >= 0, window [floor(i * in / out), ceil((i + 1) * in / out)).
/// All sum each window in depth, row, column order; float, double, Half,
/// BFloat16 (summed in float), and int64 for avg_pool; contiguous.
void avg_pool2d_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void avg_pool3d_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void adaptive_avg_pool2d_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void adaptive_avg_pool3d_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::col2im.out (col2im.cpp): the columns of sliding blocks, (N, C * kh *
/// kw, L) or (C * kh * kw, L) with L the number of blocks, summed back into
/// (N, C, H, W) or (C, H, W) for output_size [H, W]; overlapping elements add
/// in PyTorch's order, rounding at each addition. Float, double, Half,
/// BFloat16 and bool (added as logical or), contiguous.
void col2im_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::upsample_nearest2d.vec_out, aten::upsample_bilinear2d.vec_out
/// (align_corners): (N, C, H, W) to exactly one of output_size [H, W] or
/// scale_factors [sh, sw] (output trunc(in * s), and 1 / s replacing in / out
/// in the source index), with PyTorch's source-index formulas (nearest:
/// floor(dst * scale) in float; bilinear: clamped at the borders). Float,
/// double, Half, BFloat16 (blended in float), contiguous.
void upsample_nearest2d_vec_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void upsample_bilinear2d_vec_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::grid_sampler_2d.out (grid_sample.cpp): input (N, C, H, W) sampled at
/// grid (N, H_out, W_out, 2) of (x, y) in [-1, 1] into (N, C, H_out, W_out);
/// interpolation_mode 0 bilinear, 1 nearest, 2 bicubic; padding_mode 0 zeros,
/// 1 border, 2 reflection; PyTorch's CPU formulas. Float, double, Half,
/// BFloat16 (computed in float), grid of input's dtype, contiguous.
void grid_sampler_2d_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::_cdist_forward.out (distance.cpp): the p-norm distances (p >= 0; 0
/// counts differing entries, inf takes the largest) between the rows of x1
/// [*, P, M] and x2 [*, R, M], batch dims broadcast, into [*, P, R]; p = 2 by
/// PyTorch's matrix-product formula when compute_mode is 1, or None / 0 with
/// P or R over 25. aten::_pdist_forward.out: the distances between the rows
/// i < j of a [N, M] self, in row-major order, into [N * (N - 1) / 2]. Float
/// or double, contiguous.
void cdist_forward_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void pdist_forward_out(KernelRuntimeContext& ctx, Span<EValue*> args);

// ---- data movement and factories (shape.cpp, copy_views.cpp, index.cpp, factory.cpp) ----

/// aten::cat.out: concatenates `tensors` along `dim` (negative allowed).
/// Inputs promote to one dtype (PyTorch's rules) that out's dtype must be
/// castable from (no floating to integral, nothing but bool to bool); mixed
/// dtypes convert as PyTorch casts among bool, uint8, int8, int16, int32,
/// int64, half, bfloat16, float and double. 1-D empty inputs are skipped
/// whatever their shape; 0-dim inputs are errors. Same-dtype inputs: any dtype.
void cat_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::split_with_sizes_copy.out: copies consecutive pieces of `self`
/// along `dim` into the tensors of the `out` list; sizes are non-negative
/// (zero allowed) and sum to the dim's size. Any dtype; returns nothing.
void split_with_sizes_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::constant_pad_nd.out: pad pairs (before, after) from the last dim
/// backwards; negative pads crop. `value` converts to self's dtype with
/// PyTorch's overflow check. The convertible dtypes (see cat_out).
void constant_pad_nd_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::repeat.out: tiles self `repeats[d]` times along each dim (repeats may
/// have more dims than self, which gains leading dims of size 1). Any dtype.
void repeat_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::reflection_pad{1,2,3}d.out and aten::replication_pad{1,2,3}d.out:
/// the last 1, 2 or 3 dims of a batched or unbatched input padded by
/// `padding` (pairs (before, after), the last dim's first; negative pads crop)
/// with the input mirrored about its edge element (each pad smaller than its
/// dim) or its edge element repeated. Real, 16-bit float and 8- and 16-bit
/// integer dtypes, as PyTorch.
void reflection_pad1d_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void reflection_pad2d_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void reflection_pad3d_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void replication_pad1d_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void replication_pad2d_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void replication_pad3d_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::flip.out: self with the order of each dim in `dims` reversed (a dim
/// named twice is an error). Any dtype.
void flip_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::diagonal_copy.out: the diagonal of dims dim1 and dim2 (offset > 0
/// above the main one, < 0 below), as a last dim after the other dims; empty
/// when the offset passes the edge. Any dtype.
void diagonal_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::alias_copy.out: a copy of self. Any dtype.
/// self with a slice (or one index) of `dim` replaced by src, whose sizes are the slice's.
void slice_scatter_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void select_scatter_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// as_strided over self's own elements (every read inside self).
void as_strided_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void alias_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::unfold_copy.out: the windows of `size` elements `step` apart along
/// `dimension` (which then counts them), each window a new last dim; any dtype.
void unfold_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::view_as_real_copy.out: a ComplexFloat/ComplexDouble tensor as its
/// Float/Double parts (a trailing dim of 2); aten::view_as_complex_copy.out
/// the inverse. Contiguous.
void view_as_real_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void view_as_complex_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args);

/// aten::_fft_r2c.out: the discrete Fourier transform of a float or double
/// tensor over `dim` into ComplexFloat/ComplexDouble, the last listed dim
/// halved to n / 2 + 1 bins when onesided; aten::_fft_c2r.out: the inverse,
/// complex to real, the last listed dim becoming `last_dim_size`.
/// `normalization` 0 none, 1 by 1 / sqrt(n), 2 by 1 / n. Contiguous; on
/// Eigen's FFT (fft.cpp), allocating plans and scratch on the heap.
void fft_r2c_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void fft_c2r_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::_to_copy.out: self copied into out's dtype, cast as PyTorch casts
/// (float to integer truncates, to bool is != 0; the result of a float beyond
/// the integer type's range or NaN is unspecified but never undefined
/// behaviour). memory_format None, contiguous or preserve (out's own dim order
/// decides the layout). The convertible dtypes; any dtype to the same dtype.
void to_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args);

/// aten::index.Tensor_out: advanced indexing. `indices` holds one entry per
/// leading dim of self: None (the whole dim), a Long/Int index tensor
/// (negatives count from the end), or a Bool/Byte mask (of 1+ dims, matching
/// self's dims it covers). The index tensors (a mask as the list of its true
/// positions) broadcast together; next to each other their result dims stay
/// in place, separated by a None they go to the front. An index out of range
/// is an error. Any dtype of self.
void index_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::index_select.out: the entries of a 0-dim or 1-D Long/Int `index`
/// along `dim`, each in [0, size). Any dtype of self.
void index_select_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::gather.out: out[i][j] = self[index[i][j]][j] (for dim 0), index
/// Long/Int of self's rank and no larger outside `dim`, each in [0, size).
/// Any dtype of self.
void gather_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::embedding.out: rows of the 2-D `weight` picked by Long/Int
/// `indices` of any shape (out: indices' shape + [D]); an index outside
/// [0, V) is an error. padding_idx, scale_grad_by_freq and sparse only
/// matter for the backward pass and are ignored. Any dtype of weight.
void embedding_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// Scatters (scatter.cpp): out = self, then for each element of the Long/Int
/// `index` (of self's rank, no larger than src, nor than self outside `dim`;
/// each in [0, size of dim)) the element of src at the same position (or
/// `value`) goes to that position of out with its `dim` coordinate replaced
/// by the index. aten::scatter.src_out and aten::scatter.value_out write it
/// (a repeated index keeps the last), any dtype (the value converts with
/// PyTorch's overflow check); aten::scatter_add.out adds it; and
/// aten::scatter_reduce.two_out combines by `reduce` ("sum", "prod", "mean",
/// "amax", "amin"), starting from self's element, or with include_self false
/// from the slots' identity. Mean divides by the count (floor division for
/// integers) and needs temporary memory of 8 bytes per element of out's
/// `dim`. All in self's dtype as PyTorch's CPU kernels (16-bit floats rounded
/// each step, integers wrapping, bool as logic); any dtype, but no mean of
/// bools, nor mean, amax or amin of UInt16, UInt32 and UInt64.
void scatter_src_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void scatter_value_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void scatter_add_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void scatter_reduce_two_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::index_put.out (index_put.cpp): out = self with self[indices] =
/// values, indices read as index.Tensor reads them (None, Long/Int with
/// negatives from the end, Bool/Byte masks; at least one tensor), values of
/// self's dtype broadcasting to the indexing result. With accumulate the
/// values are added instead, repeated indices adding up in order (in self's
/// dtype, as PyTorch's CPU loop); without it a repeated index keeps the last.
/// Any dtype.
void index_put_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::masked_scatter.out (index_put.cpp): self and the Bool mask broadcast
/// together; out is self where the mask is false and the next element of
/// source (of self's dtype, in its logical order) where it is true. Source
/// needs at least as many elements as the mask has true. Any dtype.
void masked_scatter_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::nonzero.out (index_put.cpp): the positions of self's nonzero
/// elements (NaN is nonzero, -0.0 is not) in row-major order, as a Long
/// [count, rank] tensor. The count is data: out must be resizable to it (a
/// bound-dynamic out of self's numel rows, as torch.export bounds it, always
/// is). The dtypes of cat_out's conversions.
void nonzero_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::_embedding_bag.out (embedding_bag.cpp): bag b of the 1-D Long/Int
/// `indices` runs from offsets[b] to the next offset (the last bag to the
/// end; with include_last_offset the last offset is the end and is no bag);
/// offsets start at 0 and never decrease. out0[b] is the sum (weighted by
/// per_sample_weights, mode 0 only), mean (mode 1) or max (mode 2) of the
/// weight rows the bag's indices pick, leaving out padding_idx (>= 0); 0 for
/// a bag without rows. out1..out3 as PyTorch's CPU kernel: offset2bag (each
/// index's bag; empty in mode sum without padding_idx unless out1 already has
/// one entry per index), bag_size (non-padding count; 0s in mode sum) and
/// max_indices (the row of each maximum, first of equals; a copy of bag_size
/// but in mode max), Int when indices and offsets are, else Long. Weight
/// Float, Double, Half or BFloat16 (sums in float).
void embedding_bag_out(KernelRuntimeContext& ctx, Span<EValue*> args);

/// Factories, out's dtype deciding the element type: aten::full.out (the
/// fill value converts with PyTorch's overflow check), aten::zeros.out,
/// aten::ones.out, aten::scalar_tensor.out (a 0-dim out). The convertible
/// dtypes (see cat_out).
void full_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void zeros_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void ones_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void scalar_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::empty.out, aten::empty_strided.out: `size` of zeros (the values
/// are unspecified; contiguous whatever the strides).
void empty_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void empty_strided_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::arange.start_out: start, start + step, ... below end (above it for
/// a negative step); PyTorch's length (ceil((end - start) / step) in double,
/// exact in int64 for an int64 out and Int arguments). Values are computed
/// in int64 for integer outs, float for half and bfloat16, double otherwise
/// (PyTorch's vectorized kernel may differ from this in the last bit). Step 0,
/// a step of the wrong sign or a non-finite bound are errors. The convertible
/// dtypes but bool.
void arange_start_out(KernelRuntimeContext& ctx, Span<EValue*> args);

/// Sampling (random.cpp), from the process's generator (runtime/core/random.h)
/// as PyTorch's CPU kernels draw, so that after the same seed the values are
/// PyTorch's (randn's within a few float32 ulps): aten::rand.out and
/// aten::randn.out (float32, float64), their _like forms, aten::uniform.out
/// (no generator argument), aten::randint.out and aten::randint.low_out (int32,
/// int64, float32, float64 holding low and high - 1 exactly).
void rand_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void randn_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void rand_like_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void randn_like_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void uniform_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::normal.float_float_out: randn's draws times std plus mean (std >= 0).
void normal_float_float_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void randint_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void randint_low_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::randperm.out: a permutation of 0 .. n-1 by PyTorch's swaps.
void randperm_out(KernelRuntimeContext& ctx, Span<EValue*> args);

// ---- quantized_decomposed: ExecuTorch's quantized operator set ----
// Quantized dtypes are Byte, Char, Short, UInt16 and Int (UInt16 per tensor
// only: torch.ao's per-channel and per-token references cannot promote it).
// Every kernel checks that quant_min <= quant_max within the dtype's values,
// that scales are positive and finite and zero points within [quant_min,
// quant_max], and that its tensors are contiguous.

/// quantize_per_tensor.out (scale and zero point as numbers) and .Tensor_out
/// (as one-element tensors: Float or Double scale, integer zero point):
/// clamp(round(x * float(1 / scale)) + zero_point) in float, round half to
/// even. Input Float, Half or BFloat16 (read as float, as torch.ao converts them).
void quantize_per_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void quantize_per_tensor_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// dequantize_per_tensor.out and .Tensor_out: (q - zero_point) * scale in
/// out_dtype (None: Float; Float, Double, Half or BFloat16), each step
/// rounded to it as torch's ops round. Input of the quantized dtype `dtype`.
void dequantize_per_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void dequantize_per_tensor_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// quantize_per_channel.out: one scale (Float or Double) and integer zero
/// point per index of `axis` (negative counts from the end); computed in the
/// scales' dtype, 1 / scale in it. Input Float, Half or BFloat16.
/// dequantize_per_channel.out: (q - zero_point) * scale in the scales' dtype
/// (zero points may be None), cast to out_dtype.
void quantize_per_channel_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void dequantize_per_channel_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// quantize_per_token.out: one scale and zero point per row of the last dim
/// (as many as the leading dims' elements), clamp(round(x * (1 / scale) +
/// zero_point)), the zero point added before rounding, in double if the input
/// or the scales are Double, else float. Input Float, Double, Half or BFloat16.
/// dequantize_per_token.out: as dequantize_per_channel per row, cast to
/// output_dtype.
void quantize_per_token_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void dequantize_per_token_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// choose_qparams.Tensor_out: torch.ao's per-tensor affine parameters of a
/// non-empty Float, Half or BFloat16 input (its range must hold 0; eps
/// positive) into a Double scale_out [1] and a Long zero_point_out [1].
/// choose_qparams_per_token_asymmetric.out: int8 parameters (dtype must be
/// Char) for each row of the last dim, into scale_out and zero_point_out of
/// the input's shape with a last dim of 1; input Float, Double, Half or
/// BFloat16. Both refuse inputs holding NaN or an infinity.
void choose_qparams_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void choose_qparams_per_token_asymmetric_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// embedding_byte/2bit/4bit .out and .dtype_out: rows of a quantized table
/// [rows, columns] (byte: Byte or Char; 2-bit and 4-bit: Byte, 4 or 2 values
/// a byte) picked by Long or Int indices of any shape, dequantized with the
/// row's scale, or its group's for 2-D scales (Float, Half or BFloat16;
/// optional zero points of that dtype and shape), in the scales' dtype; out
/// [indices..., values per row] of the scales' dtype, or `dtype` (None: out's;
/// Float, Double, Half or BFloat16) for .dtype_out.
void quantized_embedding_byte_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void quantized_embedding_byte_dtype_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void quantized_embedding_2bit_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void quantized_embedding_2bit_dtype_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void quantized_embedding_4bit_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void quantized_embedding_4bit_dtype_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// add.out: ExecuTorch's quantized add of a and b (same shape and dtype:
/// Byte, Char, Short or Int) into out of that dtype: dequantize each, add in
/// float, requantize with out's parameters.
void quantized_add_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// mixed_mm.out: Float or Half input [m, n] times Char weight [n, p] with one
/// scale (input's dtype) per weight row; mixed_linear.out: input [m, n] times
/// Char weight [p, n] transposed, one scale per weight row or per group of its
/// columns (2-D scales whose groups divide n), out Float or Half (`dtype`, or
/// out's). Float sums; weight zero points are not supported (NotSupported),
/// as in ExecuTorch.
void quantized_mixed_mm_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void quantized_mixed_linear_out(KernelRuntimeContext& ctx, Span<EValue*> args);

// ---- torchao: the affine quantization primitives of quantize_ configs ----
// (torchao/quantization/quant_primitives.py; affine_quantize.cpp.) A
// block_size of one entry per input dim (each at least 1, dividing the dim)
// cuts the input into blocks sharing a scale and zero point; scale and zero
// point hold one element per block in row-major block order, in any shape.
// quant_min and quant_max (None: the dtype's bounds) lie within the quantized
// dtype (Byte, Char, Short or Int: torchao's, less the sub-byte ones). Every step rounds to the dtype
// torch's op would store; tensors contiguous.

/// quantize_affine.out: clamp(round(x * (1 / scale)) + zero_point) in the
/// promoted dtype of the input (Float, Half or BFloat16) and the scale, round
/// half to even, into out of output_dtype. The zero point (any real dtype) may
/// be None or empty. dequantize_affine.out: (q - zero_point) * scale, the
/// input (of input_dtype) and zero point cast to output_dtype (Float, Half or
/// BFloat16) first.
void quantize_affine_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void dequantize_affine_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// choose_qparams_affine.out: one scale and zero point per block of a Float,
/// Double, Half or BFloat16 input for mapping_type SYMMETRIC,
/// SYMMETRIC_NO_CLIPPING_ERR or ASYMMETRIC (see affine_quantize.cpp), scale
/// at least eps (None: the smallest normal of the input's dtype), into out0
/// (scale_dtype, None: the input's) and out1 (zero_point_dtype, None: Int for
/// ASYMMETRIC, else the input's). Results have the block counts of the kept
/// (block 1) and split dims, and of every dim with keepdim. NaN propagates.
void choose_qparams_affine_out(KernelRuntimeContext& ctx, Span<EValue*> args);

// ---- Kiln's own ops (src/aot/ir/op_table/kiln_ops.def), float32, contiguous ----

/// kiln::sdpa.out: softmax(q k^T * scale + mask) v per head, grouped-query
/// heads reading their key/value head in place; keys past a row's last
/// allowed one (the mask's, or the diagonal with is_causal) are never read;
/// softmax computed online; a row that attends to nothing gives zeros.
void kiln_sdpa_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// kiln::rms_norm.out: weight * (x * rsqrt(mean(x^2) + eps)) over the last
/// dim, the mean of squares summed in double.
void kiln_rms_norm_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// kiln::rotary_embedding.out: x * cos + rotate_half(x) * sin, cos and sin
/// broadcast to x along all but its last dim.
void kiln_rotary_embedding_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// kiln::linear.out: input [..., K] times weights packed by
/// kernels::tuned::pack_linear (f32, q8 or q4; float or int8 activations),
/// plus bias; split over the kernel threads (runtime/kernel/thread_pool.h).
void kiln_linear_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// kiln::gated_activation.out: activation(gate) * up, the activation 'silu',
/// 'gelu' or 'gelu_tanh', computed as the unfused ops compute it.
void kiln_gated_activation_out(KernelRuntimeContext& ctx, Span<EValue*> args);

}  // namespace kiln::kernels::portable
