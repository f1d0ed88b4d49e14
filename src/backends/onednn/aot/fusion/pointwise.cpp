// The pointwise family of fusion rules (rule.h): a DAG of elementwise ops on
// a small tensor as one Pointwise program (onednn_graph.fbs), which Kiln's
// own kernel runs in one pass (runtime/pointwise_f32.h).
//
// A recurrent cell computes its gates as a dozen elementwise ops on the
// hidden state (GRU: sigmoid(a + b), tanh(c + r * d), (h - n) * z + n), each
// of 64 elements or so, on crops of the two matmuls' results. Post-ops take
// a chain, not a DAG, and each op or crop apart costs more to dispatch than
// to compute: 11 operations a time step.
//
// Matched at its sink, an elementwise op some reader of which is not one of
// the same sizes (the ops it feeds lie elsewhere), the group grows backwards
// over the elementwise ops of the sink's sizes and the views (crops,
// reshapes adding or removing dims of one, permutes, expands) every reader
// of which is in the group already; what it reaches beyond are its sources,
// each read through the view the absorbed ops make of it. It forms only
// where post-ops could not run it: at least three ops, one of them read
// twice inside the group or joining two of the group's own values; and no
// op that would be the post-op of the operation it reads.
#include <algorithm>
#include <map>
#include <set>

#include "aot/ir/op_table/schema_binding.h"
#include "backends/onednn/aot/fusion/rule.h"
#include "backends/onednn/aot/node_op_checks.h"

namespace kiln::backends::onednn {

using aot::Node;

namespace {

// A view of a source's row-major elements.
struct View {
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;
};

View row_major(const std::vector<int64_t>& sizes) {
  View view{sizes, std::vector<int64_t>(sizes.size(), 0), 0};
  int64_t stride = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    view.strides[d] = stride;
    stride *= sizes[d];
  }
  return view;
}

bool is_row_major(const View& view) {
  int64_t expected = 1;
  for (size_t d = view.sizes.size(); d-- > 0;) {
    if (view.sizes[d] != 1 && view.strides[d] != expected) return false;
    expected *= view.sizes[d];
  }
  return true;
}

int64_t normalized_dim(int64_t dim, size_t rank) { return dim < 0 ? dim + static_cast<int64_t>(rank) : dim; }

// `view` reshaped to `sizes`: dims of one added or removed, or any reshape
// of a view in row-major order.
std::optional<View> reshaped(const View& view, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> kept_sizes, kept_strides;
  for (size_t d = 0; d < view.sizes.size(); ++d) {
    if (view.sizes[d] == 1) continue;
    kept_sizes.push_back(view.sizes[d]);
    kept_strides.push_back(view.strides[d]);
  }
  std::vector<int64_t> wanted;
  for (int64_t size : sizes) {
    if (size != 1) wanted.push_back(size);
  }
  if (wanted == kept_sizes) {
    View out{sizes, std::vector<int64_t>(sizes.size(), 0), view.offset};
    size_t next = 0;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] != 1) out.strides[d] = kept_strides[next++];
    }
    return out;
  }
  if (!is_row_major(view)) return std::nullopt;
  View out = row_major(sizes);
  out.offset = view.offset;
  return out;
}

// The view `node`, an op that only picks or reorders its input's elements,
// makes of `in`, or nothing for another op.
std::optional<View> view_after(const Node& node, const View& in) {
  const std::string op = qualified_op(node);
  const std::vector<int64_t> out_sizes = sizes_of(&node);
  if (out_sizes.empty() && !in.sizes.empty()) return std::nullopt;
  const std::vector<aot::Argument> args = aot::bind_node_arguments(node);
  const size_t rank = in.sizes.size();
  if (op == "aten::slice.Tensor" || op == "aten::slice_copy.Tensor") {
    const int64_t dim = normalized_dim(args.at(1).to_int(), rank);
    const int64_t step = args.at(4).is_none() ? 1 : args[4].to_int();
    if (dim < 0 || static_cast<size_t>(dim) >= rank || step < 1 || out_sizes.size() != rank) return std::nullopt;
    const int64_t size = in.sizes[static_cast<size_t>(dim)];
    int64_t start = args.at(2).is_none() ? 0 : args[2].to_int();
    start = std::clamp<int64_t>(start < 0 ? start + size : start, 0, size);
    View out = in;
    out.offset += start * in.strides[static_cast<size_t>(dim)];
    out.sizes = out_sizes;
    out.strides[static_cast<size_t>(dim)] *= step;
    return out;
  }
  if (op == "aten::select.int" || op == "aten::select_copy.int") {
    const int64_t dim = normalized_dim(args.at(1).to_int(), rank);
    if (dim < 0 || static_cast<size_t>(dim) >= rank) return std::nullopt;
    const int64_t size = in.sizes[static_cast<size_t>(dim)];
    const int64_t index = args.at(2).to_int() < 0 ? args[2].to_int() + size : args[2].to_int();
    if (index < 0 || index >= size) return std::nullopt;
    View out = in;
    out.offset += index * in.strides[static_cast<size_t>(dim)];
    out.sizes.erase(out.sizes.begin() + dim);
    out.strides.erase(out.strides.begin() + dim);
    return out;
  }
  if (op == "aten::permute.default" || op == "aten::permute_copy.default") {
    const std::vector<int64_t> dims = int_list(args.at(1), "dims");
    if (dims.size() != rank) return std::nullopt;
    View out{{}, {}, in.offset};
    for (int64_t dim : dims) {
      const int64_t d = normalized_dim(dim, rank);
      if (d < 0 || static_cast<size_t>(d) >= rank) return std::nullopt;
      out.sizes.push_back(in.sizes[static_cast<size_t>(d)]);
      out.strides.push_back(in.strides[static_cast<size_t>(d)]);
    }
    return out;
  }
  if (op == "aten::transpose.int" || op == "aten::transpose_copy.int") {
    const int64_t a = normalized_dim(args.at(1).to_int(), rank), b = normalized_dim(args.at(2).to_int(), rank);
    if (a < 0 || b < 0 || static_cast<size_t>(a) >= rank || static_cast<size_t>(b) >= rank) return std::nullopt;
    View out = in;
    std::swap(out.sizes[static_cast<size_t>(a)], out.sizes[static_cast<size_t>(b)]);
    std::swap(out.strides[static_cast<size_t>(a)], out.strides[static_cast<size_t>(b)]);
    return out;
  }
  if (op == "aten::expand.default" || op == "aten::expand_copy.default") {
    if (out_sizes.size() < rank) return std::nullopt;
    View out{out_sizes, std::vector<int64_t>(out_sizes.size(), 0), in.offset};
    const size_t lead = out_sizes.size() - rank;
    for (size_t d = 0; d < rank; ++d) {
      if (in.sizes[d] == out_sizes[lead + d]) {
        out.strides[lead + d] = in.strides[d];
      } else if (in.sizes[d] != 1) {
        return std::nullopt;
      }
    }
    return out;
  }
  static const std::set<std::string> kReshapes = {
      "aten::view.default",      "aten::view_copy.default",      "aten::_unsafe_view.default", "aten::reshape.default",
      "aten::alias.default",     "aten::alias_copy.default",     "aten::unsqueeze.default",    "aten::unsqueeze_copy.default",
      "aten::squeeze.dim",       "aten::squeeze.dims",           "aten::squeeze.default",      "aten::squeeze_copy.dims",
      "aten::clone.default"};
  if (kReshapes.count(op) > 0) return reshaped(in, out_sizes);
  return std::nullopt;
}

// `node` as one elementwise op the kernel computes: its description.
std::optional<NodeOp> as_pointwise(const Node* node, const FusionContext& context) {
  if (node == nullptr || context.is_taken(node) || context.is_constant(node) || context.pattern_at(node) != nullptr) {
    return std::nullopt;
  }
  const auto* meta = std::get_if<aot::TensorMeta>(&node->meta.val);
  if (meta == nullptr || meta->dtype != aot::ScalarType::Float || !meta->is_static()) return std::nullopt;
  std::optional<NodeOp> op = describe_if(node);
  if (!op || op->group_norm || op->safe_softmax || op->multi_output || op->keepdim_sizes) return std::nullopt;
  if (const auto* eltwise = op->op.AsEltwiseOp()) {
    if (!eltwise->eltwise || !pointwise_computes(eltwise->eltwise->algorithm)) return std::nullopt;
  } else if (op->op.AsBinaryOp() == nullptr) {
    return std::nullopt;
  }
  for (const Node* input : op->inputs) {
    if (input == nullptr) return std::nullopt;
  }
  const std::vector<int64_t> sizes = op->sizes;
  int64_t numel = 1;
  for (int64_t size : sizes) numel *= size;
  if (numel > kMaxPointwiseNumel) return std::nullopt;
  return op;
}

// Whether `node` only moves elements (view_after knows it).
bool is_view_op(const Node* node, const FusionContext& context) {
  if (node == nullptr || !node->is_call_function() || context.is_taken(node) || context.is_constant(node) ||
      context.pattern_at(node) != nullptr) {
    return false;
  }
  const auto* meta = std::get_if<aot::TensorMeta>(&node->meta.val);
  if (meta == nullptr || meta->dtype != aot::ScalarType::Float || !meta->is_static()) return false;
  const std::optional<NodeOp> op = describe_if(node);  // its arguments are valid
  if (!op || (op->kind() != fb::OperationKind::Reorder && op->kind() != fb::OperationKind::Pad)) return false;
  const Node* input = node->args().empty() || !node->args()[0].is_node() ? nullptr : node->args()[0].node();
  if (input == nullptr || !std::holds_alternative<aot::TensorMeta>(input->meta.val) || !input->meta.tensor().is_static()) {
    return false;
  }
  return view_after(*node, row_major(input->meta.tensor().static_sizes())).has_value();
}

// The view the absorbed `views` from `node` back to its source make of the
// source's row-major elements, or nothing where one of them does not
// compose (a reshape merging dimensions of a view not in row-major order).
std::optional<View> view_through(const Node* node, const std::set<const Node*>& views) {
  if (views.count(node) == 0) return row_major(sizes_of(node));
  const std::optional<View> in = view_through(node->args()[0].node(), views);
  return in ? view_after(*node, *in) : std::nullopt;
}

bool all_users_in(const Node* node, const std::set<const Node*>& group) {
  return std::all_of(node->users().begin(), node->users().end(), [&](const Node* u) { return group.count(u) > 0; });
}

// The program the group computes: its sources and their views, its steps.
struct Program {
  std::vector<const Node*> sources;
  fb::PointwiseT pointwise;
  std::vector<const Node*> nodes;  ///< every node, graph order
};

class ProgramWriter {
 public:
  ProgramWriter(const std::vector<int64_t>& sizes, const std::set<const Node*>& views)
      : sizes_(sizes), views_(views) {}

  // The register holding `node`'s value, read by an op of the group.
  uint16_t reg(const Node* node) {
    if (auto it = computed_.find(node); it != computed_.end()) return it->second;
    View view = view_of(node);
    // Broadcast to the result's sizes (numpy rules).
    View full{sizes_, std::vector<int64_t>(sizes_.size(), 0), view.offset};
    const size_t lead = sizes_.size() - view.sizes.size();
    for (size_t d = 0; d < view.sizes.size(); ++d) {
      if (view.sizes[d] != 1) full.strides[lead + d] = view.strides[d];
    }
    const Node* source = source_of(node);
    for (size_t i = 0; i < program_.sources.size(); ++i) {
      if (program_.sources[i] == source && program_.pointwise.offsets[i] == full.offset &&
          std::equal(full.strides.begin(), full.strides.end(), program_.pointwise.strides.begin() + static_cast<std::ptrdiff_t>(i * sizes_.size()))) {
        return static_cast<uint16_t>(i);
      }
    }
    program_.sources.push_back(source);
    program_.pointwise.offsets.push_back(full.offset);
    program_.pointwise.strides.insert(program_.pointwise.strides.end(), full.strides.begin(), full.strides.end());
    return static_cast<uint16_t>(program_.sources.size() - 1);
  }

  void add_step(const Node* node, fb::PointwiseStep step) {
    steps_.push_back(step);
    computed_[node] = static_cast<uint16_t>(steps_.size() - 1);  // renumbered in finish
  }

  Program finish() {
    // Registers of steps come after the sources: renumber them.
    const auto inputs = static_cast<uint16_t>(program_.sources.size());
    for (fb::PointwiseStep& step : steps_) {
      step = fb::PointwiseStep(step.is_binary(), step.eltwise(), step.binary(), renumber(step.a(), inputs),
                               renumber(step.b(), inputs), step.alpha(), step.beta());
    }
    program_.pointwise.steps = steps_;
    return std::move(program_);
  }

  // Registers: sources as they come, steps marked apart until finish.
  static constexpr uint16_t kStepMark = 0x8000;
  uint16_t step_reg(const Node* node) { return static_cast<uint16_t>(computed_.at(node) | kStepMark); }
  bool is_computed(const Node* node) const { return computed_.count(node) > 0; }
  // A register to read: a step's (marked) or a source's.
  uint16_t operand(const Node* node) { return is_computed(node) ? step_reg(node) : reg(node); }

 private:
  static uint16_t renumber(uint16_t r, uint16_t inputs) {
    return (r & kStepMark) != 0 ? static_cast<uint16_t>((r & ~kStepMark) + inputs) : r;
  }

  const Node* source_of(const Node* node) const {
    while (views_.count(node) > 0) node = node->args()[0].node();
    return node;
  }

  View view_of(const Node* node) const { return *view_through(node, views_); }

  std::vector<int64_t> sizes_;
  const std::set<const Node*>& views_;
  std::map<const Node*, uint16_t> computed_;
  std::vector<fb::PointwiseStep> steps_;
  Program program_;
};

// Whether `op` (of `node`) reads the result of an operation no program
// holds that takes post-ops (a convolution, a matmul, a batch norm) and that
// nothing else reads, or of an elementwise op that does (a chain of them):
// there it is that operation's post-op, at no cost (a frozen batch norm's
// scale and shift after a convolution), not a program's.
bool ends_a_post_op_chain(const NodeOp& op, const Node* node, uint32_t depth = 0) {
  for (const Node* input : op.inputs) {
    if (input->users().size() != 1 || input->users()[0] != node) continue;
    const std::optional<NodeOp> producer = describe_if(input);
    if (!producer) continue;
    const fb::OperationKind kind = producer->kind();
    if (kind == fb::OperationKind::BinaryOp || kind == fb::OperationKind::EltwiseOp) {
      if (depth < kMaxPostOps && ends_a_post_op_chain(*producer, input, depth + 1)) return true;
      continue;
    }
    if (operation_rules(kind).fuses_post_ops) return true;
  }
  return false;
}

// The sink whose group `node`, an elementwise op, joins: itself when a
// reader is not an op of its kind and sizes, or when its readers join
// different groups (an LSTM's cell state, read by this step's output and the
// next step's state); else its readers' one sink. `sinks` memoizes; past
// the most steps a program runs, a node is its own sink.
template <typename Interior>
const Node* sink_of(const Node* node, const Interior& interior, std::map<const Node*, const Node*>& sinks, uint32_t depth) {
  if (auto it = sinks.find(node); it != sinks.end()) return it->second;
  const Node* sink = nullptr;
  for (const Node* user : node->users()) {
    const Node* reached = depth < kMaxPointwiseSteps && interior(user) ? sink_of(user, interior, sinks, depth + 1) : node;
    if (sink != nullptr && reached != sink) reached = node;
    sink = reached;
    if (sink == node) break;
  }
  if (sink == nullptr) sink = node;
  sinks[node] = sink;
  return sink;
}

std::optional<Match> select_pointwise(const FusedGroup& group, const FusionContext& context) {
  const Node* sink = group.base;
  const std::optional<NodeOp> sink_op = as_pointwise(sink, context);
  if (!sink_op) return std::nullopt;
  const std::vector<int64_t> sizes = sink_op->sizes;
  // Each node described once per match (a long chain of elementwise ops
  // asks about the same nodes from every anchor).
  std::map<const Node*, std::optional<NodeOp>> described;
  const auto interior = [&](const Node* node) -> std::optional<NodeOp> {
    auto it = described.find(node);
    if (it == described.end()) {
      std::optional<NodeOp> op = as_pointwise(node, context);
      if (op && (op->sizes != sizes || ends_a_post_op_chain(*op, node))) op.reset();
      it = described.emplace(node, std::move(op)).first;
    }
    return it->second;
  };
  // A node whose one reader is of the group's kind is never a sink (that
  // reader's sink is further on): no walk down a chain from every node.
  const std::vector<Node*>& readers = sink->users();
  if (readers.size() == 1 && interior(readers[0])) return std::nullopt;
  std::map<const Node*, const Node*> sinks;
  if (sink_of(sink, interior, sinks, 0) != sink) return std::nullopt;
  std::map<const Node*, NodeOp> ops = {{sink, *sink_op}};
  std::set<const Node*> members = {sink}, views;
  for (bool grew = true; grew;) {
    grew = false;
    // Past the most steps a program runs, no program: stop growing.
    if (ops.size() > kMaxPointwiseSteps || views.size() > 4 * kMaxPointwiseSteps) return std::nullopt;
    std::vector<const Node*> reads;
    for (const auto& [node, op] : ops) reads.insert(reads.end(), op.inputs.begin(), op.inputs.end());
    for (const Node* node : views) reads.push_back(node->args()[0].node());
    for (const Node* read : reads) {
      if (members.count(read) > 0 || !all_users_in(read, members)) continue;
      if (std::optional<NodeOp> op = interior(read)) {
        ops.emplace(read, std::move(*op));
      } else if (is_view_op(read, context) && !interior(read->args()[0].node())) {
        views.insert(read);
      } else {
        continue;
      }
      members.insert(read);
      grew = true;
    }
  }
  for (const Node* view : views) {
    if (!view_through(view, views)) return std::nullopt;
  }
  // Worth a program: three ops at least, and a DAG post-ops cannot run.
  size_t joins = 0;
  for (const auto& [node, op] : ops) {
    size_t inside = 0;
    for (const Node* input : op.inputs) inside += ops.count(input);
    size_t readers = 0;
    for (const Node* user : node->users()) readers += ops.count(user);
    if (inside >= 2 || readers >= 2) ++joins;
  }
  size_t steps = 0;
  for (const auto& [node, op] : ops) steps += op.cube ? 2 : 1;
  if (ops.size() < 3 || joins == 0 || steps > kMaxPointwiseSteps) return std::nullopt;

  std::vector<const Node*> nodes(members.begin(), members.end());
  std::sort(nodes.begin(), nodes.end(), [](const Node* a, const Node* b) { return a->is_before(*b); });
  ProgramWriter writer(sizes, views);
  for (const Node* node : nodes) {
    auto it = ops.find(node);
    if (it == ops.end()) continue;
    const NodeOp& op = it->second;
    if (const auto* eltwise = op.op.AsEltwiseOp()) {
      const fb::EltwiseT& e = *eltwise->eltwise;
      writer.add_step(node, fb::PointwiseStep(false, e.algorithm, fb::BinaryAlgorithm::Add, writer.operand(op.inputs[0]), 0,
                                              e.alpha, e.beta));
      continue;
    }
    const fb::BinaryAlgorithm algorithm = op.op.AsBinaryOp()->algorithm;
    const uint16_t a = writer.operand(op.inputs[0]);
    const uint16_t b = writer.operand(op.inputs[1]);
    writer.add_step(node, fb::PointwiseStep(true, fb::EltwiseAlgorithm::Linear, algorithm, a, b, 0, 0));
    if (op.cube) {  // x * x, then times x once more
      const uint16_t squared = writer.step_reg(node);
      writer.add_step(node, fb::PointwiseStep(true, fb::EltwiseAlgorithm::Linear, fb::BinaryAlgorithm::Mul, squared, a, 0, 0));
    }
  }
  Program program = writer.finish();
  if (program.sources.size() > kMaxOperationArgs - 2) return std::nullopt;
  program.nodes = nodes;

  Match match;
  for (const Node* node : nodes) {
    if (node != sink) match.nodes.push_back(node);
  }
  match.apply = [program = std::make_shared<Program>(std::move(program)), sizes](FusedGroup& formed) {
    formed.op = NodeOp{};
    formed.op.sizes = sizes;
    formed.op.op.Set(fb::PointwiseT(program->pointwise));
    formed.op.inputs = program->sources;
    formed.nodes = program->nodes;
  };
  return match;
}

constexpr FusionRule kPointwiseRules[] = {
    {"pointwise", FusionStage::Pattern, select_pointwise},
};

}  // namespace

std::span<const FusionRule> pointwise_rules() { return kPointwiseRules; }

}  // namespace kiln::backends::onednn
