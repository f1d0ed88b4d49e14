// Method's instructions on add.pte rewritten: JumpFalse, Move and Free,
// jumps out of the chain and endless loops; kernels: every missing one logged,
// an exact dtype/dim-order key preferred to the fallback, a kernel failure
// named with its instruction and operator.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <vector>

#include "tests/support/method_test_util.h"
#include "runtime/kernel/operator_registry.h"

namespace kiln::runtime {
namespace {

namespace fb = executorch_flatbuffer;
using namespace method_testing;
using ::testing::HasSubstr;

// ---- control instructions (add.pte: values 0 and 1 the inputs, 2 the output) ----

template <typename T>
std::unique_ptr<fb::InstructionT> instruction(T args) {
  auto result = std::make_unique<fb::InstructionT>();
  result->instr_args.Set(std::move(args));
  return result;
}

/// add.pte whose chain is `make(plan, add)`, where `add` is its one kernel
/// call; a Bool value of `flag` is appended as the last value.
std::vector<uint8_t> add_with_chain(
    bool flag, const std::function<void(fb::ExecutionPlanT&, std::unique_ptr<fb::InstructionT>, int32_t)>& make) {
  return rewritten("add.pte", [&](fb::ExecutionPlanT& plan) {
    auto value = std::make_unique<fb::EValueT>();
    fb::BoolT b;
    b.bool_val = flag;
    value->val.Set(b);
    plan.values.push_back(std::move(value));
    auto& instructions = plan.chains.at(0)->instructions;
    std::unique_ptr<fb::InstructionT> add = std::move(instructions.at(0));
    instructions.clear();
    make(plan, std::move(add), static_cast<int32_t>(plan.values.size() - 1));
  });
}

struct ControlRun {
  Error error;
  std::vector<double> output;
  const void* output_data;
};

ControlRun run_control(const std::vector<uint8_t>& bytes,
                       Program::Verification verification = Program::Verification::InternalConsistency) {
  const auto program = load_program(bytes, verification);
  if (program == nullptr) return {Error::InvalidProgram, {}, nullptr};
  Memory memory(*program);
  Result<Method> method = load_method(*program, memory);
  if (!method.ok()) return {method.error(), {}, nullptr};
  InputTensor x(filled(ScalarType::Float, {2, 3}, 1.0f));
  InputTensor y(filled(ScalarType::Float, {2, 3}, 2.0f));
  EXPECT_EQ(method->set_input(x.value(), 0), Error::Ok);
  EXPECT_EQ(method->set_input(y.value(), 1), Error::Ok);
  const Error error = method->execute();
  const Tensor out = method->get_output(0).toTensor();
  return {error, out.const_data_ptr() == nullptr ? std::vector<double>{} : to_host(out).to_doubles(),
          out.const_data_ptr()};
}

TEST(MethodInstructions, JumpFalseSkipsWhenTheConditionIsFalse) {
  for (const bool flag : {true, false}) {
    // 0: jump to 2 unless flag; 1: add; (2: the end)
    const ControlRun run = run_control(add_with_chain(flag, [](fb::ExecutionPlanT& plan, auto add, int32_t cond) {
      fb::JumpFalseCallT jump;
      jump.cond_value_index = cond;
      jump.destination_instruction = 1;
      auto& instructions = plan.chains.at(0)->instructions;
      instructions.push_back(instruction(jump));
      instructions.push_back(std::move(add));
      fb::FreeCallT nothing;  // a free of a non-tensor changes nothing
      nothing.value_index = cond;
      instructions.push_back(instruction(nothing));
      instructions.at(0)->instr_args.AsJumpFalseCall()->destination_instruction = 2;
    }));
    EXPECT_EQ(run.error, Error::Ok);
    EXPECT_EQ(run.output, std::vector<double>(6, flag ? 3.0 : 0.0)) << flag;  // planned memory starts zeroed
  }
}

TEST(MethodInstructions, MoveAndFree) {
  const ControlRun moved = run_control(add_with_chain(true, [](fb::ExecutionPlanT& plan, auto, int32_t) {
    fb::MoveCallT move;
    move.move_from = 1;  // y
    move.move_to = 2;    // the output
    plan.chains.at(0)->instructions.push_back(instruction(move));
  }));
  EXPECT_EQ(moved.error, Error::Ok);
  EXPECT_EQ(moved.output, std::vector<double>(6, 2.0));

  const ControlRun freed = run_control(add_with_chain(true, [](fb::ExecutionPlanT& plan, auto add, int32_t) {
    plan.chains.at(0)->instructions.push_back(std::move(add));
    fb::FreeCallT free;
    free.value_index = 2;
    plan.chains.at(0)->instructions.push_back(instruction(free));
  }));
  EXPECT_EQ(freed.error, Error::Ok);
  EXPECT_EQ(freed.output_data, nullptr);
}

TEST(MethodInstructions, AJumpOutOfTheChainOrAnEndlessLoopIsInvalidProgram) {
  LogCapture log;
  const ControlRun out_of_range = run_control(add_with_chain(false, [](fb::ExecutionPlanT& plan, auto, int32_t cond) {
    fb::JumpFalseCallT jump;
    jump.cond_value_index = cond;
    jump.destination_instruction = 5;
    plan.chains.at(0)->instructions.push_back(instruction(jump));
  }), Program::Verification::Minimal);  // full verification would refuse it before Method sees it
  EXPECT_EQ(out_of_range.error, Error::InvalidProgram);
  EXPECT_THAT(log.text(), HasSubstr("instruction 0 jumps to 5, out of range (1 instructions)"));

  const ControlRun endless = run_control(add_with_chain(false, [](fb::ExecutionPlanT& plan, auto, int32_t cond) {
    fb::JumpFalseCallT jump;
    jump.cond_value_index = cond;
    jump.destination_instruction = 0;
    plan.chains.at(0)->instructions.push_back(instruction(jump));
  }));
  EXPECT_EQ(endless.error, Error::InvalidProgram);
  EXPECT_THAT(log.text(), HasSubstr("chain 0 ran 10000000 instructions without ending"));

  const ControlRun not_a_bool = run_control(add_with_chain(false, [](fb::ExecutionPlanT& plan, auto, int32_t) {
    fb::JumpFalseCallT jump;
    jump.cond_value_index = 0;  // x, a float tensor
    jump.destination_instruction = 0;
    plan.chains.at(0)->instructions.push_back(instruction(jump));
  }));
  EXPECT_EQ(not_a_bool.error, Error::InvalidProgram);
  EXPECT_THAT(log.text(), HasSubstr("instruction 0 jumps on a Tensor, not a Bool or a Bool tensor"));
}

// ---- kernels --------------------------------------------------------------------
TEST(MethodKernels, EveryMissingKernelIsLoggedBeforeOperatorMissing) {
  // small_conv_net: convolution, batch norm, relu, max pool, permute_copy, addmm.
  const auto program = load_program(
      with_renamed_operators("small_conv_net.pte", {{0, "test::no_conv.out"}, {2, "test::no_relu.out"}}));
  ASSERT_NE(program, nullptr);
  Memory memory(*program);
  LogCapture log;
  EXPECT_EQ(load_method(*program, memory).error(), Error::OperatorMissing);
  EXPECT_THAT(log.text(), HasSubstr("no kernel registered for 'test::no_conv.out' (key v1/6;0,1,2,3|6;0,1,2,3|"));
  EXPECT_THAT(log.text(), HasSubstr("no kernel registered for 'test::no_relu.out' (key v1/6;0,1,2,3|6;0,1,2,3|6;0,1,2,3; "
                                    "no kernel of that name)"));
  EXPECT_THAT(log.text(), HasSubstr("instruction 0 calls 'test::no_conv.out', which has no kernel"));
  EXPECT_THAT(log.text(), HasSubstr("2 kernel calls have no registered kernel"));
}

// Fills out (args[3] of an add.out-shaped call) with a marker.
template <int kMarker>
void fill_out(KernelRuntimeContext&, Span<EValue*> args) {
  const Tensor out = args[3]->toTensor();
  for (ssize_t i = 0; i < out.numel(); ++i) out.mutable_data_ptr<float>()[i] = kMarker;
}

TEST(MethodKernels, AnExactKernelKeyBeatsTheFallback) {
  // add.out's tensors: self, other, out, and the return slot (out again).
  const Kernel kernels[] = {{"test::keyed_add.out", fill_out<-1>},
                            {"test::keyed_add.out", fill_out<42>, "v1/6;0,1|6;0,1|6;0,1|6;0,1"},
                            {"test::long_keyed_add.out", fill_out<7>, "v1/4;0,1|4;0,1|4;0,1|4;0,1"},
                            {"test::long_keyed_add.out", fill_out<-7>}};
  ASSERT_EQ(register_kernels(kernels), Error::Ok);
  const std::vector<HostTensor> x = {filled(ScalarType::Float, {2, 3}, 1.0f), filled(ScalarType::Float, {2, 3}, 1.0f)};
  for (const auto& [op, marker] : std::vector<std::pair<std::string, double>>{{"test::keyed_add.out", 42},
                                                                             {"test::long_keyed_add.out", -7}}) {
    const auto program = load_program(with_renamed_operators("add.pte", {{0, op}}));
    ASSERT_NE(program, nullptr);
    Memory memory(*program);
    Result<Method> method = load_method(*program, memory);
    ASSERT_TRUE(method.ok());
    const std::vector<HostTensor> outputs = run(*method, x);
    ASSERT_EQ(outputs.size(), 1u);
    EXPECT_EQ(outputs[0].to_doubles(), std::vector<double>(6, marker)) << op;
  }
}

void failing_kernel(KernelRuntimeContext& context, Span<EValue*>) {
  context.fail(Error::InvalidArgument, "test::failing.out: 'self' is unlucky");
}

TEST(MethodKernels, AKernelFailureNamesTheInstructionAndOperator) {
  const Kernel kernels[] = {{"test::failing.out", failing_kernel}};
  ASSERT_EQ(register_kernels(kernels), Error::Ok);
  const auto program = load_program(with_renamed_operators("linear.pte", {{1, "test::failing.out"}}));
  ASSERT_NE(program, nullptr);
  Memory memory(*program);
  Result<Method> method = load_method(*program, memory);
  ASSERT_TRUE(method.ok());
  InputTensor x(filled(ScalarType::Float, {2, 8}, 1.0f));
  ASSERT_EQ(method->set_input(x.value(), 0), Error::Ok);
  LogCapture log;
  EXPECT_EQ(method->execute(), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("instruction 1 (test::failing.out) failed: test::failing.out: 'self' is unlucky"));
}

}  // namespace
}  // namespace kiln::runtime
