#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "aot/ir/testing/aot_testing.h"
#include "aot/interpreter/interpreter.h"
#include "aot/ir/error.h"
#include "aot/ir/graph_builder.h"
#include "aot/passes/lowering.h"
#include "models/conv_relu_tan.h"

namespace kiln::aot {
namespace {

using testing::expect_error;
using testing::filled;

using ::testing::HasSubstr;

PyTree args_of(std::vector<HostTensor> tensors) {
  std::vector<PyTree> items;
  for (HostTensor& t : tensors) items.push_back(PyTree::make_leaf(std::move(t)));
  return PyTree::tuple(std::move(items));
}

const HostTensor& tensor_leaf(const PyTree& tree) { return std::get<HostTensor>(tree.leaf); }

// conv(3x3, pad 1) + bias, computed directly in double: an independent check
// of the whole interpreter path on the demo model.
std::vector<double> reference_conv(const std::vector<double>& in, int64_t n, int64_t c, int64_t h, int64_t w,
                                   const HostTensor& weight, const HostTensor& bias) {
  const int64_t oc = weight.sizes()[0];
  const std::vector<double> wt = weight.to_doubles();
  const std::vector<double> bs = bias.to_doubles();
  std::vector<double> out(static_cast<size_t>(n * oc * h * w));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < oc; ++o)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x) {
          double acc = bs[o];
          for (int64_t i = 0; i < c; ++i)
            for (int64_t ky = 0; ky < 3; ++ky)
              for (int64_t kx = 0; kx < 3; ++kx) {
                const int64_t iy = y + ky - 1, ix = x + kx - 1;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                acc += in[((b * c + i) * h + iy) * w + ix] * wt[((o * c + i) * 3 + ky) * 3 + kx];
              }
          out[((b * oc + o) * h + y) * w + x] = acc;
        }
  return out;
}

TEST(InterpreterTest, RunsTheDemoModelAsADirectComputationDoes) {
  models::ConvReLUTanOptions options{2, 8, 7, 3};
  ExportedProgram program = models::conv_relu_tan(options);
  HostTensor input = models::conv_relu_tan_input(options);
  PyTree result = call_program(program, args_of({input}));
  const HostTensor& out = tensor_leaf(result);
  EXPECT_EQ(out.describe(), "f32[2, 32, 8, 7]");

  const auto& sd = program.state_dict();
  std::vector<double> h = reference_conv(input.to_doubles(), 2, 3, 8, 7, sd.at("conv_layer.conv1.weight"),
                                         sd.at("conv_layer.conv1.bias"));
  for (double& v : h) v = std::max(v, 0.0);
  h = reference_conv(h, 2, 16, 8, 7, sd.at("conv_layer.conv2.weight"), sd.at("conv_layer.conv2.bias"));
  const std::vector<double> actual = out.to_doubles();
  ASSERT_EQ(actual.size(), h.size());
  for (size_t i = 0; i < h.size(); ++i) {
    const double expected = std::tan(std::max(h[i], 0.0));
    ASSERT_NEAR(actual[i], expected, 1e-4 * std::max(1.0, std::fabs(expected))) << "at element " << i;
  }
}

TEST(InterpreterTest, WritesBufferMutationsBackToTheStateDict) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2}));
  Node* count = b.buffer("count", filled({1}, 0.0f));
  Node* scratch = b.buffer("scratch", filled({2}, 10.0f), /*persistent=*/false);
  Node* next = b.call("aten::add.Tensor", {count, b.constant("one", filled({1}, 1.0f))});
  b.mutate_buffer("count", next);
  b.mutate_buffer("scratch", b.call("aten::add.Tensor", {scratch, x}));
  b.output({b.call("aten::mul.Tensor", {x, next})});
  ExportedProgram program = std::move(b).build();

  PyTree first = call_program(program, args_of({filled({2}, 3.0f)}));
  EXPECT_EQ(tensor_leaf(first).to_doubles(), (std::vector<double>{3.0, 3.0}));
  PyTree second = call_program(program, args_of({filled({2}, 3.0f)}));
  EXPECT_EQ(tensor_leaf(second).to_doubles(), (std::vector<double>{6.0, 6.0}));
  EXPECT_EQ(program.state_dict().at("count").to_doubles(), std::vector<double>{2.0});
  // A non-persistent buffer lives in the constants and is written back there.
  EXPECT_EQ(std::get<HostTensor>(program.constants().at("scratch")).to_doubles(), (std::vector<double>{16.0, 16.0}));
}

TEST(InterpreterTest, WritesUserInputMutationsIntoTheCallersTensor) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3}));
  Node* y = b.input("y", f32({3}));
  Node* bumped = b.call("aten::add.Tensor", {x, y});
  b.mutate_input(x, bumped);
  b.output({b.call("aten::mul.Tensor", {bumped, y})});
  ExportedProgram program = std::move(b).build();

  HostTensor x_value = filled({3}, 1.0f);
  HostTensor y_value = filled({3}, 2.0f);
  PyTree result = call_program(program, args_of({x_value, y_value}));
  EXPECT_EQ(tensor_leaf(result).to_doubles(), (std::vector<double>{6.0, 6.0, 6.0}));
  EXPECT_EQ(x_value.to_doubles(), (std::vector<double>{3.0, 3.0, 3.0}));  // mutated in place
  EXPECT_EQ(y_value.to_doubles(), (std::vector<double>{2.0, 2.0, 2.0}));
}

ExportedProgram dynamic_batch_program() {
  GraphBuilder b;
  const SymExpr batch = SymExpr::symbol("s0");
  Node* x = b.input("x", f32({batch, SymExpr::constant(3)}));
  Node* y = b.input("y", f32({batch, SymExpr::constant(3)}));
  b.set_range("s0", ValueRange{1, 8});
  Node* sum = b.call("aten::add.Tensor", {x, y});
  b.output({b.call("aten::view_copy", {sum, ArgumentList{-1}})});
  return std::move(b).build();
}

TEST(InterpreterTest, RunsADynamicBatchAtSeveralSizes) {
  ExportedProgram program = dynamic_batch_program();
  for (int64_t batch : {1, 5, 8}) {
    PyTree result = call_program(program, args_of({filled({batch, 3}, 1.0f), filled({batch, 3}, 2.5f)}));
    EXPECT_EQ(tensor_leaf(result).describe(), "f32[" + std::to_string(batch * 3) + "]");
    EXPECT_EQ(tensor_leaf(result).to_doubles(), std::vector<double>(static_cast<size_t>(batch * 3), 3.5));
  }
}

TEST(InputCheckTest, WrongCount) {
  ExportedProgram program = dynamic_batch_program();
  expect_error([&] { call_program(program, args_of({filled({2, 3}, 0.0f)})); },
               "expected a tuple of 2, got a tuple of 1");
}

TEST(InputCheckTest, WrongStructure) {
  ExportedProgram program = dynamic_batch_program();
  PyTree as_list = PyTree::list({PyTree::make_leaf(filled({2, 3}, 0.0f)), PyTree::make_leaf(filled({2, 3}, 0.0f))});
  expect_error([&] { call_program(program, as_list); }, "at [0]: expected a tuple of 2, got a list of 2");
}

TEST(InputCheckTest, WrongDtype) {
  ExportedProgram program = dynamic_batch_program();
  expect_error([&] { call_program(program, args_of({filled({2, 3}, 0.0f), HostTensor::zeros(ScalarType::Long, {2, 3})})); },
               "input 'y' (args[1]) must have dtype Float (f32[s0, 3]), got Long (i64[2, 3])");
}

TEST(InputCheckTest, WrongRank) {
  ExportedProgram program = dynamic_batch_program();
  expect_error([&] { call_program(program, args_of({filled({2, 3, 1}, 0.0f), filled({2, 3}, 0.0f)})); },
               "input 'x' (args[0]) must have 2 dimensions (f32[s0, 3]), got 3 (f32[2, 3, 1])");
}

TEST(InputCheckTest, WrongStaticSize) {
  ExportedProgram program = dynamic_batch_program();
  expect_error([&] { call_program(program, args_of({filled({2, 4}, 0.0f), filled({2, 3}, 0.0f)})); },
               "input 'x' (args[0]) dim 1 must be 3 (f32[s0, 3]), got 4 (f32[2, 4])");
}

TEST(InputCheckTest, SymbolOutOfRange) {
  ExportedProgram program = dynamic_batch_program();
  expect_error([&] { call_program(program, args_of({filled({9, 3}, 0.0f), filled({9, 3}, 0.0f)})); },
               "input 'x' (args[0]) dim 0 (s0) must be in VR[1, 8], but got 9");
}

TEST(InputCheckTest, SymbolBoundInconsistently) {
  ExportedProgram program = dynamic_batch_program();
  expect_error([&] { call_program(program, args_of({filled({2, 3}, 0.0f), filled({4, 3}, 0.0f)})); },
               "input 'y' (args[1]) dim 0 is s0, which an earlier input set to 2, but got 4");
}

TEST(InputCheckTest, NotATensor) {
  ExportedProgram program = dynamic_batch_program();
  PyTree args = PyTree::tuple({PyTree::make_leaf(filled({2, 3}, 0.0f)), PyTree::make_leaf(int64_t{7})});
  expect_error([&] { call_program(program, args); }, "input 'y' (args[1]) must be a tensor f32[s0, 3], got 7");
}

TEST(InterpreterTest, UnflattensNestedOutputsAndTakesDictInputs) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2}));
  Node* y = b.input("y", f32({2}));
  Node* sum = b.call("aten::add.Tensor", {x, y});
  Node* product = b.call("aten::mul.Tensor", {x, y});
  Node* difference = b.call("aten::sub.Tensor", {x, y});
  b.output({sum, product, difference});
  ExportedProgram built = std::move(b).build();

  // forward(self, x, *, y) returning (sum, {'p': product, 'd': [difference]}).
  ModuleCallEntry root = built.module_call_graph()[0];
  root.signature->in_spec = TreeSpec{TreeSpec::Kind::Tuple, {}, {
      TreeSpec{TreeSpec::Kind::Tuple, {}, {TreeSpec::leaf()}},
      TreeSpec{TreeSpec::Kind::Dict, {"y"}, {TreeSpec::leaf()}}}};
  root.signature->out_spec = TreeSpec{TreeSpec::Kind::Tuple, {}, {
      TreeSpec::leaf(),
      TreeSpec{TreeSpec::Kind::Dict, {"p", "d"}, {TreeSpec::leaf(), TreeSpec{TreeSpec::Kind::List, {}, {TreeSpec::leaf()}}}}}};
  ExportedProgram program(built.graph().clone(), built.graph_signature(), built.state_dict(), {}, {root});

  PyTree result = call_program(program, args_of({filled({2}, 3.0f)}),
                               PyTree::dict({{"y", PyTree::make_leaf(filled({2}, 2.0f))}}));
  ASSERT_EQ(result.kind, PyTree::Kind::Tuple);
  EXPECT_EQ(tensor_leaf(result.children[0]).to_doubles(), (std::vector<double>{5.0, 5.0}));
  EXPECT_EQ(tensor_leaf(result.children[1].at("p")).to_doubles(), (std::vector<double>{6.0, 6.0}));
  EXPECT_EQ(tensor_leaf(result.children[1].at("d").children[0]).to_doubles(), (std::vector<double>{1.0, 1.0}));

  expect_error([&] { call_program(program, args_of({filled({2}, 3.0f)}), PyTree::dict({{"z", PyTree::make_leaf(filled({2}, 2.0f))}})); },
               "at [1]: expected a dict with keys ['y'], got a dict with keys ['z']");
}

TEST(InterpreterTest, RunsAddmmMmPermuteAndTheBinaryOps) {
  GraphBuilder b;
  Node* a = b.input("a", f32({2, 3}));
  Node* w = b.parameter("w", HostTensor::from_vector<float>({2, 3}, {1, 0, 1, 0, 1, 0}));
  Node* bias = b.parameter("bias", HostTensor::from_vector<float>({2}, {10, 20}));
  Node* wt = b.call("aten::permute_copy", {w, ArgumentList{1, 0}});
  Node* linear = b.call("aten::addmm", {bias, a, wt});
  Node* squared = b.call("aten::mm", {b.call("aten::permute_copy", {linear, ArgumentList{-1, 0}}), linear});
  Node* scaled = b.call("aten::sub.Tensor", {squared, squared}, {{"alpha", 0.5}});
  b.output({linear, b.call("aten::div.Tensor", {scaled, b.call("aten::cos", {b.call("aten::sin", {squared})})})});
  ExportedProgram program = std::move(b).build();

  PyTree result = call_program(program, args_of({HostTensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6})}));
  // a @ w^T + bias: rows [1+3, 2] + [10, 20] and [4+6, 5] + [10, 20].
  EXPECT_EQ(tensor_leaf(result.children[0]).to_doubles(), (std::vector<double>{14, 22, 20, 25}));
  const std::vector<double> scaled_values = tensor_leaf(result.children[1]).to_doubles();
  // linear^T @ linear = [[596, 808], [808, 1109]]; x - 0.5x = 0.5x, over cos(sin(x)).
  const double squared_values[] = {596, 808, 808, 1109};
  for (size_t i = 0; i < 4; ++i) {
    const double expected = 0.5 * squared_values[i] / std::cos(std::sin(squared_values[i]));
    EXPECT_NEAR(scaled_values[i], expected, 1e-4 * std::fabs(expected));
  }
}

TEST(InterpreterTest, PythonNumbersInTensorArgumentsKeepTheTensorsDtype) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3}));
  Node* i = b.input("i", TensorMeta(ScalarType::Int, std::vector<int64_t>{3}));
  Node* y = b.call("aten::add.Tensor", {b.call("aten::mul.Tensor", {x, int64_t{2}}), 1.5});
  Node* j = b.call("aten::mul.Tensor", {i, int64_t{3}});
  b.output({y, j});
  ExportedProgram program = std::move(b).build();
  EXPECT_EQ(y->meta.tensor().to_string(), "f32[3]");
  EXPECT_EQ(j->meta.tensor().to_string(), "i32[3]");  // not widened to i64 by the number

  HostTensor ints = HostTensor::from_vector<int32_t>({3}, {1, 2, 3});
  PyTree result = call_program(program, args_of({filled({3}, 1.0f), ints}));
  EXPECT_EQ(tensor_leaf(result.children[0]).to_doubles(), (std::vector<double>{3.5, 3.5, 3.5}));
  EXPECT_EQ(tensor_leaf(result.children[1]).to_doubles(), (std::vector<double>{3, 6, 9}));
}

// torch.export leaves aten::_assert_tensor_metadata before `.to(dtype)`;
// lowering drops it (remove_graph_asserts), so the interpreter checks nothing
// at run time: even an assert that would fail in torch is gone.
TEST(InterpreterTest, RunsWithoutTheGraphAsserts) {
  auto program_asserting = [](ScalarType dtype, ArgumentList sizes) {
    GraphBuilder b;
    Node* x = b.input("x", f32({2, 2}));
    Node* y = b.call("aten::relu", {x});
    b.call("aten::_assert_tensor_metadata", {y, sizes, None{}, dtype});
    b.output({b.call("aten::_to_copy", {y}, {{"dtype", ScalarType::Double}})});
    return std::move(b).build();
  };
  for (ScalarType dtype : {ScalarType::Float, ScalarType::Long}) {
    ExportedProgram program = program_asserting(dtype, {2, 2});
    const PyTree result = call_program(program, args_of({HostTensor::from_vector<float>({2, 2}, {-1, 2, -3, 4})}));
    EXPECT_EQ(tensor_leaf(result).dtype(), ScalarType::Double);
    EXPECT_EQ(tensor_leaf(result).to_doubles(), (std::vector<double>{0, 2, 0, 4}));
  }
}

TEST(InterpreterTest, AZeroDimTensorDoesNotWidenTheResult) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3}));
  Node* scale = b.constant("scale", HostTensor::from_vector<double>({}, {0.5}));
  Node* y = b.call("aten::mul.Tensor", {x, scale});
  b.output({y});
  EXPECT_EQ(y->meta.tensor().to_string(), "f32[3]");  // torch: f32[3] * f64[] is f32
}

TEST(InputCheckTest, SolvesADerivedSizeForItsSymbol) {
  GraphBuilder b;
  const SymExpr s0 = SymExpr::symbol("s0");
  Node* x = b.input("x", f32({2 * s0 + 1, SymExpr::constant(3)}));
  b.set_range("s0", ValueRange{2, 8});
  b.output({b.call("aten::relu", {x})});
  ExportedProgram program = std::move(b).build();
  PyTree result = call_program(program, args_of({filled({7, 3}, -1.0f)}));  // s0 = 3
  EXPECT_EQ(tensor_leaf(result).describe(), "f32[7, 3]");
  expect_error([&] { call_program(program, args_of({filled({6, 3}, 0.0f)})); },
               "input 'x' (args[0]) dim 0 must be 2*s0 + 1 for some s0, but got 6");
  expect_error([&] { call_program(program, args_of({filled({3, 3}, 0.0f)})); },
               "input 'x' (args[0]) dim 0 (s0) must be in VR[2, 8], but got 1");
}

TEST(InterpreterTest, NonCoreOpsNeedDecompositionFirst) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 1, 4, 4}));
  Node* w = b.parameter("w", filled({1, 1, 3, 3}, 1.0f));
  b.output({b.call("aten::conv2d", {x, w})});
  ExportedProgram program = std::move(b).build();
  expect_error([&] { call_program(program, args_of({filled({1, 1, 4, 4}, 1.0f)})); },
               "pass 'to_out_variant': 1 node calls an op without an out variant (decompose the program to core "
               "ATen first):\n  conv2d: aten::conv2d.default");
}

// The interpreter runs the executable form as it is: memory.alloc, out
// variants, getitem, a dynamic sym_size and copy_ write-backs, with sizes
// bound per call.
TEST(InterpreterTest, RunsTheExecutableForm) {
  GraphBuilder b;
  const SymExpr s0 = SymExpr::symbol("s0");
  Node* x = b.input("x", f32({s0, SymExpr::constant(2)}));
  b.set_range("s0", ValueRange{1, 8});
  Node* total = b.buffer("total", filled({2}, 0.0f));
  Node* rows = b.call("aten::sym_size.int", {x, 0});
  Node* flat = b.call("aten::view", {x, ArgumentList{rows, 2}});
  Node* summed = b.call("aten::sum.dim_IntList", {flat, ArgumentList{0}});
  Node* next = b.call("aten::add.Tensor", {total, summed});
  b.mutate_buffer("total", next);
  b.output({b.call("aten::mul.Tensor", {flat, 3})});
  ExportedProgram source = std::move(b).build();
  ExportedProgram program = lower_to_executable(source);
  ASSERT_TRUE(is_executable_form(program));
  EXPECT_THAT(program.to_string(), HasSubstr("sym_size: \"Sym(s0)\" = torch.ops.aten.sym_size.int(x, 0)"));

  PyTree three = call_program(program, args_of({filled({3, 2}, 1.0f)}));
  EXPECT_EQ(tensor_leaf(three).describe(), "f32[3, 2]");
  EXPECT_EQ(tensor_leaf(three).to_doubles(), (std::vector<double>(6, 3.0)));
  PyTree five = call_program(program, args_of({filled({5, 2}, 2.0f)}));
  EXPECT_EQ(tensor_leaf(five).describe(), "f32[5, 2]");
  // The copy_ write-back reached the state dict both the lowered program
  // and its source share: 3*1 + 5*2 per element.
  EXPECT_EQ(source.state_dict().at("total").to_doubles(), (std::vector<double>{13, 13}));
}

}  // namespace
}  // namespace kiln::aot
