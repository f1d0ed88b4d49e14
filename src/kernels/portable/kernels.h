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
/// aten::alias_copy.out: a copy of self. Any dtype.
void alias_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args);
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

/// Factories, out's dtype deciding the element type: aten::full.out (the
/// fill value converts with PyTorch's overflow check), aten::zeros.out,
/// aten::ones.out, aten::scalar_tensor.out (a 0-dim out). The convertible
/// dtypes (see cat_out).
void full_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void zeros_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void ones_out(KernelRuntimeContext& ctx, Span<EValue*> args);
void scalar_tensor_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::arange.start_out: start, start + step, ... below end (above it for
/// a negative step); PyTorch's length (ceil((end - start) / step) in double,
/// exact in int64 for an int64 out and Int arguments). Values are computed
/// in int64 for integer outs, float for half and bfloat16, double otherwise
/// (PyTorch's vectorized kernel may differ from this in the last bit). Step 0,
/// a step of the wrong sign or a non-finite bound are errors. The convertible
/// dtypes but bool.
void arange_start_out(KernelRuntimeContext& ctx, Span<EValue*> args);

}  // namespace kiln::kernels::portable
