// Method's inputs and memory: dynamic sizes within and beyond their bounds,
// wrong dtypes, shapes, ranks and counts, prim inputs, unplanned inputs and
// outputs, too small a method allocator, missing or too small planned buffers,
// a planned tensor outside its arena: each refused with its error and a log
// line naming it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "tests/support/method_test_util.h"

namespace kiln::runtime {
namespace {

namespace fb = executorch_flatbuffer;
using namespace method_testing;
using ::testing::HasSubstr;

// ---- dynamic shapes and bad inputs ------------------------------------------------

TEST(MethodInputs, DynamicBatchWithinBoundsResizesTheOutput) {
  ExecutorchFile file("dynamic_batch.pte");  // x: [batch <= 8, 4] -> [batch, 3]
  ASSERT_TRUE(file.method);
  for (int64_t batch : {3, 8, 1}) {
    const std::vector<HostTensor> outputs = run(*file.method, {filled(ScalarType::Float, {batch, 4}, 1.0f)});
    ASSERT_FALSE(::testing::Test::HasFailure());
    ASSERT_EQ(outputs.size(), 1u);
    EXPECT_EQ(outputs[0].sizes(), (std::vector<int64_t>{batch, 3}));
  }
}

TEST(MethodInputs, DynamicBatchAboveItsBoundIsRefused) {
  ExecutorchFile file("dynamic_batch.pte");
  ASSERT_TRUE(file.method);
  LogCapture log;
  InputTensor too_big(filled(ScalarType::Float, {9, 4}, 1.0f));
  EXPECT_EQ(file.method->set_input(too_big.value(), 0), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("input 0 must have sizes up to [8, 4], got [9, 4]"));
  InputTensor wide(filled(ScalarType::Float, {2, 5}, 1.0f));  // the feature dim is static
  EXPECT_EQ(file.method->set_input(wide.value(), 0), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("got [2, 5]"));
}

TEST(MethodInputs, WrongDtypeShapeRankOrCountIsNamed) {
  ExecutorchFile file("add.pte");  // two float [2, 3] inputs
  ASSERT_TRUE(file.method);
  LogCapture log;
  InputTensor longs(filled(ScalarType::Long, {2, 3}, 1.0f));
  EXPECT_EQ(file.method->set_input(longs.value(), 1), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("input 1 must have dtype Float, got Long"));
  InputTensor shape(filled(ScalarType::Float, {3, 3}, 1.0f));
  EXPECT_EQ(file.method->set_input(shape.value(), 0), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("input 0 must have sizes [2, 3], got [3, 3]"));
  InputTensor rank(filled(ScalarType::Float, {2, 3, 1}, 1.0f));
  EXPECT_EQ(file.method->set_input(rank.value(), 0), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("input 0 must have 2 dims, got 3"));
  EXPECT_EQ(file.method->set_input(EValue(int64_t{1}), 0), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("input 0 must be a Tensor, got Int"));
  InputTensor good(filled(ScalarType::Float, {2, 3}, 1.0f));
  EXPECT_EQ(file.method->set_input(good.value(), 2), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("input 2 is out of range (the method has 2 inputs)"));
  const EValue one[] = {good.value()};
  EXPECT_EQ(file.method->set_inputs(one), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("1 inputs given, the method takes 2"));
}

TEST(MethodInputs, ExecuteBeforeEveryInputIsSetIsInvalidState) {
  ExecutorchFile file("add.pte");
  ASSERT_TRUE(file.method);
  LogCapture log;
  EXPECT_EQ(file.method->execute(), Error::InvalidState);
  EXPECT_THAT(log.text(), HasSubstr("input 0 was never set"));
  InputTensor x(filled(ScalarType::Float, {2, 3}, 1.0f));
  ASSERT_EQ(file.method->set_input(x.value(), 0), Error::Ok);
  EXPECT_EQ(file.method->execute(), Error::InvalidState);
  EXPECT_THAT(log.text(), HasSubstr("input 1 was never set"));
  ASSERT_EQ(file.method->set_input(x.value(), 1), Error::Ok);
  EXPECT_EQ(file.method->execute(), Error::Ok);
  EXPECT_EQ(to_host(file.method->get_output(0).toTensor()).to_doubles(), std::vector<double>(6, 2.0));
}

// ---- memory ---------------------------------------------------------------------

TEST(MethodMemory, TooSmallAMethodAllocatorIsMemoryAllocationFailed) {
  const auto program = load_program(read_bytes(kPteDir + "small_conv_net.pte"));
  ASSERT_NE(program, nullptr);
  size_t needed = 0;
  {
    Memory memory(*program);
    ASSERT_TRUE(load_method(*program, memory).ok());
    needed = memory.method_allocator->used_size();
  }
  ASSERT_GT(needed, 0u);
  for (size_t size = 0; size < needed; size += needed / 13 + 1) {
    LogCapture log;
    Memory memory(*program, size);
    Result<Method> method = load_method(*program, memory);
    EXPECT_EQ(method.error(), Error::MemoryAllocationFailed) << size;
    EXPECT_THAT(log.text(), HasSubstr("the method allocator is full")) << size;
  }
  Memory exact(*program, needed);
  EXPECT_TRUE(load_method(*program, exact).ok());
}

TEST(MethodMemory, TooFewOrTooSmallPlannedBuffersAreInvalidArgument) {
  const auto program = load_program(read_bytes(kPteDir + "small_conv_net.pte"));  // one 3456-byte arena
  ASSERT_NE(program, nullptr);
  {
    LogCapture log;
    Memory none(*program, 1 << 20, std::vector<size_t>{});
    EXPECT_EQ(load_method(*program, none).error(), Error::InvalidArgument);
    EXPECT_THAT(log.text(), HasSubstr("the plan needs 1 planned buffers, the caller gave 0"));
  }
  {
    LogCapture log;
    Memory small(*program, 1 << 20, std::vector<size_t>{3455});
    EXPECT_EQ(load_method(*program, small).error(), Error::InvalidArgument);
    EXPECT_THAT(log.text(), HasSubstr("planned buffer 0 is 3455 bytes, the plan needs 3456"));
  }
  {
    std::vector<uint8_t> pool(1 << 20);
    MemoryAllocator allocator(static_cast<uint32_t>(pool.size()), pool.data());
    MemoryManager no_planned(&allocator);
    LogCapture log;
    EXPECT_EQ(Method::load(program->plan(), &*program->program, &no_planned).error(), Error::InvalidArgument);
    EXPECT_THAT(log.text(), HasSubstr("caller gave 0"));
  }
}

TEST(MethodInputs, APrimInputMustEqualTheProgramsValue) {
  // add.pte's alpha, Int(1), made a third input.
  const auto program = load_program(rewritten("add.pte", [](fb::ExecutionPlanT& plan) {
    for (size_t v = 0; v < plan.values.size(); ++v) {
      if (plan.values[v]->val.AsInt() != nullptr) plan.inputs.push_back(static_cast<int32_t>(v));
    }
    ASSERT_EQ(plan.inputs.size(), 3u);
  }));
  ASSERT_NE(program, nullptr);
  Memory memory(*program);
  Result<Method> method = load_method(*program, memory);
  ASSERT_TRUE(method.ok());
  LogCapture log;
  EXPECT_EQ(method->set_input(EValue(int64_t{2}), 2), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("input 2 must equal the Int the program was exported with"));
  EXPECT_EQ(method->set_input(EValue(1.0), 2), Error::InvalidArgument);
  EXPECT_EQ(method->set_input(EValue(int64_t{1}), 2), Error::Ok);
}

TEST(MethodInputs, UnplannedInputsAreSharedAndUnplannedOutputsWrittenWhereTheCallerSays) {
  // add.pte with input 0 (value 0) and the output (value 2) left out of the plan.
  const auto program = load_program(rewritten("add.pte", [](fb::ExecutionPlanT& plan) {
    plan.values.at(0)->val.AsTensor()->allocation_info.reset();
    plan.values.at(2)->val.AsTensor()->allocation_info.reset();
  }));
  ASSERT_NE(program, nullptr);
  Memory memory(*program);
  Result<Method> method = load_method(*program, memory);
  ASSERT_TRUE(method.ok());
  InputTensor x(filled(ScalarType::Float, {2, 3}, 1.0f));
  InputTensor y(filled(ScalarType::Float, {2, 3}, 2.0f));
  ASSERT_EQ(method->set_input(x.value(), 0), Error::Ok);
  ASSERT_EQ(method->set_input(y.value(), 1), Error::Ok);
  EXPECT_EQ(method->get_input(0).toTensor().const_data_ptr(), x.value().toTensor().const_data_ptr());  // shared
  EXPECT_NE(method->get_input(1).toTensor().const_data_ptr(), y.value().toTensor().const_data_ptr());  // copied
  LogCapture log;
  EXPECT_EQ(method->execute(), Error::InvalidArgument);  // the output has nowhere to go yet
  float out[6] = {};
  EXPECT_EQ(method->set_output_data_ptr(out, 5 * sizeof(float), 0), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("output 0 needs 24 bytes, the buffer has 20"));
  ASSERT_EQ(method->set_output_data_ptr(out, sizeof out, 0), Error::Ok);
  ASSERT_EQ(method->execute(), Error::Ok);
  EXPECT_EQ(std::vector<float>(out, out + 6), std::vector<float>(6, 3.0f));
  EXPECT_EQ(method->set_output_data_ptr(out, sizeof out, 1), Error::InvalidArgument);

  ExecutorchFile planned("add.pte");
  ASSERT_TRUE(planned.method);
  EXPECT_EQ(planned.method->set_output_data_ptr(out, sizeof out, 0), Error::InvalidState);
  EXPECT_THAT(log.text(), HasSubstr("output 0 is memory planned"));
}
TEST(MethodMemory, APlannedTensorOutsideItsArenaIsInvalidArgument) {
  // small_conv_net's arena is 3456 bytes; move the input (value 9) to its end.
  const auto program = load_program(rewritten("small_conv_net.pte",
                                              [](fb::ExecutionPlanT& plan) {
                                                plan.values.at(9)->val.AsTensor()->allocation_info->memory_offset_low =
                                                    3400;
                                              }),
                                    Program::Verification::Minimal);
  ASSERT_NE(program, nullptr);
  Memory memory(*program);
  LogCapture log;
  EXPECT_EQ(load_method(*program, memory).error(), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("value 9: 768 bytes at offset 3400 of planned buffer 1 do not fit"));
}

}  // namespace
}  // namespace kiln::runtime
