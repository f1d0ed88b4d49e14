#include "aot/delegate/debug_handle.h"

#include <algorithm>

#include "aot/ir/error.h"

namespace kiln::aot {

DelegateDebugId DelegateMappingBuilder::next_identifier(std::optional<DelegateDebugId> identifier,
                                                        const std::string& what) {
  if (generated_identifiers_) {
    if (identifier) {
      throw AotError("DelegateMappingBuilder generates identifiers; entry for " + what + " must not give one (got " +
                     to_string(*identifier) + ")");
    }
    return next_generated_++;
  }
  if (!identifier) {
    throw AotError("DelegateMappingBuilder needs an identifier (int or string) for " + what +
                   ": it was created without generated identifiers");
  }
  if (mapping_.count(*identifier)) {
    throw AotError("delegate debug identifier " + to_string(*identifier) + " is already in the mapping");
  }
  return *identifier;
}

DelegateDebugId DelegateMappingBuilder::insert_delegate_mapping_entry(const std::vector<int64_t>& handles,
                                                                      std::optional<DelegateDebugId> identifier) {
  if (handles.empty()) throw AotError("DelegateMappingBuilder: an entry needs at least one debug handle");
  std::string what = "handles [";
  for (size_t i = 0; i < handles.size(); ++i) what += (i ? ", " : "") + std::to_string(handles[i]);
  DelegateDebugId id = next_identifier(std::move(identifier), what + "]");
  std::vector<int64_t> sorted = handles;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  mapping_[id] = std::move(sorted);
  return id;
}

DelegateDebugId DelegateMappingBuilder::insert_delegate_mapping_entry(const std::vector<const Node*>& nodes,
                                                                      std::optional<DelegateDebugId> identifier) {
  std::vector<int64_t> handles;
  std::string names;
  for (const Node* node : nodes) {
    names += (names.empty() ? "" : ", ") + node->name();
    if (node->meta.debug_handle) handles.push_back(*node->meta.debug_handle);
  }
  if (handles.empty()) {
    throw AotError("DelegateMappingBuilder: " + std::string(nodes.size() == 1 ? "node " : "none of the nodes ") + "[" +
                   names + "] has a debug handle (give the program's nodes handles with generate_debug_handles "
                   "before lowering)");
  }
  return insert_delegate_mapping_entry(handles, std::move(identifier));
}

DelegateDebugId DelegateMappingBuilder::insert_delegate_mapping_entry(const Node* node,
                                                                      std::optional<DelegateDebugId> identifier) {
  return insert_delegate_mapping_entry(std::vector<const Node*>{node}, std::move(identifier));
}

}  // namespace kiln::aot
