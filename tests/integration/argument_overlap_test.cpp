// Method::load refuses a kernel call two of whose planned tensors overlap in
// part (directly or inside a tensor list, sorted or, past the stack's room,
// pairwise) and accepts the same memory used twice (out == self). Built on
// ExecuTorch's add.pte: x at bytes [64, 88), y at [32, 56), out at [0, 24) of
// planned buffer 1, one call aten::add.out(x, y, alpha, out, out).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/executor/argument_overlap.h"
#include "runtime/executor/test/method_loader.h"
#include "tests/support/program_test_util.h"
#include "schema/program_generated.h"

namespace kiln::runtime {
namespace {

namespace fb = executorch_flatbuffer;
using ::testing::HasSubstr;
using testing::MethodLoader;

// add.pte's values: x, y (unused here), out.
constexpr int32_t kX = 0, kOut = 2;

/// add.pte with its plan changed by `edit`.
std::vector<uint8_t> add_program(const std::function<void(fb::ExecutionPlanT&)>& edit) {
  const std::vector<uint8_t> add = testing::read_file_bytes(KILN_SOURCE_DIR "/tests/fixtures/pte/add.pte");
  return testing::repack(add, [&](fb::ProgramT& program) { edit(*program.execution_plan.at(0)); });
}

fb::TensorT& tensor(fb::ExecutionPlanT& plan, int32_t v) { return *plan.values.at(static_cast<size_t>(v))->val.AsTensor(); }
fb::KernelCallT& add_call(fb::ExecutionPlanT& plan) { return *plan.chains.at(0)->instructions.at(0)->instr_args.AsKernelCall(); }

/// Appends a copy of x's tensor at `offset` of buffer 1; returns its index.
int32_t add_planned_tensor(fb::ExecutionPlanT& plan, uint32_t offset) {
  auto value = std::make_unique<fb::EValueT>();
  fb::TensorT copy(tensor(plan, kX));
  copy.allocation_info->memory_offset_low = offset;
  value->val.Set(std::move(copy));
  plan.values.push_back(std::move(value));
  return static_cast<int32_t>(plan.values.size() - 1);
}

/// Appends a TensorList of `items` and passes it to add.out as an extra argument.
void pass_tensor_list(fb::ExecutionPlanT& plan, std::vector<int32_t> items) {
  auto value = std::make_unique<fb::EValueT>();
  fb::TensorListT list;
  list.items = std::move(items);
  value->val.Set(std::move(list));
  plan.values.push_back(std::move(value));
  add_call(plan).args.push_back(static_cast<int32_t>(plan.values.size() - 1));
}

TEST(ArgumentOverlap, AnOutOverlappingAnInputInPartIsInvalidProgram) {
  MethodLoader loaded(add_program([](fb::ExecutionPlanT& plan) { tensor(plan, kOut).allocation_info->memory_offset_low = 60; }));
  ASSERT_EQ(loaded.program_error(), Error::Ok) << loaded.log();
  EXPECT_EQ(loaded.method_error(), Error::InvalidProgram);
  EXPECT_THAT(loaded.log(), HasSubstr("Method::load: chain 0 instruction 0 (aten::add.out): value 2 (bytes [60, 84) of "
                                      "planned buffer 1) and value 0 (bytes [64, 88)) overlap in part"));
}

TEST(ArgumentOverlap, SameStartButOtherSizeIsAPartialOverlap) {
  MethodLoader loaded(add_program([](fb::ExecutionPlanT& plan) {
    tensor(plan, kOut).allocation_info->memory_offset_low = 64;
    tensor(plan, kOut).sizes = {1, 3};
  }));
  EXPECT_EQ(loaded.method_error(), Error::InvalidProgram);
  EXPECT_THAT(loaded.log(), HasSubstr("value 2 (bytes [64, 76) of planned buffer 1) and value 0 (bytes [64, 88))"));
}

TEST(ArgumentOverlap, OutEqualToSelfLoadsAndRunsInPlace) {
  MethodLoader loaded(add_program([](fb::ExecutionPlanT& plan) { tensor(plan, kOut).allocation_info->memory_offset_low = 64; }));
  ASSERT_EQ(loaded.method_error(), Error::Ok) << loaded.log();
  ASSERT_EQ(loaded.execute_with_ones(), Error::Ok) << loaded.log();
  const Tensor out = loaded.method()->get_output(0).toTensor();
  EXPECT_EQ(out.const_data_ptr(), loaded.method()->get_input(0).toTensor().const_data_ptr());
  for (ssize_t i = 0; i < out.numel(); ++i) EXPECT_EQ(out.const_data_ptr<float>()[i], 2.0f);
}

TEST(ArgumentOverlap, AdjacentTensorsDoNotOverlap) {
  // out right after x: [88, 112) of a buffer grown to hold it.
  MethodLoader loaded(add_program([](fb::ExecutionPlanT& plan) {
    plan.non_const_buffer_sizes[1] = 112;
    tensor(plan, kOut).allocation_info->memory_offset_low = 88;
  }));
  EXPECT_EQ(loaded.method_error(), Error::Ok) << loaded.log();
}

TEST(ArgumentOverlap, ATensorListItemOverlappingAnArgumentIsInvalidProgram) {
  MethodLoader loaded(add_program([](fb::ExecutionPlanT& plan) {
    const int32_t item = add_planned_tensor(plan, 40);  // [40, 64): inside y's [32, 56) in part
    pass_tensor_list(plan, {item});
  }));
  EXPECT_EQ(loaded.method_error(), Error::InvalidProgram);
  EXPECT_THAT(loaded.log(), HasSubstr("value 1 (bytes [32, 56) of planned buffer 1) and value 4 (bytes [40, 64))"));
}

TEST(ArgumentOverlap, MoreTensorsThanTheStackHoldsAreComparedPairwise) {
  std::vector<int32_t> items(kSortedOverlapRanges + 6, kX);  // x again and again: the same memory
  MethodLoader same(add_program([&](fb::ExecutionPlanT& plan) { pass_tensor_list(plan, items); }));
  EXPECT_EQ(same.method_error(), Error::Ok) << same.log();
  MethodLoader overlapping(add_program([&](fb::ExecutionPlanT& plan) {
    std::vector<int32_t> with_overlap = items;
    with_overlap.push_back(add_planned_tensor(plan, 76));  // [76, 100) over x's [64, 88), past the buffer's 96
    plan.non_const_buffer_sizes[1] = 100;
    pass_tensor_list(plan, with_overlap);
  }));
  EXPECT_EQ(overlapping.method_error(), Error::InvalidProgram);
  EXPECT_THAT(overlapping.log(), HasSubstr("value 0 (bytes [64, 88) of planned buffer 1) and value 4 (bytes [76, 100))"));
}

}  // namespace
}  // namespace kiln::runtime
