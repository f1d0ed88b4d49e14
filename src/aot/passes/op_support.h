// Which ops Kiln can run, decided in one place: the interpreter refuses a
// program before running it, and `kiln lower` before lowering it, with the
// list of every node whose op has neither a kernel nor a decomposition,
// rather than failing on the first such node at run time.
#pragma once

#include <functional>
#include <string>

#include "aot/ir/exported_program.h"
#include "aot/ir/op_table/op_schema.h"

namespace kiln::aot {

/// Whether the kernel library a program will run on has a kernel called
/// `name` (an out variant, "aten::add.out", or a prim op, "aten::sym_size.int").
using KernelQuery = std::function<bool(const std::string& name)>;

enum class OpSupport {
  kKernel,         ///< a kernel of its own (its out variant, or the op itself for a prim op)
  kViewCopy,       ///< a view op that runs as its `_copy` twin's kernel
  kDecomposition,  ///< decompose_to_core_aten rewrites it (or it is in-place: functionalized)
  kGraphAssert,    ///< a graph assert that lowering drops
  kNone,           ///< none of these: a program calling it cannot run
};

/// How a call of `schema` runs on `has_kernel`'s kernels. An in-place op runs
/// (functionalized) when its functional op does.
OpSupport op_support(const OpSchema& schema, const KernelQuery& has_kernel);

/// True for an op that has no place in inference: a gradient (`*_backward`),
/// or randomness only training has (dropout in training mode as
/// native_dropout, rrelu's random slopes). Lowering refuses it as such.
bool is_training_only(const OpSchema& schema);

/// True for an op that draws random numbers (a Generator argument, rand,
/// randn, bernoulli, ...): its result is no function of its arguments, so it
/// is neither folded ahead nor merged with a call of the same arguments.
/// Those with a kernel or a decomposition (rand, randn, their _like forms,
/// uniform, normal, bernoulli, randint, randperm) run.
bool is_random(const OpSchema& schema);

/// Why Kiln refuses `schema`, as `kiln ops` and lowering print it: by design
/// ("not for inference: training only", "no kernel: a LAPACK-class
/// factorization", ...) or for now ("no kernel yet: a 3-D transposed
/// convolution", "no data-dependent sizes yet: ..."); rules over the op's name
/// family and schema (op_refusals.cpp). "" for an op no rule refuses.
/// Meaningful for an op whose op_support is kNone: a rule may name an op that
/// has a kernel anyway.
std::string refusal_reason(const OpSchema& schema);
/// The same by qualified name, also for namespaces outside the op table
/// (quantized::, mkldnn::, _test::, inductor::, _native_aot::).
std::string refusal_reason(const std::string& qualified_name);

/// Throws AotError listing every call node of `program` (its own graph; a
/// delegate's nodes are its backend's business) whose op is kNone, as
///   "2 nodes call ops <kernels> cannot run (no kernel and no decomposition):
///     foo: aten::as_strided.default (nearest that runs: aten::as_strided_copy.default)
///     bar: aten::nonzero.default
///     baz: aten::native_dropout.default (not for inference: training only)"
/// (a refused op carries its refusal_reason).
/// `kernels` names the library ("the portable kernels").
void check_ops_supported(const ExportedProgram& program, const KernelQuery& has_kernel, const std::string& kernels);

}  // namespace kiln::aot
