#include "aot/passes/op_support.h"

#include <set>
#include <vector>

#include "aot/ir/error.h"
#include "aot/passes/decompose.h"
#include "aot/passes/lowering.h"

namespace kiln::aot {

namespace {

bool kernel_for(const OpSchema& schema, const KernelQuery& has_kernel) {
  // Prim ops register under the op's own name, with or without ".default".
  if (has_kernel(schema.qualified_name())) return true;
  if (schema.overload.empty() && has_kernel(schema.name)) return true;
  return !schema.out_variant.empty() && has_kernel(schema.out_variant);
}

}  // namespace

OpSupport op_support(const OpSchema& schema, const KernelQuery& has_kernel) {
  const std::string name = schema.qualified_name();
  if (is_graph_assert(name)) return OpSupport::kGraphAssert;
  if (const OpSchema* functional = functional_of_inplace(schema)) {
    return op_support(*functional, has_kernel) == OpSupport::kNone ? OpSupport::kNone : OpSupport::kDecomposition;
  }
  if (kernel_for(schema, has_kernel)) return OpSupport::kKernel;
  if (const OpSchema* twin = view_copy_twin(schema); twin != nullptr && kernel_for(*twin, has_kernel)) {
    return OpSupport::kViewCopy;
  }
  // An alias runs as the op it names, or not at all.
  if (const OpSchema* target = alias_target(schema)) {
    return op_support(*target, has_kernel) == OpSupport::kNone ? OpSupport::kNone : OpSupport::kDecomposition;
  }
  if (has_decomposition(name)) return OpSupport::kDecomposition;
  return OpSupport::kNone;
}

bool is_training_only(const OpSchema& schema) {
  if (schema.name.find("_backward") != std::string::npos) return true;
  static const std::set<std::string> training = {"aten::native_dropout", "aten::_fused_dropout", "aten::rrelu",
                                                 "aten::rrelu_with_noise"};
  return training.count(schema.name) > 0;
}

bool is_random(const OpSchema& schema) {
  for (const SchemaArgument& argument : schema.arguments) {
    if (argument.type.kind == SchemaType::Kind::Generator) return true;
  }
  static const std::set<std::string> random = {
      "aten::native_dropout", "aten::rand",        "aten::randn",          "aten::randperm", "aten::bernoulli",
      "aten::normal",         "aten::uniform",     "aten::randint",        "aten::rand_like", "aten::randn_like",
      "aten::randint_like",   "aten::multinomial", "aten::normal_functional"};
  return random.count(schema.name) > 0;
}

void check_ops_supported(const ExportedProgram& program, const KernelQuery& has_kernel, const std::string& kernels) {
  std::vector<std::string> lines;
  for (const Node* node : program.graph()) {
    if (!node->is_call_function()) continue;
    const OpSchema* schema = find_op_schema(node->target());
    if (schema == nullptr || op_support(*schema, has_kernel) != OpSupport::kNone) continue;
    std::string line = "  " + node->name() + ": " + schema->qualified_name();
    // Close names that are related: another overload, or one name inside the
    // other (new_zeros and zeros), not a false friend a few edits away (roll, full).
    const auto contains = [](const std::string& outer, const std::string& inner) {
      const std::string bare = inner.substr(inner.find("::") + 2);
      return bare.size() >= 4 && outer.find(bare) != std::string::npos;
    };
    const auto related = [&](const OpSchema& other) {
      return other.name == schema->name || contains(other.name, schema->name) || contains(schema->name, other.name);
    };
    const std::vector<std::string> near = close_op_names(schema->qualified_name(), [&](const OpSchema& other) {
      return !other.is_out_variant() && related(other) && op_support(other, has_kernel) != OpSupport::kNone;
    });
    if (const std::string reason = refusal_reason(*schema); !reason.empty()) {
      line += " (" + reason + ")";
    } else if (!near.empty()) {
      line += " (nearest that runs: " + near.front() + ")";
    }
    lines.push_back(line);
  }
  if (lines.empty()) return;
  std::string message = std::to_string(lines.size()) + (lines.size() == 1 ? " node calls an op " : " nodes call ops ") +
                         kernels + " cannot run (no kernel and no decomposition):";
  for (const std::string& line : lines) message += "\n" + line;
  throw AotError(message);
}

}  // namespace kiln::aot
