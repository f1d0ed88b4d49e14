// ExportedProgram: a flat graph plus everything needed to call it — the
// signature, the weights, the constants, the ranges of symbolic sizes and the
// module call graph with the input/output tree specs (torch.export's class).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "aot/ir/graph.h"
#include "aot/ir/graph_signature.h"
#include "aot/ir/host_tensor.h"
#include "aot/ir/module_attribute.h"
#include "aot/ir/pytree.h"
#include "aot/ir/sym_expr.h"

namespace kiln::aot {

struct ModuleCallSignature {
  std::vector<ArgumentSpec> inputs;
  std::vector<ArgumentSpec> outputs;
  TreeSpec in_spec;
  TreeSpec out_spec;
  std::vector<std::string> forward_arg_names;
  bool operator==(const ModuleCallSignature&) const = default;
};

struct ModuleCallEntry {
  std::string fqn;  ///< "" for the root module
  std::optional<ModuleCallSignature> signature;
  bool operator==(const ModuleCallEntry&) const = default;
};

/// A script object lifted into the constants; Kiln keeps it opaque.
struct CustomObject {
  std::string class_fqn;
  std::string payload;
  bool operator==(const CustomObject&) const = default;
};
using Constant = std::variant<HostTensor, CustomObject>;

using StateDict = std::map<std::string, HostTensor>;
using ConstantMap = std::map<std::string, Constant>;
/// Symbol name ("s0") -> the values it may take.
using RangeConstraints = std::map<std::string, ValueRange>;

/// The dialects a program can be in; each has its verifier (see verifier.h).
inline constexpr const char* kTrainingDialect = "TRAINING";  ///< torch.export.export's output
inline constexpr const char* kAtenDialect = "ATEN";
inline constexpr const char* kEdgeDialect = "EDGE";

class ExportedProgram {
 public:
  /// Takes ownership of the parts and verifies them (throws AotError on the
  /// first problem, naming it). `attributes` are the objects the graph's
  /// get_attr nodes fetch (lowered backend modules).
  ExportedProgram(std::unique_ptr<Graph> graph, GraphSignature signature, StateDict state_dict,
                  RangeConstraints range_constraints, std::vector<ModuleCallEntry> module_call_graph,
                  ConstantMap constants = {}, std::string dialect = kAtenDialect, ModuleAttributes attributes = {});

  ExportedProgram(ExportedProgram&&) = default;
  ExportedProgram& operator=(ExportedProgram&&) = default;

  Graph& graph() { return *graph_; }
  const Graph& graph() const { return *graph_; }
  const GraphSignature& graph_signature() const { return signature_; }
  GraphSignature& graph_signature() { return signature_; }
  StateDict& state_dict() { return state_dict_; }
  const StateDict& state_dict() const { return state_dict_; }
  ConstantMap& constants() { return constants_; }
  const ConstantMap& constants() const { return constants_; }
  const RangeConstraints& range_constraints() const { return range_constraints_; }
  RangeConstraints& range_constraints() { return range_constraints_; }
  const std::vector<ModuleCallEntry>& module_call_graph() const { return module_call_graph_; }
  const std::string& dialect() const { return dialect_; }
  void set_dialect(std::string dialect) { dialect_ = std::move(dialect); }

  /// The module attributes (lowered backend modules) by name. Copies of a
  /// program made with `transform` share them; `deep_copy` clones them.
  const ModuleAttributes& attributes() const { return attributes_; }
  /// The attribute `name`; throws AotError listing the attributes there are.
  const ModuleAttribute& attribute(const std::string& name) const;
  /// The attribute `name`, or null.
  std::shared_ptr<ModuleAttribute> find_attribute(const std::string& name) const;
  /// Adds or replaces attribute `name` (not verified until `verify`).
  void set_attribute(const std::string& name, std::shared_ptr<ModuleAttribute> attribute);
  void erase_attribute(const std::string& name) { attributes_.erase(name); }

  /// The root entry's in/out tree specs; null if the module call graph has none.
  const TreeSpec* in_spec() const;
  const TreeSpec* out_spec() const;

  /// The tensor a parameter, buffer or constant input stands for (from the
  /// state dict or the constants, as `spec` says), or null if there is none.
  const HostTensor* find_lifted_tensor(const InputSpec& spec) const;
  HostTensor* find_lifted_tensor(const InputSpec& spec);

  /// Parameters by target, in signature order.
  std::vector<std::pair<std::string, HostTensor>> named_parameters() const;
  /// Buffers by target, in signature order; non-persistent ones come from the constants.
  std::vector<std::pair<std::string, HostTensor>> named_buffers() const;

  /// Checks the program against its dialect's verifier (throws AotError).
  void verify() const;

  /// A copy that shares nothing: graph, metadata, tensor data (tensors that
  /// shared storage share it in the copy too) and module attributes.
  ExportedProgram deep_copy() const;
  /// A copy with the graph cloned and everything else copied (tensors and
  /// module attributes shared), not verified again: for a program its caller
  /// has just verified, as a clone of a valid program is valid.
  ExportedProgram copy_of_verified() const;

  /// Readable text like torch's `print(exported_program)`.
  std::string to_string() const;

 private:
  struct Unverified {};
  ExportedProgram(Unverified, std::unique_ptr<Graph> graph, GraphSignature signature, StateDict state_dict,
                  RangeConstraints range_constraints, std::vector<ModuleCallEntry> module_call_graph,
                  ConstantMap constants, std::string dialect, ModuleAttributes attributes);

  std::unique_ptr<Graph> graph_;
  GraphSignature signature_;
  StateDict state_dict_;
  RangeConstraints range_constraints_;
  std::vector<ModuleCallEntry> module_call_graph_;
  ConstantMap constants_;
  std::string dialect_;
  ModuleAttributes attributes_;
};

}  // namespace kiln::aot
