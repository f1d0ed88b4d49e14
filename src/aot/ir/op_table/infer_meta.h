// Meta inference: the dtype and (symbolic) sizes of a call's result, from the
// metas of its inputs — what torch computes with fake tensors when it traces.
// Every op of the schema table has a rule (core ATen ops, their view copies,
// and the training-IR ops), following PyTorch's result_type promotion and its
// output-size formulas. Without the program's range constraints, a symbolic
// size is not simplified by its bounds (x[:, :3] of [2, s0] is Min(3, s0)
// where torch, knowing s0 >= 3, records 3).
#pragma once

#include <string>

#include "aot/ir/node.h"

namespace kiln::aot {

/// Fills `node.meta.val` for a call_function node whose inputs have metas.
/// Throws AotError naming the node when the inputs do not fit the op (shapes
/// that do not broadcast, a matmul of mismatched inner sizes, ...) or when
/// Kiln has no meta rule for the op.
void infer_meta(Node& node);

/// True if `infer_meta` has a rule for `target`.
bool has_meta_rule(const std::string& target);

}  // namespace kiln::aot
