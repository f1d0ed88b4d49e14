#include "aot/ir/exported_program.h"

#include <cstring>

#include "aot/ir/error.h"
#include "aot/ir/verifier.h"

namespace kiln::aot {

ExportedProgram::ExportedProgram(std::unique_ptr<Graph> graph, GraphSignature signature, StateDict state_dict,
                                 RangeConstraints range_constraints,
                                 std::vector<ModuleCallEntry> module_call_graph, ConstantMap constants,
                                 std::string dialect)
    : graph_(std::move(graph)),
      signature_(std::move(signature)),
      state_dict_(std::move(state_dict)),
      range_constraints_(std::move(range_constraints)),
      module_call_graph_(std::move(module_call_graph)),
      constants_(std::move(constants)),
      dialect_(std::move(dialect)) {
  if (graph_ == nullptr) throw AotError("ExportedProgram needs a graph");
  verify();
}

const TreeSpec* ExportedProgram::in_spec() const {
  if (module_call_graph_.empty() || !module_call_graph_[0].signature) return nullptr;
  return &module_call_graph_[0].signature->in_spec;
}

const TreeSpec* ExportedProgram::out_spec() const {
  if (module_call_graph_.empty() || !module_call_graph_[0].signature) return nullptr;
  return &module_call_graph_[0].signature->out_spec;
}

std::vector<std::pair<std::string, HostTensor>> ExportedProgram::named_parameters() const {
  std::vector<std::pair<std::string, HostTensor>> result;
  for (const std::string& target : signature_.parameters()) result.emplace_back(target, state_dict_.at(target));
  return result;
}

std::vector<std::pair<std::string, HostTensor>> ExportedProgram::named_buffers() const {
  std::vector<std::pair<std::string, HostTensor>> result;
  for (const InputSpec& spec : signature_.input_specs) {
    if (spec.kind != InputKind::Buffer) continue;
    if (spec.persistent.value_or(true)) {
      result.emplace_back(spec.target, state_dict_.at(spec.target));
    } else {
      result.emplace_back(spec.target, std::get<HostTensor>(constants_.at(spec.target)));
    }
  }
  return result;
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
  return ExportedProgram(graph_->clone(), signature_, std::move(state_dict), range_constraints_,
                         module_call_graph_, std::move(constants), dialect_);
}

}  // namespace kiln::aot
