#include "aot/ir/testing/aot_testing.h"
#include "aot/ir/graph_signature.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "aot/ir/error.h"

namespace kiln::aot {
namespace {

using testing::error_of;

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;

InputSpec input(InputKind kind, ArgumentSpec arg, std::string target = "",
                std::optional<bool> persistent = std::nullopt) {
  return InputSpec{kind, std::move(arg), std::move(target), persistent};
}

OutputSpec output(OutputKind kind, ArgumentSpec arg, std::string target = "") {
  return OutputSpec{kind, std::move(arg), std::move(target)};
}

// A training step's signature with every input and output kind, in the
// order torch.export lays them out.
GraphSignature every_kind() {
  return GraphSignature(
      {
          input(InputKind::Token, ArgumentSpec::token("token")),
          input(InputKind::Parameter, ArgumentSpec::tensor("p_weight"), "weight"),
          input(InputKind::Parameter, ArgumentSpec::tensor("p_bias"), "bias"),
          input(InputKind::Buffer, ArgumentSpec::tensor("b_running_mean"), "running_mean", true),
          input(InputKind::Buffer, ArgumentSpec::tensor("b_cache"), "cache", false),
          input(InputKind::ConstantTensor, ArgumentSpec::tensor("c_lifted_tensor_0"), "lifted_tensor_0"),
          input(InputKind::CustomObj, ArgumentSpec::custom_obj("obj_packed", "__torch__.torch.classes.my.Packed"),
                "packed"),
          input(InputKind::UserInput, ArgumentSpec::tensor("x")),
          input(InputKind::UserInput, ArgumentSpec::constant("scale", 2.0)),
          input(InputKind::UserInput, ArgumentSpec::tensor("y")),
      },
      {
          output(OutputKind::Token, ArgumentSpec::token("output_token")),
          output(OutputKind::BufferMutation, ArgumentSpec::tensor("add_1"), "running_mean"),
          output(OutputKind::UserInputMutation, ArgumentSpec::tensor("copy_"), "y"),
          output(OutputKind::LossOutput, ArgumentSpec::tensor("loss")),
          output(OutputKind::UserOutput, ArgumentSpec::tensor("out")),
          output(OutputKind::UserOutput, ArgumentSpec::constant("", 7)),
          output(OutputKind::GradientToParameter, ArgumentSpec::tensor("grad_weight"), "weight"),
          output(OutputKind::GradientToUserInput, ArgumentSpec::tensor("grad_x"), "x"),
      });
}

// ---------------------------------------------------------------------------
// Derived views

TEST(GraphSignatureTest, StateViewsListTargetsInSpecOrder) {
  const GraphSignature sig = every_kind();
  EXPECT_THAT(sig.parameters(), ElementsAre("weight", "bias"));
  EXPECT_THAT(sig.buffers(), ElementsAre("running_mean", "cache"));
  EXPECT_THAT(sig.non_persistent_buffers(), ElementsAre("cache"));
  EXPECT_THAT(sig.lifted_tensor_constants(), ElementsAre("lifted_tensor_0"));
  EXPECT_THAT(sig.lifted_custom_objs(), ElementsAre("packed"));
}

TEST(GraphSignatureTest, UserViewsListNamesAndPrintedConstants) {
  const GraphSignature sig = every_kind();
  EXPECT_THAT(sig.user_inputs(), ElementsAre("x", "2.0", "y"));
  EXPECT_THAT(sig.user_outputs(), ElementsAre("loss", "out", "7"));
}

TEST(GraphSignatureTest, InputMapsGoFromPlaceholderToTarget) {
  const GraphSignature sig = every_kind();
  EXPECT_THAT(sig.inputs_to_parameters(), ElementsAre(Pair("p_bias", "bias"), Pair("p_weight", "weight")));
  EXPECT_THAT(sig.inputs_to_buffers(),
              ElementsAre(Pair("b_cache", "cache"), Pair("b_running_mean", "running_mean")));
  EXPECT_THAT(sig.inputs_to_lifted_tensor_constants(), ElementsAre(Pair("c_lifted_tensor_0", "lifted_tensor_0")));
  EXPECT_THAT(sig.inputs_to_lifted_custom_objs(), ElementsAre(Pair("obj_packed", "packed")));
}

TEST(GraphSignatureTest, OutputMapsGoFromOutputToWhatItUpdates) {
  const GraphSignature sig = every_kind();
  EXPECT_THAT(sig.buffers_to_mutate(), ElementsAre(Pair("add_1", "running_mean")));
  EXPECT_THAT(sig.user_inputs_to_mutate(), ElementsAre(Pair("copy_", "y")));
  EXPECT_THAT(sig.gradients_to_parameters(), ElementsAre(Pair("grad_weight", "weight")));
  EXPECT_THAT(sig.gradients_to_user_inputs(), ElementsAre(Pair("grad_x", "x")));
}

TEST(GraphSignatureTest, TokensAndLossOutput) {
  const GraphSignature sig = every_kind();
  EXPECT_THAT(sig.input_tokens(), ElementsAre("token"));
  EXPECT_THAT(sig.output_tokens(), ElementsAre("output_token"));
  EXPECT_EQ(sig.loss_output(), 3u);
}

TEST(GraphSignatureTest, AnEmptySignatureHasEmptyViewsAndNoLoss) {
  const GraphSignature sig;
  EXPECT_THAT(sig.parameters(), IsEmpty());
  EXPECT_THAT(sig.user_inputs(), IsEmpty());
  EXPECT_THAT(sig.buffers_to_mutate(), IsEmpty());
  EXPECT_EQ(sig.loss_output(), std::nullopt);
  EXPECT_NO_THROW(sig.validate());
}

TEST(GraphSignatureTest, UserOutputsIncludeTheLossOutputAsTorchDoes) {
  EXPECT_THAT(every_kind().user_outputs(), ElementsAre("loss", "out", "7"));
}

// ---------------------------------------------------------------------------
// Text

TEST(GraphSignatureTest, ToStringListsEverySpecWithTargetAndPersistence) {
  const std::string expected =
      "# inputs\n"
      "token: TOKEN\n"
      "p_weight: PARAMETER target='weight'\n"
      "p_bias: PARAMETER target='bias'\n"
      "b_running_mean: BUFFER target='running_mean' persistent=True\n"
      "b_cache: BUFFER target='cache' persistent=False\n"
      "c_lifted_tensor_0: CONSTANT_TENSOR target='lifted_tensor_0'\n"
      "obj_packed: CUSTOM_OBJ target='packed'\n"
      "x: USER_INPUT\n"
      "2.0: USER_INPUT\n"
      "y: USER_INPUT\n"
      "\n"
      "# outputs\n"
      "output_token: TOKEN\n"
      "add_1: BUFFER_MUTATION target='running_mean'\n"
      "copy_: USER_INPUT_MUTATION target='y'\n"
      "loss: LOSS_OUTPUT\n"
      "out: USER_OUTPUT\n"
      "7: USER_OUTPUT\n"
      "grad_weight: GRADIENT_TO_PARAMETER target='weight'\n"
      "grad_x: GRADIENT_TO_USER_INPUT target='x'\n";
  EXPECT_EQ(every_kind().to_string(), expected);
}

// ---------------------------------------------------------------------------
// validate

TEST(GraphSignatureTest, ValidateAcceptsEveryKindUsedCorrectly) { EXPECT_NO_THROW(every_kind().validate()); }

TEST(GraphSignatureTest, ValidateRejectsABufferWithoutPersistentFlag) {
  GraphSignature sig = every_kind();
  sig.input_specs[3].persistent = std::nullopt;
  const std::string message = error_of([&] { sig.validate(); });
  EXPECT_THAT(message, HasSubstr("'b_running_mean'"));
  EXPECT_THAT(message, HasSubstr("needs a persistent flag"));
}

TEST(GraphSignatureTest, ValidateRejectsAParameterWithPersistentFlag) {
  GraphSignature sig = every_kind();
  sig.input_specs[1].persistent = true;
  const std::string message = error_of([&] { sig.validate(); });
  EXPECT_THAT(message, HasSubstr("'p_weight'"));
  EXPECT_THAT(message, HasSubstr("must not have a persistent flag"));
}

TEST(GraphSignatureTest, ValidateRejectsAParameterWithoutTarget) {
  GraphSignature sig = every_kind();
  sig.input_specs[2].target = "";
  const std::string message = error_of([&] { sig.validate(); });
  EXPECT_THAT(message, HasSubstr("input spec 2 ('p_bias', PARAMETER)"));
  EXPECT_THAT(message, HasSubstr("has no target"));
}

TEST(GraphSignatureTest, ValidateRejectsAUserInputWithTarget) {
  GraphSignature sig = every_kind();
  sig.input_specs[7].target = "x";
  const std::string message = error_of([&] { sig.validate(); });
  EXPECT_THAT(message, HasSubstr("('x', USER_INPUT)"));
  EXPECT_THAT(message, HasSubstr("must not have a target"));
}

TEST(GraphSignatureTest, ValidateRejectsDuplicateInputNames) {
  GraphSignature sig = every_kind();
  sig.input_specs[9].arg.name = "p_weight";
  const std::string message = error_of([&] { sig.validate(); });
  EXPECT_THAT(message, HasSubstr("input spec 9 ('p_weight', USER_INPUT)"));
  EXPECT_THAT(message, HasSubstr("repeats the name"));
}

TEST(GraphSignatureTest, ValidateRejectsABufferMutationOfANonBuffer) {
  GraphSignature sig = every_kind();
  sig.output_specs[1].target = "weight";
  const std::string message = error_of([&] { sig.validate(); });
  EXPECT_THAT(message, HasSubstr("output spec 1 ('add_1', BUFFER_MUTATION)"));
  EXPECT_THAT(message, HasSubstr("'weight', which is not a buffer input"));
}

TEST(GraphSignatureTest, ValidateRejectsAUserInputMutationOfAnUnknownInput) {
  GraphSignature sig = every_kind();
  sig.output_specs[2].target = "p_weight";  // a placeholder, but not a user input
  const std::string message = error_of([&] { sig.validate(); });
  EXPECT_THAT(message, HasSubstr("output spec 2 ('copy_', USER_INPUT_MUTATION)"));
  EXPECT_THAT(message, HasSubstr("'p_weight', which is not a user input"));
}

TEST(GraphSignatureTest, ValidateRejectsAGradientWithoutTarget) {
  GraphSignature sig = every_kind();
  sig.output_specs[6].target = "";
  const std::string message = error_of([&] { sig.validate(); });
  EXPECT_THAT(message, HasSubstr("('grad_weight', GRADIENT_TO_PARAMETER)"));
  EXPECT_THAT(message, HasSubstr("has no target"));
}

TEST(GraphSignatureTest, EqualityComparesEverySpec) {
  GraphSignature changed = every_kind();
  EXPECT_EQ(changed, every_kind());
  changed.input_specs[4].persistent = true;
  EXPECT_NE(changed, every_kind());
}

}  // namespace
}  // namespace kiln::aot
