// step_slices_as_crops: a slice with a step s > 1 (x[a:b:s]; Swin's patch
// merging reads x[:, 0::2, 1::2]) along a dimension of static size D, a
// multiple of s, becomes a view of that dimension as [D / s, s], two slices
// of step 1 (the element a % s of each group; the groups from a / s on) and
// a view back. Backends run views and step-1 slices as layout steps
// (OneDnnBackend: reshapes and crops); a step they do not take cut their
// partition. The new nodes keep the slice's provenance.
#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

#include "aot/ir/pass_manager.h"
#include "aot/passes/lowering.h"
#include "aot/passes/pattern.h"
#include "aot/passes/rewriter.h"

namespace kiln::aot {

namespace {

bool is_slice(const Node& node) {
  return node.is_call_function() && (node.target() == "aten::slice.Tensor" || node.target() == "aten::slice_copy.Tensor");
}

}  // namespace

bool step_slices_as_crops(ExportedProgram& program) {
  std::vector<Node*> slices;
  for (Node* node : program.graph().node_list()) {
    if (is_slice(*node) && !node->args().empty() && node->args()[0].is_node()) slices.push_back(node);
  }
  bool changed = false;
  for (Node* node : slices) {
    const std::vector<Argument> args = bind_node_arguments(*node);
    const std::optional<std::vector<int64_t>> in = passes::static_sizes_of(node->args()[0].node());
    const std::optional<std::vector<int64_t>> out = passes::static_sizes_of(node);
    // (self, dim, start, end, step), defaults filled in.
    if (args.size() != 5 || !in || !out || in->size() != out->size() || !args[1].is_int() ||
        !args[4].is_int() || !(args[2].is_int() || args[2].is_none())) {
      continue;
    }
    const auto rank = static_cast<int64_t>(in->size());
    const int64_t dim_arg = args[1].to_int(), step = args[4].to_int();
    if (step <= 1 || dim_arg < -rank || dim_arg >= rank) continue;
    const auto dim = static_cast<size_t>(dim_arg < 0 ? dim_arg + rank : dim_arg);
    const int64_t size = (*in)[dim], count = (*out)[dim];
    int64_t start = args[2].is_int() ? args[2].to_int() : 0;
    start = std::min(std::max<int64_t>(start < 0 ? start + size : start, 0), size);
    if (size % step != 0 || count < 1 || start >= size) continue;
    const int64_t group = start / step, offset = start % step;
    if (group + count > size / step) continue;

    passes::Rewriter r(*node);
    std::vector<int64_t> grouped(in->begin(), in->end());
    grouped[dim] = size / step;
    grouped.insert(grouped.begin() + static_cast<std::ptrdiff_t>(dim) + 1, step);
    Node* view = r.op("aten::view", {r.arg(0), passes::ints(grouped)});
    Node* picked = r.op("aten::slice_copy.Tensor", {view, static_cast<int64_t>(dim) + 1, offset, offset + 1});
    Node* groups = r.op("aten::slice_copy.Tensor", {picked, static_cast<int64_t>(dim), group, group + count});
    r.replace_with(r.op("aten::view", {groups, passes::ints(*out)}));
    changed = true;
  }
  if (changed) update_signature_from_graph(program);  // a returned slice has a new name
  return changed;
}

}  // namespace kiln::aot
