// update_buffers_in_place: a mutated buffer whose new value is the old one
// with some elements replaced -- a KV cache's `index_copy_` (index_put), a
// slice or select written into it (slice_scatter, select_scatter) -- is
// updated in its own memory. The op's out becomes the buffer itself and the
// write-back copy_ goes: the kernel copies self onto itself (nothing) and
// writes only the new elements, where the functional form copied the whole
// buffer into a new tensor and then copied that back (a language model's
// cache, twice per layer per token). ExecuTorch's reinplace pass does the
// same for index_put.
//
// Only when nothing reads the buffer's old value after the op: every other
// user of the buffer's placeholder comes before it. The kernels of these ops
// write out = self first and then the replaced elements, so out may be self
// (memory_ops.h: an out argument may name a mutated buffer's placeholder).
#include <set>
#include <string>

#include "aot/ir/exec_kind.h"
#include "aot/ir/memory_ops.h"
#include "aot/passes/lowering.h"
#include "aot/passes/rewriter.h"

namespace kiln::aot {
namespace {

bool updates_in_place(const Node& node) {
  static const std::set<std::string> ops = {"aten::index_put.out", "aten::slice_scatter.out",
                                            "aten::select_scatter.out"};
  return node.is_call_function() && ops.count(passes::canonical_target(node.target())) > 0;
}

// The position of each node in the graph's order.
std::map<const Node*, size_t> order_of(Graph& graph) {
  std::map<const Node*, size_t> order;
  for (Node* node : graph.node_list()) order.emplace(node, order.size());
  return order;
}

}  // namespace

bool update_buffers_in_place(ExportedProgram& program) {
  Graph& graph = program.graph();
  Node* output = graph.output_node();
  ArgumentList values = output->args().at(0).list();
  auto& specs = program.graph_signature().output_specs;
  const auto order = order_of(graph);
  bool changed = false;
  for (size_t i = 0; i < specs.size() && i < values.size(); ++i) {
    if (specs[i].kind != OutputKind::BufferMutation || !values[i].is_node()) continue;
    Node* copy = values[i].node();
    if (!is_call_of(*copy, ExecKind::CopyInPlace) || copy->users().size() != 1) continue;
    Node* buffer = copy->args().at(0).node();
    Node* update = copy->args().at(1).is_node() ? copy->args().at(1).node() : nullptr;
    if (update == nullptr || !updates_in_place(*update) || update->args().empty() ||
        update->args()[0] != Argument(buffer)) {
      continue;
    }
    const Argument* out = update->kwarg("out");
    if (out == nullptr || !out->is_node() || !is_call_of(*out->node(), ExecKind::Alloc) ||
        out->node()->users().size() != 1) {
      continue;
    }
    if (buffer->meta.tensor().dtype != update->meta.tensor().dtype ||
        buffer->meta.tensor().sizes != update->meta.tensor().sizes) {
      continue;
    }
    bool old_value_read_later = false;
    for (Node* user : buffer->users()) {
      if (user != update && user != copy && order.at(user) > order.at(update)) old_value_read_later = true;
    }
    if (old_value_read_later) continue;

    Node* alloc = out->node();
    KwargList kwargs = update->kwargs();
    for (auto& [name, value] : kwargs) {
      if (name == "out") value = buffer;
    }
    update->set_kwargs(std::move(kwargs));
    graph.erase_node(alloc);
    values[i] = buffer;
    specs[i].arg = ArgumentSpec::tensor(buffer->name());
    output->set_args(ArgumentList{Argument(values)});
    graph.erase_node(copy);
    changed = true;
  }
  return changed;
}

}  // namespace kiln::aot
