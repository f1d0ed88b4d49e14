#include "aot/pipeline/fold_constants.h"

#include <algorithm>
#include <map>
#include <set>

#include "aot/interpreter/interpreter.h"
#include "aot/ir/error.h"
#include "aot/ir/exec_kind.h"
#include "aot/ir/op_table/op_schema.h"
#include "aot/ir/quantization.h"
#include "aot/passes/lowering.h"
#include "aot/passes/op_support.h"

namespace kiln::aot {
namespace {

// The tensor a placeholder names when it is a weight or constant no output
// writes (a mutated buffer changes between calls); null otherwise.
std::map<const Node*, const HostTensor*> constant_placeholders(const ExportedProgram& program) {
  std::set<std::string> mutated;
  for (const OutputSpec& spec : program.graph_signature().output_specs) {
    if (spec.kind == OutputKind::BufferMutation) mutated.insert(spec.target);
  }
  std::map<const Node*, const HostTensor*> result;
  const std::vector<Node*> placeholders = program.graph().placeholders();
  const auto& specs = program.graph_signature().input_specs;
  for (size_t i = 0; i < placeholders.size() && i < specs.size(); ++i) {
    const InputSpec& spec = specs[i];
    if (spec.kind != InputKind::Parameter && spec.kind != InputKind::Buffer && spec.kind != InputKind::ConstantTensor) {
      continue;
    }
    if (mutated.count(spec.target)) continue;
    if (const HostTensor* tensor = program.find_lifted_tensor(spec)) result[placeholders[i]] = tensor;
  }
  return result;
}

bool static_tensor_meta(const Node& node) {
  if (const auto* meta = std::get_if<TensorMeta>(&node.meta.val)) return meta->is_static();
  if (const auto* metas = std::get_if<std::vector<TensorMeta>>(&node.meta.val)) {
    return !metas->empty() && std::all_of(metas->begin(), metas->end(), [](const TensorMeta& m) { return m.is_static(); });
  }
  return false;
}

// An op whose result is a function of its arguments alone, and worth
// computing ahead: not a quantization op of quantized_decomposed or torchao
// (a dequantized weight would be stored as float, four times larger, and hide
// its int8 values from the backends that compute with them).
bool pure_op(const Node& node) {
  if (is_call_of(node, ExecKind::GetItem)) return true;
  if (quant_op_kind(node.target()) != QuantOpKind::None) return false;
  const OpSchema* schema = find_op_schema(node.target());
  if (schema == nullptr || is_random(*schema)) return false;
  return std::none_of(schema->arguments.begin(), schema->arguments.end(),
                      [](const SchemaArgument& a) { return a.is_write(); });
}

size_t result_bytes(const Node& node) {
  if (const auto* meta = std::get_if<TensorMeta>(&node.meta.val)) {
    size_t numel = 1;
    for (int64_t size : meta->static_sizes()) numel *= static_cast<size_t>(size);
    return numel * runtime::element_size(meta->dtype);
  }
  return SIZE_MAX;  // a multi-output op is folded through its getitems
}

class Folder {
 public:
  explicit Folder(ExportedProgram& program) : program_(program), weights_(constant_placeholders(program)) {}

  bool run() {
    find_foldable();
    std::vector<Node*> folded = frontier();
    while (drop_growing(folded)) folded = frontier();
    // A program may carry weights nothing reads (a PT2E quantized program
    // keeps the float weights its int8 ones replaced): they are dropped.
    if (folded.empty()) return drop_unread_weights();
    const std::vector<Value> values = evaluate(folded);
    replace(folded, values);
    return true;
  }

 private:
  void find_foldable() {
    for (Node* node : program_.graph()) {
      if (!node->is_call_function() || !static_tensor_meta(*node) || !pure_op(*node)) continue;
      bool inputs_constant = true;
      size_t weight_bytes = 0;
      for (Node* input : node->input_nodes()) {
        if (auto it = weights_.find(input); it != weights_.end()) {
          weight_bytes += it->second->nbytes();
        } else if (auto f = source_bytes_.find(input); f != source_bytes_.end()) {
          weight_bytes += f->second;
        } else {
          inputs_constant = false;
        }
      }
      if (inputs_constant) source_bytes_[node] = weight_bytes;
    }
  }

  bool foldable(const Node* node) const { return source_bytes_.count(node) > 0; }

  // The foldable nodes something else reads: the values to compute.
  std::vector<Node*> frontier() const {
    std::vector<Node*> result;
    for (Node* node : program_.graph()) {
      if (!foldable(node)) continue;
      const bool read_elsewhere = std::any_of(node->users().begin(), node->users().end(),
                                              [&](const Node* user) { return !foldable(user); });
      if (read_elsewhere) result.push_back(node);
    }
    return result;
  }

  // Un-marks the frontier nodes not worth folding (a multi-output value read
  // whole; past kMaxGrowthBytes, a result larger than its weights or a copy
  // of a weight that stays; a value the program returns: an output stays
  // computed); true if any was.
  bool drop_growing(const std::vector<Node*>& folded) {
    bool dropped = false;
    for (Node* node : folded) {
      const size_t bytes = result_bytes(*node);
      const bool returned = std::any_of(node->users().begin(), node->users().end(),
                                        [](const Node* user) { return user->op() == OpKind::Output; });
      const bool large = bytes > kMaxGrowthBytes;
      if (returned || (large && (bytes > source_bytes_.at(node) || copies_a_kept_weight(node)))) {
        source_bytes_.erase(node);
        dropped = true;
      }
    }
    if (dropped) {  // what read a dropped node is no longer constant
      for (Node* node : program_.graph()) {
        if (!foldable(node)) continue;
        for (Node* input : node->input_nodes()) {
          if (!weights_.count(input) && !foldable(input)) {
            source_bytes_.erase(node);
            break;
          }
        }
      }
    }
    return dropped;
  }

  // True if a weight `node` is computed from stays read by a node that is
  // not folded: folding would store a second copy of it (a tied embedding's
  // transpose for the output projection).
  bool copies_a_kept_weight(const Node* node) const {
    std::set<const Node*> seen;
    std::vector<const Node*> stack{node};
    while (!stack.empty()) {
      const Node* current = stack.back();
      stack.pop_back();
      for (const Node* input : current->input_nodes()) {
        if (!seen.insert(input).second) continue;
        if (weights_.count(input)) {
          for (const Node* user : input->users()) {
            if (!foldable(user)) return true;
          }
        } else {
          stack.push_back(input);
        }
      }
    }
    return false;
  }

  // The folded values, computed by the reference interpreter on a program of
  // the foldable nodes alone, their weights its constants.
  std::vector<Value> evaluate(const std::vector<Node*>& folded) {
    std::map<const Node*, Node*> twin;
    std::unique_ptr<Graph> graph = program_.graph().clone(&twin);
    ArgumentList outputs;
    for (Node* node : folded) outputs.emplace_back(twin.at(node));
    graph->output_node()->set_args({Argument(outputs)});
    std::set<const Node*> keep;
    for (const auto& [original, copy] : twin) {
      if (foldable(original) || weights_.count(original)) keep.insert(copy);
    }
    keep.insert(graph->output_node());
    std::vector<Node*> nodes = graph->node_list();
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      if (!keep.count(*it) && (*it)->users().empty()) graph->erase_node(*it);
    }
    GraphSignature signature;
    ConstantMap constants;
    const std::vector<Node*> placeholders = program_.graph().placeholders();
    for (size_t i = 0; i < placeholders.size(); ++i) {
      auto weight = weights_.find(placeholders[i]);
      if (weight == weights_.end()) continue;
      InputSpec spec;
      spec.kind = InputKind::ConstantTensor;
      spec.arg = ArgumentSpec::tensor(placeholders[i]->name());
      spec.target = program_.graph_signature().input_specs.at(i).target;
      signature.input_specs.push_back(spec);
      constants[spec.target] = *weight->second;
    }
    for (Node* node : folded) {
      OutputSpec spec;
      spec.arg = ArgumentSpec::tensor(node->name());
      signature.output_specs.push_back(spec);
    }
    try {
      const ExportedProgram constant_part(std::move(graph), std::move(signature), {}, {}, {}, std::move(constants),
                                          program_.dialect());
      return run_delegated_program(constant_part, {});
    } catch (const AotError& error) {
      throw AotError(std::string("fold_constants: computing the constant part of the program: ") + error.what());
    }
  }

  // Each folded node's readers read a new lifted constant instead; the
  // nodes and weights left unread go.
  void replace(const std::vector<Node*>& folded, const std::vector<Value>& values) {
    Graph& graph = program_.graph();
    for (size_t i = 0; i < folded.size(); ++i) {
      Node* node = folded[i];
      const std::string target = unused_target(node->name());
      // The constant is stored contiguous, whatever dim order the op's view had.
      TensorMeta meta = std::get<TensorMeta>(node->meta.val);
      meta.dim_order.clear();
      meta.requires_grad = false;
      Node* placeholder =
          lift_constant(program_, "c_" + target, target, meta, std::get<HostTensor>(values.at(i)).clone(), *node);
      for (Node* user : std::vector<Node*>(node->users().begin(), node->users().end())) {
        if (!foldable(user)) user->replace_input_with(node, placeholder);
      }
    }
    std::vector<Node*> nodes = graph.node_list();
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      if (foldable(*it) && (*it)->users().empty()) graph.erase_node(*it);
    }
    drop_unread_weights();
  }

  bool drop_unread_weights() {
    bool dropped = false;
    Graph& graph = program_.graph();
    auto& specs = program_.graph_signature().input_specs;
    const std::vector<Node*> placeholders = graph.placeholders();
    for (size_t i = placeholders.size(); i-- > 0;) {
      Node* node = placeholders[i];
      if (!weights_.count(node) || !node->users().empty() || i >= specs.size()) continue;
      const InputSpec spec = specs[i];
      if (spec.in_state_dict()) {
        program_.state_dict().erase(spec.target);
      } else {
        program_.constants().erase(spec.target);
      }
      specs.erase(specs.begin() + static_cast<std::ptrdiff_t>(i));
      graph.erase_node(node);
      dropped = true;
    }
    return dropped;
  }

  std::string unused_target(const std::string& base) const {
    for (int n = 0;; ++n) {
      std::string name = "_folded_" + base + (n == 0 ? "" : "_" + std::to_string(n));
      if (!program_.constants().count(name) && !program_.state_dict().count(name)) return name;
    }
  }

  ExportedProgram& program_;
  std::map<const Node*, const HostTensor*> weights_;
  std::map<const Node*, size_t> source_bytes_;  // foldable node -> bytes of the weights it is computed from
};

}  // namespace

bool fold_constants(ExportedProgram& program) {
  const bool changed = Folder(program).run();
  if (changed) program.verify();
  return changed;
}

}  // namespace kiln::aot
