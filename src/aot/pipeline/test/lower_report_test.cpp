// report_lowering: where each op node of a lowering went, as data read from
// the LoweredProgram, and the text `kiln lower` prints of it.
#include "aot/pipeline/lower_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "aot/delegate/test/delegate_test_util.h"
#include "aot/import/pt2_reader.h"
#include "aot/ir/error.h"

namespace kiln::aot {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

LoweredProgram delegated_fixture(const std::string& fixture, const std::vector<std::string>& backends) {
  LowerOptions options;
  options.backends = backends;
  options.delegate_only = true;
  return lower(load_pt2(std::string(KILN_SOURCE_DIR) + "/tests/fixtures/" + fixture), options);
}

std::vector<std::string> decision_names(const std::vector<NodeDecision>& decisions) {
  std::vector<std::string> names;
  for (const NodeDecision& decision : decisions) names.push_back(decision.node);
  return names;
}

// conv, relu, conv, relu, tan: DemoBackend takes the elementwise ops only.
TEST(LowerReport, SaysWhichDelegateTookEachNodeAndWhyTheRestStayed) {
  const LoweredProgram lowered = delegated_fixture("conv_relu_tan/model.core.pt2", {"DemoBackend"});
  const LoweringReport report = report_lowering(lowered, {"DemoBackend"});
  EXPECT_THAT(decision_names(report.decisions), ElementsAre("convolution", "relu", "convolution_1", "relu_1", "tan"));
  const NodeDecision& conv = report.decisions[0];
  EXPECT_TRUE(conv.kept());
  EXPECT_EQ(conv.target, "aten::convolution.default");
  ASSERT_EQ(conv.refusals.size(), 1u);
  EXPECT_EQ(conv.refusals[0].backend_id, "DemoBackend");
  EXPECT_THAT(conv.refusals[0].reason, HasSubstr("is not an elementwise op DemoBackend has"));
  const NodeDecision& tan = report.decisions[4];
  EXPECT_FALSE(tan.kept());
  EXPECT_EQ(tan.backend_id, "DemoBackend");
  EXPECT_EQ(tan.delegate, report.decisions[3].delegate);  // relu_1 and tan: one delegate
  EXPECT_NE(tan.delegate, report.decisions[1].delegate);  // a convolution between them and relu
  EXPECT_TRUE(tan.refusals.empty());

  EXPECT_THAT(decision_names(report.kept), ElementsAre("convolution", "convolution_1"));
  EXPECT_EQ(report.kept[0].refusals.size(), 1u);

  ASSERT_EQ(report.delegates.size(), 2u);
  const DelegateSummary& second = report.delegates[1];
  EXPECT_EQ(second.name, tan.delegate);
  EXPECT_EQ(second.backend_id, "DemoBackend");
  EXPECT_EQ(second.ops, 2u);
  EXPECT_EQ(second.op_counts, (std::map<std::string, size_t>{{"relu", 1}, {"tan", 1}}));
  EXPECT_EQ(second.inputs, 1u);
  EXPECT_EQ(second.outputs, 1u);
  EXPECT_GT(second.blob_bytes, 0u);
  EXPECT_TRUE(second.weights.empty());
  EXPECT_EQ(second.debug_handle_map.size(), 2u);
}

// An earlier backend's refusal stays on a node a later backend took.
TEST(LowerReport, KeepsEveryBackendsRefusalInPriorityOrder) {
  const std::vector<std::string> backends = {testing::kEveryOther, testing::kAllOps};
  const LoweredProgram lowered = delegated_fixture("conv_relu_tan/model.core.pt2", backends);
  const LoweringReport report = report_lowering(lowered, backends);
  ASSERT_EQ(report.decisions.size(), 5u);
  for (const NodeDecision& decision : report.decisions) {
    EXPECT_FALSE(decision.kept()) << decision.node;
    const bool relu = decision.target == "aten::relu.default";
    EXPECT_EQ(decision.backend_id, relu ? testing::kAllOps : testing::kEveryOther) << decision.node;
    ASSERT_EQ(decision.refusals.size(), relu ? 1u : 0u) << decision.node;
    if (relu) {
      EXPECT_EQ(decision.refusals[0].backend_id, testing::kEveryOther);
    }
  }
  EXPECT_EQ(format_kept(report), "Kept on the portable kernels: nothing\n");
  const std::string decisions = format_decisions(report);
  EXPECT_THAT(decisions, HasSubstr("Decisions (5 ops):\n  convolution (aten::convolution.default): taken by "
                                   "EveryOtherBackend (lowered_module_"));
  EXPECT_THAT(decisions, HasSubstr("  relu (aten::relu.default): taken by AllOpsBackend (lowered_module_"));
  EXPECT_THAT(decisions, HasSubstr("\n      refused by EveryOtherBackend: "));
}

TEST(LowerReport, PrintsAsKilnLowerDoes) {
  const LoweredProgram lowered = delegated_fixture("conv_relu_tan/model.core.pt2", {"DemoBackend"});
  const LoweringReport report = report_lowering(lowered, {"DemoBackend"});
  const std::string reason = report.decisions[0].refusals[0].reason;
  EXPECT_EQ(format_delegate(report.delegates[0]),
            "  lowered_module_0: DemoBackend, 1 op (relu), 1 input, 1 output, " +
                std::to_string(report.delegates[0].blob_bytes) +
                "-byte blob\n"
                "    weights it took: none\n"
                "    debug handles:   {0: (2,)}\n");
  EXPECT_EQ(format_kept(report),
            "Kept on the portable kernels (2 ops):\n"
            "  convolution (aten::convolution.default)\n"
            "      DemoBackend: " + reason + "\n"
            "  convolution_1 (aten::convolution.default)\n"
            "      DemoBackend: " + reason + "\n");
  const std::string text = format_lowering_report(report, "m.pt2", /*explain=*/false);
  EXPECT_THAT(text, ::testing::StartsWith("Lowered m.pt2 to DemoBackend: 2 delegates\n  lowered_module_0: "));
  EXPECT_THAT(text, ::testing::EndsWith(format_kept(report)));
  EXPECT_THAT(format_lowering_report(report, "m.pt2", /*explain=*/true), ::testing::EndsWith(format_decisions(report)));
}

TEST(LowerReport, NamesTheWeightsADelegateTook) {
  const LoweredProgram lowered = delegated_fixture("mlp/model.core.pt2", {testing::kAllOps});
  const LoweringReport report = report_lowering(lowered, {testing::kAllOps});
  ASSERT_EQ(report.delegates.size(), 1u);
  const DelegateSummary& delegate = report.delegates[0];
  ASSERT_FALSE(delegate.weights.empty());
  std::vector<std::string> kinds;
  for (const DelegateWeight& weight : delegate.weights) {
    kinds.push_back(weight.kind);
    EXPECT_THAT(weight.value, ::testing::StartsWith("f32[")) << weight.target;
  }
  // The biases as they were, the weights' transposes folded into constants.
  EXPECT_THAT(kinds, ::testing::Each(::testing::AnyOf("PARAMETER", "CONSTANT_TENSOR")));
  EXPECT_THAT(kinds, ::testing::Contains("PARAMETER"));
  EXPECT_THAT(format_delegate(delegate), HasSubstr("    weights it took:\n      " + delegate.weights[0].target +
                                                   " (PARAMETER, " + delegate.weights[0].value + ")"));
}

TEST(LowerReport, RefusesBackendsThatDidNotLowerTheProgram) {
  const LoweredProgram lowered = delegated_fixture("mlp/model.core.pt2", {testing::kAllOps});
  EXPECT_THROW(report_lowering(lowered, {}), AotError);
  const LoweredProgram portable = delegated_fixture("mlp/model.core.pt2", {});
  const LoweringReport report = report_lowering(portable, {});
  EXPECT_TRUE(report.delegates.empty());
  for (const NodeDecision& decision : report.decisions) EXPECT_TRUE(decision.kept());
}

}  // namespace
}  // namespace kiln::aot
