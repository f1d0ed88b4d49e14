#include "backends/onednn/aot/runtime_sizes.h"

#include <set>
#include <variant>

#include "aot/ir/error.h"
#include "aot/ir/op_table/schema_binding.h"
#include "aot/ir/shape_bounds.h"
#include "backends/onednn/aot/node_ops.h"
#include "backends/onednn/capabilities.h"

namespace kiln::backends::onednn {

using aot::Argument;
using aot::Node;
using aot::TensorMeta;

namespace {

const TensorMeta* tensor_of(const Node& node) {
  if (const auto* meta = std::get_if<TensorMeta>(&node.meta.val)) return meta;
  return nullptr;
}

// The dimension of `meta` that is symbolic (-1 if none), or why the sizes
// are not one bare symbol with a bound, the rest static.
Supported<int32_t> runtime_dim_of(const TensorMeta& meta, const aot::RangeConstraints& ranges,
                                  std::set<std::string>& symbols, const std::string& what) {
  int32_t dim = -1;
  for (size_t d = 0; d < meta.sizes.size(); ++d) {
    const aot::SymExpr& size = meta.sizes[d];
    if (size.is_constant()) continue;
    if (!size.is_symbol()) {
      return Supported<int32_t>::no(what + " is " + meta.to_string() + "; OneDnnBackend takes a run-time size only as a bare symbol");
    }
    if (dim >= 0) return Supported<int32_t>::no(what + " is " + meta.to_string() + "; OneDnnBackend takes one run-time size per tensor");
    const auto range = ranges.find(size.symbol_name());
    if (range == ranges.end() || !range->second.max || *range->second.max >= kMaxDimension) {
      return Supported<int32_t>::no(what + " is " + meta.to_string() + "; its size " + size.to_string() + " has no upper bound");
    }
    symbols.insert(size.symbol_name());
    dim = static_cast<int32_t>(d);
  }
  if (meta.dtype != aot::ScalarType::Float) return Supported<int32_t>::no(what + " is " + meta.to_string() + "; OneDnnBackend runs float32 only");
  return dim;
}

// The tensor `arg` names, or null with `problem` set.
const TensorMeta* tensor_argument(const Argument& arg, const std::string& what, std::string& problem) {
  const TensorMeta* meta = arg.is_node() ? tensor_of(*arg.node()) : nullptr;
  if (meta == nullptr) {
    problem = what + " is not a tensor";
    return nullptr;
  }
  problem = layout_problem(*arg.node(), what);
  return problem.empty() ? meta : nullptr;
}

// Where the aten matmuls keep their operands.
struct MatMulOperands {
  size_t a = 0, b = 1;
  std::optional<size_t> bias;
};

std::optional<MatMulOperands> matmul_operands(const std::string& op) {
  if (op == "aten::addmm.default") return MatMulOperands{1, 2, 0};
  if (op == "aten::linear.default") return MatMulOperands{0, 1, 2};
  if (op == "aten::mm.default" || op == "aten::bmm.default") return MatMulOperands{};
  return std::nullopt;
}

// Why `node` (with symbolic sizes) is no MatMul OneDnnBackend runs with a
// run-time size, or "".
std::string matmul_problem(const Node& node, const aot::RangeConstraints& ranges) {
  const std::string op = qualified_op(node);
  const std::optional<MatMulOperands> operands = matmul_operands(op);
  const TensorMeta* result = tensor_of(node);
  if (!operands) {
    if (result != nullptr && result->dtype != aot::ScalarType::Float) {
      return "its result is " + result->to_string() + "; OneDnnBackend runs float32 only";
    }
    return "its result is " + (result ? result->to_string() : std::string("not a tensor")) +
           "; OneDnnBackend needs static sizes but in the rows of a matmul (mm, addmm, bmm, linear): "
           "oneDNN's other primitives fix their sizes when they are made";
  }
  // The rules of a MatMul with a run-time size (capabilities.h); the
  // float32 and operand checks below are what it reads of the node.
  OperationFacts facts;
  facts.kind = fb::OperationKind::MatMul;
  facts.runtime_size = true;
  if (const Verdict verdict = verdict_of(facts); !verdict) return std::string("OneDnnBackend refuses ") + verdict.reason;
  const std::vector<Argument> args = aot::bind_node_arguments(node);
  if (op == "aten::addmm.default") {
    const auto one = [](const Argument& x) { return (x.is_int() && x.to_int() == 1) || (x.is_double() && x.to_double() == 1.0); };
    if (!one(args.at(3)) || !one(args.at(4))) return "beta or alpha is not 1; oneDNN's matmul adds the bias as is";
  }
  std::set<std::string> symbols;
  if (result == nullptr) return "its result is not a tensor";
  const Supported<int32_t> out_dim = runtime_dim_of(*result, ranges, symbols, "its result");
  if (!out_dim) return out_dim.reason();
  std::string problem;
  const TensorMeta* am = tensor_argument(args.at(operands->a), "its first matrix", problem);
  if (am == nullptr) return problem;
  const Supported<int32_t> a_dim = runtime_dim_of(*am, ranges, symbols, "its first matrix");
  if (!a_dim) return a_dim.reason();
  const TensorMeta* bm = tensor_argument(args.at(operands->b), "its second matrix", problem);
  if (bm == nullptr) return problem;
  const Supported<int32_t> b_dim = runtime_dim_of(*bm, ranges, symbols, "its second matrix");
  if (!b_dim) return b_dim.reason();
  if (*b_dim >= 0) return "its second matrix is " + bm->to_string() + "; OneDnnBackend takes a run-time size in the rows of the first only";
  if (operands->bias && !args.at(*operands->bias).is_none()) {
    const TensorMeta* bias = tensor_argument(args[*operands->bias], "its bias", problem);
    if (bias == nullptr) return problem;
    const Supported<int32_t> bias_dim = runtime_dim_of(*bias, ranges, symbols, "its bias");
    if (!bias_dim) return bias_dim.reason();
    if (*bias_dim >= 0) return "its bias has a run-time size";
  }
  if (symbols.size() > 1) return "it has several symbolic sizes; OneDnnBackend takes one";
  const auto rank = static_cast<int32_t>(result->rank());
  if (am->rank() < 2 || bm->rank() < 2 || static_cast<int32_t>(am->rank()) != rank) return "its operands' ranks do not fit a matmul";
  if (op == "aten::linear.default" && bm->rank() != 2) return "its weight is not a matrix";
  if (*a_dim < 0 || *a_dim != *out_dim || *a_dim >= rank - 1) return "its run-time size is not in the rows of its first matrix and result";
  if (op == "aten::bmm.default" && *a_dim != 1) return "its run-time size is its batch; OneDnnBackend takes it in the rows";
  return "";
}

}  // namespace

bool has_symbolic_sizes(const Node& node) {
  const auto symbolic = [](const Node& n) {
    if (const TensorMeta* meta = tensor_of(n)) return !meta->is_static();
    if (const auto* several = std::get_if<std::vector<TensorMeta>>(&n.meta.val)) {
      for (const TensorMeta& meta : *several) {
        if (!meta.is_static()) return true;
      }
    }
    return false;
  };
  if (symbolic(node)) return true;
  for (const Node* input : node.input_nodes()) {
    if (symbolic(*input)) return true;
  }
  return false;
}

std::string runtime_size_problem(const Node& node, const aot::ExportedProgram& program) {
  if (std::string problem = matmul_problem(node, program.range_constraints()); !problem.empty()) return problem;
  std::set<std::string> symbols;
  for (const Node* other : program.graph()) {
    const TensorMeta* meta = tensor_of(*other);
    if (meta == nullptr || meta->is_static()) continue;
    for (const aot::SymExpr& size : meta->sizes) {
      for (const std::string& symbol : size.free_symbols()) symbols.insert(symbol);
    }
    if (symbols.size() > 1) return "the program has several symbolic sizes; a OneDnnBackend delegate takes one";
  }
  return "";
}

std::optional<ConcretePartition> concretize_runtime_sizes(const aot::ExportedProgram& partition) {
  bool any = false;
  for (const Node* node : partition.graph()) {
    const TensorMeta* meta = tensor_of(*node);
    any = any || (meta != nullptr && !meta->is_static());
  }
  if (!any) return std::nullopt;
  ConcretePartition concrete{partition.deep_copy(), {}};
  const aot::RangeConstraints& ranges = partition.range_constraints();
  for (Node* node : concrete.program.graph()) {
    if (node->is_call_function() && has_symbolic_sizes(*node)) {
      if (std::string problem = runtime_size_problem(*node, partition); !problem.empty()) {
        throw aot::AotError("OneDnnBackend: '" + node->name() + "': " + problem);
      }
    }
  }
  std::set<std::string> symbols;
  for (Node* node : concrete.program.graph()) {
    auto* meta = std::get_if<TensorMeta>(&node->meta.val);
    if (meta == nullptr || meta->is_static()) continue;
    const Supported<int32_t> dim = runtime_dim_of(*meta, ranges, symbols, "'" + node->name() + "'");
    if (!dim) throw aot::AotError("OneDnnBackend: " + dim.reason());
    concrete.runtime_dims[node->name()] = *dim;
    const std::vector<int64_t> bound = aot::upper_bound_sizes(*meta, ranges, node->name());
    meta->sizes.assign(bound.begin(), bound.end());
  }
  if (symbols.size() > 1) throw aot::AotError("OneDnnBackend: the partition has several run-time sizes; a delegate takes one");
  return concrete;
}

}  // namespace kiln::backends::onednn
