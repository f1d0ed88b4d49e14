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

}  // namespace kiln::kernels::portable
