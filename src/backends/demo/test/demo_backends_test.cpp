// The demo backends: BackendWithDelegateMappingDemo's blob and debug-handle
// map on the seed model, and DemoBackend's executable blob, run as its
// runtime would and compared with the interpreter, on small programs and on
// every golden fixture.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "aot/delegate/backend_api.h"
#include "aot/delegate/canonical_partitioners.h"
#include "aot/delegate/debug_handle.h"
#include "aot/import/pt2_reader.h"
#include "aot/import/testing/golden_fixtures.h"
#include "aot/interpreter/interpreter.h"
#include "aot/ir/graph_builder.h"
#include "aot/ir/testing/aot_testing.h"
#include "aot/passes/decompose.h"
#include "backends/demo/aot/demo_backend.h"
#include "backends/demo/demo_blob.h"
#include "backends/demo/test/demo_test_programs.h"
#include "models/conv_relu_tan.h"

namespace kiln::backends::demo {
namespace {

using aot::ExportedProgram;
using aot::GraphBuilder;
using aot::HostTensor;
using aot::Node;
using aot::testing::expect_error;
using aot::testing::filled;
using testing::elementwise_program;
using testing::ramp;
using ::testing::HasSubstr;

std::string text(const std::vector<uint8_t>& bytes) { return std::string(bytes.begin(), bytes.end()); }

void expect_near_values(const HostTensor& actual, const HostTensor& expected, const std::string& what) {
  const auto a = actual.to_doubles();
  const auto e = expected.to_doubles();
  ASSERT_EQ(a.size(), e.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(e[i])) {
      EXPECT_TRUE(std::isnan(a[i])) << what << " element " << i;
    } else {
      EXPECT_NEAR(a[i], e[i], 1e-5 * std::max(1.0, std::fabs(e[i]))) << what << " element " << i;
    }
  }
}

TEST(DemoBackendsTest, BothRegisterThemselvesWhenLinked) {
  EXPECT_NE(aot::find_backend("DemoBackend"), nullptr);
  EXPECT_NE(aot::find_backend("BackendWithDelegateMappingDemo"), nullptr);
}

// The seed model: conv, relu, conv, relu, tan, with handles 1 to 5.
TEST(BackendWithDelegateMappingDemoTest, TheSeedModelsBlobAndDebugHandleMap) {
  ExportedProgram program = models::conv_relu_tan({1, 8, 8, 0});
  aot::generate_debug_handles(program);
  const aot::LoweredBackendModule lowered = aot::to_backend("BackendWithDelegateMappingDemo", program, {});
  EXPECT_EQ(text(lowered.processed_bytes()),
            "5#conv_relu_op,0,conv_relu_op,1,sin_decomp_from_tan,2,cos_decomp_from_tan,3,div_decomp_from_tan,4,");
  EXPECT_EQ(aot::to_string(lowered.meta.debug_handle_map), "{0: (1, 2), 1: (3, 4), 2: (5,), 3: (5,), 4: (5,)}");
  // The lowered module still runs, through its program.
  ExportedProgram standalone = lowered.program();
  const HostTensor input = models::conv_relu_tan_input({1, 8, 8, 0});
  const auto expected = aot::call_program(program, aot::PyTree::tuple({aot::PyTree::make_leaf(input)}));
  const auto actual = aot::call_program(standalone, aot::PyTree::tuple({aot::PyTree::make_leaf(input)}));
  expect_near_values(std::get<HostTensor>(actual.leaf), std::get<HostTensor>(expected.leaf), "output");
}

// The graph of the seed's comment: conv (1), relu (2), tan (3) maps to
// {a: (1, 2), b: (3), c: (3), d: (3)}.
TEST(BackendWithDelegateMappingDemoTest, TheSeedCommentsMapping) {
  GraphBuilder b;
  Node* x = b.input("x", aot::f32({1, 3, 4, 4}));
  Node* w = b.parameter("w", filled({2, 3, 3, 3}, 0.1f));
  const aot::ArgumentList ones = {int64_t{1}, int64_t{1}};
  const aot::ArgumentList zeros = {int64_t{0}, int64_t{0}};
  Node* conv = b.call("aten::convolution", {x, w, aot::None{}, ones, ones, ones, false, zeros, int64_t{1}});
  b.output({b.call("aten::tan", {b.call("aten::relu", {conv})})});
  ExportedProgram program = std::move(b).build();
  aot::generate_debug_handles(program);
  const aot::LoweredBackendModule lowered = aot::to_backend("BackendWithDelegateMappingDemo", program, {});
  EXPECT_EQ(aot::to_string(lowered.meta.debug_handle_map), "{0: (1, 2), 1: (3,), 2: (3,), 3: (3,)}");
  EXPECT_EQ(text(lowered.processed_bytes()),
            "4#conv_relu_op,0,sin_decomp_from_tan,1,cos_decomp_from_tan,2,div_decomp_from_tan,3,");
}

TEST(BackendWithDelegateMappingDemoTest, AnyOtherOpIsAnErrorNamingIt) {
  GraphBuilder b;
  Node* x = b.input("x", aot::f32({2}));
  b.output({b.call("aten::tan", {b.call("aten::add.Tensor", {x, x})})});
  ExportedProgram program = std::move(b).build();
  aot::generate_debug_handles(program);
  expect_error([&] { aot::to_backend("BackendWithDelegateMappingDemo", program, {}); },
               "node 'add' (aten::add.Tensor) is not supported in backend BackendWithDelegateMappingDemo");
}

TEST(BackendWithDelegateMappingDemoTest, NodesNeedDebugHandles) {
  const ExportedProgram program = models::conv_relu_tan({1, 4, 4, 0});
  expect_error([&] { aot::to_backend("BackendWithDelegateMappingDemo", program, {}); },
               "none of the nodes [convolution, relu] has a debug handle");
}

TEST(BackendWithDelegateMappingDemoTest, ItsPartitionerTakesTheSeedFixtureWhole) {
  ExportedProgram program = aot::load_pt2(aot::testing::kFixtures + "conv_relu_tan/model.core.pt2");
  aot::generate_debug_handles(program);
  const ExportedProgram lowered =
      aot::to_backend(program, aot::CapabilityPartitioner("BackendWithDelegateMappingDemo"));
  const auto modules = aot::get_lowered_backend_modules(lowered);
  ASSERT_EQ(modules.size(), 1u);
  EXPECT_TRUE(lowered.state_dict().empty());
  EXPECT_EQ(aot::to_string(modules[0]->meta.debug_handle_map), "{0: (1, 2), 1: (3, 4), 2: (5,), 3: (5,), 4: (5,)}");
}

TEST(DemoBackendTest, ItsBlobComputesWhatTheProgramDoes) {
  ExportedProgram program = elementwise_program();
  aot::generate_debug_handles(program);
  const ExportedProgram lowered = aot::to_backend(program, aot::CapabilityPartitioner("DemoBackend"));
  const auto modules = aot::get_lowered_backend_modules(lowered);
  ASSERT_EQ(modules.size(), 1u);
  const aot::LoweredBackendModule& module = *modules[0];
  EXPECT_EQ(module.named_data_store_output().get("w").size(), 24u);
  EXPECT_EQ(aot::to_string(module.meta.debug_handle_map),
            "{0: (1,), 1: (2,), 2: (3,), 3: (4,), 4: (5,), 5: (6,), 6: (7,)}");
  const HostTensor x = ramp({2, 3}, -1.5f, 0.7f);
  const auto blob_outputs = run_demo_blob(module.processed_bytes(), module.named_data_store_output(), {x});
  const auto expected = aot::run_delegated_program(module.original_module(), {x});
  ASSERT_EQ(blob_outputs.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    expect_near_values(blob_outputs[i], std::get<HostTensor>(expected[i]), "output " + std::to_string(i));
  }
  // And against a direct computation.
  const auto xs = x.to_doubles();
  const auto out = blob_outputs[0].to_doubles();
  for (size_t i = 0; i < xs.size(); ++i) {
    const double w = -1.0 + 0.4 * static_cast<double>(i);
    EXPECT_NEAR(out[i], std::max(0.0, std::sin(xs[i]) * w + 2.0) - 2.0 * xs[i] / 4.0, 1e-5) << i;
  }
}

TEST(DemoBackendTest, SaysWhyItCannotRunANode) {
  GraphBuilder b;
  Node* x = b.input("x", aot::f32({3, 4}));
  Node* bias = b.input("bias", aot::f32({4}));
  Node* idx = b.input("idx", aot::i64({3, 4}));
  Node* broadcast = b.call("aten::add.Tensor", {x, bias});
  Node* as_int = b.call("aten::mul.Tensor", {idx, int64_t{2}});
  Node* mm = b.call("aten::mm", {x, b.call("aten::permute", {x, aot::ArgumentList{int64_t{1}, int64_t{0}}})});
  b.output({broadcast, as_int, mm});
  const ExportedProgram program = std::move(b).build();
  const aot::PartitionResult result = aot::CapabilityPartitioner("DemoBackend").partition(program);
  std::vector<std::string> reasons;
  for (const auto& item : result.unsupported) reasons.push_back(item.node + ": " + item.reason);
  EXPECT_THAT(reasons, ::testing::ElementsAre(
                           "add: 'bias' is f32[4] but the result is f32[3, 4]; DemoBackend does not broadcast",
                           "mul: its result is i64[3, 4]; DemoBackend runs float32 only",
                           "permute: aten::permute.default is not an elementwise op DemoBackend has",
                           "mm: aten::mm.default is not an elementwise op DemoBackend has"));
}

// Its runtime reads element i of every operand at offset i: a tensor in
// another dim order (a transpose's result) stays off the backend.
TEST(DemoBackendTest, RefusesTensorsInAPermutedDimOrder) {
  GraphBuilder b;
  aot::TensorMeta transposed = aot::f32({3, 4});
  transposed.dim_order = {1, 0};
  Node* x = b.input("x", transposed);
  Node* y = b.input("y", aot::f32({3, 4}));
  b.output({b.call("aten::add.Tensor", {y, x})});
  const aot::PartitionResult result = aot::CapabilityPartitioner("DemoBackend").partition(std::move(b).build());
  ASSERT_EQ(result.unsupported.size(), 1u);
  EXPECT_THAT(result.unsupported[0].reason, HasSubstr("in a permuted dim order; DemoBackend needs contiguous tensors"));
}

TEST(DemoBackendTest, RefusesStateAndUnsupportedNodes) {
  GraphBuilder b;
  Node* x = b.input("x", aot::f32({3}));
  Node* count = b.buffer("count", filled({3}, 1.0f));
  Node* next = b.call("aten::add.Tensor", {count, x});
  b.mutate_buffer("count", next);
  b.output({next});
  const ExportedProgram program = std::move(b).build();
  expect_error([&] { aot::to_backend("DemoBackend", program, {}); },
               "DemoBackend keeps no state, but the program mutates buffer 'count'");
  const ExportedProgram mm = aot::load_pt2(aot::testing::kFixtures + "mlp/model.core.pt2");
  expect_error([&] { aot::to_backend("DemoBackend", mm, {}); },
               "DemoBackend cannot run node 'permute' (aten::permute.default): aten::permute.default is not an "
               "elementwise op DemoBackend has");
}

// Every DemoBackend delegate of every fixture: the blob, run as the runtime
// would, computes what the delegate's program computes.
TEST(DemoBackendTest, ItsBlobsMatchTheirProgramsOnEveryFixture) {
  int delegates = 0;
  for (const auto& fixture : aot::testing::fixture_manifest().at("fixtures")) {
    const std::string name = fixture.at("name");
    const bool core = fixture.at("programs").contains("model.core.pt2");
    ExportedProgram program = aot::load_pt2(aot::testing::kFixtures + name + (core ? "/model.core.pt2" : "/model.pt2"));
    if (!core) program = aot::transform(program, {aot::decompose_to_core_aten()});
    const ExportedProgram lowered = aot::to_backend(program, aot::CapabilityPartitioner("DemoBackend"));
    for (const auto& module : aot::get_lowered_backend_modules(lowered)) {
      const ExportedProgram& delegated = module->original_module();
      std::vector<HostTensor> inputs;
      std::vector<aot::Value> values;
      for (size_t i = 0; i < delegated.graph_signature().input_specs.size(); ++i) {
        if (delegated.graph_signature().input_specs[i].kind != aot::InputKind::UserInput) continue;
        const auto& meta = delegated.graph().placeholders()[i]->meta.tensor();
        inputs.push_back(ramp(meta.static_sizes(), -1.0f + 0.1f * static_cast<float>(i), 0.37f));
        values.emplace_back(inputs.back());
      }
      const auto actual = run_demo_blob(module->processed_bytes(), module->named_data_store_output(), inputs);
      const auto expected = aot::run_delegated_program(delegated, values);
      ASSERT_EQ(actual.size(), expected.size()) << name;
      for (size_t i = 0; i < actual.size(); ++i) {
        expect_near_values(actual[i], std::get<HostTensor>(expected[i]), name + " output " + std::to_string(i));
      }
      ++delegates;
    }
  }
  EXPECT_GE(delegates, 8);
}

std::vector<uint8_t> small_blob() {
  ExportedProgram program = elementwise_program();
  return aot::to_backend("DemoBackend", program, {}).processed_bytes();
}

TEST(DemoBlobTest, RejectsEveryTruncation) {
  const std::vector<uint8_t> blob = small_blob();
  DemoProgram program;
  const char* error = nullptr;
  ASSERT_TRUE(DemoProgram::parse(blob.data(), blob.size(), &program, &error)) << error;
  for (size_t size = 0; size < blob.size(); ++size) {
    const std::vector<uint8_t> cut(blob.begin(), blob.begin() + static_cast<std::ptrdiff_t>(size));
    EXPECT_FALSE(DemoProgram::parse(cut.data(), cut.size(), &program, &error)) << "size " << size;
  }
}

// `blob` with its checksum made to fit its bytes again.
std::vector<uint8_t> resealed(std::vector<uint8_t> blob) {
  const uint32_t sum = DemoProgram::checksum(blob.data() + 12, blob.size() - 12);
  for (int k = 0; k < 4; ++k) blob[8 + static_cast<size_t>(k)] = static_cast<uint8_t>(sum >> (8 * k));
  return blob;
}

TEST(DemoBlobTest, NamesWhatIsWrong) {
  std::vector<uint8_t> blob = small_blob();
  DemoProgram program;
  const char* error = nullptr;
  std::vector<uint8_t> bad = blob;
  bad[0] = 'X';
  EXPECT_FALSE(DemoProgram::parse(bad.data(), bad.size(), &program, &error));
  EXPECT_STREQ(error, "demo blob: bad magic (expected KDM1)");
  // The first instruction's opcode: after the header, the value table and the constant "w".
  const size_t first_instruction = kHeaderSize + 4 * DemoProgram::read_u32(blob.data() + 12) + 8 + 4;
  bad = blob;
  bad[first_instruction] = 4;  // neg for sin: it parses, and only the checksum tells
  EXPECT_FALSE(DemoProgram::parse(bad.data(), bad.size(), &program, &error));
  EXPECT_STREQ(error, "demo blob: checksum mismatch (the blob is corrupted)");
  bad[first_instruction] = 99;
  bad = resealed(bad);
  EXPECT_FALSE(DemoProgram::parse(bad.data(), bad.size(), &program, &error));
  EXPECT_STREQ(error, "demo blob: unknown opcode");
  bad = blob;
  bad[first_instruction + 8] = 200;  // operand a
  bad = resealed(bad);
  EXPECT_FALSE(DemoProgram::parse(bad.data(), bad.size(), &program, &error));
  EXPECT_STREQ(error, "demo blob: bad first operand");
}

}  // namespace
}  // namespace kiln::backends::demo
