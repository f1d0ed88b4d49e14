// Backends map their own instructions back to the debug handles of the nodes
// they came from (aot/passes/debug_handles.h) with a DelegateMappingBuilder.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "aot/delegate/backend_details.h"
#include "aot/ir/pass_manager.h"
#include "aot/passes/debug_handles.h"

namespace kiln::aot {

/// Builds a backend's delegate debug-handle map: each delegate debug
/// identifier (an instruction of the backend) maps to the debug handles of the
/// nodes it came from. A fused instruction maps to several handles; each piece
/// of a decomposed op maps to the op's one handle. Identifiers are either all
/// generated (0, 1, 2, ... in insertion order) or all given by the backend
/// (ints or strings).
class DelegateMappingBuilder {
 public:
  explicit DelegateMappingBuilder(bool generated_identifiers = false)
      : generated_identifiers_(generated_identifiers) {}

  /// Adds an entry for `nodes` and returns its identifier. Nodes without a
  /// debug handle are skipped. Throws AotError when no node has a handle,
  /// when `identifier` is given although identifiers are generated (or
  /// missing although they are not), or when it is already in the map.
  DelegateDebugId insert_delegate_mapping_entry(const std::vector<const Node*>& nodes,
                                                std::optional<DelegateDebugId> identifier = std::nullopt);
  DelegateDebugId insert_delegate_mapping_entry(const Node* node,
                                                std::optional<DelegateDebugId> identifier = std::nullopt);
  /// The same for debug handles given directly.
  DelegateDebugId insert_delegate_mapping_entry(const std::vector<int64_t>& handles,
                                                std::optional<DelegateDebugId> identifier = std::nullopt);

  /// Identifier -> its debug handles, sorted and without repeats.
  const DebugHandleMap& get_delegate_mapping() const { return mapping_; }

 private:
  DelegateDebugId next_identifier(std::optional<DelegateDebugId> identifier, const std::string& what);

  bool generated_identifiers_;
  int64_t next_generated_ = 0;
  DebugHandleMap mapping_;
};

}  // namespace kiln::aot
