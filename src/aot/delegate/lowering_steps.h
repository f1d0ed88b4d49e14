// Internal to the delegate library: the steps of lowered_backend_module.h in
// the form to_backend uses when it lowers many partitions of one program.
// Each costs what its partition costs, not what the whole program does:
// to_backend checks the program once before and once after, indexes its input
// specs once, and drops the inputs the delegates consumed once at the end.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "aot/delegate/lowered_backend_module.h"
#include "aot/delegate/partitioner.h"

namespace kiln::aot::detail {

/// "constant data node (c) is tagged with (t) but has user (u) which has tag (v)".
std::string mixed_tag_message(const Node& constant, const std::string& tag, const Node& user);

/// What get_node_list_with_same_tag requires of a node tagged `tag`: it is
/// not the output, and a tagged placeholder is a parameter, buffer or
/// constant whose users all carry the tag. Throws AotError otherwise.
void check_tagged_node(const Node& node, const std::string& tag, const InputSpecIndex& specs);

/// create_submodule_from_nodes. With `graph_was_sorted` (the caller knows the
/// graph was topologically sorted) it sorts the graph again only if a use of
/// the partition's results now comes before them; the result is the same.
SubmoduleCall cut_partition(Graph& graph, const std::vector<Node*>& node_list, const std::string& tag,
                            bool graph_was_sorted);

/// create_exported_program_from_submodule, looking input specs up in `specs`
/// (an index of `owning_program`'s).
SubmoduleProgram make_submodule_program(std::unique_ptr<Graph> submodule, ExportedProgram& owning_program,
                                        const std::string& tag, Node& call_module_node, const InputSpecIndex& specs);

/// The first part of insert_lowered_submodule: get_attr(`name`) +
/// executorch_call_delegate with `debug_handle` in place of
/// `call_submodule_node`. Returns the call.
Node* replace_with_delegate_call(ExportedProgram& owning_program, Node& call_submodule_node,
                                 std::shared_ptr<LoweredBackendModule> lowered, const std::string& name,
                                 int64_t debug_handle);

/// insert_delegate_call, the attribute named `name` (unused in `program`).
Node* insert_delegate_call_named(ExportedProgram& program, std::shared_ptr<LoweredBackendModule> module,
                                 const ArgumentList& inputs, const std::string& name);

/// The two halves of unsafe_adjust_original_program: the consumed buffer
/// mutations and their getitems (getitems renumbered), and the consumed
/// inputs (specs, placeholders, and data no remaining input uses).
void drop_consumed_outputs(ExportedProgram& program, Node& call_delegate_node,
                           const std::map<std::string, OutputSpec>& output_specs_to_delete);
void drop_consumed_inputs(ExportedProgram& program, const std::map<std::string, InputSpec>& input_specs_to_delete);

/// maybe_duplicate_constant_nodes for every tag in turn, with one look at the
/// placeholders for all of them. Returns whether it copied any.
bool duplicate_shared_constants(ExportedProgram& program,
                                const std::vector<std::pair<std::string, DelegationSpec>>& partition_tags);

/// The loop of to_backend: each tag's nodes, checked as
/// get_node_list_with_same_tag does, become one delegate call. The program
/// must be verified (so sorted) before; the caller verifies it after. Returns
/// the lowered modules' attribute names.
std::vector<std::string> lower_tagged_partitions(
    ExportedProgram& owning, const std::vector<std::pair<std::string, DelegationSpec>>& partition_tags);

}  // namespace kiln::aot::detail
