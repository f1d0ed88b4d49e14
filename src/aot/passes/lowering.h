// The lowering decisions, made once, as named passes: they turn a core-ATen
// program into the executable form of aot/ir/memory_ops.h, which the
// reference interpreter, the memory planner and the emitter all follow
// without deciding anything themselves. Each pass is one decision, in its own
// file; lower_to_executable runs them in order, verifying between them.
// Every node a pass creates or rewrites keeps its source node's provenance
// (debug handle, stack trace, module stack).
#pragma once

#include <string>
#include <vector>

#include "aot/ir/pass_manager.h"

namespace kiln::aot {

/// Drops the graph's runtime checks, which have no users and no result the
/// executable form needs: aten::_assert_tensor_metadata, aten::_assert_scalar,
/// aten::_assert_async, aten::sym_constrain_range(_for_size) and the other
/// targets is_graph_assert names. (remove_graph_asserts.cpp)
bool remove_graph_asserts(ExportedProgram& program);
bool is_graph_assert(const std::string& target);

/// A view op becomes its `_copy` twin (view_copy_twin in op_schema.h) with the
/// same arguments: aten::view.default -> aten::view_copy.default.
/// (view_to_copy.cpp)
bool view_to_copy(ExportedProgram& program);

/// A static aten::view_copy of a contiguous tensor that an op call writes
/// becomes memory.view(base, sizes): an alias, no copy (memory_ops.h).
/// (alias_static_views.cpp)
bool alias_static_views(ExportedProgram& program);

/// aten::sym_size.int(t, d) on a dim whose size is a constant in t's meta is
/// replaced by that int in every use; on a dynamic dim it stays.
/// (fold_static_sym_sizes.cpp)
bool fold_static_sym_sizes(ExportedProgram& program);

/// A Python number passed where the schema takes a Tensor becomes a lifted
/// 0-dim constant tensor: a new placeholder (before the user inputs), a
/// CONSTANT_TENSOR input spec and an entry in the program's constants. Its
/// dtype: the call's result dtype unless that is Bool, else the literal's
/// kind (float -> Float, int -> Long, bool -> Bool). (scalar_to_tensor.cpp)
bool scalar_to_tensor(ExportedProgram& program);

/// Lifts `value` into `program` as a new CONSTANT_TENSOR input, as torch lifts
/// constants: a placeholder named `name` (made unique) before the user
/// inputs, its input spec, and `value` in the program's constants under
/// `target`; the placeholder keeps `source`'s provenance. Returns it.
/// (scalar_to_tensor.cpp; fold_constants uses it too)
Node* lift_constant(ExportedProgram& program, const std::string& name, const std::string& target, TensorMeta meta,
                    HostTensor value, const Node& source);

/// For each BUFFER_MUTATION and USER_INPUT_MUTATION output, an
/// `aten::copy_.default(target, value)` just before the output node, which the
/// output (and its spec) then names: ExecuTorch's
/// insert_write_back_for_buffers_pass. See memory_ops.h. (write_back_mutations.cpp)
bool write_back_mutations(ExportedProgram& program);

/// Every op call becomes its out variant, with one `memory.alloc` per output
/// tensor passed as the out keyword argument(s) (a list of them for a
/// `Tensor(a!)[] out`). getitem, sym_size, delegate calls and the copy_
/// write-backs stay; a delegate call's outputs become contiguous, as allocs
/// are (backends write their outputs so). Throws one AotError listing every node (name and op) whose
/// op has no out variant. (to_out_variant.cpp)
bool to_out_variant(ExportedProgram& program);

/// A mutated buffer's write-back of an index_put, slice_scatter or
/// select_scatter of itself, when nothing reads its old value after that op,
/// becomes the op writing into the buffer (its out is the buffer's
/// placeholder) with no copy_. (update_buffers_in_place.cpp)
bool update_buffers_in_place(ExportedProgram& program);

/// The names of the calls that draw random numbers (op_support's is_random),
/// in graph order: the order PyTorch drew them in.
std::vector<std::string> random_draws(const ExportedProgram& program);

/// Puts the calls `draws` names that are still in `program` back in that
/// order, each as early as its inputs allow: cutting partitions out moves a
/// delegate call, and the calls that read its results, to after its last
/// node, past draws they came before, so that a seed would no longer give
/// PyTorch's numbers. False, the order left as it is, when the data needs
/// another order. (order_random_draws.cpp)
bool order_random_draws(ExportedProgram& program, const std::vector<std::string>& draws);

/// A call of a pure op (no argument written, not random, not a graph assert)
/// with the same target and arguments as an earlier call is replaced by that
/// call's value: what each layer of a transformer recomputes from the call's
/// inputs alone (cache positions, the rotary tables' views) is computed once.
/// The pipeline runs it on core ATen before partitioning; it is not one of
/// lowering_passes(). (eliminate_common_subexpressions.cpp)
bool eliminate_common_subexpressions(ExportedProgram& program);

/// A split along one dimension whose parts are read by getitem becomes one
/// slice_copy per part, with the split's provenance: a backend runs each
/// part as a crop of the input, so a split does not cut its partition. The
/// pipeline runs it before partitioning when backends are asked for; it is
/// not one of lowering_passes(). (split_as_slices.cpp)
bool split_as_slices(ExportedProgram& program);

/// A slice with a step s > 1 along a dimension of static size D, a
/// multiple of s (Swin's patch merging, x[:, 0::2, 1::2]), becomes a view of
/// that dimension as [D / s, s], two slices of step 1 and a view back, with
/// the slice's provenance: backends run those as layout steps. The pipeline
/// runs it before partitioning when backends are asked for; it is not one
/// of lowering_passes(). (step_slices_as_crops.cpp)
bool step_slices_as_crops(ExportedProgram& program);

/// An expand read by pointwise ops (torch.Tag.pointwise) that broadcast its
/// input to the same result anyway is not materialized: they read its
/// input, and an expand left unread goes. The pipeline runs it before
/// partitioning when backends are asked for (a backend's layout steps cannot
/// repeat elements); it is not one of lowering_passes().
/// (expand_into_broadcast.cpp)
bool expand_into_broadcast(ExportedProgram& program);

/// A PReLU with a slope per channel, where(x > 0, x, w * x), becomes
/// relu(x) + w * clamp(x, max=0), with the where's provenance: ops a backend
/// runs, where a comparison and a select would cut its partition; a slope
/// of one element stays (OneDnnBackend takes it as one relu). The pipeline
/// runs it before partitioning when backends are asked for; it is not one
/// of lowering_passes(). (prelu_as_relus.cpp)
bool prelu_as_relus(ExportedProgram& program);

/// The passes above as Passes, in the order lower_to_executable runs them.
std::vector<Pass> lowering_passes();

/// A copy of `program` (weights, constants and module attributes shared, as
/// `transform` shares them) in the executable form. Throws AotError naming the
/// pass and the node that failed.
ExportedProgram lower_to_executable(const ExportedProgram& program);

/// The nodes of `program` that the executable form does not allow, one line
/// each ("name: target (reason)"); empty if the program is in executable form.
/// Allowed calls: out variants whose out arguments are memory.alloc nodes,
/// memory.alloc, getitem, aten::sym_size.int, executorch_call_delegate, and
/// aten::copy_.default writing a mutation back into its placeholder.
std::vector<std::string> executable_form_violations(const ExportedProgram& program);
bool is_executable_form(const ExportedProgram& program);

}  // namespace kiln::aot
