// LoweredBackendModule and the steps that cut a tagged partition out of a
// program and put a delegate call in its place (ExecuTorch's
// exir/lowered_backend_module.py; the functions keep its names).
//
// For one tag, to_backend runs:
//   create_submodule_from_nodes         the tagged nodes become one subgraph, called
//                                       from the program by a "fused_<tag>" node
//   create_exported_program_from_submodule
//     arrange_graph_placeholders        the subgraph's inputs: parameters, buffers,
//                                       constants, then user inputs
//     get_new_signature                 what moves into the delegate: the parameters,
//                                       buffers and constants whose placeholders are
//                                       tagged, and their buffer mutations
//     arrange_graph_outputs             buffer mutations before user outputs
//   preprocess (the backend)
//   insert_lowered_submodule            get_attr(lowered_module_N) +
//                                       executorch_call_delegate(lowered, inputs...) +
//                                       getitems in place of the fused node, then
//   unsafe_adjust_original_program      drops what the delegate consumed from the
//                                       program and renumbers the getitems
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "aot/delegate/backend_details.h"

namespace kiln::aot {

/// A program, or part of one, compiled for a backend: what a delegate call
/// runs. It keeps the program it was made from, which the reference
/// interpreter runs in the backend's place.
class LoweredBackendModule : public ModuleAttribute {
 public:
  LoweredBackendModule(ExportedProgram edge_program, std::string backend_id, std::vector<uint8_t> processed_bytes,
                       std::vector<CompileSpec> compile_specs, NamedDataStoreOutput named_data_store_output = {});

  const std::string& backend_id() const { return backend_id_; }
  /// The blob the backend's preprocess made.
  const std::vector<uint8_t>& processed_bytes() const { return processed_bytes_; }
  const std::vector<CompileSpec>& compile_specs() const { return compile_specs_; }
  /// The program that was lowered, with the parameters, buffers and constants
  /// the delegate owns.
  const ExportedProgram& original_module() const { return original_program_; }
  /// Named data the backend asked to store beside the program.
  const NamedDataStoreOutput& named_data_store_output() const { return named_data_; }

  struct Meta {
    /// The backend's delegate debug identifier -> debug handles map.
    DebugHandleMap debug_handle_map;
  };
  Meta meta;

  /// As the seed's __deepcopy__: the graph, signature and metadata copied,
  /// the tensor data shared.
  LoweredBackendModule deep_copy() const;

  /// A standalone program that calls this module once: its user inputs, then
  /// get_attr(lowered_module_0), executorch_call_delegate and one getitem per
  /// returned output (the outputs keep their kinds: user output, user-input
  /// mutation). It has no state dict: the delegate owns all data.
  ExportedProgram program() const;

  // ModuleAttribute
  std::string type_name() const override { return "LoweredBackendModule"; }
  std::string describe() const override;
  /// A copy that shares nothing, tensor data included.
  std::shared_ptr<ModuleAttribute> clone() const override;
  const ExportedProgram& delegated_program() const override { return original_program_; }

 private:
  ExportedProgram original_program_;
  std::string backend_id_;
  std::vector<uint8_t> processed_bytes_;
  std::vector<CompileSpec> compile_specs_;
  NamedDataStoreOutput named_data_;
};

/// The partition cut out of a graph, and the node that now calls it.
struct SubmoduleCall {
  std::unique_ptr<Graph> submodule;
  /// In the original graph: "fused_<tag>"(inputs...), whose results getitem
  /// nodes take apart, one per subgraph output.
  Node* call_module_node = nullptr;
};

/// Moves `node_list` (the nodes of one tag) out of `graph` into a new graph:
/// values the nodes use from outside become its placeholders (get_attr nodes
/// are copied in), values used outside become its outputs. In `graph`, one
/// call node takes the nodes' place, and the graph is sorted again. Throws
/// AotError if the nodes would form a cycle through a node outside them
/// (naming the path), or if a value used outside is not a tensor.
SubmoduleCall create_submodule_from_nodes(Graph& graph, const std::vector<Node*>& node_list, const std::string& tag);

/// Orders the placeholders of `submodule` (cut from `owning_program` for
/// `tag`): the parameters, buffers and constants the delegate consumes (their
/// placeholders carry `tag`), in that order, then its user inputs.
void arrange_graph_placeholders(Graph& submodule, const ExportedProgram& owning_program, const std::string& tag);

/// The signature and data of a partition's program.
struct NewSignature {
  GraphSignature signature;
  StateDict state_dict;   ///< the consumed parameters and persistent buffers
  ConstantMap constants;  ///< the consumed constants and non-persistent buffers
  /// Placeholder name -> the top-level input spec the delegate consumed.
  std::map<std::string, InputSpec> input_specs_to_delete;
  /// Top-level output node name (a getitem) -> the buffer mutation the delegate took over.
  std::map<std::string, OutputSpec> output_specs_to_delete;
  /// (mutation output, extra user output) index pairs: a consumed buffer's new
  /// value that the program also uses otherwise is returned a second time.
  std::vector<std::pair<size_t, size_t>> also_returned;
};

/// The partition program's signature: a placeholder tagged `tag` that stands
/// for a parameter, buffer or constant keeps its spec (the data moves into the
/// delegate); every other placeholder is a user input. An output that is the
/// new value of a consumed buffer is a buffer mutation (appended once more as
/// a user output when the program also uses it otherwise); every other output
/// is a user output. `call_module_node` is the node create_submodule_from_nodes
/// left in the program. Appends the extra outputs to the submodule's output
/// node. Throws AotError if a consumed buffer's mutation is computed outside
/// the partition.
NewSignature get_new_signature(const ExportedProgram& original_program, Graph& submodule,
                               const Node& call_module_node, const std::string& tag);

/// Puts the buffer-mutation outputs of `submodule` before its other outputs
/// (both orders kept); returns the new index of each old output.
std::vector<size_t> arrange_graph_outputs(Graph& submodule, GraphSignature& signature);

struct SubmoduleProgram {
  ExportedProgram program;
  std::map<std::string, InputSpec> input_specs_to_delete;
  std::map<std::string, OutputSpec> output_specs_to_delete;
};

/// The partition's own program: placeholders arranged, new signature, the
/// consumed data, the module attributes its get_attr nodes fetch, and the
/// owning program's range constraints. Renumbers the getitems of
/// `call_module_node` to the arranged outputs.
SubmoduleProgram create_exported_program_from_submodule(std::unique_ptr<Graph> submodule,
                                                         ExportedProgram& owning_program, const std::string& tag,
                                                         Node& call_module_node);

/// Replaces `call_submodule_node` by get_attr(lowered_module_N) +
/// executorch_call_delegate(lowered, user inputs...) (its debug handle one past
/// the program's largest), stores `lowered` as attribute lowered_module_N and
/// adjusts the program (unsafe_adjust_original_program). Returns the call node.
Node* insert_lowered_submodule(ExportedProgram& owning_program, Node& call_submodule_node,
                               std::shared_ptr<LoweredBackendModule> lowered,
                               const std::map<std::string, InputSpec>& input_specs_to_delete,
                               const std::map<std::string, OutputSpec>& output_specs_to_delete);

/// Removes from `original_program` what the delegate called by
/// `call_delegate_node` consumed: the input specs and placeholders, the
/// state-dict entries and constants no other input still uses, the
/// buffer-mutation outputs and their getitems; renumbers the remaining
/// getitems of the call.
void unsafe_adjust_original_program(ExportedProgram& original_program, Node& call_delegate_node,
                                    const std::map<std::string, InputSpec>& input_specs_to_delete,
                                    const std::map<std::string, OutputSpec>& output_specs_to_delete);

/// "lowered_module_<N>" with the smallest N that names no attribute or node of `program`.
std::string get_lowered_module_name(const ExportedProgram& program);

/// Inserts get_attr(lowered_module_N) + executorch_call_delegate(lowered,
/// inputs...) into `program` before the graph's insert point (or its output
/// node) and stores `module` as attribute lowered_module_N. Returns the call,
/// whose meta lists the returned outputs; the caller adds the getitems.
Node* insert_delegate_call(ExportedProgram& program, std::shared_ptr<LoweredBackendModule> module,
                           const ArgumentList& inputs);

/// Inserts a call of `module` into `program` before the graph's insert point
/// (or its output node): `module` becomes attribute lowered_module_N, a
/// get_attr fetches it, executorch_call_delegate calls it on `inputs` (its
/// user inputs in order) and one getitem per returned output takes the
/// results, which are returned. The caller wires them in and verifies.
std::vector<Node*> call_lowered_module(ExportedProgram& program, std::shared_ptr<LoweredBackendModule> module,
                                       const ArgumentList& inputs);

struct LoweredSubmodule {
  std::string name;  ///< the attribute name
  std::shared_ptr<LoweredBackendModule> module;
  Node* call_node;   ///< the executorch_call_delegate node
};

/// The delegate calls of `program`'s graph (not those nested in delegates), in graph order.
std::vector<LoweredSubmodule> get_lowered_submodules(const ExportedProgram& program);
/// The lowered modules those calls run, in graph order.
std::vector<std::shared_ptr<LoweredBackendModule>> get_lowered_backend_modules(const ExportedProgram& program);

}  // namespace kiln::aot
