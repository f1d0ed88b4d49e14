#include "aot/passes/constant_weights.h"

#include <cmath>

#include "aot/passes/pattern.h"

namespace kiln::aot::passes {

const HostTensor* weight_of(const ExportedProgram& program, const Node* node) {
  if (node == nullptr || !node->is_placeholder()) return nullptr;
  const auto placeholders = program.graph().placeholders();
  const auto& specs = program.graph_signature().input_specs;
  for (size_t i = 0; i < placeholders.size() && i < specs.size(); ++i) {
    if (placeholders[i] != node) continue;
    if (specs[i].kind != InputKind::Parameter && specs[i].kind != InputKind::ConstantTensor) return nullptr;
    return program.find_lifted_tensor(specs[i]);
  }
  return nullptr;
}

bool is_int_list(const Argument& arg, const std::vector<int64_t>& values) {
  if (!arg.is_list() || arg.list().size() != values.size()) return false;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!arg.list()[i].is_int() || arg.list()[i].to_int() != values[i]) return false;
  }
  return true;
}

std::optional<AffineWeights> affine_weights(const ExportedProgram& program, Node* node) {
  const auto args = call_args(node, "torchao::dequantize_affine.default");
  if (!args || !is_float(node)) return std::nullopt;
  Node* qn = node_of(args->at(0));
  Node* sn = node_of(args->at(2));
  Node* zn = node_of(args->at(3));
  const HostTensor* q = weight_of(program, qn);
  const HostTensor* s = weight_of(program, sn);
  const HostTensor* z = zn != nullptr ? weight_of(program, zn) : nullptr;
  if (q == nullptr || s == nullptr || (zn != nullptr && z == nullptr) || q->dtype() != ScalarType::Char ||
      q->rank() != 2 || !args->at(5).is_int() || !args->at(6).is_int() || !args->at(1).is_list() ||
      args->at(1).list().size() != 2 || !args->at(1).list()[1].is_int() || !args->at(1).list()[0].is_int() ||
      args->at(1).list()[0].to_int() != 1) {
    return std::nullopt;
  }
  AffineWeights w;
  const int64_t lo = args->at(5).to_int(), hi = args->at(6).to_int();
  if (lo == -8 && hi == 7) w.bits = 4;
  else if (lo == -128 && hi == 127) w.bits = 8;
  else return std::nullopt;
  w.n = q->sizes()[0];
  w.k = q->sizes()[1];
  w.group = args->at(1).list()[1].to_int();
  if (w.group <= 0 || w.k % w.group != 0) return std::nullopt;
  const int64_t groups = w.k / w.group;
  if (s->numel() != w.n * groups || (s->dtype() != ScalarType::Float && s->dtype() != ScalarType::BFloat16 &&
                                     s->dtype() != ScalarType::Half)) {
    return std::nullopt;
  }
  w.values = q->is_contiguous() ? *q : q->clone();
  for (double v : s->to_doubles()) w.scales.push_back(static_cast<float>(v));
  if (z != nullptr) {
    if (z->numel() != w.n * groups) return std::nullopt;
    bool any = false;
    for (double v : z->to_doubles()) {
      if (v < lo || v > hi || v != std::floor(v)) return std::nullopt;
      w.zero_points.push_back(static_cast<int8_t>(v));
      any = any || v != 0;
    }
    if (!any) w.zero_points.clear();
  }
  w.nodes = {node, qn, sn};
  if (zn != nullptr) w.nodes.push_back(zn);
  return w;
}

void drop_weight(ExportedProgram& program, Node* node) {
  if (!readers(node).empty()) return;
  for (Node* check : std::vector<Node*>(node->users())) program.graph().erase_node(check);
  const auto placeholders = program.graph().placeholders();
  auto& specs = program.graph_signature().input_specs;
  for (size_t i = 0; i < placeholders.size() && i < specs.size(); ++i) {
    if (placeholders[i] != node) continue;
    const InputSpec spec = specs[i];
    if (spec.in_state_dict()) program.state_dict().erase(spec.target);
    else program.constants().erase(spec.target);
    specs.erase(specs.begin() + static_cast<std::ptrdiff_t>(i));
    program.graph().erase_node(node);
    return;
  }
}

}  // namespace kiln::aot::passes
