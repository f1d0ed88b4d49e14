#include "aot/ir/exported_program.h"

#include <cstring>
#include <utility>

#include "aot/ir/error.h"
#include "aot/ir/verifier.h"

namespace kiln::aot {

ExportedProgram::ExportedProgram(std::unique_ptr<Graph> graph, GraphSignature signature, StateDict state_dict,
                                 RangeConstraints range_constraints,
                                 std::vector<ModuleCallEntry> module_call_graph, ConstantMap constants,
                                 std::string dialect, ModuleAttributes attributes)
    : ExportedProgram(Unverified{}, std::move(graph), std::move(signature), std::move(state_dict),
                      std::move(range_constraints), std::move(module_call_graph), std::move(constants),
                      std::move(dialect), std::move(attributes)) {
  verify();
}

ExportedProgram::ExportedProgram(Unverified, std::unique_ptr<Graph> graph, GraphSignature signature,
                                 StateDict state_dict, RangeConstraints range_constraints,
                                 std::vector<ModuleCallEntry> module_call_graph, ConstantMap constants,
                                 std::string dialect, ModuleAttributes attributes)
    : graph_(std::move(graph)),
      signature_(std::move(signature)),
      state_dict_(std::move(state_dict)),
      range_constraints_(std::move(range_constraints)),
      module_call_graph_(std::move(module_call_graph)),
      constants_(std::move(constants)),
      dialect_(std::move(dialect)),
      attributes_(std::move(attributes)) {
  if (graph_ == nullptr) throw AotError("ExportedProgram needs a graph");
  for (const auto& [name, attribute] : attributes_) {
    if (attribute == nullptr) throw AotError("module attribute '" + name + "' is null");
  }
}

const ModuleAttribute& ExportedProgram::attribute(const std::string& name) const {
  auto it = attributes_.find(name);
  if (it != attributes_.end()) return *it->second;
  std::string known;
  for (const auto& [key, value] : attributes_) known += (known.empty() ? "" : ", ") + key;
  throw AotError("the program has no attribute '" + name + "' (it has: " + (known.empty() ? "none" : known) + ")");
}

std::shared_ptr<ModuleAttribute> ExportedProgram::find_attribute(const std::string& name) const {
  auto it = attributes_.find(name);
  return it == attributes_.end() ? nullptr : it->second;
}

void ExportedProgram::set_attribute(const std::string& name, std::shared_ptr<ModuleAttribute> attribute) {
  if (attribute == nullptr) throw AotError("module attribute '" + name + "' is null");
  attributes_[name] = std::move(attribute);
}

const TreeSpec* ExportedProgram::in_spec() const {
  if (module_call_graph_.empty() || !module_call_graph_[0].signature) return nullptr;
  return &module_call_graph_[0].signature->in_spec;
}

const TreeSpec* ExportedProgram::out_spec() const {
  if (module_call_graph_.empty() || !module_call_graph_[0].signature) return nullptr;
  return &module_call_graph_[0].signature->out_spec;
}

const HostTensor* ExportedProgram::find_lifted_tensor(const InputSpec& spec) const {
  if (spec.in_state_dict()) {
    auto it = state_dict_.find(spec.target);
    return it == state_dict_.end() ? nullptr : &it->second;
  }
  auto it = constants_.find(spec.target);
  return it == constants_.end() ? nullptr : std::get_if<HostTensor>(&it->second);
}

HostTensor* ExportedProgram::find_lifted_tensor(const InputSpec& spec) {
  return const_cast<HostTensor*>(std::as_const(*this).find_lifted_tensor(spec));
}

namespace {

std::vector<std::pair<std::string, HostTensor>> lifted_of_kind(const ExportedProgram& program, InputKind kind) {
  std::vector<std::pair<std::string, HostTensor>> result;
  for (const InputSpec& spec : program.graph_signature().input_specs) {
    if (spec.kind != kind) continue;
    const HostTensor* tensor = program.find_lifted_tensor(spec);
    if (tensor == nullptr) throw AotError(to_string(kind) + " '" + spec.target + "' has no tensor");
    result.emplace_back(spec.target, *tensor);
  }
  return result;
}

}  // namespace

std::vector<std::pair<std::string, HostTensor>> ExportedProgram::named_parameters() const {
  return lifted_of_kind(*this, InputKind::Parameter);
}

std::vector<std::pair<std::string, HostTensor>> ExportedProgram::named_buffers() const {
  return lifted_of_kind(*this, InputKind::Buffer);
}

void ExportedProgram::verify() const { verifier_for(dialect_).check(*this); }

ExportedProgram ExportedProgram::deep_copy() const {
  std::map<const Storage*, std::shared_ptr<Storage>> copied;
  auto copy_tensor = [&copied](const HostTensor& tensor) {
    if (!tensor.defined()) return tensor;
    auto& storage = copied[tensor.storage().get()];
    if (storage == nullptr) {
      storage = Storage::allocate(tensor.storage()->nbytes);
      std::memcpy(storage->data, tensor.storage()->data, tensor.storage()->nbytes);
    }
    return HostTensor(tensor.dtype(), tensor.sizes(), tensor.strides(), tensor.storage_offset(), storage);
  };
  StateDict state_dict;
  for (const auto& [name, tensor] : state_dict_) state_dict.emplace(name, copy_tensor(tensor));
  ConstantMap constants;
  for (const auto& [name, constant] : constants_) {
    if (const auto* tensor = std::get_if<HostTensor>(&constant)) {
      constants.emplace(name, copy_tensor(*tensor));
    } else {
      constants.emplace(name, constant);
    }
  }
  ModuleAttributes attributes;
  for (const auto& [name, attribute] : attributes_) attributes.emplace(name, attribute->clone());
  return ExportedProgram(graph_->clone(), signature_, std::move(state_dict), range_constraints_,
                         module_call_graph_, std::move(constants), dialect_, std::move(attributes));
}

ExportedProgram ExportedProgram::copy_of_verified() const {
  return ExportedProgram(Unverified{}, graph_->clone(), signature_, state_dict_, range_constraints_,
                         module_call_graph_, constants_, dialect_, attributes_);
}

std::vector<size_t> delegate_call_output_indices(const ExportedProgram& delegated) {
  std::vector<size_t> indices;
  const auto& specs = delegated.graph_signature().output_specs;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].kind != OutputKind::BufferMutation) indices.push_back(i);
  }
  return indices;
}

ValueMeta delegate_call_meta(const ExportedProgram& delegated) {
  const Node* output = delegated.graph().output_node();
  const ArgumentList& values = output->args().at(0).list();
  std::vector<TensorMeta> metas;
  for (size_t index : delegate_call_output_indices(delegated)) {
    const Argument& value = values.at(index);
    const TensorMeta* meta = value.is_node() ? std::get_if<TensorMeta>(&value.node()->meta.val) : nullptr;
    if (meta == nullptr) {
      throw AotError("delegated output " + std::to_string(index) + " ('" + to_string(value) +
                     "') is not a tensor; a delegate returns tensors only");
    }
    metas.push_back(*meta);
  }
  return metas;
}

}  // namespace kiln::aot
