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
/// stride, padding, dilation, groups and optional bias; float or double,
/// contiguous. Transposed (weight [in, out / groups, k...]) with
/// output_padding (below the stride or the dilation, as PyTorch requires).
void convolution_out(KernelRuntimeContext& ctx, Span<EValue*> args);

/// aten::relu.out: int32, int64, float or double; out has self's dtype.
void relu_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::sin.out, aten::cos.out, aten::tan.out: floating self gives out of
/// the same dtype; integral or bool self gives a Float out.
void sin_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void cos_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void tan_out(KernelRuntimeContext& ctx, Span<EValue*> args);

/// aten::add.out, aten::sub.out (with Scalar alpha), aten::mul.out,
/// aten::div.out: broadcasting, dtypes bool/int32/int64/float/double with
/// PyTorch's type promotion; out's dtype must be the promoted one (Float for
/// div of two integral tensors). sub rejects bool.
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
/// taking part in type promotion as PyTorch's wrapped numbers do.
void add_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void sub_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void mul_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void div_scalar_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::gelu.out ('none': erf form; 'tanh': the tanh approximation).
void gelu_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::logical_not.out (0/1 in out's dtype), aten::eq.Scalar_out (compared
/// in the promoted dtype), aten::where.self_out (broadcasting, result_type of
/// self and other), aten::full_like.out (the value in out's dtype, which it
/// must fit as PyTorch checks).
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

// ---- reductions, scans, sort, softmax (reduce.cpp, sort.cpp, norm.cpp) ----

// ---- convolution, normalization, pooling, resizing (conv.cpp, group_norm.cpp, pool.cpp, upsample.cpp) ----
/// aten::native_group_norm.out: input read as [N, C, HxW] (its element count
/// must match; its shape is out0's), normalized per (n, group) with the
/// biased variance; optional per-channel weight and bias of input's dtype.
/// out1 = mean and out2 = rstd, both [N, group]. Float or double, contiguous.
void native_group_norm_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::avg_pool2d.out: (N, C, H, W) or (C, H, W); stride [] = kernel_size,
/// padding at most half the kernel, PyTorch's ceil_mode output size (the last
/// window must start inside the input or its left padding). The divisor is
/// divisor_override, or the window clipped to the padded input
/// (count_include_pad) or to the input. aten::_adaptive_avg_pool2d.out: any
/// output size >= 0, window [floor(i * in / out), ceil((i + 1) * in / out)).
/// Both sum each window in row order; float, double, Half, BFloat16 (summed
/// in float), contiguous.
void avg_pool2d_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void adaptive_avg_pool2d_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::upsample_nearest2d.vec_out, aten::upsample_bilinear2d.vec_out
/// (align_corners): (N, C, H, W) to exactly one of output_size [H, W] or
/// scale_factors [sh, sw] (output trunc(in * s), and 1 / s replacing in / out
/// in the source index), with PyTorch's source-index formulas (nearest:
/// floor(dst * scale) in float; bilinear: clamped at the borders). Float,
/// double, Half, BFloat16 (blended in float), contiguous.
void upsample_nearest2d_vec_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void upsample_bilinear2d_vec_out(KernelRuntimeContext& ctx, Span<EValue*> args);

// ---- data movement and factories (shape.cpp, copy_views.cpp, index.cpp, factory.cpp) ----

}  // namespace kiln::kernels::portable
