// The allocation-failure sweep (every point in the main run, a sample under
// the sanitizers: tests/support/sweep.h), in the style of ExecuTorch's
// allocation_failure_stress_test: for every fixture program (ExecuTorch's,
// Kiln's portable, Kiln's with DemoBackend delegates, Kiln's with a delegate
// per other op on a handle-tracking test backend), count the allocations a
// successful Method::load makes, then make each one fail in turn. Every
// attempt must return MemoryAllocationFailed (or DelegateMemoryAllocationFailed
// when a backend's init was the one refused), log why, use no global heap and
// leave no delegate handle undestroyed; the sanitizer suite's leak checker
// covers everything else. The same for the data loader: each load of
// Program::load and Method::load made to fail in turn gives the loader's
// AccessFailed (which the loader logs, as real loaders do).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "runtime/core/log.h"
#include "runtime/executor/memory_manager.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/executor/test/failing_allocators.h"
#include "runtime/executor/test/failing_data_loader.h"
#include "runtime/executor/test/global_allocation_counter.h"
#include "runtime/executor/test/robustness_util.h"
#include "runtime/executor/test/test_backends.h"
#include "runtime/loader/buffer_data_loader.h"
#include "tests/support/fixture_programs.h"
#include "tests/support/sweep.h"

namespace kiln::runtime::testing {
namespace {

bool is_allocation_error(Error error) {
  return error == Error::MemoryAllocationFailed || error == Error::DelegateMemoryAllocationFailed;
}

// A loaded program with its first method's name and planned arenas.
struct LoadedProgram {
  BufferDataLoader loader;
  Result<Program> program;
  const char* method_name = nullptr;
  PlannedArenas planned;

  explicit LoadedProgram(const std::vector<uint8_t>& bytes)
      : loader(bytes.data(), bytes.size()),
        program(Program::load(&loader, Program::Verification::InternalConsistency)) {}
};

// Program::load, the method's name and its planned memory; a test failure if
// any of them fails.
void load_program(LoadedProgram& loaded) {
  ASSERT_TRUE(loaded.program.ok()) << to_string(loaded.program.error()) << ": " << ErrorLines::last;
  ASSERT_GE(loaded.program->num_methods(), 1u);
  const Result<const char*> name = loaded.program->get_method_name(0);
  ASSERT_TRUE(name.ok());
  loaded.method_name = name.get();
  const Result<MethodMeta> meta = loaded.program->method_meta(loaded.method_name);
  ASSERT_TRUE(meta.ok());
  ASSERT_TRUE(loaded.planned.allocate(meta.get(), kMaxPlannedBytes));
}

class AllocationFailureTest : public ::testing::TestWithParam<FixtureProgram> {
 protected:
  void SetUp() override {
    ASSERT_NE(get_backend_class("DemoBackend"), nullptr) << "link kiln_backends_demo_runtime";
    every_other_backend();
    set_log_sink(ErrorLines::sink);
  }
  void TearDown() override { set_log_sink(nullptr); }
};

TEST_P(AllocationFailureTest, EveryFailedMethodAllocationIsAnErrorAndLeavesNoHandle) {
  LoadedProgram loaded(program_bytes(GetParam()));
  ASSERT_NO_FATAL_FAILURE(load_program(loaded));
  HandleTrackingBackend& backend = every_other_backend();
  backend.clear_counts();

  // How many allocations a successful load makes.
  size_t method_calls = 0;
  size_t temp_calls = 0;
  {
    FailingAllocator method_allocator(kMethodAllocatorBytes);
    FailingAllocator temp_allocator(kTempAllocatorBytes);
    MemoryManager memory(&method_allocator, loaded.planned.allocator(), &temp_allocator);
    ErrorLines::clear();
    Result<Method> method = loaded.program->load_method(loaded.method_name, &memory);
    ASSERT_TRUE(method.ok()) << to_string(method.error()) << ": " << ErrorLines::last;
    method_calls = method_allocator.calls();
    temp_calls = temp_allocator.calls();
  }
  ASSERT_GT(method_calls, 0u) << "Method::load allocated nothing from the method allocator";
  RecordProperty("method_allocations", static_cast<int>(method_calls));
  RecordProperty("delegates_initialised", static_cast<int>(backend.inits()));
  EXPECT_EQ(temp_calls, 0u) << "Method::load used the temp allocator";
  EXPECT_EQ(backend.live(), 0u) << "a destroyed Method left delegate handles undestroyed";
  if (GetParam().source == ProgramSource::KilnEveryOther) {
    EXPECT_GT(backend.inits(), 0u) << "no delegate was initialised";
  }

  for (size_t fail_at = 0; fail_at < method_calls; ++fail_at) {
    if (!kiln::testing::sweep_includes(fail_at, method_calls)) continue;
    SCOPED_TRACE("method allocation " + std::to_string(fail_at) + " of " + std::to_string(method_calls) + " fails");
    FailingAllocator method_allocator(kMethodAllocatorBytes, fail_at);
    FailingAllocator temp_allocator(kTempAllocatorBytes);
    MemoryManager memory(&method_allocator, loaded.planned.allocator(), &temp_allocator);
    backend.clear_counts();
    ErrorLines::clear();
    Error error = Error::Ok;
    size_t heap_allocations = 0;
    {
      GlobalAllocationCounter heap;
      Result<Method> method = loaded.program->load_method(loaded.method_name, &memory);
      error = method.ok() ? Error::Ok : method.error();
      heap_allocations = heap.count();
    }
    EXPECT_TRUE(method_allocator.failed()) << "the load took another path and never made that allocation";
    EXPECT_TRUE(is_allocation_error(error)) << "got " << to_string(error);
    EXPECT_GE(ErrorLines::count, 1u) << "the error was not logged";
    EXPECT_EQ(heap_allocations, 0u) << "Method::load used the global heap";
    EXPECT_EQ(backend.live(), 0u) << backend.inits() << " delegate handles initialised, " << backend.destroys()
                                  << " destroyed";
    EXPECT_EQ(backend.unknown_destroys(), 0u) << "destroy was called on a handle init never returned";
    if (::testing::Test::HasFailure()) break;  // one failing index says enough
  }
}

TEST_P(AllocationFailureTest, EveryFailedLoadIsAnError) {
  const std::vector<uint8_t>& bytes = program_bytes(GetParam());
  const BufferDataLoader inner(bytes.data(), bytes.size());

  // How many loads a successful Program::load + Method::load makes.
  size_t program_loads = 0;
  size_t total_loads = 0;
  {
    FailingDataLoaderHandle loader(&inner);
    Result<Program> program = Program::load(loader.get(), Program::Verification::InternalConsistency);
    ASSERT_TRUE(program.ok());
    program_loads = loader.calls();
    const char* name = program->get_method_name(0).get();
    PlannedArenas planned;
    ASSERT_TRUE(planned.allocate(program->method_meta(name).get(), kMaxPlannedBytes));
    FailingAllocator method_allocator(kMethodAllocatorBytes);
    MemoryManager memory(&method_allocator, planned.allocator());
    Result<Method> method = program->load_method(name, &memory);
    ASSERT_TRUE(method.ok()) << to_string(method.error()) << ": " << ErrorLines::last;
    total_loads = loader.calls();
  }
  ASSERT_GT(program_loads, 0u);
  RecordProperty("program_loads", static_cast<int>(program_loads));
  RecordProperty("method_loads", static_cast<int>(total_loads - program_loads));

  for (size_t fail_at = 0; fail_at < total_loads; ++fail_at) {
    if (!kiln::testing::sweep_includes(fail_at, total_loads)) continue;
    SCOPED_TRACE("load " + std::to_string(fail_at) + " of " + std::to_string(total_loads) + " fails");
    FailingDataLoaderHandle loader(&inner, fail_at);
    ErrorLines::clear();
    Result<Program> program = Program::load(loader.get(), Program::Verification::InternalConsistency);
    if (fail_at < program_loads) {
      ASSERT_FALSE(program.ok()) << "Program::load ignored a failed load";
      EXPECT_EQ(program.error(), Error::AccessFailed) << "got " << to_string(program.error());
      continue;
    }
    ASSERT_TRUE(program.ok());
    const char* name = program->get_method_name(0).get();
    PlannedArenas planned;
    ASSERT_TRUE(planned.allocate(program->method_meta(name).get(), kMaxPlannedBytes));
    FailingAllocator method_allocator(kMethodAllocatorBytes);
    MemoryManager memory(&method_allocator, planned.allocator());
    Result<Method> method = program->load_method(name, &memory);
    ASSERT_FALSE(method.ok()) << "Method::load ignored a failed load";
    EXPECT_EQ(method.error(), Error::AccessFailed) << "got " << to_string(method.error());
    EXPECT_EQ(every_other_backend().live(), 0u) << "delegate handles left undestroyed";
  }
}

// Programs whose delegates have a runtime that can at least load them.
INSTANTIATE_TEST_SUITE_P(Fixtures, AllocationFailureTest,
                         ::testing::ValuesIn(fixture_programs({ProgramSource::ExecuTorch, ProgramSource::Kiln,
                                                               ProgramSource::KilnDemoBackend,
                                                               ProgramSource::KilnEveryOther})),
                         [](const ::testing::TestParamInfo<FixtureProgram>& info) { return test_name(info.param); });

}  // namespace
}  // namespace kiln::runtime::testing
