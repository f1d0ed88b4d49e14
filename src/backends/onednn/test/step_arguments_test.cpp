// A step's argument table has room for kMaxStepArgs, one of them kept for the
// scratchpad: a step asked to take more is refused with a log line naming the
// count and the limit, never cut short (oneDNN would run the primitive
// without the arguments left out).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "backends/onednn/runtime/operation_util.h"
#include "runtime/core/test/log_capture.h"

namespace kiln::backends::onednn {
namespace {

using runtime::Error;
using runtime::testing::LogCapture;
using ::testing::HasSubstr;

// A GraphBuilder over an empty blob with room for a few steps and one
// argument memory, which every argument names.
struct Planner {
  Planner() {
    compiled.method_name = "forward";
    EXPECT_TRUE(compiled.steps.reserve(&allocator, 4));
    EXPECT_TRUE(compiled.memories.reserve(&allocator, 1));
    compiled.memories.push()->storage = Storage{Storage::kArgument, 0};
  }
  std::vector<uint8_t> arena = std::vector<uint8_t>(64 * 1024);
  runtime::MemoryAllocator allocator{static_cast<uint32_t>(arena.size()), arena.data()};
  CompiledGraph compiled{};
  BlobGraph blob;
  ValueState values[1] = {};
  GraphBuilder builder{blob, &compiled, values};
};

std::vector<StepArg> arguments(uint32_t count) { return std::vector<StepArg>(count, StepArg{DNNL_ARG_SRC, 0}); }

TEST(StepArgumentsTest, AStepTakesAllItsArgumentsUpToTheLimit) {
  Planner planner;
  PrimitiveDesc none;
  const std::vector<StepArg> args = arguments(kMaxStepArgs - 1);
  ASSERT_EQ(planner.builder.add_step(&none, args.data(), kMaxStepArgs - 1), Error::Ok);
  ASSERT_EQ(planner.compiled.steps.size, 1u);
  EXPECT_EQ(planner.compiled.steps[0].num_args, kMaxStepArgs - 1);
}

TEST(StepArgumentsTest, AStepWithMoreArgumentsThanItsTableHoldsIsRefused) {
  Planner planner;
  LogCapture log;
  PrimitiveDesc none;
  const std::vector<StepArg> args = arguments(kMaxStepArgs);
  EXPECT_EQ(planner.builder.add_step(&none, args.data(), kMaxStepArgs), Error::DelegateInvalidCompatibility);
  EXPECT_EQ(planner.compiled.steps.size, 0u);
  EXPECT_THAT(log.text(), HasSubstr("OneDnnBackend: method 'forward'"));
  EXPECT_THAT(log.text(), HasSubstr("the step has 24 arguments; a step takes at most 23 (kMaxStepArgs, less one for "
                                    "the scratchpad)"));
}

TEST(StepArgumentsTest, AnArgumentListPastItsRoomRefusesTheStep) {
  Planner planner;
  LogCapture log;
  ArgList list;
  for (uint32_t i = 0; i < kMaxStepArgs + 2; ++i) list.add(DNNL_ARG_SRC, 0);
  PrimitiveDesc none;
  EXPECT_EQ(add_step(planner.builder, &none, list), Error::DelegateInvalidCompatibility);
  EXPECT_EQ(planner.compiled.steps.size, 0u);
  EXPECT_THAT(log.text(), HasSubstr("the step has 26 arguments; a step takes at most 23"));
}

}  // namespace
}  // namespace kiln::backends::onednn
