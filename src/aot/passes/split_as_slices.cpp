// split_as_slices: a split along one dimension (split, chunk, core ATen's
// split_with_sizes_copy) read part by part becomes one slice_copy per part
// read. A backend takes each part as a crop of the input (OneDnnBackend's
// Pad with negative padding), so a split no longer cuts a partition in two
// (GPT-2's query, key and value; ShuffleNet's channel halves). The slices
// keep the split's provenance.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "aot/ir/exec_kind.h"
#include "aot/passes/lowering.h"
#include "aot/passes/provenance.h"
#include "aot/passes/rewriter.h"

namespace kiln::aot {

namespace {

bool is_split(const Node& node) {
  static const std::set<std::string> kSplits = {
      "aten::split.Tensor",           "aten::split_copy.Tensor",
      "aten::unsafe_split.Tensor",    "aten::split_with_sizes.default",
      "aten::split_with_sizes_copy.default", "aten::chunk.default",
  };
  return node.is_call_function() && kSplits.count(node.target()) > 0;
}

// The dimension it splits (argument 2 of each, 0 by default).
std::optional<size_t> split_dim(const Node& node) {
  const Argument* dim = node.args().size() > 2 ? &node.args()[2] : node.kwarg("dim");
  const int64_t value = dim == nullptr ? 0 : dim->is_int() ? dim->to_int() : -1000;
  const Node* input = node.args().empty() || !node.args()[0].is_node() ? nullptr : node.args()[0].node();
  const auto* meta = input == nullptr ? nullptr : std::get_if<TensorMeta>(&input->meta.val);
  if (meta == nullptr) return std::nullopt;
  const auto rank = static_cast<int64_t>(meta->rank());
  if (value < -rank || value >= rank) return std::nullopt;
  return static_cast<size_t>(value < 0 ? value + rank : value);
}

// The parts' sizes along `dim`, from the node's metas; none when one is
// known only at run time.
std::vector<int64_t> part_sizes(const Node& node, size_t dim) {
  const auto* parts = std::get_if<std::vector<TensorMeta>>(&node.meta.val);
  if (parts == nullptr) return {};
  std::vector<int64_t> sizes;
  for (const TensorMeta& part : *parts) {
    if (part.rank() <= dim) return {};
    const std::optional<int64_t> size = part.sizes[dim].constant_value();
    if (!size) return {};
    sizes.push_back(*size);
  }
  return sizes;
}

// The parts users take, as getitem(split, i); none if one reads it whole.
std::set<int64_t> parts_read(const Node& node) {
  std::set<int64_t> read;
  for (const Node* user : node.users()) {
    if (!is_call_of(*user, ExecKind::GetItem) || user->args().size() != 2 || !user->args()[1].is_int()) return {};
    read.insert(user->args()[1].to_int());
  }
  return read;
}

}  // namespace

bool split_as_slices(ExportedProgram& program) {
  // The splits first: rewriting one erases its getitems, which a walk over
  // the node list would meet afterwards.
  std::vector<Node*> splits;
  for (Node* node : program.graph().node_list()) {
    if (is_split(*node)) splits.push_back(node);
  }
  bool changed = false;
  for (Node* node : splits) {
    const std::optional<size_t> dim = split_dim(*node);
    const std::vector<int64_t> sizes = dim ? part_sizes(*node, *dim) : std::vector<int64_t>{};
    const std::set<int64_t> read = parts_read(*node);
    if (sizes.empty() || read.empty()) continue;
    passes::Rewriter r(*node);
    std::vector<Node*> parts(sizes.size(), nullptr);  // a part no one reads is not sliced
    int64_t start = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (read.count(static_cast<int64_t>(i))) {
        parts[i] = r.op("aten::slice_copy.Tensor", {r.arg(0), static_cast<int64_t>(*dim), start, start + sizes[i]});
      }
      start += sizes[i];
    }
    r.replace_with_items(parts);
    changed = true;
  }
  return changed;
}

}  // namespace kiln::aot
