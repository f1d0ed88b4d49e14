// The executable form of a program: what the lowering passes
// (aot/passes/lowering.h) produce, and what the reference interpreter, the
// memory planner and the emitter all read. Every lowering decision is made by
// a pass before this form exists; its consumers only follow it.
//
// In the executable form:
//  - There are no graph asserts, and no view ops: a view runs as its `_copy`
//    twin (see view_copy_twin in op_schema.h).
//  - A Python number passed where the schema takes a Tensor is a lifted
//    constant tensor (a placeholder with a ConstantTensor input spec).
//  - Every op call is an out-variant call (`aten::add.out`). Each of its out
//    arguments is a keyword argument naming a `memory.alloc` node, one per
//    output tensor (a `Tensor(a!)[] out` takes a list of them). The call's
//    meta.val is what the functional op's was; its value is its out tensors
//    (it aliases its allocs), and so is a getitem of it.
//  - `aten::sym_size.int(t, dim)` remains only for dims that are dynamic; it
//    is a primitive op that returns an int.
//  - executorch_call_delegate and its getitems remain as they are; the
//    delegate writes its outputs, which are tensors of their own.
#pragma once

namespace kiln::aot {

/// `alloc = memory.alloc()`: a call_function with no arguments whose meta.val
/// (a TensorMeta) is the tensor to allocate: dtype, sizes (symbolic sizes are
/// planned at their upper bound) and dim order. The memory planner gives it
/// its place; the interpreter allocates it; the emitter writes it as a tensor
/// value with allocation info.
inline constexpr const char* kMemoryAlloc = "memory.alloc";

}  // namespace kiln::aot
