// Layout ops as Reorder: reshapes (view, squeeze, unsqueeze, clone, an expand
// that repeats nothing) keep the element order, permute and transpose move
// dimensions. The result's sizes come from the node's meta.
#include "backends/onednn/aot/node_op_checks.h"

namespace kiln::backends::onednn {

using aot::Argument;
using aot::Node;

namespace {

using Args = std::vector<Argument>;

NodeOp reorder(const Node& node, const Args& args, std::vector<int64_t> permutation) {
  tensor_arg(args.at(0), "its input");
  bool identity = true;
  for (size_t i = 0; i < permutation.size(); ++i) identity = identity && permutation[i] == static_cast<int64_t>(i);
  fb::ReorderT params;
  if (!identity) params.permutation = std::move(permutation);
  NodeOp op;
  op.op.Set(std::move(params));
  op.inputs = {args[0].node()};
  op.sizes = result_sizes(node);
  return op;
}

NodeOp reshape(const Node& node, const Args& args) { return reorder(node, args, {}); }

NodeOp clone(const Node& node, const Args& args) {
  if (const Argument* format = node.kwarg("memory_format"); format != nullptr && !format->is_none()) {
    const auto* value = std::get_if<aot::MemoryFormat>(&format->value);
    if (value == nullptr || (*value != aot::MemoryFormat::Contiguous && *value != aot::MemoryFormat::Preserve)) {
      refuse("memory_format=" + aot::to_string(*format) + "; OneDnnBackend returns contiguous tensors only");
    }
  }
  return reorder(node, args, {});
}

NodeOp expand(const Node& node, const Args& args) {
  int64_t in = 1, out = 1;
  for (int64_t s : tensor_arg(args.at(0), "its input").static_sizes()) in *= s;
  for (int64_t s : result_sizes(node)) out *= s;
  if (in != out) refuse("it repeats elements (" + std::to_string(in) + " to " + std::to_string(out) + "); a Reorder cannot");
  return reorder(node, args, {});
}

NodeOp permute(const Node& node, const Args& args) {
  const size_t rank = tensor_arg(args.at(0), "its input").rank();
  std::vector<int64_t> dims = int_list(args.at(1), "dims");
  if (dims.size() != rank) refuse("dims " + list_text(dims) + " do not name each of its " + std::to_string(rank) + " dimensions");
  std::vector<bool> seen(rank, false);
  for (int64_t& d : dims) {
    d = normalize_dim(d, rank);
    if (seen[static_cast<size_t>(d)]) refuse("dims " + list_text(dims) + " repeat a dimension");
    seen[static_cast<size_t>(d)] = true;
  }
  return reorder(node, args, std::move(dims));
}

NodeOp transpose(const Node& node, const Args& args) {
  const size_t rank = tensor_arg(args.at(0), "its input").rank();
  std::vector<int64_t> permutation(rank);
  for (size_t i = 0; i < rank; ++i) permutation[i] = static_cast<int64_t>(i);
  if (rank > 0) {
    std::swap(permutation[static_cast<size_t>(normalize_dim(int_arg(args.at(1), "dim0"), rank))],
              permutation[static_cast<size_t>(normalize_dim(int_arg(args.at(2), "dim1"), rank))]);
  }
  return reorder(node, args, std::move(permutation));
}

}  // namespace

const std::map<std::string, NodeDescriber>& layout_describers() {
  static const std::map<std::string, NodeDescriber> table = {
      {"aten::view.default", reshape},          {"aten::view_copy.default", reshape},
      {"aten::_unsafe_view.default", reshape},  {"aten::reshape.default", reshape},
      {"aten::alias.default", reshape},         {"aten::alias_copy.default", reshape},
      {"aten::unsqueeze.default", reshape},     {"aten::unsqueeze_copy.default", reshape},
      {"aten::squeeze.dim", reshape},           {"aten::squeeze.dims", reshape},
      {"aten::squeeze.default", reshape},       {"aten::squeeze_copy.dims", reshape},
      {"aten::clone.default", clone},           {"aten::expand.default", expand},
      {"aten::expand_copy.default", expand},    {"aten::permute.default", permute},
      {"aten::permute_copy.default", permute},  {"aten::transpose.int", transpose},
      {"aten::transpose_copy.int", transpose},
  };
  return table;
}

}  // namespace kiln::backends::onednn
