// No slow path inside the fast backend: every conformance case
// (conformance_cases.cpp) lowered to OneDnnBackend and planned as the
// runtime plans it on this CPU, with no step on one of oneDNN's reference
// (`ref:`) implementations -- plain loops, often slower than the portable
// kernels -- unless the table below accepts it with its reason. The lowering
// rewrites what oneDNN runs slowly (fast_forms.h) or the partitioner leaves
// it to the portable kernels; this test is how such forms are found.
//
// oneDNN chooses by the CPU's ISA: the test checks what this machine picks,
// and CTest runs it again with oneDNN held to AVX2 and to AVX-512 without
// its later extensions (CMakeLists.txt), the CPUs CI may have. An accepted
// entry that no case meets on this machine is fine (it may on another).
#include <gtest/gtest.h>
#include <oneapi/dnnl/dnnl.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "aot/delegate/backend_api.h"
#include "aot/delegate/canonical_partitioners.h"
#include "aot/delegate/lowered_backend_module.h"
#include "backends/onednn/aot/implementations.h"
#include "backends/onednn/onednn_blob.h"
#include "backends/onednn/runtime/onednn_runtime.h"
#include "backends/onednn/test/conformance_cases.h"
#include "aot/ir/graph_builder.h"
#include "runtime/core/log.h"

namespace kiln::backends::onednn {
namespace {

using testing::ConformanceCase;

const std::vector<ConformanceCase>& cases() {
  static const std::vector<ConformanceCase> all = testing::conformance_cases();
  return all;
}

// The conformance case of that name, or null.
const ConformanceCase* case_named(const std::string& name) {
  for (const ConformanceCase& c : cases()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

/// A reference implementation accepted for one case's operations of one kind.
struct AcceptedReference {
  const char* op;    ///< the case's op
  const char* name;  ///< the case's name
  const char* kind;  ///< the operation kind (onednn_graph.fbs) whose step may be `ref:`
  const char* reason;
};

const std::vector<AcceptedReference> kAccepted = {
    {"aten::max_pool2d_with_indices.default", "dilation2", "Pooling",
     "oneDNN has no JIT pooling with dilation; its reference kernel is the same plain loop as the portable "
     "kernel's, and leaving the rare dilated pool to the portable kernels would only split the delegate"},
};

const AcceptedReference* accepted(const ConformanceCase& c, const OperationImplementation& step) {
  for (const AcceptedReference& a : kAccepted) {
    if (c.op == a.op && c.name == a.name && step.kind == a.kind) return &a;
  }
  return nullptr;
}

// Every OneDnnBackend delegate's steps in the case's lowered program.
std::vector<OperationImplementation> implementations_of(const ConformanceCase& c) {
  const aot::ExportedProgram lowered = aot::to_backend(c.build().program, aot::CapabilityPartitioner(kBackendId));
  std::vector<OperationImplementation> steps;
  for (const aot::LoweredSubmodule& delegate : aot::get_lowered_submodules(lowered)) {
    if (delegate.module->backend_id() != kBackendId) continue;
    for (OperationImplementation& step : onednn_implementations(delegate.module->processed_bytes())) {
      steps.push_back(std::move(step));
    }
  }
  return steps;
}

class OneDnnImplementationsTest : public ::testing::TestWithParam<size_t> {
 protected:
  void TearDown() override { set_num_threads(1); }
};

TEST_P(OneDnnImplementationsTest, RunsNoReferenceKernelButTheAccepted) {
  const ConformanceCase& c = cases().at(GetParam());
  // 2 threads too: oneDNN may pick other kernels for a primitive made for several.
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    const std::vector<OperationImplementation> steps = implementations_of(c);
    ASSERT_FALSE(steps.empty()) << c.op << " " << c.name << ": no OneDnnBackend step";
    for (const OperationImplementation& step : steps) {
      if (!step.is_reference() || accepted(c, step) != nullptr) continue;
      ADD_FAILURE() << c.op << " " << c.name << " at " << threads << " threads: operation " << step.operation << " "
                    << step.kind << " '" << step.name << "' runs oneDNN's " << step.primitive << " "
                    << step.implementation
                    << "; rewrite it into a form oneDNN runs well, leave it to the portable kernels, or accept it "
                       "(kAccepted) with the reason. Its plan:\n"
                    << describe_implementations(steps);
    }
  }
}

TEST(OneDnnImplementationsTest, EveryAcceptedReferenceNamesACase) {
  for (const AcceptedReference& a : kAccepted) {
    bool found = false;
    for (const ConformanceCase& c : cases()) found = found || (c.op == a.op && c.name == a.name);
    EXPECT_TRUE(found) << a.op << " " << a.name << " is not a conformance case";
    EXPECT_GT(std::strlen(a.reason), 20u) << a.op << " " << a.name << " is accepted without a reason";
  }
}

TEST(OneDnnImplementationsTest, NamesTheImplementationOfEachStep) {
  // A convolution and its result's reorder to the caller's plain layout.
  const ConformanceCase* conv = nullptr;
  for (const ConformanceCase& c : cases()) {
    if (c.op == "aten::convolution.default" && conv == nullptr) conv = &c;
  }
  ASSERT_NE(conv, nullptr);
  const std::vector<OperationImplementation> steps = implementations_of(*conv);
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(steps[0].kind, "Convolution");
  EXPECT_EQ(steps[0].primitive, "convolution");
  EXPECT_FALSE(steps[0].implementation.empty());
  EXPECT_NE(describe_implementations(steps).find("operation 0 Convolution"), std::string::npos)
      << describe_implementations(steps);
}

TEST(OneDnnImplementationsTest, RunsInt8DepthwiseOnKilnsKernelWhereTheCpuHasVnni) {
  // oneDNN's int8 depthwise kernels take one tap at a time; Kiln's takes
  // four (depthwise_int8.h) where the ISA oneDNN may use has AVX-512 VNNI:
  // with a clamp, a hardswish or a silu (after a grid of its own, as PT2E
  // leaves them) or nothing after it, 3x3 or 5x5, 16-channel blocks or pixels packed in
  // one.
  const dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
  const bool vnni = (isa & dnnl_cpu_isa_avx512_core_vnni) == dnnl_cpu_isa_avx512_core_vnni;
  for (const char* name : {"depthwise_relu6_requantized_stride2", "depthwise_5x5_hardswish_requantized",
                           "depthwise_32_channels_requantized", "depthwise_grid_then_hardswish",
                           "depthwise_grid_then_silu"}) {
    const ConformanceCase* depthwise = case_named(name);
    ASSERT_NE(depthwise, nullptr) << name;
    const std::vector<OperationImplementation> steps = implementations_of(*depthwise);
    int on_kiln = 0, convolutions = 0;
    for (const OperationImplementation& step : steps) {
      if (step.primitive != "convolution") continue;  // not the reorders around an emulated one
      ++convolutions;
      on_kiln += step.implementation == "kiln_depthwise_int8:avx512_core_vnni";
    }
    EXPECT_EQ(convolutions, 1) << name << "\n" << describe_implementations(steps);
    EXPECT_EQ(on_kiln, vnni ? 1 : 0) << name << "\n" << describe_implementations(steps);
  }
}

TEST(OneDnnImplementationsTest, RunsAOneRowFloatLinearOnKilnsMatrixVectorProduct) {
  // A classifier's head on one image: oneDNN's matmul reads the weights from
  // memory at two thirds of the speed of Kiln's product over the same packed
  // bytes (panel_gemv_f32.h), which runs where the CPU has AVX-512, with a
  // relu, clamp or hardswish after it, or a row added (an LSTM's input
  // part); a linear of several rows, or one with another activation, stays
  // on oneDNN.
  const dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
  const bool avx512 = (isa & dnnl_cpu_isa_avx512_core) == dnnl_cpu_isa_avx512_core;
  for (const char* name : {"one_row_1x37_to_70", "one_row_no_bias_1x1x300_to_129", "one_row_fused_hardswish",
                           "one_row_fused_relu", "one_row_plus_a_row", "one_row_fused_gelu", "no_bias_7x33_to_3"}) {
    const ConformanceCase* linear = case_named(name);
    ASSERT_NE(linear, nullptr) << name;
    const std::vector<OperationImplementation> steps = implementations_of(*linear);
    int matmuls = 0, on_kiln = 0;
    for (const OperationImplementation& step : steps) {
      matmuls += step.primitive == "matmul";
      on_kiln += step.implementation == "kiln_panel_gemv_f32";
    }
    const std::string named = name;
    const bool one_row = named.rfind("one_row", 0) == 0 && named != "one_row_fused_gelu";
    EXPECT_EQ(matmuls, 1) << name << "\n" << describe_implementations(steps);
    EXPECT_EQ(on_kiln, avx512 && one_row ? 1 : 0) << name << "\n" << describe_implementations(steps);
  }
}

TEST(OneDnnImplementationsTest, RunsASqueezeExcitationsOnePixelConvolutionsOnKilnsMatrixVectorProduct) {
  // A squeeze-excitation's 1x1 convolutions of the one-pixel mean, with a
  // silu and a sigmoid after them: oneDNN's cost per call is most of their
  // time, Kiln's product has none to speak of (panel_gemv_f32.h), on AVX-512
  // and on AVX2 (where oneDNN packs them in panels of 8 to 32). The image's
  // own convolution stays on oneDNN.
  const dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
  const bool avx2 = (isa & dnnl_cpu_isa_avx2) == dnnl_cpu_isa_avx2;
  for (const char* name : {"squeeze_excite_silu_of_96_channels", "squeeze_excite_hardsigmoid_of_40_channels",
                           "squeeze_excite_decomposed_hardsigmoid_of_40_channels", "squeeze_excite_after_a_conv"}) {
    const ConformanceCase* block = case_named(name);
    ASSERT_NE(block, nullptr) << name;
    const std::vector<OperationImplementation> steps = implementations_of(*block);
    int convolutions = 0, on_kiln = 0;
    for (const OperationImplementation& step : steps) {
      convolutions += step.primitive == "convolution";
      on_kiln += step.primitive == "convolution" && step.implementation == "kiln_panel_gemv_f32";
    }
    const int gates = std::string(name) == "squeeze_excite_after_a_conv" ? 1 : 2;
    EXPECT_EQ(convolutions, 1 + gates) << name << "\n" << describe_implementations(steps);
    EXPECT_EQ(on_kiln, avx2 ? gates : 0) << name << "\n" << describe_implementations(steps);
  }
}

TEST(OneDnnImplementationsTest, RunsAnElementwiseDagOfASmallTensorAsOneProgram) {
  // A GRU cell's gates on crops of its products, an LSTM cell whose state is
  // read twice (both readers end in one result), gelu's tanh form spelled
  // out: one Pointwise step of Kiln's kernel in place of a dozen oneDNN
  // operations and crops. The LSTM's gates are scaled first, an op on
  // another tensor than the cell's, which stays apart.
  struct Expected {
    const char* name;
    int others;
  };
  for (const Expected& expected : {Expected{"gru_cell_of_crops", 0}, Expected{"gelu_tanh_spelled_out", 0},
                                   Expected{"lstm_cell_state_read_twice", 1}}) {
    const ConformanceCase* cell = case_named(expected.name);
    ASSERT_NE(cell, nullptr) << expected.name;
    const std::vector<OperationImplementation> steps = implementations_of(*cell);
    int on_kiln = 0, others = 0;
    for (const OperationImplementation& step : steps) {
      on_kiln += step.implementation == "kiln_pointwise_f32";
      others += step.implementation != "kiln_pointwise_f32" &&
                (step.primitive == "eltwise" || step.primitive == "binary" || step.kind == "Pad");
    }
    EXPECT_EQ(on_kiln, 1) << expected.name << "\n" << describe_implementations(steps);
    EXPECT_EQ(others, expected.others) << expected.name << "\n" << describe_implementations(steps);
  }
}

TEST(OneDnnImplementationsTest, ReadsACropThatIsOneRunOfItsSourceInPlace) {
  // A block of rows is one run of the source's elements: a view of them,
  // no step. A crop of the last dimension is a copy.
  for (const auto& [name, copies] : std::vector<std::pair<const char*, int>>{
           {"row_block_of_a_product_then_a_product", 0}, {"last_dim_negative_start", 1}}) {
    const ConformanceCase* crop = case_named(name);
    ASSERT_NE(crop, nullptr) << name;
    const std::vector<OperationImplementation> steps = implementations_of(*crop);
    int pads = 0;
    for (const OperationImplementation& step : steps) pads += step.kind == "Pad";
    EXPECT_EQ(pads, copies) << name << "\n" << describe_implementations(steps);
  }
}

TEST(OneDnnImplementationsTest, RunsANormBetweenGridsAsAnInt8DepthwiseConvolution) {
  // DenseNet's norm and relu between two grids: no float32 batch norm and
  // no (de)quantization around it, one int8 depthwise 1x1 convolution --
  // Kiln's kernel where the CPU has AVX-512 VNNI.
  const dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
  const bool vnni = (isa & dnnl_cpu_isa_avx512_core_vnni) == dnnl_cpu_isa_avx512_core_vnni;
  for (const char* name : {"batch_norm_relu_between_grids", "batch_norm_between_grids_of_a_concat"}) {
    const ConformanceCase* norm = case_named(name);
    ASSERT_NE(norm, nullptr) << name;
    const std::vector<OperationImplementation> steps = implementations_of(*norm);
    int norms = 0, on_kiln = 0;
    for (const OperationImplementation& step : steps) {
      norms += step.primitive == "batch_normalization";
      on_kiln += step.implementation == "kiln_depthwise_int8:avx512_core_vnni";
    }
    EXPECT_EQ(norms, 0) << name << "\n" << describe_implementations(steps);
    EXPECT_EQ(on_kiln, vnni ? 1 : 0) << name << "\n" << describe_implementations(steps);
  }
}

TEST(OneDnnImplementationsTest, ScalesAnInt8ImageByItsGateInOnePass) {
  // A squeeze-excitation between grids: the pool reads the int8 image, the
  // gate scales its bytes on Kiln's kernel; nothing multiplies in float32
  // (oneDNN's binary), and the only conversions are the delegate's input's
  // quantization and its output's dequantization -- not the image's
  // dequantization, the pool's and the product's quantization and the
  // gate's dequantization as well (seven Reorder operations before).
  const ConformanceCase* block = case_named("squeeze_excitation_between_grids");
  ASSERT_NE(block, nullptr);
  const std::vector<OperationImplementation> steps = implementations_of(*block);
  int binaries = 0, scales = 0, int8_pools = 0;
  std::set<uint32_t> conversions;
  for (const OperationImplementation& step : steps) {
    binaries += step.primitive == "binary" && step.implementation != "kiln_channel_scale_int8";
    scales += step.implementation == "kiln_channel_scale_int8";
    int8_pools += step.primitive == "pooling" && step.implementation.rfind("jit_int", 0) == 0;
    if (step.kind == "Reorder") conversions.insert(step.operation);
  }
  EXPECT_EQ(binaries, 0) << describe_implementations(steps);
  EXPECT_EQ(scales, 1) << describe_implementations(steps);
  EXPECT_EQ(int8_pools, 1) << describe_implementations(steps);
  EXPECT_LE(conversions.size(), 3u) << describe_implementations(steps);
}

TEST(OneDnnImplementationsTest, MovesInt8ValuesAndRequantizesTheirBytes) {
  // ShuffleNet's shuffle and split onto another grid: the reshape and the
  // crops move the int8 values, each half is requantized byte to byte; no
  // value is dequantized before the delegate's output.
  const ConformanceCase* block = case_named("shuffle_and_split_onto_another_grid");
  ASSERT_NE(block, nullptr);
  const std::vector<OperationImplementation> steps = implementations_of(*block);
  ASSERT_FALSE(steps.empty());
  const auto dequantizes = [](const OperationImplementation& step) {
    const std::string suffix = ".dequantized";
    return step.name.size() > suffix.size() && step.name.compare(step.name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  // Up to the concat on the halves' grid: the crops read in place (one run
  // of the shuffled bytes each: no step), two reorders from the shuffle's
  // grid to the halves', nothing dequantized.
  int dequantized = 0, crops = 0, requantized = 0;
  bool shuffled = false;
  for (const OperationImplementation& step : steps) {
    if (step.kind == "Concat") break;
    dequantized += dequantizes(step);
    crops += step.kind == "Pad";
    requantized += shuffled && step.kind == "Reorder";
    shuffled = shuffled || step.name == "transpose";
  }
  EXPECT_EQ(dequantized, 0) << describe_implementations(steps);
  EXPECT_EQ(crops, 0) << describe_implementations(steps);
  EXPECT_EQ(requantized, 2) << describe_implementations(steps);
}

TEST(OneDnnImplementationsTest, JoinsImagesOfMixedLayoutsWithoutPlainCopies) {
  // DenseNet's block: a pool's result, in the layout of the convolution
  // before it, and convolutions' results, in theirs, joined three times.
  // Reordered to plain for each join, they would cost a reorder per new
  // input (four here) and leave the batch norms after them plain (the test
  // above finds those); joined channels-last, at most the pool's result is
  // reordered, once.
  const ConformanceCase* block = case_named("dense_block_of_a_pool_and_convolutions");
  ASSERT_NE(block, nullptr);
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    const std::vector<OperationImplementation> steps = implementations_of(*block);
    int joins = 0, reorders = 0;
    for (const OperationImplementation& step : steps) {
      if (step.kind != "Concat") continue;
      joins += step.primitive == "concat";
      reorders += step.primitive == "reorder";
    }
    EXPECT_EQ(joins, 3) << describe_implementations(steps);
    EXPECT_LE(reorders, 1) << threads << " threads\n" << describe_implementations(steps);
  }
  set_num_threads(1);
}

TEST(OneDnnImplementationsTest, MultipliesByAGateWithoutPlainCopies) {
  // The product of a grouped convolution's result (its own layout) and a
  // squeeze-excitation gate (the 1x1 convolutions'): taken plain, the image
  // is reordered to plain for it and back for the convolution after it;
  // channels-last, it is reordered at most once, and the convolution reads
  // the product as it is.
  const ConformanceCase* block = case_named("squeeze_excitation_of_a_grouped_convolution");
  ASSERT_NE(block, nullptr);
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    const std::vector<OperationImplementation> steps = implementations_of(*block);
    int products = 0, reorders = 0;
    for (size_t s = 0; s < steps.size(); ++s) {
      if (steps[s].kind != "BinaryOp") continue;
      products += steps[s].primitive == "binary";
      reorders += steps[s].primitive == "reorder";
      // The convolution after the product: no reorder before it.
      if (steps[s].primitive == "binary" && s + 1 < steps.size()) {
        EXPECT_EQ(steps[s + 1].primitive, "convolution") << threads << " threads\n" << describe_implementations(steps);
      }
    }
    EXPECT_EQ(products, 1) << describe_implementations(steps);
    EXPECT_LE(reorders, 1) << threads << " threads\n" << describe_implementations(steps);
  }
  set_num_threads(1);
}

TEST(OneDnnImplementationsTest, ResamplesAPlainImageChannelsLast) {
  // oneDNN's resampling of a plain image interpolates a channel at a time
  // (a U-Net's bilinear upsampling of 32 channels of 32x32: 0.20 ms); over
  // channels-last it vectorizes across the channels (0.04 ms): the image is
  // reordered for it first (and its result back, being the delegate's
  // output: still faster, 0.13 against 0.22 ms for 32 channels of 64x64).
  const ConformanceCase* upsampling = case_named("bilinear_size_13x6_of_19_channels");
  ASSERT_NE(upsampling, nullptr);
  const std::vector<OperationImplementation> steps = implementations_of(*upsampling);
  std::vector<std::string> primitives;
  for (const OperationImplementation& step : steps) {
    if (step.kind == "Resampling") primitives.push_back(step.primitive);
  }
  EXPECT_EQ(primitives, (std::vector<std::string>{"reorder", "resampling", "reorder"}))
      << describe_implementations(steps);
}

std::vector<std::string>* logged = nullptr;
void log_to_test(runtime::LogLevel, const char* message) { logged->push_back(message); }

TEST(OneDnnImplementationsTest, PlansALargeGraphWithoutLoggingTheAttemptsThatRanOutOfRoom) {
  // 600 operations: more than the first pool's tables hold, so planning is
  // retried with a larger one; the runtime's log of the attempts that ran
  // out of room is not an error `kiln lower` should print.
  aot::GraphBuilder b;
  aot::Node* x = b.input("x", aot::f32({4, 19}));
  aot::Node* y = b.input("y", aot::f32({4, 19}));
  for (int i = 0; i < 1500; ++i) {
    x = b.call("aten::exp", {b.call("aten::mul.Tensor", {x, y})});
  }
  b.output({x});
  const aot::ExportedProgram program = std::move(b).build();
  const aot::ExportedProgram lowered = aot::to_backend(program, aot::CapabilityPartitioner(kBackendId));
  const std::vector<aot::LoweredSubmodule> delegates = aot::get_lowered_submodules(lowered);
  ASSERT_EQ(delegates.size(), 1u);
  std::vector<std::string> lines;
  logged = &lines;
  const runtime::LogSink previous = runtime::set_log_sink(log_to_test);
  const std::vector<OperationImplementation> steps = onednn_implementations(delegates[0].module->processed_bytes());
  runtime::set_log_sink(previous);
  logged = nullptr;
  EXPECT_GE(steps.size(), 400u);
  EXPECT_TRUE(lines.empty()) << lines.size() << " lines, the first: " << lines.front();
}

INSTANTIATE_TEST_SUITE_P(Ops, OneDnnImplementationsTest, ::testing::Range<size_t>(0, cases().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return testing::test_name(cases().at(info.param));
                         });

}  // namespace
}  // namespace kiln::backends::onednn
