// Internal to the portable kernels: the complex-number paths of kernels whose
// real paths live elsewhere (abs in unary.cpp, mul in binary.cpp), which hand
// a call with a complex tensor argument to these.
#pragma once

#include "kernels/portable/kernels.h"

namespace kiln::kernels::portable {

/// True if any argument of the call is a ComplexFloat or ComplexDouble tensor.
bool has_complex_tensor(Span<EValue*> args);

/// aten::abs.out of a complex tensor: its magnitude, in the real type of its parts.
void complex_abs_out(KernelRuntimeContext& ctx, Span<EValue*> args);
/// aten::mul.out with a complex operand: both operands broadcast, the real
/// one (if any) read as complex numbers with no imaginary part; out has the
/// promoted complex dtype, and so must the complex operands.
void complex_mul_out(KernelRuntimeContext& ctx, Span<EValue*> args);

}  // namespace kiln::kernels::portable
