// What a call_function node is, told apart once: the ops that are not ATen
// (getitem, the delegate call, memory.alloc, memory.view), the two ATen ops
// the executable form treats apart (copy_ as the write-back of a mutation,
// sym_size as a primitive that returns an int) and every other op, a kernel
// call. The interpreter, the emitter, memory lifetimes, lowering, the verifier
// and to_out_variant switch over exec_kind(node) instead of comparing targets.
#pragma once

#include "aot/ir/memory_ops.h"
#include "aot/ir/module_attribute.h"
#include "aot/ir/node.h"

namespace kiln::aot {

/// `item = getitem(value, i)`: item i of a tuple result (Python's
/// operator.getitem).
inline constexpr const char* kGetItem = "getitem";

enum class ExecKind {
  Alloc,         ///< memory.alloc: a planned tensor (memory_ops.h)
  View,          ///< memory.view: another node's bytes under static sizes
  GetItem,       ///< getitem: an item of a tuple result
  DelegateCall,  ///< executorch_call_delegate: a lowered module's call
  CopyInPlace,   ///< aten::copy_.default: the write-back of a mutated buffer or input
  SymSize,       ///< aten::sym_size.int: a dim's size as an int
  KernelCall,    ///< any other op: a kernel (its out variant, once lowered)
};

/// The kind of `target`, a call_function node's target.
ExecKind exec_kind(const std::string& target);

/// The kind of `node`, a call_function node.
inline ExecKind exec_kind(const Node& node) { return exec_kind(node.target()); }

/// True for a call_function node of kind `kind` (false for other node ops).
inline bool is_call_of(const Node& node, ExecKind kind) { return node.is_call_function() && exec_kind(node) == kind; }

/// True for getitem(value, i) with an int index: a tuple's item.
bool is_tuple_item(const Node& node);

/// "getitem", "memory.alloc", ...; "kernel call" for KernelCall.
const char* to_string(ExecKind kind);

}  // namespace kiln::aot
