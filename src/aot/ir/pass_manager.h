// Passes and the pass manager. A pass is a named function that rewrites a
// program in place; the manager runs passes in order, keeps the signature in
// step with the graph after each one, and verifies between them. `transform`
// does the same on a copy.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "aot/ir/exported_program.h"

namespace kiln::aot {

struct Pass {
  std::string name;
  /// Rewrites the program; returns true if it changed anything.
  std::function<bool(ExportedProgram&)> run;
};

/// A pass that only rewrites the graph.
Pass graph_pass(std::string name, std::function<bool(Graph&)> run);

/// After a pass renamed, replaced or reordered placeholders and outputs,
/// points each input/output spec at the node now in its position (torch's
/// `_get_updated_graph_signature`). Throws AotError if a pass changed the
/// number of placeholders or outputs.
void update_signature_from_graph(ExportedProgram& program);
/// The output half of update_signature_from_graph: each output spec names
/// the node now in its position; a user-input mutation follows its input's
/// rename (old placeholder name -> new).
void update_output_specs_from_graph(ExportedProgram& program,
                                    const std::map<std::string, std::string>& renamed_inputs = {});

class PassManager {
 public:
  explicit PassManager(std::vector<Pass> passes, bool verify_each = true)
      : passes_(std::move(passes)), verify_each_(verify_each) {}

  /// Runs every pass on `program` in place. A pass that throws, or leaves the
  /// program failing verification, raises AotError naming the pass.
  void run(ExportedProgram& program) const;
  /// Names of the passes that reported a change in the last `run`.
  const std::vector<std::string>& modified_by() const { return modified_by_; }

 private:
  std::vector<Pass> passes_;
  bool verify_each_;
  mutable std::vector<std::string> modified_by_;
};

/// A new program: `program`'s graph copied, tensors and module attributes
/// shared (as torch's `_transform_do_not_use` shares the state dict), with
/// `passes` applied.
ExportedProgram transform(const ExportedProgram& program, const std::vector<Pass>& passes);

}  // namespace kiln::aot
