// Partitioners: a partitioner only tags nodes (meta.delegation_tag) of its
// copy of a program and says where each tag goes; to_backend does the rest
// (ExecuTorch's exir/backend/partitioner.py and the tagging helpers of
// exir/backend/utils.py).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "aot/delegate/backend_details.h"

namespace kiln::aot {

/// Where the nodes of one tag go: a backend and its compile specs.
struct DelegationSpec {
  std::string backend_id;
  std::vector<CompileSpec> compile_specs;
  bool operator==(const DelegationSpec&) const = default;
};

/// A node a partitioner left out, and why (for reports).
struct UnsupportedNode {
  std::string node;    ///< the node's name
  std::string target;  ///< its op
  std::string reason;
};

struct PartitionResult {
  /// The partitioner's copy of the program, with nodes tagged and nothing
  /// else changed.
  ExportedProgram tagged_exported_program;
  /// Tag -> where its nodes go, in the order the tags are lowered.
  std::vector<std::pair<std::string, DelegationSpec>> partition_tags;
  /// Optional: nodes the partitioner considered and left out.
  std::vector<UnsupportedNode> unsupported;
};

class Partitioner {
 public:
  virtual ~Partitioner() = default;
  /// A name for messages: "CapabilityPartitioner(DemoBackend)".
  virtual std::string name() const = 0;
  /// Tags nodes of a copy of `exported_program` (see copy_for_partitioning).
  /// It may tag call_function and get_attr nodes, and the placeholders of
  /// parameters, buffers and lifted constants (which then move into the
  /// delegate); it must not tag user inputs or the output, nor change the
  /// graph in any other way.
  virtual PartitionResult partition(const ExportedProgram& exported_program) const = 0;
  /// Ops ("aten::linear.default") that decompositions should keep whole
  /// because a backend takes them as they are. Default: none.
  virtual std::vector<std::string> ops_to_not_decompose(const ExportedProgram& exported_program) const;
};

/// A copy for a partitioner to tag: the graph cloned; tensors and module
/// attributes shared.
ExportedProgram copy_for_partitioning(const ExportedProgram& program);

namespace detail {

/// While alive, copy_for_partitioning takes `program` as valid and does not
/// verify its copies again: to_backend has just verified the program it
/// hands its partitioner (which sees it const).
class VerifiedForPartitioning {
 public:
  explicit VerifiedForPartitioning(const ExportedProgram& program);
  ~VerifiedForPartitioning();
  VerifiedForPartitioning(const VerifiedForPartitioning&) = delete;
  VerifiedForPartitioning& operator=(const VerifiedForPartitioning&) = delete;

 private:
  const ExportedProgram* previous_;
};

}  // namespace detail

/// The input spec of `placeholder`, or null if it is not a placeholder of `program`.
const InputSpec* input_spec_of(const ExportedProgram& program, const Node& placeholder);
/// True for the placeholder of a parameter, buffer or lifted tensor constant.
bool is_lifted_tensor(const ExportedProgram& program, const Node& node);
/// True for the placeholder of a buffer the program mutates.
bool is_mutated_buffer(const ExportedProgram& program, const Node& node);

/// The same three questions for many placeholders of one program: an index
/// of its input specs by name (input_spec_of scans them), built on the first
/// question. Valid while the program's input specs and buffer mutations stay
/// as they were.
class InputSpecIndex {
 public:
  explicit InputSpecIndex(const ExportedProgram& program);
  const InputSpec* input_spec_of(const Node& placeholder) const;
  bool is_lifted_tensor(const Node& node) const;
  bool is_mutated_buffer(const Node& node) const;

 private:
  void build() const;

  const ExportedProgram* program_;
  mutable bool built_ = false;
  mutable std::unordered_map<std::string, size_t> by_name_;  // the first spec naming each placeholder
  mutable std::set<std::string> mutated_buffers_;            // buffer targets
};

/// Gives each parameter, buffer and lifted-constant placeholder that is not a
/// mutated buffer the tag of its tagged users (the smallest tag when they have
/// several: the others get a copy when lowered). Call it after tagging the ops.
void tag_constant_data(ExportedProgram& program);
/// The same for mutated buffers, so that a delegate owns a buffer and its
/// mutation together: a mutated buffer takes a tag only when the node that
/// computes its new value carries it too. Call it after tagging the ops.
void tag_mutated_buffer(ExportedProgram& program);

/// Why two programs' graphs differ (node order, names, ops, targets,
/// arguments) or their signatures do; empty if they are identical. Metadata,
/// tags included, is not compared.
std::string graph_difference(const ExportedProgram& a, const ExportedProgram& b);

}  // namespace kiln::aot
