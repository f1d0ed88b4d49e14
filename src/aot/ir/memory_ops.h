// The executable form of a program: what the lowering passes
// (aot/passes/lowering.h) produce, and what the reference interpreter, the
// memory planner and the emitter all read. Every lowering decision is made by
// a pass before this form exists; its consumers only follow it.
//
// In the executable form:
//  - There are no graph asserts, and no view ops: a view runs as its `_copy`
//    twin (see view_copy_twin in op_schema.h), except that a static reshape
//    of a tensor an op wrote is a `memory.view` of it: the same bytes under
//    other sizes, no instruction and no memory of its own.
//  - A Python number passed where the schema takes a Tensor is a lifted
//    constant tensor (a placeholder with a ConstantTensor input spec).
//  - Every op call is an out-variant call (`aten::add.out`). Each of its out
//    arguments is a keyword argument naming a `memory.alloc` node, one per
//    output tensor (a `Tensor(a!)[] out` takes a list of them). Its other
//    arguments are named as the out variant's schema names them (binding the
//    call to that schema, out arguments included, gives every kernel
//    argument); arguments of the functional op that the out variant lacks
//    (`_to_copy`'s dtype) are carried by the allocs' metas. The call's
//    meta.val is what the functional op's was; its value is its out tensors
//    (it aliases its allocs), and so is a getitem of it. One exception: an
//    index_put, slice_scatter or select_scatter of a mutated buffer whose old
//    value nothing reads afterwards names the buffer's placeholder as its out
//    (update_buffers_in_place): it writes into the buffer, and the mutation
//    output is the placeholder itself, with no copy_.
//  - `aten::sym_size.int(t, dim)` remains only for dims that are dynamic; it
//    is a primitive op that returns an int (ExecuTorch's prim op of that name).
//  - executorch_call_delegate and its getitems remain as they are; the
//    delegate writes its outputs, which are tensors of their own.
//  - Mutations are written back as ExecuTorch's to_executorch() writes them
//    (insert_write_back_for_buffers_pass): for each BUFFER_MUTATION and
//    USER_INPUT_MUTATION output whose value is not the target placeholder
//    itself, `copy_ = aten::copy_.default(target_placeholder, value)` sits just
//    before the output node, and the graph output (and its output spec) names
//    the copy_ node. copy_ is the one in-place call of the form: it writes
//    into the buffer's or the input's own memory and returns it. ExecuTorch
//    1.5 (checked with to_executorch() on a buffer `add_` and an input `mul_`)
//    emits it as a KernelCall of operator {name "aten::copy_", overload ""}
//    with args [self, src, non_blocking (a Bool value), self]: the return slot
//    is self's own value, not a new one. Its plan's outputs leave the
//    BUFFER_MUTATION outputs out (_remove_non_user_outputs) and keep the
//    USER_INPUT_MUTATION ones, which are the input's own value id (the input
//    is both in plan.inputs and plan.outputs). The memory planner gives a
//    mutated buffer memory that lives for the whole program. ExecuTorch
//    stores no initial data for it unless the buffer is marked
//    et_init_buffer; Kiln's emitter always stores it, in the mutable data
//    segment, so the first run starts from the buffer's exported value.
//    The interpreter runs the copy_ into the tensors it was given, so a
//    buffer's new value lands in the state dict's storage and an input's in
//    the caller's tensor; the mutation outputs need no further write-back.
//
// For example (lower_to_executable of `count += x @ w.T; return count * 2`):
//   alloc: "f32[3, 3]" = memory.alloc()
//   permute: "f32[3, 3]" = torch.ops.aten.permute_copy.out(p_w, [1, 0], out = alloc)
//   alloc_1: "f32[2, 3]" = memory.alloc()
//   mm: "f32[2, 3]" = torch.ops.aten.mm.out(x, permute, out = alloc_1)
//   alloc_2: "f32[2, 3]" = memory.alloc()
//   add: "f32[2, 3]" = torch.ops.aten.add.out(b_count, mm, out = alloc_2)
//   alloc_3: "f32[2, 3]" = memory.alloc()
//   mul: "f32[2, 3]" = torch.ops.aten.mul.out(add, c_lifted_tensor_0, out = alloc_3)
//   copy_: "f32[2, 3]" = torch.ops.aten.copy_.default(b_count, add)
//   return (copy_, mul)          # copy_: BUFFER_MUTATION target='count'
#pragma once

namespace kiln::aot {

/// `alloc = memory.alloc()`: a call_function with no arguments whose meta.val
/// (a TensorMeta) is the tensor to allocate: dtype and sizes (symbolic sizes
/// are planned at their upper bound); it is contiguous. The memory planner gives it
/// its place; the interpreter allocates it; the emitter writes it as a tensor
/// value with allocation info.
inline constexpr const char* kMemoryAlloc = "memory.alloc";

/// `view = memory.view(base, [sizes])`: `base`'s bytes (contiguous) seen with
/// the static sizes of view.meta.val. It aliases `base`: the planner stretches
/// base's lifetime over the view's uses, the interpreter shares the storage,
/// and the emitter writes a tensor value with base's allocation info and no
/// instruction (ExecuTorch's memory.view for a static view_copy).
inline constexpr const char* kMemoryView = "memory.view";

/// `copy_ = aten::copy_.default(target, value)`: the write-back of a mutated
/// buffer or user input (see above); `target` is the placeholder.
inline constexpr const char* kCopyInPlace = "aten::copy_.default";

/// `aten::sym_size.int(t, dim)`: the size of a dynamic dim, an int.
inline constexpr const char* kSymSize = "aten::sym_size.int";

}  // namespace kiln::aot
