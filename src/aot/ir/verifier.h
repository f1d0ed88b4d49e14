// Verifiers: the checks a program must pass to be in a dialect. The ATEN
// verifier checks structure (graph lint, signature against placeholders and
// outputs, weights present and shaped as their placeholders say, every op
// known, get_attr nodes that name an attribute of the program, delegate calls
// that pass a lowered module and as many inputs as it takes); the EDGE
// verifier also requires core-ATen ops only. Both accept the schema-less
// getitem, executorch_call_delegate and memory.alloc; the EDGE verifier also
// accepts the out variants and copy_ write-backs of the executable form.
#pragma once

#include <string>

namespace kiln::aot {

class ExportedProgram;
class Node;

class Verifier {
 public:
  virtual ~Verifier() = default;
  virtual const char* dialect() const;
  /// Throws AotError naming the first node, spec or weight that is wrong.
  void check(const ExportedProgram& program) const;

 protected:
  /// Checks one call_function node's op for this dialect.
  virtual void check_op(const Node& node) const;
};

class EdgeVerifier : public Verifier {
 public:
  const char* dialect() const override;

 protected:
  void check_op(const Node& node) const override;
};

/// The verifier of `dialect` ("TRAINING", "ATEN" or "EDGE"); throws AotError for others.
const Verifier& verifier_for(const std::string& dialect);

/// Ops that are not ATen but may appear in any graph: "getitem",
/// "executorch_call_delegate", "memory.alloc" and "memory.view" (memory_ops.h).
bool is_builtin_op(const std::string& target);

}  // namespace kiln::aot
