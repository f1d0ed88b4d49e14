// The capability table (capabilities.h) and its readers. The pure functions
// on hand-built facts; then, for every operation kind of the table, a tiny
// blob with and without each thing a rule is about (a run-time size,
// quantized values, an eltwise and a binary post-op), checked by the AOT
// side (check_operation_rules, which lower_partition ends with) and built by
// the runtime: both must follow the kind's row. The expectations are read
// from the row, so a changed rule reaches both sides or this test fails.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "aot/ir/error.h"
#include "backends/onednn/aot/blob_io.h"
#include "backends/onednn/aot/lowering.h"
#include "backends/onednn/capabilities.h"
#include "backends/onednn/test/runtime_test_util.h"
#include "runtime/core/log.h"

namespace kiln::backends::onednn::testing {
namespace {

using ::testing::HasSubstr;
using runtime::Error;

// ---------------------------------------------------------------- the pure functions

TEST(CapabilitiesTest, EveryKindHasItsRowAndNoneAllowsNothing) {
  for (const fb::OperationKind kind : fb::EnumValuesOperationKind()) {
    EXPECT_EQ(operation_rules(kind).kind, kind) << fb::EnumNameOperationKind(kind);
  }
  OperationFacts none;
  EXPECT_FALSE(verdict_of(none));
  EXPECT_STREQ(verdict_of(none).reason, "an unknown operation kind");
  EXPECT_EQ(operation_rules(static_cast<fb::OperationKind>(200)).kind, fb::OperationKind::NONE);
}

TEST(CapabilitiesTest, AVerdictSaysWhichRuleIsBroken) {
  OperationFacts matmul;
  matmul.kind = fb::OperationKind::MatMul;
  matmul.runtime_size = true;
  matmul.eltwise_post_ops = 2;
  EXPECT_TRUE(verdict_of(matmul));
  matmul.binary_post_ops = 1;
  EXPECT_STREQ(verdict_of(matmul).reason, "a run-time size with a binary post-op");
  matmul.binary_post_ops = 0;
  matmul.quantized_input = true;
  EXPECT_STREQ(verdict_of(matmul).reason, "a run-time size on quantized values");

  OperationFacts softmax;
  softmax.kind = fb::OperationKind::Softmax;
  softmax.runtime_size = true;
  EXPECT_STREQ(verdict_of(softmax).reason, "a run-time size on an operation kind that takes none");
  softmax.runtime_size = false;
  softmax.quantized_result = true;
  EXPECT_STREQ(verdict_of(softmax).reason, "quantized values on an operation that runs on float32 only");

  OperationFacts concat;
  concat.kind = fb::OperationKind::Concat;
  concat.quantized_input = concat.quantized_result = true;
  EXPECT_FALSE(verdict_of(concat));
  concat.on_one_grid = true;
  EXPECT_TRUE(verdict_of(concat));
  concat.eltwise_post_ops = 1;
  EXPECT_STREQ(verdict_of(concat).reason, "post-ops on an operation that takes none");

  OperationFacts binary;
  binary.kind = fb::OperationKind::BinaryOp;
  binary.quantized_post_op_input = true;
  EXPECT_STREQ(verdict_of(binary).reason,
               "a post-op reading a quantized value on an operation that is not an int8 computation");
  OperationFacts residual = binary;
  residual.kind = fb::OperationKind::Convolution;
  EXPECT_TRUE(verdict_of(residual));  // an int8 residual add reads the integers
  binary.quantized_post_op_input = false;
  binary.quantized_input = binary.quantized_result = true;
  EXPECT_STREQ(verdict_of(binary).reason,
               "quantized values on a binary op other than an image times one value per channel, with no post-ops");
  binary.scales_channels = true;
  EXPECT_TRUE(verdict_of(binary));
  binary.quantized_input = binary.quantized_result = binary.scales_channels = false;
  binary.eltwise_post_ops = kMaxPostOps;
  EXPECT_TRUE(verdict_of(binary));
  binary.binary_post_ops = 1;
  EXPECT_STREQ(verdict_of(binary).reason, "more post-ops than kMaxPostOps");
}

TEST(CapabilitiesTest, OnlyAMaxPoolAndAConcatPickTheirInputsValues) {
  EXPECT_TRUE(picks_input_values(fb::OperationKind::Pooling, fb::PoolingAlgorithm::Max, 1));
  EXPECT_FALSE(picks_input_values(fb::OperationKind::Pooling, fb::PoolingAlgorithm::AvgIncludePadding, 1));
  EXPECT_FALSE(picks_input_values(fb::OperationKind::Pooling, fb::PoolingAlgorithm::Max, 2));
  EXPECT_TRUE(picks_input_values(fb::OperationKind::Concat, fb::PoolingAlgorithm::Max, 5));
  EXPECT_FALSE(picks_input_values(fb::OperationKind::Reduction, fb::PoolingAlgorithm::Max, 1));
  EXPECT_TRUE(picks_input_values(fb::OperationKind::Pad, fb::PoolingAlgorithm::Max, 1, /*pads=*/false));  // a crop
  EXPECT_FALSE(picks_input_values(fb::OperationKind::Pad, fb::PoolingAlgorithm::Max, 1, /*pads=*/true));
  EXPECT_TRUE(moves_values_on_their_grid(fb::OperationKind::Reorder, fb::PoolingAlgorithm::Max, 1));
  // An average pool rounds its mean onto the grid, padding left out.
  EXPECT_TRUE(moves_values_on_their_grid(fb::OperationKind::Pooling, fb::PoolingAlgorithm::AvgExcludePadding, 1));
  EXPECT_FALSE(moves_values_on_their_grid(fb::OperationKind::Pooling, fb::PoolingAlgorithm::AvgIncludePadding, 1));
  EXPECT_FALSE(moves_values_on_their_grid(fb::OperationKind::Convolution, fb::PoolingAlgorithm::Max, 1));
}

// ---------------------------------------------------------------- one tiny blob per kind

using Sizes = std::vector<int64_t>;

/// A graph of a few values and operations, its constants in named data.
struct TinyGraph {
  fb::GraphT graph;
  TestNamedData named_data;
  uint32_t num_inputs = 0, num_outputs = 0;

  int32_t value(Sizes sizes, fb::ValueKind kind) {
    auto v = std::make_unique<fb::ValueT>();
    v->sizes = std::move(sizes);
    v->kind = kind;
    if (kind == fb::ValueKind::Input) v->index = num_inputs++;
    if (kind == fb::ValueKind::Output) v->index = num_outputs++;
    graph.values.push_back(std::move(v));
    return static_cast<int32_t>(graph.values.size() - 1);
  }
  int32_t input(Sizes sizes) { return value(std::move(sizes), fb::ValueKind::Input); }
  int32_t output(Sizes sizes) { return value(std::move(sizes), fb::ValueKind::Output); }
  int32_t constant(Sizes sizes) {
    const int32_t v = value(sizes, fb::ValueKind::Constant);
    const std::string key = "constant_" + std::to_string(v);
    named_data.put(key, random_values(numel(sizes), static_cast<uint32_t>(v), 0.5f, 1.5f));
    graph.values.back()->constant_key = key;
    return v;
  }
  template <typename T>
  fb::OperationT& op(T params, std::vector<int32_t> inputs, int32_t output) {
    auto op = std::make_unique<fb::OperationT>();
    op->op.Set(std::move(params));
    op->inputs = std::move(inputs);
    op->outputs = {output};
    op->name = fb::EnumNameOperationKind(op->op.type);
    graph.operations.push_back(std::move(op));
    return *graph.operations.back();
  }
  fb::ValueT& at(int32_t v) { return *graph.values[static_cast<size_t>(v)]; }
  /// An intermediate uint8 value on one grid (scale 0.5, zero point 128).
  int32_t quantized_value(Sizes sizes) {
    const int32_t v = value(std::move(sizes), fb::ValueKind::Intermediate);
    at(v).dtype = fb::DataType::UInt8;
    at(v).scale = 0.5f;
    at(v).zero_point = 128;
    return v;
  }
  /// A Reorder from `from` to `to`, not yet in the graph.
  std::unique_ptr<fb::OperationT> reorder(int32_t from, int32_t to) {
    auto op = std::make_unique<fb::OperationT>();
    op->op.Set(fb::ReorderT());
    op->inputs = {from};
    op->outputs = {to};
    op->name = "(de)quantize";
    return op;
  }
};

fb::EltwiseT relu() {
  fb::EltwiseT e;
  e.algorithm = fb::EltwiseAlgorithm::Relu;
  return e;
}

// Operation 0 of the graph is a float32 operation of `kind` the runtime builds.
TinyGraph graph_of(fb::OperationKind kind) {
  TinyGraph g;
  const Sizes image{1, 2, 4, 4};
  switch (kind) {
    case fb::OperationKind::Convolution: {
      fb::ConvolutionT conv;
      conv.strides = conv.dilations = {1, 1};
      conv.padding_l = conv.padding_r = {0, 0};
      const int32_t x = g.input(image), w = g.constant({3, 2, 3, 3});
      g.op(std::move(conv), {x, w, -1}, g.output({1, 3, 2, 2}));
      break;
    }
    case fb::OperationKind::MatMul: {
      const int32_t a = g.input({4, 3}), w = g.constant({3, 5});
      g.op(fb::MatMulT(), {a, w, -1}, g.output({4, 5}));
      break;
    }
    case fb::OperationKind::BatchNorm: {
      fb::BatchNormT bn;
      bn.epsilon = 1e-5f;
      const int32_t x = g.input(image), mean = g.constant({2}), variance = g.constant({2});
      g.op(std::move(bn), {x, mean, variance, -1, -1}, g.output(image));
      break;
    }
    case fb::OperationKind::LayerNorm: {
      fb::LayerNormT ln;
      ln.epsilon = 1e-5f;
      const int32_t x = g.input({2, 6});
      g.op(std::move(ln), {x, -1, -1}, g.output({2, 6}));
      break;
    }
    case fb::OperationKind::Softmax: {
      fb::SoftmaxT softmax;
      softmax.axis = 1;
      const int32_t x = g.input({2, 6});
      g.op(std::move(softmax), {x}, g.output({2, 6}));
      break;
    }
    case fb::OperationKind::Pooling: {
      fb::PoolingT pooling;
      pooling.algorithm = fb::PoolingAlgorithm::Max;
      pooling.kernel = pooling.strides = {2, 2};
      pooling.padding_l = pooling.padding_r = {0, 0};
      const int32_t x = g.input(image);
      g.op(std::move(pooling), {x}, g.output({1, 2, 2, 2}));
      break;
    }
    case fb::OperationKind::Reduction: {
      const int32_t x = g.input(image);
      g.op(fb::ReductionT(), {x}, g.output({1, 2, 1, 1}));
      break;
    }
    case fb::OperationKind::Resampling: {
      const int32_t x = g.input(image);
      g.op(fb::ResamplingT(), {x}, g.output({1, 2, 8, 8}));
      break;
    }
    case fb::OperationKind::Concat: {
      fb::ConcatT concat;
      concat.axis = 1;
      const int32_t a = g.input({2, 3}), b = g.input({2, 4});
      g.op(std::move(concat), {a, b}, g.output({2, 7}));
      break;
    }
    case fb::OperationKind::EltwiseOp: {
      fb::EltwiseOpT eltwise;
      eltwise.eltwise = std::make_unique<fb::EltwiseT>(relu());
      const int32_t x = g.input({2, 6});
      g.op(std::move(eltwise), {x}, g.output({2, 6}));
      break;
    }
    case fb::OperationKind::BinaryOp: {
      // An image times one value per channel: its quantized values are
      // Kiln's channel scale.
      fb::BinaryOpT mul;
      mul.algorithm = fb::BinaryAlgorithm::Mul;
      const int32_t a = g.input({2, 3, 4, 5}), b = g.input({2, 3, 1, 1});
      g.op(std::move(mul), {a, b}, g.output({2, 3, 4, 5}));
      break;
    }
    case fb::OperationKind::Reorder: {
      const int32_t x = g.input({2, 6});
      g.op(fb::ReorderT(), {x}, g.output({3, 4}));
      break;
    }
    case fb::OperationKind::Pad: {
      // A crop: its quantized values stay on their grid.
      fb::PadT pad;
      pad.before = {0, -1};
      pad.after = {0, -2};
      const int32_t x = g.input({2, 6});
      g.op(std::move(pad), {x}, g.output({2, 3}));
      break;
    }
    case fb::OperationKind::DynamicQuantize: {
      // Its dynamic uint8 result, dequantized to the output by a Reorder.
      fb::DynamicQuantizeT params;
      params.quant_min = -128;
      params.quant_max = 127;
      const int32_t x = g.input({2, 6});
      const int32_t q = g.value({2, 6}, fb::ValueKind::Intermediate);
      g.at(q).dtype = fb::DataType::UInt8;
      g.at(q).dynamic = true;
      g.op(params, {x}, q);
      g.op(fb::ReorderT(), {q}, g.output({2, 6}));
      break;
    }
    case fb::OperationKind::Pointwise: {
      // x * sigmoid(x) over the first three columns of x.
      fb::PointwiseT program;
      program.steps = {fb::PointwiseStep(false, fb::EltwiseAlgorithm::Logistic, fb::BinaryAlgorithm::Add, 0, 0, 0, 0),
                       fb::PointwiseStep(true, fb::EltwiseAlgorithm::Linear, fb::BinaryAlgorithm::Mul, 1, 0, 0, 0)};
      program.offsets = {0};
      program.strides = {6, 1};
      const int32_t x = g.input({2, 6});
      g.op(std::move(program), {x}, g.output({2, 3}));
      break;
    }
    case fb::OperationKind::NONE: break;
  }
  return g;
}

// What a rule is about, added to operation 0 (of the kind).
enum class Probe { kNothing, kRuntimeSize, kQuantizedValues, kEltwisePostOp, kOtherEltwisePostOp, kBinaryPostOp };

const char* name_of(Probe probe) {
  switch (probe) {
    case Probe::kNothing: return "nothing";
    case Probe::kRuntimeSize: return "a run-time size";
    case Probe::kQuantizedValues: return "quantized values";
    case Probe::kEltwisePostOp: return "an eltwise post-op";
    case Probe::kOtherEltwisePostOp: return "an eltwise post-op other than a relu";
    case Probe::kBinaryPostOp: return "a binary post-op";
  }
  return "";
}

void add(Probe probe, TinyGraph& g) {
  fb::OperationT& op = *g.graph.operations[0];
  const int32_t result = op.outputs[0];
  switch (probe) {
    case Probe::kNothing: break;
    case Probe::kRuntimeSize:
      g.at(op.inputs[0]).runtime_dim = 0;
      g.at(result).runtime_dim = 0;
      break;
    case Probe::kQuantizedValues: {
      // Every input it computes and its result on one grid (a delegate's
      // arguments are float32: quantized by a Reorder before it,
      // dequantized by one after it).
      std::vector<std::unique_ptr<fb::OperationT>> before;
      for (int32_t& v : op.inputs) {
        if (v < 0 || g.at(v).kind != fb::ValueKind::Input) continue;
        const int32_t quantized = g.quantized_value(g.at(v).sizes);
        before.push_back(g.reorder(v, quantized));
        v = quantized;
      }
      if (g.at(result).kind == fb::ValueKind::Output) {
        const int32_t quantized = g.quantized_value(g.at(result).sizes);
        op.outputs = {quantized};
        g.graph.operations.insert(g.graph.operations.begin() + 1, g.reorder(quantized, result));
      }
      for (auto& reorder : before) g.graph.operations.insert(g.graph.operations.begin(), std::move(reorder));
      break;
    }
    case Probe::kEltwisePostOp: {
      auto post = std::make_unique<fb::PostOpT>();
      post->op.Set(relu());
      op.post_ops.push_back(std::move(post));
      break;
    }
    case Probe::kOtherEltwisePostOp: {
      fb::EltwiseT tanh;
      tanh.algorithm = fb::EltwiseAlgorithm::Tanh;
      auto post = std::make_unique<fb::PostOpT>();
      post->op.Set(std::move(tanh));
      op.post_ops.push_back(std::move(post));
      break;
    }
    case Probe::kBinaryPostOp: {
      fb::BinaryPostOpT binary;
      binary.input = g.input(g.at(result).sizes);
      auto post = std::make_unique<fb::PostOpT>();
      post->op.Set(std::move(binary));
      g.graph.operations[0]->post_ops.push_back(std::move(post));
      break;
    }
  }
}

// What the kind's row says of the probe.
bool allowed_by_the_table(const OperationRules& rules, Probe probe) {
  switch (probe) {
    case Probe::kNothing: return true;
    case Probe::kRuntimeSize: return rules.runtime_sizes != RuntimeSizes::kNone;
    case Probe::kQuantizedValues: return rules.quantized != QuantizedValues::kNone;
    case Probe::kEltwisePostOp: return rules.post_ops != PostOpKinds::kNone;
    case Probe::kOtherEltwisePostOp: return rules.post_ops == PostOpKinds::kEltwise || rules.post_ops == PostOpKinds::kAll;
    case Probe::kBinaryPostOp: return rules.post_ops == PostOpKinds::kAll;
  }
  return false;
}

std::string* log_lines = nullptr;

void keep_log_line(runtime::LogLevel, const char* message) {
  if (log_lines != nullptr) *log_lines += std::string(message) + "\n";
}

// The runtime's log while it builds `g` (init), and its error.
std::string build_on_the_runtime(TinyGraph& g, Error* error) {
  std::string lines;
  log_lines = &lines;
  const runtime::LogSink before = runtime::set_log_sink(keep_log_line);
  Runner runner;
  *error = runner.init(serialize_onednn_blob(g.graph), &g.named_data);
  runtime::set_log_sink(before);
  log_lines = nullptr;
  return lines;
}

constexpr char kRulesBroken[] = "breaks its kind's rules";

class EveryKindTest : public ::testing::TestWithParam<OperationRules> {};

TEST_P(EveryKindTest, TheLoweringAndTheRuntimeFollowItsRow) {
  const OperationRules& rules = GetParam();
  for (const Probe probe :
       {Probe::kNothing, Probe::kRuntimeSize, Probe::kQuantizedValues, Probe::kEltwisePostOp,
        Probe::kOtherEltwisePostOp, Probe::kBinaryPostOp}) {
    SCOPED_TRACE(std::string(fb::EnumNameOperationKind(rules.kind)) + " with " + name_of(probe));
    TinyGraph g = graph_of(rules.kind);
    add(probe, g);
    const bool allowed = allowed_by_the_table(rules, probe);

    std::string lowering_error;
    try {
      check_operation_rules(g.graph);
    } catch (const aot::AotError& error) {
      lowering_error = error.what();
    }
    EXPECT_EQ(lowering_error.empty(), allowed) << lowering_error;
    if (!allowed) {
      EXPECT_THAT(lowering_error, HasSubstr(kRulesBroken));
    }

    Error error = Error::Ok;
    const std::string log = build_on_the_runtime(g, &error);
    EXPECT_EQ(log.find(kRulesBroken) == std::string::npos, allowed) << log;
    if (!allowed) {
      EXPECT_EQ(error, Error::DelegateInvalidCompatibility);
    }
    // What the row allows, the runtime builds (but quantized values for an
    // int8 computation, which needs int8 weights and their scales, and for
    // a DynamicQuantize, which reads float32).
    const bool needs_more = rules.quantized == QuantizedValues::kWeighted || rules.quantized == QuantizedValues::kDynamic;
    if (allowed && !(probe == Probe::kQuantizedValues && needs_more)) {
      EXPECT_EQ(error, Error::Ok) << log;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Table, EveryKindTest, ::testing::ValuesIn(kOperationRules),
                         [](const ::testing::TestParamInfo<OperationRules>& info) {
                           return std::string(fb::EnumNameOperationKind(info.param.kind));
                         });

}  // namespace
}  // namespace kiln::backends::onednn::testing
