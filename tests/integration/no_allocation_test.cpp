// execute() never allocates: for every fixture program that the runtime can
// run (ExecuTorch's, Kiln's portable, Kiln's with DemoBackend delegates), after
// Method::load, setting inputs of ones and a first execute, repeated
// set_inputs + execute calls make no call to the global allocator (operator
// new in every form; malloc, calloc, realloc and the aligned forms too, except
// under AddressSanitizer, whose malloc cannot be interposed again) and none to
// the method allocator or the temp allocator, and leave the temp allocator
// empty. No portable kernel and no DemoBackend call asks for scratch memory;
// one that starts to must show up here. The exception is a kernel the
// portable registry marks as allocating (the FFT pair, on Eigen's FFT): a
// program calling one must then allocate, so that the mark stays true.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "kernels/portable/register.h"
#include "runtime/core/log.h"
#include "runtime/executor/memory_manager.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/executor/test/failing_allocators.h"
#include "tests/support/fixture_programs.h"
#include "runtime/executor/test/global_allocation_counter.h"
#include "runtime/executor/test/robustness_util.h"
#include "runtime/loader/buffer_data_loader.h"
#include "schema/program_generated.h"

namespace kiln::runtime::testing {
namespace {

constexpr size_t kMaxInputBytes = 64u << 20;
constexpr int kExecutions = 3;

class NoAllocationTest : public ::testing::TestWithParam<FixtureProgram> {
 protected:
  void SetUp() override {
    ASSERT_NE(get_backend_class("DemoBackend"), nullptr) << "link kiln_backends_demo_runtime";
    set_log_sink(ErrorLines::sink);
  }
  void TearDown() override { set_log_sink(nullptr); }
};

// The first operator of `program` whose portable kernel allocates, or "".
std::string allocating_operator(const Program& program) {
  const auto* plans = program.flatbuffer_program()->execution_plan();
  for (size_t p = 0; plans != nullptr && p < plans->size(); ++p) {
    const auto* operators = plans->Get(static_cast<unsigned>(p))->operators();
    for (size_t o = 0; operators != nullptr && o < operators->size(); ++o) {
      const auto* op = operators->Get(static_cast<unsigned>(o));
      std::string name = op->name()->str();
      if (op->overload() != nullptr && op->overload()->size() > 0) name += "." + op->overload()->str();
      for (const kernels::portable::PortableKernel& kernel : kernels::portable::portable_kernels()) {
        if (kernel.allocates && name == kernel.kernel.name) return name;
      }
    }
  }
  return "";
}

TEST(NoAllocation, TheCounterSeesTheGlobalAllocator) {
  GlobalAllocationCounter counter;
  int* volatile p = new int(1);
  delete p;
  EXPECT_EQ(counter.news(), 1u);
  if (counts_malloc()) {
    void* volatile q = std::malloc(16);
    std::free(q);
    EXPECT_EQ(counter.mallocs(), 1u);
  }
}

TEST_P(NoAllocationTest, RepeatedExecuteAllocatesNothing) {
  const std::vector<uint8_t>& bytes = program_bytes(GetParam());
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(&loader, Program::Verification::InternalConsistency);
  ASSERT_TRUE(program.ok()) << to_string(program.error()) << ": " << ErrorLines::last;
  const char* name = program->get_method_name(0).get();
  const Result<MethodMeta> meta = program->method_meta(name);
  ASSERT_TRUE(meta.ok());
  PlannedArenas planned;
  ASSERT_TRUE(planned.allocate(meta.get(), kMaxPlannedBytes));
  OnesInputs inputs;
  ASSERT_TRUE(inputs.build(meta.get(), kMaxInputBytes));
  FailingAllocator method_allocator(kMethodAllocatorBytes);
  FailingAllocator temp_allocator(kTempAllocatorBytes);
  MemoryManager memory(&method_allocator, planned.allocator(), &temp_allocator);
  Result<Method> method = program->load_method(name, &memory);
  ASSERT_TRUE(method.ok()) << to_string(method.error()) << ": " << ErrorLines::last;
  ASSERT_EQ(inputs.set(method.get()), Error::Ok) << ErrorLines::last;
  ASSERT_EQ(method->execute(), Error::Ok) << ErrorLines::last;

  const size_t method_used = method_allocator.used_size();
  method_allocator.clear_counts();
  temp_allocator.clear_counts();
  Error errors[kExecutions * 2];
  size_t heap_news = 0;
  size_t heap_mallocs = 0;
  {
    GlobalAllocationCounter heap;
    for (int i = 0; i < kExecutions; ++i) {
      errors[2 * i] = inputs.set(method.get());
      errors[2 * i + 1] = method->execute();
    }
    heap_news = heap.news();
    heap_mallocs = heap.mallocs();
  }
  for (int i = 0; i < kExecutions; ++i) {
    EXPECT_EQ(errors[2 * i], Error::Ok) << "set_inputs, call " << i;
    EXPECT_EQ(errors[2 * i + 1], Error::Ok) << "execute, call " << i << ": " << ErrorLines::last;
  }
  const std::string allocating = allocating_operator(program.get());
  if (!allocating.empty()) {
    EXPECT_GT(heap_news + heap_mallocs, 0u) << allocating << " is marked as allocating, but execute did not";
    return;
  }
  EXPECT_EQ(heap_news, 0u) << "operator new calls across " << kExecutions << " set_inputs + execute";
  EXPECT_EQ(heap_mallocs, 0u) << "malloc-family calls across " << kExecutions << " set_inputs + execute";
  EXPECT_EQ(method_allocator.calls(), 0u) << "method allocator calls during execute";
  EXPECT_EQ(method_allocator.used_size(), method_used);
  EXPECT_EQ(temp_allocator.calls(), 0u) << "temp allocator calls during execute (a kernel asked for scratch)";
  EXPECT_EQ(temp_allocator.used_size(), 0u) << "the temp allocator was not reset after execute";
}

INSTANTIATE_TEST_SUITE_P(Fixtures, NoAllocationTest,
                         ::testing::ValuesIn(fixture_programs({ProgramSource::ExecuTorch, ProgramSource::Kiln,
                                                               ProgramSource::KilnDemoBackend})),
                         [](const ::testing::TestParamInfo<FixtureProgram>& info) { return test_name(info.param); });

}  // namespace
}  // namespace kiln::runtime::testing
