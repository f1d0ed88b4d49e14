// The prim kernel library: the kernels ExecuTorch's runtime has besides the
// portable ops (its kernels/prim_ops), under ExecuTorch's names, plus the few
// ops ExecuTorch-written programs call that the portable library lacks.
//
// - scalar ops on symbolic ints and floats: executorch_prim::{add, sub, mul,
//   floordiv, truediv, mod, eq, gt, lt, ge, le, neg, sym_max, sym_min, ceil,
//   round, trunc, sym_int, sym_float, sym_not, sym_ite}.Scalar and
//   {floordiv, mod}.int (Python's rules: int op int stays int, floor
//   division and modulo round toward -inf, a float on either side gives a
//   float; comparisons give a Bool);
// - sizes and scalars: aten::sym_size.int, aten::sym_numel,
//   aten::_local_scalar_dense;
// - views and copies: executorch_prim::et_view.default (a view sharing the
//   base's bytes, resized at run time), aten::copy_ (the write-back of a
//   mutated buffer or input, broadcasting and casting as torch's copy_),
//   aten::copy.out (the functional copy_ of an input mutated mid-program:
//   self's shape and dtype, src's values), dim_order_ops::_to_dim_order_copy.out
//   (a cast into out's dim order) and dim_order_ops::_clone_dim_order.out (a
//   copy into out's dim order: clone, contiguous(), channels_last). For the
//   dim_order ops a dim_order list must equal out's dim order and None means
//   out keeps self's.
//
// aten::copy.out is an aten op but lives here, beside copy_: the portable
// library holds exactly the out variants of the op table (src/aot/ir/op_table/ops.def),
// each checked against PyTorch by the golden suite, and Kiln's own lowering
// never makes aten::copy; only ExecuTorch-written programs call it.
#pragma once

#include "runtime/core/error.h"
#include "runtime/core/span.h"
#include "runtime/kernel/operator_registry.h"

namespace kiln::kernels::prim {

/// Every prim kernel, in registration order.
runtime::Span<const runtime::Kernel> prim_kernels();

/// Adds every prim kernel to the runtime's kernel registry. Idempotent:
/// later calls return Ok without registering twice.
[[nodiscard]] runtime::Error register_prim_kernels();

}  // namespace kiln::kernels::prim
