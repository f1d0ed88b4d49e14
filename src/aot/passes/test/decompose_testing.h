// Helpers shared by the decomposition tests: building a program, decomposing
// it, listing the ops it calls, running it on inputs. Header-only; tests only.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "aot/interpreter/interpreter.h"
#include "aot/ir/graph_builder.h"
#include "aot/ir/op_table/op_schema.h"
#include "aot/ir/testing/aot_testing.h"
#include "aot/ir/verifier.h"
#include "aot/passes/decompose.h"
#include "aot/passes/lowering.h"

namespace kiln::aot::testing {

/// Values 0.1 * (i % 7) - 0.2, a pattern with both signs and repeats.
inline HostTensor ramp(const std::vector<int64_t>& sizes, float step = 0.1f) {
  HostTensor tensor = HostTensor::zeros(ScalarType::Float, sizes);
  float* data = tensor.data<float>();
  for (int64_t i = 0; i < tensor.numel(); ++i) data[i] = step * static_cast<float>(i % 7) - 0.2f;
  return tensor;
}

/// The built program, decomposed by the pass manager (which verifies it).
inline ExportedProgram decomposed(GraphBuilder&& builder) {
  ExportedProgram program = std::move(builder).build();
  return transform(program, {decompose_to_core_aten()});
}

/// The decomposed program as text.
inline std::string text_of(GraphBuilder&& builder) { return decomposed(std::move(builder)).to_string(); }

/// Expects decompose_to_core_aten to refuse the built program with `message`.
inline void expect_decomposition_fails(GraphBuilder&& builder, const std::string& message) {
  const ExportedProgram program = std::move(builder).build();
  expect_error([&] { (void)transform(program, {decompose_to_core_aten()}); }, message);
}

/// A call of `op` with a meta given by hand, as torch would record it.
inline Node* call_with_meta(GraphBuilder& b, const std::string& op, ArgumentList args, ValueMeta meta, KwargList kwargs = {}) {
  Node* node = b.graph().call_function(get_op_schema(op).qualified_name(), std::move(args), std::move(kwargs));
  node->meta.val = std::move(meta);
  return node;
}

/// The calls of `program` that no portable kernel can run: ops without an out
/// variant, except views whose _copy twin has one (lowering runs those), graph
/// asserts (lowering drops them) and the builtins getitem and sym_size.
inline std::vector<std::string> ops_without_kernels(const ExportedProgram& program) {
  std::vector<std::string> result;
  for (const Node* node : program.graph()) {
    if (!node->is_call_function() || node->target() == "getitem" || node->target() == "aten::sym_size.int" ||
        is_graph_assert(node->target())) {
      continue;
    }
    const OpSchema* schema = find_op_schema(node->target());
    if (schema != nullptr && (!schema->out_variant.empty() || view_copy_twin(*schema) != nullptr)) continue;
    result.push_back(node->name() + ": " + node->target());
  }
  return result;
}

/// The distinct ops `program` calls, getitem included.
inline std::set<std::string> called_ops(const ExportedProgram& program) {
  std::set<std::string> ops;
  for (const Node* node : program.graph()) {
    if (node->is_call_function()) ops.insert(node->target());
  }
  return ops;
}

/// Runs `program` on tensors and returns its flattened outputs.
inline std::vector<HostTensor> run(ExportedProgram& program, const std::vector<HostTensor>& inputs) {
  std::vector<PyTree> leaves;
  for (const HostTensor& input : inputs) leaves.push_back(PyTree::make_leaf(input));
  const auto flat = tree_flatten(call_program(program, PyTree::tuple(leaves)));
  std::vector<HostTensor> outputs;
  for (const Value& value : flat.first) outputs.push_back(std::get<HostTensor>(value));
  return outputs;
}

/// Expects `actual` to hold `expected` (same count) within `tolerance`.
inline void expect_values_near(const HostTensor& actual, const std::vector<double>& expected, double tolerance = 1e-5) {
  const auto values = actual.to_doubles();
  ASSERT_EQ(values.size(), expected.size()) << actual.describe();
  for (size_t i = 0; i < values.size(); ++i) EXPECT_NEAR(values[i], expected[i], tolerance) << "element " << i;
}

}  // namespace kiln::aot::testing
