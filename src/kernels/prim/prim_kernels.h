// The prim kernels' entry points (see register.h for what each does). Boxed
// convention: the schema's arguments, then the return slot.
#pragma once

#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::kernels::prim {

using runtime::EValue;
using runtime::KernelRuntimeContext;
using runtime::Span;

// scalar_ops.cpp: [a, b, result] (neg: [a, result]).
void add_scalar(KernelRuntimeContext& ctx, Span<EValue*> args);
void sub_scalar(KernelRuntimeContext& ctx, Span<EValue*> args);
void mul_scalar(KernelRuntimeContext& ctx, Span<EValue*> args);
void floordiv_scalar(KernelRuntimeContext& ctx, Span<EValue*> args);
void truediv_scalar(KernelRuntimeContext& ctx, Span<EValue*> args);
void mod_scalar(KernelRuntimeContext& ctx, Span<EValue*> args);
void eq_scalar(KernelRuntimeContext& ctx, Span<EValue*> args);
void gt_scalar(KernelRuntimeContext& ctx, Span<EValue*> args);
void lt_scalar(KernelRuntimeContext& ctx, Span<EValue*> args);
void ge_scalar(KernelRuntimeContext& ctx, Span<EValue*> args);
void le_scalar(KernelRuntimeContext& ctx, Span<EValue*> args);
void neg_scalar(KernelRuntimeContext& ctx, Span<EValue*> args);
/// Int-only floordiv and mod (ExecuTorch's .int overloads).
void floordiv_int(KernelRuntimeContext& ctx, Span<EValue*> args);
void mod_int(KernelRuntimeContext& ctx, Span<EValue*> args);
void sym_max_scalar(KernelRuntimeContext& ctx, Span<EValue*> args);
void sym_min_scalar(KernelRuntimeContext& ctx, Span<EValue*> args);
/// [a, result]: a float rounded to an Int (an Int passes through).
void ceil_scalar(KernelRuntimeContext& ctx, Span<EValue*> args);
void round_scalar(KernelRuntimeContext& ctx, Span<EValue*> args);
void trunc_scalar(KernelRuntimeContext& ctx, Span<EValue*> args);
void sym_int_scalar(KernelRuntimeContext& ctx, Span<EValue*> args);
/// [a, result] -> Double.
void sym_float_scalar(KernelRuntimeContext& ctx, Span<EValue*> args);
/// [a (Bool), result] -> Bool.
void sym_not_scalar(KernelRuntimeContext& ctx, Span<EValue*> args);
/// [b (Bool), t, f, result] -> t if b else f.
void sym_ite_scalar(KernelRuntimeContext& ctx, Span<EValue*> args);

// tensor_ops.cpp
/// aten::sym_size.int: [self, dim, result] -> Int.
void sym_size_int(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::sym_numel: [self, result] -> Int.
void sym_numel(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::_local_scalar_dense: [self (one element), result] -> Int, Double
/// or Bool by self's dtype.
void local_scalar_dense(KernelRuntimeContext& ctx, Span<EValue*> args);
/// executorch_prim::et_view.default: [self, size, out]; out takes self's data
/// and `size` (one entry may be -1: inferred).
void et_view(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::copy_: [self, src, non_blocking, return]; src broadcast to self's
/// shape and cast to its dtype.
void copy_(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::copy.out: [self, src, non_blocking, out, return]; out takes self's
/// shape and dtype and src's values, broadcast and cast.
void copy_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// dim_order_ops::_to_dim_order_copy.out: [self, non_blocking, dim_order,
/// out, return].
void to_dim_order_copy_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// dim_order_ops::_clone_dim_order.out: [self, non_blocking, dim_order, out,
/// return]; a copy of self (same dtype) laid out in out's dim order.
void clone_dim_order_out(KernelRuntimeContext& ctx, Span<EValue*> args);

}  // namespace kiln::kernels::prim
