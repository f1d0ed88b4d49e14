#include "aot/delegate/partitioner.h"

#include <set>

#include "aot/ir/error.h"

namespace kiln::aot {

std::vector<std::string> Partitioner::ops_to_not_decompose(const ExportedProgram& /*exported_program*/) const {
  return {};
}

namespace {

// The program of the innermost live VerifiedForPartitioning, or null.
thread_local const ExportedProgram* verified_for_partitioning = nullptr;

}  // namespace

detail::VerifiedForPartitioning::VerifiedForPartitioning(const ExportedProgram& program)
    : previous_(verified_for_partitioning) {
  verified_for_partitioning = &program;
}

detail::VerifiedForPartitioning::~VerifiedForPartitioning() { verified_for_partitioning = previous_; }

ExportedProgram copy_for_partitioning(const ExportedProgram& program) {
  if (&program == verified_for_partitioning) return program.copy_of_verified();
  return ExportedProgram(program.graph().clone(), program.graph_signature(), program.state_dict(),
                         program.range_constraints(), program.module_call_graph(), program.constants(),
                         program.dialect(), program.attributes());
}

const InputSpec* input_spec_of(const ExportedProgram& program, const Node& placeholder) {
  if (!placeholder.is_placeholder()) return nullptr;
  for (const InputSpec& spec : program.graph_signature().input_specs) {
    if (spec.arg.names_node() && spec.arg.name == placeholder.name()) return &spec;
  }
  return nullptr;
}

bool is_lifted_tensor(const ExportedProgram& program, const Node& node) {
  const InputSpec* spec = input_spec_of(program, node);
  return spec != nullptr && (spec->kind == InputKind::Parameter || spec->kind == InputKind::Buffer ||
                             spec->kind == InputKind::ConstantTensor);
}

bool is_mutated_buffer(const ExportedProgram& program, const Node& node) {
  const InputSpec* spec = input_spec_of(program, node);
  if (spec == nullptr || spec->kind != InputKind::Buffer) return false;
  for (const auto& [output, target] : program.graph_signature().buffers_to_mutate()) {
    if (target == spec->target) return true;
  }
  return false;
}

InputSpecIndex::InputSpecIndex(const ExportedProgram& program) : program_(&program) {}

void InputSpecIndex::build() const {
  const auto& specs = program_->graph_signature().input_specs;
  by_name_.reserve(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].arg.names_node()) by_name_.emplace(specs[i].arg.name, i);
  }
  for (const auto& [output, target] : program_->graph_signature().buffers_to_mutate()) mutated_buffers_.insert(target);
  built_ = true;
}

const InputSpec* InputSpecIndex::input_spec_of(const Node& placeholder) const {
  if (!placeholder.is_placeholder()) return nullptr;
  if (!built_) build();
  auto it = by_name_.find(placeholder.name());
  return it == by_name_.end() ? nullptr : &program_->graph_signature().input_specs[it->second];
}

bool InputSpecIndex::is_lifted_tensor(const Node& node) const {
  const InputSpec* spec = input_spec_of(node);
  return spec != nullptr && (spec->kind == InputKind::Parameter || spec->kind == InputKind::Buffer ||
                             spec->kind == InputKind::ConstantTensor);
}

bool InputSpecIndex::is_mutated_buffer(const Node& node) const {
  const InputSpec* spec = input_spec_of(node);
  return spec != nullptr && spec->kind == InputKind::Buffer && mutated_buffers_.count(spec->target);
}

namespace {

// The tag of the node that computes buffer `target`'s new value, or "".
std::string mutation_tag(const ExportedProgram& program, const std::string& target) {
  for (const auto& [output, buffer] : program.graph_signature().buffers_to_mutate()) {
    if (buffer != target) continue;
    const Node* value = program.graph().find_node(output);
    return value == nullptr ? "" : value->meta.delegation_tag;
  }
  return "";
}

// Tags each selected placeholder with the smallest tag among its users'. A
// mutated buffer only takes the tag of the node computing its new value, so
// that one delegate owns both.
void tag_placeholders_like_users(ExportedProgram& program, bool mutated_buffers) {
  const InputSpecIndex specs(program);
  for (Node* node : program.graph().placeholders()) {
    if (!specs.is_lifted_tensor(*node) || specs.is_mutated_buffer(*node) != mutated_buffers) continue;
    std::set<std::string> user_tags;
    for (const Node* user : node->users()) {
      if (!user->meta.delegation_tag.empty()) user_tags.insert(user->meta.delegation_tag);
    }
    if (mutated_buffers) {
      const std::string owner = mutation_tag(program, specs.input_spec_of(*node)->target);
      user_tags = user_tags.count(owner) ? std::set<std::string>{owner} : std::set<std::string>{};
    }
    if (!user_tags.empty()) node->meta.delegation_tag = *user_tags.begin();
  }
}

bool same_argument(const Argument& a, const Argument& b) {
  if (a.is_node() != b.is_node() || a.is_list() != b.is_list()) return false;
  if (a.is_node()) return a.node()->name() == b.node()->name();
  if (!a.is_list()) return a == b;
  if (a.list().size() != b.list().size()) return false;
  for (size_t i = 0; i < a.list().size(); ++i) {
    if (!same_argument(a.list()[i], b.list()[i])) return false;
  }
  return true;
}

bool same_call(const Node& a, const Node& b) {
  if (a.op() != b.op() || a.name() != b.name() || a.target() != b.target()) return false;
  if (a.args().size() != b.args().size() || a.kwargs().size() != b.kwargs().size()) return false;
  for (size_t i = 0; i < a.args().size(); ++i) {
    if (!same_argument(a.args()[i], b.args()[i])) return false;
  }
  for (size_t i = 0; i < a.kwargs().size(); ++i) {
    if (a.kwargs()[i].first != b.kwargs()[i].first || !same_argument(a.kwargs()[i].second, b.kwargs()[i].second)) {
      return false;
    }
  }
  return true;
}

}  // namespace

void tag_constant_data(ExportedProgram& program) { tag_placeholders_like_users(program, false); }

void tag_mutated_buffer(ExportedProgram& program) { tag_placeholders_like_users(program, true); }

std::string graph_difference(const ExportedProgram& a, const ExportedProgram& b) {
  const std::vector<Node*> left = a.graph().node_list();
  const std::vector<Node*> right = b.graph().node_list();
  for (size_t i = 0; i < left.size() && i < right.size(); ++i) {
    if (!same_call(*left[i], *right[i])) {
      return "node " + std::to_string(i) + " is '" + right[i]->format() + "' instead of '" + left[i]->format() + "'";
    }
  }
  if (left.size() != right.size()) {
    return "the graph has " + std::to_string(right.size()) + " nodes instead of " + std::to_string(left.size());
  }
  if (!(a.graph_signature() == b.graph_signature())) return "the graph signature changed";
  return "";
}


}  // namespace kiln::aot
