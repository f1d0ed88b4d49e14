// to_out_variant: every op call becomes a call of its out variant
// (aten::add.Tensor -> aten::add.out), as ExecuTorch's ToOutVarPass does.
// Stages: list every call whose op has no out variant and fail once, naming
// them all; then, per call, one `memory.alloc` per output tensor (its meta is
// that output's TensorMeta) goes before it, and the call's arguments are
// re-bound by name to the out variant's schema with the allocs as its out
// keyword arguments (a list of allocs for `Tensor(a!)[] out`). Allocs are
// contiguous whatever strides the functional op's result had: the portable
// kernels write, and ExecuTorch's require, operands of one dim order. Sizing
// the allocs (upper bounds of symbolic sizes) is left to the memory planner.
// A delegate call stays, but what it writes follows the same rule: its
// outputs are contiguous (every backend's runtime writes them so), whatever
// dim order the delegated nodes' results had (a permute's view strides).
#include <set>

#include "aot/ir/error.h"
#include "aot/ir/exec_kind.h"
#include "aot/ir/op_table/op_schema.h"
#include "aot/ir/op_table/schema_binding.h"
#include "aot/ir/verifier.h"
#include "aot/passes/lowering.h"
#include "aot/passes/provenance.h"

namespace kiln::aot {
namespace {

// Calls the executable form keeps as they are.
bool stays(const Node& node) {
  switch (exec_kind(node)) {
    case ExecKind::Alloc:
    case ExecKind::View:
    case ExecKind::GetItem:
    case ExecKind::DelegateCall:
    case ExecKind::SymSize: return true;
    case ExecKind::CopyInPlace:
      return !node.args().empty() && node.args()[0].is_node() && node.args()[0].node()->is_placeholder();
    case ExecKind::KernelCall: break;
  }
  const OpSchema* schema = find_op_schema(node.target());
  return schema != nullptr && schema->is_out_variant();
}

// Functional arguments an out variant may lack: they describe the result
// tensor, which its alloc's meta carries.
bool describes_result(const std::string& name) {
  return name == "dtype" || name == "layout" || name == "device" || name == "pin_memory";
}

std::vector<TensorMeta> output_metas(const Node& node) {
  if (const auto* one = std::get_if<TensorMeta>(&node.meta.val)) return {*one};
  if (const auto* many = std::get_if<std::vector<TensorMeta>>(&node.meta.val)) return *many;
  throw AotError(passes::describe_node(node) + " has no tensor meta to allocate its output from");
}

class OutVariantRewrite {
 public:
  explicit OutVariantRewrite(Node& node)
      : node_(node),
        schema_(get_op_schema(node.target())),
        out_schema_(get_op_schema(schema_.out_variant)),
        where_(passes::describe_node(node)) {}

  void run() {
    const std::vector<Argument> bound = bind_arguments(schema_, node_.args(), node_.kwargs(), where_);
    const std::set<std::string> given = given_arguments();
    ArgumentList args;
    KwargList kwargs;
    bool positional = true;  // false once an argument is left out or keyword-only
    for (const SchemaArgument& param : out_schema_.arguments) {
      if (param.is_out) continue;
      const SchemaArgument* functional = schema_.find_argument(param.name);
      if (functional == nullptr) throw AotError(where_ + ": " + out_schema_.qualified_name() + " takes '" + param.name + "', which the op does not");
      if (!given.count(param.name)) {
        positional = false;
        continue;
      }
      const Argument& value = bound.at(static_cast<size_t>(functional - schema_.arguments.data()));
      positional = positional && !param.kwarg_only;
      if (positional) args.push_back(value);
      else kwargs.emplace_back(param.name, value);
    }
    check_nothing_dropped(bound, given);
    add_out_arguments(kwargs);
    node_.set_target(out_schema_.qualified_name());
    node_.set_args(std::move(args));
    node_.set_kwargs(std::move(kwargs));
  }

 private:
  std::set<std::string> given_arguments() const {
    std::set<std::string> given;
    for (size_t i = 0; i < node_.args().size() && i < schema_.arguments.size(); ++i) given.insert(schema_.arguments[i].name);
    for (const auto& [name, value] : node_.kwargs()) given.insert(name);
    return given;
  }

  void check_nothing_dropped(const std::vector<Argument>& bound, const std::set<std::string>& given) const {
    for (size_t i = 0; i < schema_.arguments.size(); ++i) {
      const SchemaArgument& param = schema_.arguments[i];
      if (!given.count(param.name) || out_schema_.find_argument(param.name) != nullptr) continue;
      if (describes_result(param.name) || (param.default_value && *param.default_value == bound[i])) continue;
      throw AotError(where_ + ": its argument " + param.name + "=" + to_string(bound[i]) + " has no place in " +
                     out_schema_.qualified_name());
    }
  }

  void add_out_arguments(KwargList& kwargs) {
    const std::vector<TensorMeta> metas = output_metas(node_);
    Graph& graph = node_.graph();
    graph.set_insert_point(&node_);
    std::vector<Node*> allocs;
    for (const TensorMeta& meta : metas) {
      Node* alloc = graph.call_function(kMemoryAlloc, {}, {}, "alloc");
      TensorMeta contiguous = meta;
      contiguous.dim_order.clear();
      alloc->meta.val = contiguous;
      passes::copy_provenance(node_, *alloc);
      allocs.push_back(alloc);
    }
    graph.set_insert_point(nullptr);
    size_t next = 0;
    bool fits = true;
    for (const SchemaArgument& param : out_schema_.arguments) {
      if (!param.is_out) continue;
      if (param.type.is_list) {
        ArgumentList items;
        while (next < allocs.size()) items.emplace_back(allocs[next++]);
        kwargs.emplace_back(param.name, std::move(items));
      } else if (next < allocs.size()) {
        kwargs.emplace_back(param.name, allocs[next++]);
      } else {
        fits = false;
      }
    }
    if (!fits || next != allocs.size()) {
      throw AotError(where_ + ": its meta has " + std::to_string(allocs.size()) + " output tensors but " +
                     out_schema_.to_string() + " takes " + std::to_string(out_schema_.num_out_arguments()) +
                     " out arguments");
    }
  }

  Node& node_;
  const OpSchema& schema_;
  const OpSchema& out_schema_;
  std::string where_;
};

void fail_on_missing_out_variants(const Graph& graph) {
  std::string missing;
  size_t count = 0;
  for (const Node* node : graph) {
    if (!node->is_call_function() || stays(*node)) continue;
    const OpSchema* schema = find_op_schema(node->target());
    if (schema != nullptr && !schema->out_variant.empty()) continue;
    ++count;
    missing += "\n  " + node->name() + ": " + node->target();
  }
  if (count > 0) {
    throw AotError(std::to_string(count) + (count == 1 ? " node calls an op" : " nodes call ops") +
                   " without an out variant (decompose the program to core ATen first):" + missing);
  }
}

// Clears the dim order of every output of delegate call `call` (on the call
// and on the getitem nodes that take them); true if one was permuted.
bool make_delegate_outputs_contiguous(Node& call) {
  bool changed = false;
  const auto reset = [&changed](ValueMeta& val) {
    if (auto* meta = std::get_if<TensorMeta>(&val)) {
      changed |= !meta->dim_order.empty();
      meta->dim_order.clear();
    } else if (auto* metas = std::get_if<std::vector<TensorMeta>>(&val)) {
      for (TensorMeta& meta : *metas) {
        changed |= !meta.dim_order.empty();
        meta.dim_order.clear();
      }
    }
  };
  reset(call.meta.val);
  for (Node* user : call.users()) {
    if (is_call_of(*user, ExecKind::GetItem)) reset(user->meta.val);
  }
  return changed;
}

}  // namespace

bool to_out_variant(ExportedProgram& program) {
  fail_on_missing_out_variants(program.graph());
  bool changed = false;
  for (Node* node : program.graph().node_list()) {
    if (is_call_of(*node, ExecKind::DelegateCall)) changed |= make_delegate_outputs_contiguous(*node);
    if (!node->is_call_function() || stays(*node)) continue;
    OutVariantRewrite(*node).run();
    changed = true;
  }
  return changed;
}

}  // namespace kiln::aot
