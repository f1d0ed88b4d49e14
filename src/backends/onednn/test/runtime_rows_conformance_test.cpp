// Conformance of matmuls with a run-time number of rows (aot/runtime_sizes.h):
// each program has a symbolic size s in 1..16, is lowered once, and runs on
// the runtime at s = 1, 7, 16, 7, 1 (the run-time memories made again at each
// change) at 1 and 2 threads, against the reference interpreter at each size.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "aot/delegate/backend_api.h"
#include "aot/delegate/canonical_partitioners.h"
#include "aot/delegate/lowered_backend_module.h"
#include "aot/emit/to_executorch.h"
#include "aot/interpreter/interpreter.h"
#include "aot/ir/pass_manager.h"
#include "aot/passes/decompose.h"
#include "backends/onednn/onednn_blob.h"
#include "backends/onednn/runtime/onednn_runtime.h"
#include "backends/onednn/test/onednn_test_util.h"
#include "backends/onednn/test/runtime_runner.h"

namespace kiln::backends::onednn {
namespace {

using aot::ExportedProgram;
using aot::f32;
using aot::HostTensor;
using aot::Node;
using aot::SymExpr;
using aot::ValueRange;

constexpr int64_t kBound = 16;

struct RowsCase {
  std::string name;
  ExportedProgram program;
  /// The inputs at run-time size `rows`.
  std::function<std::vector<aot::Value>(int64_t rows)> inputs;
  /// Delegates the lowered program must have.
  size_t delegates = 1;
};

const SymExpr rows_symbol = SymExpr::symbol("s");

HostTensor rows_values(const std::vector<int64_t>& sizes, int seed) { return testing::ramp(sizes, seed); }

RowsCase mm_case(bool bias) {
  aot::GraphBuilder b;
  Node* x = b.input("x", f32({rows_symbol, 24}));
  b.set_range("s", ValueRange{1, kBound});
  Node* w = b.parameter("w", rows_values({24, 40}, 3));
  Node* y = bias ? b.call("aten::addmm", {b.parameter("bias", rows_values({40}, 5)), x, w}) : b.call("aten::mm", {x, w});
  b.output({y});
  return {bias ? "addmm" : "mm", std::move(b).build(), [](int64_t rows) { return std::vector<aot::Value>{rows_values({rows, 24}, 1)}; }};
}

RowsCase linear_case() {
  aot::GraphBuilder b;
  Node* x = b.input("x", f32({1, rows_symbol, 24}));
  b.set_range("s", ValueRange{1, kBound});
  Node* y = b.call("aten::linear", {x, b.parameter("w", rows_values({40, 24}, 3)), b.parameter("bias", rows_values({40}, 5))});
  b.output({y});
  return {"linear_1xsx24", std::move(b).build(),
          [](int64_t rows) { return std::vector<aot::Value>{rows_values({1, rows, 24}, 1)}; }};
}

// Attention's scores: [heads, s, d] @ [heads, d, 32] (the cache, an input).
RowsCase bmm_case() {
  aot::GraphBuilder b;
  Node* q = b.input("q", f32({3, rows_symbol, 16}));
  Node* k = b.input("k", f32({3, 16, 32}));
  b.set_range("s", ValueRange{1, kBound});
  b.output({b.call("aten::bmm", {q, k})});
  return {"bmm_3xsx16", std::move(b).build(), [](int64_t rows) {
            return std::vector<aot::Value>{rows_values({3, rows, 16}, 1), rows_values({3, 16, 32}, 2)};
          }};
}

// q, k and v projections of one input: one delegate of three matmuls.
RowsCase projections_case() {
  aot::GraphBuilder b;
  Node* x = b.input("x", f32({rows_symbol, 24}));
  b.set_range("s", ValueRange{1, kBound});
  Node* q = b.call("aten::mm", {x, b.parameter("wq", rows_values({24, 24}, 3))});
  Node* k = b.call("aten::mm", {x, b.parameter("wk", rows_values({24, 8}, 4))});
  Node* v = b.call("aten::mm", {x, b.parameter("wv", rows_values({24, 8}, 5))});
  b.output({q, k, v});
  return {"qkv_projections", std::move(b).build(),
          [](int64_t rows) { return std::vector<aot::Value>{rows_values({rows, 24}, 1)}; }};
}

// A language model's tied embedding: the table read by the embedding (on
// the portable kernels) and, transposed, by the output projection.
RowsCase tied_embedding_case() {
  aot::GraphBuilder b;
  Node* ids = b.input("ids", aot::TensorMeta(aot::ScalarType::Long, std::vector<SymExpr>{rows_symbol}));
  Node* x = b.input("x", f32({rows_symbol, 600}));
  b.set_range("s", ValueRange{1, kBound});
  Node* table = b.parameter("table", rows_values({512, 600}, 3));
  Node* embedded = b.call("aten::embedding", {table, ids});
  Node* logits = b.call("aten::mm", {x, b.call("aten::permute", {table, testing::ints({1, 0})})});
  b.output({embedded, logits});
  return {"tied_embedding", std::move(b).build(), [](int64_t rows) {
            HostTensor ids = HostTensor::zeros(aot::ScalarType::Long, {rows});
            for (int64_t i = 0; i < rows; ++i) ids.data<int64_t>()[i] = (i * 37) % 512;
            return std::vector<aot::Value>{ids, rows_values({rows, 600}, 1)};
          }};
}

// Weights the call passes as (N, K), with a bias: one row runs as Kiln's
// own dot products (Step::RowDots), more as the oneDNN matmul.
RowsCase passed_weights_case() {
  aot::GraphBuilder b;
  Node* x = b.input("x", f32({rows_symbol, 24}));
  Node* w = b.input("w", f32({40, 24}));
  b.set_range("s", ValueRange{1, kBound});
  Node* y = b.call("aten::addmm", {b.parameter("bias", rows_values({40}, 5)), x, b.call("aten::permute", {w, testing::ints({1, 0})})});
  b.output({y});
  return {"addmm_passed_weights", std::move(b).build(), [](int64_t rows) {
            return std::vector<aot::Value>{rows_values({rows, 24}, 1), rows_values({40, 24}, 2)};
          }};
}

// A static branch in the same delegate as a run-time one:
// the relu's primitive keeps its sizes while the matmul's change.
RowsCase mixed_case() {
  aot::GraphBuilder b;
  Node* x = b.input("x", f32({rows_symbol, 24}));
  Node* z = b.input("z", f32({3, 5}));
  b.set_range("s", ValueRange{1, kBound});
  b.output({b.call("aten::relu", {z}), b.call("aten::mm", {x, b.parameter("w", rows_values({24, 40}, 3))})});
  return {"static_and_run_time", std::move(b).build(), [](int64_t rows) {
            return std::vector<aot::Value>{rows_values({rows, 24}, 1), rows_values({3, 5}, 2)};
          }};
}

std::vector<aot::HostTensor> interpret_at_rows(const ExportedProgram& original, const std::vector<aot::Value>& inputs) {
  ExportedProgram program = aot::transform(original, {aot::decompose_to_core_aten()});
  std::vector<aot::PyTree> args;
  for (const aot::Value& input : inputs) args.push_back(aot::PyTree::make_leaf(std::get<HostTensor>(input).clone()));
  const aot::PyTree result = aot::call_program(program, aot::PyTree::tuple(std::move(args)));
  std::vector<HostTensor> outputs;
  for (const aot::Value& value : aot::tree_flatten(result).first) outputs.push_back(std::get<HostTensor>(value));
  return outputs;
}

class RuntimeRowsTest : public ::testing::TestWithParam<int> {
 protected:
  void TearDown() override { set_num_threads(1); }
};

std::vector<RowsCase> all_cases() {
  std::vector<RowsCase> cases;
  cases.push_back(mm_case(false));
  cases.push_back(mm_case(true));
  cases.push_back(linear_case());
  cases.push_back(bmm_case());
  cases.push_back(projections_case());
  cases.push_back(tied_embedding_case());
  cases.push_back(passed_weights_case());
  cases.push_back(mixed_case());
  return cases;
}

TEST_P(RuntimeRowsTest, RunsAtEverySizeAsOnThePortableKernels) {
  RowsCase c = std::move(all_cases().at(static_cast<size_t>(GetParam())));
  const ExportedProgram lowered = aot::to_backend(c.program, aot::CapabilityPartitioner(kBackendId));
  EXPECT_EQ(aot::get_lowered_backend_modules(lowered).size(), c.delegates) << c.name;
  const std::vector<uint8_t> pte = aot::to_executorch(lowered).buffer;
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    testing::RuntimeRunner runner(pte, 8 << 20);
    ASSERT_EQ(runner.load(), runtime::Error::Ok) << c.name;
    for (int64_t rows : {int64_t{1}, int64_t{7}, kBound, int64_t{7}, int64_t{1}}) {
      const std::vector<aot::Value> inputs = c.inputs(rows);
      const std::vector<HostTensor> expected = interpret_at_rows(c.program, inputs);
      const std::vector<HostTensor> actual = runner.run(inputs);
      ASSERT_EQ(actual.size(), expected.size());
      for (size_t i = 0; i < actual.size(); ++i) {
        const std::string mismatch = aot::testing::tensor_mismatch(actual[i], expected[i], {1e-4, 1e-4});
        EXPECT_TRUE(mismatch.empty()) << c.name << " output " << i << " at s=" << rows << ", " << threads
                                      << " threads: " << mismatch;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, RuntimeRowsTest, ::testing::Range(0, 8), [](const ::testing::TestParamInfo<int>& info) {
  return all_cases().at(static_cast<size_t>(info.param)).name;
});

// The tied table is passed to the delegate, not copied into it: the .pte
// holds it once.
TEST(RuntimeRowsTest, ATiedEmbeddingTableIsStoredOnce) {
  RowsCase c = tied_embedding_case();
  const ExportedProgram lowered = aot::to_backend(c.program, aot::CapabilityPartitioner(kBackendId));
  const auto modules = aot::get_lowered_backend_modules(lowered);
  ASSERT_EQ(modules.size(), 1u);
  EXPECT_TRUE(modules[0]->original_module().constants().empty());
  EXPECT_TRUE(modules[0]->original_module().state_dict().empty());
  EXPECT_EQ(lowered.state_dict().count("table"), 1u);
  const size_t table_bytes = 512 * 600 * sizeof(float);
  EXPECT_LT(aot::to_executorch(lowered).buffer.size(), table_bytes + table_bytes / 2);
}

}  // namespace
}  // namespace kiln::backends::onednn
