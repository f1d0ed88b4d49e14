// Run-time sizes on the AOT side (aot/runtime_sizes.h): which nodes with a
// symbolic size the partitioner takes, and the blob a partition of them
// lowers to (sizes at the bound, Value.runtime_dim on the values of that size).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aot/delegate/backend_api.h"
#include "aot/delegate/canonical_partitioners.h"
#include "aot/delegate/lowered_backend_module.h"
#include "backends/onednn/aot/blob_io.h"
#include "backends/onednn/capabilities.h"
#include "backends/onednn/onednn_blob.h"
#include "backends/onednn/test/onednn_test_util.h"

namespace kiln::backends::onednn {
namespace {

using aot::f32;
using aot::GraphBuilder;
using aot::Node;
using aot::SymExpr;
using testing::backend;
using testing::ramp;
using ::testing::HasSubstr;

const SymExpr s_rows = SymExpr::symbol("s");

aot::NodeSupport ask_rows(GraphBuilder& b, Node* node) {
  b.output({node});
  const aot::ExportedProgram program = std::move(b).build();
  return backend().supports(*node, program);
}

TEST(RuntimeSizesTest, TakesMatmulsWithRunTimeRows) {
  {
    GraphBuilder b;
    Node* x = b.input("x", f32({s_rows, 8}));
    b.set_range("s", {1, 64});
    const aot::NodeSupport support = ask_rows(b, b.call("aten::mm", {x, b.parameter("w", ramp({8, 4}))}));
    EXPECT_TRUE(support.supported) << support.reason;
  }
  {
    GraphBuilder b;
    Node* x = b.input("x", f32({1, s_rows, 8}));
    b.set_range("s", {1, 64});
    const aot::NodeSupport support = ask_rows(b, b.call("aten::linear", {x, b.parameter("w", ramp({4, 8})), aot::None{}}));
    EXPECT_TRUE(support.supported) << support.reason;
  }
  {
    GraphBuilder b;
    Node* q = b.input("q", f32({2, s_rows, 8}));
    b.set_range("s", {1, 64});
    const aot::NodeSupport support = ask_rows(b, b.call("aten::bmm", {q, b.input("k", f32({2, 8, 16}))}));
    EXPECT_TRUE(support.supported) << support.reason;
  }
}

// The partitioner asks the capability table (capabilities.h) whether a
// MatMul takes a run-time size, as the lowering and the runtime do
// (capabilities_test.cpp): the verdict follows the MatMul row.
TEST(RuntimeSizesTest, TheMatMulRowOfTheCapabilityTableDecides) {
  GraphBuilder b;
  Node* x = b.input("x", f32({s_rows, 8}));
  b.set_range("s", {1, 64});
  const aot::NodeSupport support = ask_rows(b, b.call("aten::mm", {x, b.parameter("w", ramp({8, 4}))}));
  EXPECT_EQ(support.supported, operation_rules(fb::OperationKind::MatMul).runtime_sizes == RuntimeSizes::kRows)
      << support.reason;
}

TEST(RuntimeSizesTest, RefusesRunTimeSizesElsewhere) {
  {
    GraphBuilder b;  // an eltwise op: oneDNN's primitive fixes its sizes
    Node* x = b.input("x", f32({s_rows, 8}));
    b.set_range("s", {1, 64});
    const aot::NodeSupport support = ask_rows(b, b.call("aten::relu", {x}));
    EXPECT_FALSE(support.supported);
    EXPECT_THAT(support.reason, HasSubstr("needs static sizes but in the rows of a matmul"));
  }
  {
    GraphBuilder b;  // the second operand's
    Node* x = b.input("x", f32({8, s_rows}));
    b.set_range("s", {1, 64});
    const aot::NodeSupport support = ask_rows(b, b.call("aten::mm", {b.input("a", f32({4, 8})), x}));
    EXPECT_FALSE(support.supported);
    EXPECT_THAT(support.reason, HasSubstr("in the rows of the first only"));
  }
  {
    GraphBuilder b;  // the reduced dimension
    Node* x = b.input("x", f32({4, s_rows}));
    Node* w = b.input("w", f32({s_rows, 8}));
    b.set_range("s", {1, 64});
    const aot::NodeSupport support = ask_rows(b, b.call("aten::mm", {x, w}));
    EXPECT_FALSE(support.supported);
  }
  {
    GraphBuilder b;  // a batch
    Node* q = b.input("q", f32({s_rows, 4, 8}));
    b.set_range("s", {1, 64});
    const aot::NodeSupport support = ask_rows(b, b.call("aten::bmm", {q, b.input("k", f32({1, 8, 16}))}));
    EXPECT_FALSE(support.supported);
  }
  {
    GraphBuilder b;  // no bound
    Node* x = b.input("x", f32({s_rows, 8}));
    b.set_range("s", {1, std::nullopt});
    const aot::NodeSupport support = ask_rows(b, b.call("aten::mm", {x, b.parameter("w", ramp({8, 4}))}));
    EXPECT_FALSE(support.supported);
    EXPECT_THAT(support.reason, HasSubstr("has no upper bound"));
  }
  {
    GraphBuilder b;  // a size computed from the symbol
    Node* x = b.input("x", f32({s_rows * SymExpr(2), 8}));
    b.set_range("s", {1, 64});
    const aot::NodeSupport support = ask_rows(b, b.call("aten::mm", {x, b.parameter("w", ramp({8, 4}))}));
    EXPECT_FALSE(support.supported);
    EXPECT_THAT(support.reason, HasSubstr("bare symbol"));
  }
}

// A linear's flatten, matmul and restore: the matmul is the delegate, its
// input and result of run-time rows, the weights at their sizes.
TEST(RuntimeSizesTest, LowersAMatmulWithItsRowsAtTheBound) {
  GraphBuilder b;
  Node* x = b.input("x", f32({s_rows, 8}));
  b.set_range("s", {1, 32});
  b.output({b.call("aten::addmm", {b.parameter("bias", ramp({4})), x, b.parameter("w", ramp({8, 4}))})});
  const aot::ExportedProgram lowered = aot::to_backend(std::move(b).build(), aot::CapabilityPartitioner(kBackendId));
  const auto modules = aot::get_lowered_backend_modules(lowered);
  ASSERT_EQ(modules.size(), 1u);
  const auto graph = parse_onednn_blob(modules[0]->processed_bytes());
  ASSERT_EQ(graph->operations.size(), 1u);
  EXPECT_EQ(graph->operations[0]->op.type, fb::OperationKind::MatMul);
  for (const auto& value : graph->values) {
    if (value->kind == fb::ValueKind::Constant) {
      EXPECT_EQ(value->runtime_dim, -1);
    } else {
      EXPECT_EQ(value->runtime_dim, 0);
      EXPECT_EQ(value->sizes.at(0), 32);
    }
  }
  EXPECT_THAT(describe_onednn_blob(modules[0]->processed_bytes()), HasSubstr("f32[<=32, 8]"));
}

}  // namespace
}  // namespace kiln::backends::onednn
