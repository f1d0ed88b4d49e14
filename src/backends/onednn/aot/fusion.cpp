#include "backends/onednn/aot/fusion.h"

#include <algorithm>
#include <set>

#include "aot/ir/error.h"
#include "aot/ir/quantization.h"
#include "backends/onednn/aot/fusion/rule.h"

namespace kiln::backends::onednn {

using aot::AotError;
using aot::Node;

namespace {

// The driver's state: what is taken, and the matches found before groups form.
class FusionDriver {
 public:
  explicit FusionDriver(const ConstantTensors& constants)
      : context_{constants, taken_, patterns_, anchor_of_} {}

  std::vector<FusedGroup> run(const aot::Graph& graph) {
    match_patterns(graph);
    match_absorptions(graph);
    std::vector<FusedGroup> groups;
    for (const Node* node : graph) {
      if (starts_group(node)) groups.push_back(form_group(node));
    }
    std::stable_sort(groups.begin(), groups.end(),
                     [](const FusedGroup& a, const FusedGroup& b) { return a.last()->is_before(*b.last()); });
    return groups;
  }

 private:
  bool starts_group(const Node* node) const {
    return node->is_call_function() && !is_getitem(node) && !taken_.count(node) && !context_.constants.count(node);
  }

  bool free(const Match& match) const {
    return std::none_of(match.nodes.begin(), match.nodes.end(), [&](const Node* n) { return taken_.count(n) > 0; });
  }

  static FusedGroup bare_group(const Node* node) {
    FusedGroup group;
    group.base = node;
    group.nodes = {node};
    group.result = node;
    return group;
  }

  // Stage Pattern, over the whole partition: the first rule matching at a node.
  void match_patterns(const aot::Graph& graph) {
    for (const Node* node : graph) {
      if (!starts_group(node)) continue;
      const FusedGroup group = bare_group(node);
      for (const FusionRule& rule : fusion_rules()) {
        if (rule.stage != FusionStage::Pattern) continue;
        std::optional<Match> match = rule.select(group, context_);
        if (!match || !free(*match)) continue;
        for (const Node* inner : match->nodes) {
          taken_.insert(inner);
          anchor_of_[inner] = node;
        }
        rule_of_[node] = rule.name;
        patterns_.emplace(node, std::move(*match));
        break;
      }
    }
  }

  // Stage Absorb, on each other node's own operation (which is where a node
  // OneDnnBackend cannot run is refused, by name).
  void match_absorptions(const aot::Graph& graph) {
    for (const Node* node : graph) {
      if (!starts_group(node) || patterns_.count(node)) continue;
      FusedGroup group = bare_group(node);
      group.op = describe_or_throw(*node);
      for (const FusionRule& rule : fusion_rules()) {
        if (rule.stage != FusionStage::Absorb) continue;
        std::optional<Match> match = rule.select(group, context_);
        if (!match || !free(*match)) continue;
        taken_.insert(match->nodes.begin(), match->nodes.end());
        absorbed_[node].push_back({rule.name, std::move(*match)});
      }
    }
  }

  FusedGroup form_group(const Node* node) {
    FusedGroup group = bare_group(node);
    if (auto it = patterns_.find(node); it != patterns_.end()) {
      it->second.apply(group);
      group.rules.push_back(rule_of_.at(node));
    } else {
      group.op = describe_or_throw(*node);
    }
    if (group.op.cube) {
      group.post_ops.push_back(PlannedPostOp{std::nullopt, fb::BinaryAlgorithm::Mul, group.op.inputs[0], node});
    }
    for (auto& [name, match] : absorbed_[node]) {
      match.apply(group);
      group.rules.push_back(name);
    }
    if (group.op.multi_output) take_first_results(group, node);
    for (const FusionRule& rule : fusion_rules()) {
      if (rule.stage != FusionStage::Extend) continue;
      while (std::optional<Match> match = rule.select(group, context_)) {
        if (!free(*match)) break;
        match->apply(group);
        if (std::find(group.rules.begin(), group.rules.end(), rule.name) == group.rules.end()) {
          group.rules.push_back(rule.name);
        }
      }
    }
    taken_.insert(group.nodes.begin(), group.nodes.end());
    return group;
  }

  std::set<const Node*> taken_;
  std::map<const Node*, Match> patterns_;
  std::map<const Node*, const Node*> anchor_of_;
  std::map<const Node*, const char*> rule_of_;
  std::map<const Node*, std::vector<std::pair<const char*, Match>>> absorbed_;
  FusionContext context_;
};

}  // namespace

namespace {

// dequantize_per_channel(weight, scales, zero_points?, axis, ...) of
// constants, in float32: (q - zero_point) * scale as PyTorch computes it (a
// float32 scale's product is exact in double before the one rounding).
aot::HostTensor dequantized_weight(const Node& node, const ConstantTensors& constants) {
  const auto constant = [&](const aot::Argument& arg, const char* what) -> const aot::HostTensor* {
    if (arg.is_none()) return nullptr;
    auto it = arg.is_node() ? constants.find(arg.node()) : constants.end();
    if (it == constants.end()) {
      throw AotError("OneDnnBackend: '" + node.name() + "' dequantizes " + what + " that are not constants");
    }
    return it->second;
  };
  const aot::ArgumentList& args = node.args();
  const aot::HostTensor& weight = *constant(args.at(0), "values");
  const aot::HostTensor& scales = *constant(args.at(1), "scales");
  const aot::HostTensor* zero_points = constant(args.at(2), "zero points");
  const std::vector<int64_t>& sizes = weight.sizes();
  const int64_t axis = args.at(3).to_int() < 0 ? args[3].to_int() + static_cast<int64_t>(sizes.size()) : args[3].to_int();
  if (axis < 0 || axis >= static_cast<int64_t>(sizes.size()) || scales.numel() != sizes[static_cast<size_t>(axis)] ||
      (zero_points != nullptr && zero_points->numel() != scales.numel())) {
    throw AotError("OneDnnBackend: '" + node.name() + "': its scales do not match its weight's axis " + std::to_string(axis));
  }
  const aot::HostTensor values = weight.is_contiguous() ? weight : weight.clone();
  const std::vector<double> q = values.to_doubles();
  const std::vector<double> s = scales.to_doubles();
  const std::vector<double> z = zero_points == nullptr ? std::vector<double>(s.size(), 0.0) : zero_points->to_doubles();
  for (double scale : s) {
    if (const std::string why = aot::check_scale(scale); !why.empty()) throw AotError("node '" + node.name() + "': " + why);
  }
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < sizes.size(); ++d) inner *= sizes[d];
  const int64_t channels = sizes[static_cast<size_t>(axis)];
  aot::HostTensor result = aot::HostTensor::zeros(aot::ScalarType::Float, sizes);
  float* out = result.data<float>();
  for (size_t i = 0; i < q.size(); ++i) {
    const size_t c = static_cast<size_t>((static_cast<int64_t>(i) / inner) % channels);
    out[i] = static_cast<float>((q[i] - z[c]) * s[c]);
  }
  return result;
}

}  // namespace

ConstantTensors constant_tensors(const aot::ExportedProgram& partition) {
  ConstantTensors result;
  const auto placeholders = partition.graph().placeholders();
  const auto& specs = partition.graph_signature().input_specs;
  for (size_t i = 0; i < placeholders.size() && i < specs.size(); ++i) {
    if (specs[i].kind == aot::InputKind::UserInput) continue;
    const aot::HostTensor* tensor = partition.find_lifted_tensor(specs[i]);
    if (tensor == nullptr) throw aot::AotError("OneDnnBackend: input '" + placeholders[i]->name() + "' has no tensor");
    result[placeholders[i]] = tensor;
  }
  for (const Node* node : partition.graph()) {
    if (aot::quant_op_kind(node->target()) != aot::QuantOpKind::DequantizePerChannel) continue;
    result.computed.push_back(dequantized_weight(*node, result));
    result[node] = &result.computed.back();
  }
  return result;
}

std::vector<FusedGroup> plan_fusion(const aot::ExportedProgram& partition, const ConstantTensors& constants) {
  return FusionDriver(constants).run(partition.graph());
}

}  // namespace kiln::backends::onednn
