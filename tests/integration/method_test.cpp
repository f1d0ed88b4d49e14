// Method on real programs: every golden fixture lowered by Kiln (both IR
// levels) runs on the runtime with the reference interpreter's and PyTorch's
// results; every ExecuTorch-written .pte of tests/fixtures/pte runs with its
// recorded outputs (buffer state carried from call to call). Bad inputs and
// memory: method_io_test.cpp; instructions and kernels:
// method_instructions_test.cpp; delegates: method_delegates_test.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "aot/emit/to_executorch.h"
#include "aot/import/npz.h"
#include "aot/import/testing/golden_fixtures.h"
#include "tests/support/method_test_util.h"

namespace kiln::runtime {
namespace {

namespace fb = executorch_flatbuffer;
using namespace method_testing;
using ::testing::HasSubstr;

// ---- Kiln's .pte of every golden fixture ------------------------------------------

struct FixtureProgram {
  std::string fixture;
  std::string file;
  std::vector<std::string> cases;
};

void PrintTo(const FixtureProgram& p, std::ostream* out) { *out << p.fixture << "/" << p.file; }

std::vector<FixtureProgram> fixture_programs() {
  std::vector<FixtureProgram> result;
  for (const auto& fixture : aot::testing::fixture_manifest().at("fixtures")) {
    for (const auto& [file, unused] : fixture.at("programs").items()) {
      result.push_back({fixture.at("name"), file, aot::testing::manifest_cases(fixture)});
    }
  }
  return result;
}

/// The bytes of each mutable buffer the plan names, read from planned memory.
std::map<std::string, HostTensor> planned_buffers(const LoadedProgram& program, const Memory& memory) {
  std::map<std::string, HostTensor> buffers;
  const auto* values = program.plan()->values();
  for (size_t i = 0; i < values->size(); ++i) {
    const fb::Tensor* tensor = values->Get(i)->val_as_Tensor();
    if (tensor == nullptr || tensor->extra_tensor_info() == nullptr || tensor->allocation_info() == nullptr ||
        tensor->extra_tensor_info()->fully_qualified_name() == nullptr) {
      continue;
    }
    std::vector<int64_t> sizes(tensor->sizes()->begin(), tensor->sizes()->end());
    HostTensor host = HostTensor::zeros(static_cast<ScalarType>(tensor->scalar_type()), sizes);
    const auto* info = tensor->allocation_info();
    std::memcpy(host.data(), memory.buffers.at(info->memory_id() - 1).data() + info->memory_offset_low(), host.nbytes());
    buffers[tensor->extra_tensor_info()->fully_qualified_name()->str()] = host;
  }
  return buffers;
}

class KilnMethodFixtureTest : public ::testing::TestWithParam<FixtureProgram> {};

TEST_P(KilnMethodFixtureTest, RunsWithTheInterpretersAndPyTorchsResults) {
  const FixtureProgram& p = GetParam();
  const aot::ExecutorchProgram lowered = aot::to_executorch(load_fixture(p.fixture, p.file));
  const auto loaded = load_program(lowered.buffer);
  ASSERT_NE(loaded, nullptr);
  Memory memory(*loaded);
  Result<Method> method = load_method(*loaded, memory);
  ASSERT_TRUE(method.ok()) << to_string(method.error());

  aot::ExportedProgram reference = load_fixture(p.fixture, p.file);  // its state advances with the cases
  std::map<std::string, HostTensor> initial_buffers;
  for (const auto& [fqn, tensor] : reference.named_buffers()) initial_buffers[fqn] = tensor.clone();
  const auto* plan_inputs = loaded->plan()->inputs();
  const auto* plan_outputs = loaded->plan()->outputs();
  size_t compared = 0;
  for (const std::string& name : p.cases) {
    SCOPED_TRACE(p.fixture + "/" + p.file + " " + name);
    const aot::testing::CaseResult expected_run = aot::testing::run_case(reference, p.fixture, name);
    const std::map<std::string, HostTensor> expected = aot::testing::read_case_expected(p.fixture, name);
    const std::vector<HostTensor> outputs = run(*method, tensors_of(aot::testing::read_case_inputs(p.fixture, name)));
    ASSERT_FALSE(::testing::Test::HasFailure());
    // The plan lists mutated user inputs first, then the user outputs.
    ASSERT_GE(outputs.size(), expected_run.outputs.size());
    const size_t first_user = outputs.size() - expected_run.outputs.size();
    for (size_t i = 0; i < expected_run.outputs.size(); ++i, ++compared) {
      expect_matches(outputs[first_user + i], expected_run.outputs[i], "output " + std::to_string(i) + " vs interpreter");
      expect_matches(outputs[first_user + i], expected.at("output_" + std::to_string(i)),
                     "output " + std::to_string(i) + " vs PyTorch");
    }
    for (size_t o = 0; o < first_user; ++o) {
      for (size_t i = 0; i < plan_inputs->size(); ++i) {
        if (plan_inputs->Get(i) != plan_outputs->Get(o)) continue;
        expect_matches(outputs[o], expected.at("input_" + std::to_string(i)), "input " + std::to_string(i) + " after");
      }
    }
    // Every buffer PyTorch recorded: a planned (mutated) one as the runtime
    // left it, any other as the program's constant, which nothing may write.
    const std::map<std::string, HostTensor> planned = planned_buffers(*loaded, memory);
    for (const auto& [key, want] : expected) {
      if (key.rfind("buffer:", 0) != 0) continue;
      const std::string fqn = key.substr(std::string("buffer:").size());
      if (const auto it = planned.find(fqn); it != planned.end()) {
        expect_matches(it->second, want, "buffer " + fqn);
        continue;
      }
      const auto initial = initial_buffers.find(fqn);
      ASSERT_NE(initial, initial_buffers.end()) << "PyTorch has buffer " << fqn << ", the program has none of that name";
      expect_matches(initial->second, want, "buffer " + fqn + " (not planned: never written)");
    }
  }
  EXPECT_GT(compared, 0u);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, KilnMethodFixtureTest, ::testing::ValuesIn(fixture_programs()), [](const auto& info) {
  std::string name = info.param.fixture + "_" + info.param.file;
  for (char& ch : name) if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
});

// ---- ExecuTorch's .pte files --------------------------------------------------------

nlohmann::json pte_manifest() {
  std::ifstream in(kPteDir + "manifest.json");
  return nlohmann::json::parse(in);
}
TEST(ExecutorchFiles, RunWithTheirRecordedOutputs) {
  const nlohmann::json files = pte_manifest()["files"];
  ASSERT_GE(files.size(), 8u);
  for (const nlohmann::json& entry : files) {
    const std::string file = entry["file"];
    SCOPED_TRACE(file);
    const auto loaded = load_program(read_bytes(kPteDir + file));
    ASSERT_NE(loaded, nullptr);
    Memory memory(*loaded);
    Result<Method> method = load_method(*loaded, memory);
    ASSERT_TRUE(method.ok()) << to_string(method.error());
    const std::vector<HostTensor> inputs = npz_tensors(kPteDir + entry["inputs_npz"].get<std::string>());
    std::map<std::string, HostTensor> expected;
    for (auto& [key, tensor] : aot::read_npz(kPteDir + entry["expected_npz"].get<std::string>())) expected[key] = tensor;
    for (int call = 0; call < entry["calls"].get<int>(); ++call) {
      const std::vector<HostTensor> outputs = run(*method, inputs);
      ASSERT_FALSE(::testing::Test::HasFailure());
      const std::string prefix = call == 0 ? "output_" : "call" + std::to_string(call) + "_output_";
      ASSERT_EQ(outputs.size(), entry["output_value_indices"].size());
      for (size_t i = 0; i < outputs.size(); ++i) {
        expect_matches(outputs[i], expected.at(prefix + std::to_string(i)), prefix + std::to_string(i));
      }
    }
  }
}

TEST(MethodState, BufferMutationPersistsAcrossExecutes) {
  // count starts at 5 (its initial value is in the file); out = (x + count) * 2; count += 1.
  ExecutorchFile file("buffer_init.pte");
  ASSERT_TRUE(file.method);
  const std::vector<HostTensor> x = npz_tensors(kPteDir + "buffer_init.inputs.npz");
  std::map<std::string, HostTensor> expected;
  for (auto& [key, tensor] : aot::read_npz(kPteDir + "buffer_init.expected.npz")) expected[key] = tensor;
  const std::vector<HostTensor> first = run(*file.method, x);
  const std::vector<HostTensor> second = run(*file.method, x);
  ASSERT_FALSE(::testing::Test::HasFailure());
  ASSERT_EQ(first.size(), 1u);
  EXPECT_NE(first[0].to_doubles(), second[0].to_doubles());  // the state carried over
  expect_matches(first[0], expected.at("output_0"), "first call");
  expect_matches(second[0], expected.at("call1_output_0"), "second call");
}

TEST(MethodState, ExecuteTakesNoMethodMemoryAndLeavesTheTempAllocatorEmpty) {
  ExecutorchFile file("small_conv_net.pte");
  ASSERT_TRUE(file.method);
  const std::vector<HostTensor> x = npz_tensors(kPteDir + "small_conv_net.inputs.npz");
  const size_t method_bytes = file.memory->method_allocator->used_size();
  for (int call = 0; call < 3; ++call) {
    run(*file.method, x);
    EXPECT_EQ(file.memory->method_allocator->used_size(), method_bytes);
    EXPECT_EQ(file.memory->temp_allocator->used_size(), 0u);
  }
}

TEST(MethodState, AMutatedInputIsAnOutputAndTheCallersTensorIsUntouched) {
  ExecutorchFile file("input_mutation.pte");  // x.add_(y); return x * 2 -> outputs (x after, x * 2)
  ASSERT_TRUE(file.method);
  InputTensor x(filled(ScalarType::Float, {2, 3}, 1.0f));
  InputTensor y(filled(ScalarType::Float, {2, 3}, 2.0f));
  ASSERT_EQ(file.method->set_input(x.value(), 0), Error::Ok);
  ASSERT_EQ(file.method->set_input(y.value(), 1), Error::Ok);
  ASSERT_EQ(file.method->execute(), Error::Ok);
  ASSERT_EQ(file.method->outputs_size(), 2u);
  EXPECT_EQ(to_host(file.method->get_output(0).toTensor()).to_doubles(), std::vector<double>(6, 3.0));
  EXPECT_EQ(to_host(file.method->get_output(1).toTensor()).to_doubles(), std::vector<double>(6, 6.0));
  EXPECT_EQ(to_host(x.value().toTensor()).to_doubles(), std::vector<double>(6, 1.0));  // copied in, not aliased
  EValue outputs[2];
  ASSERT_EQ(file.method->get_outputs(outputs, 2), Error::Ok);
  EXPECT_EQ(outputs[1].toTensor().const_data_ptr(), file.method->get_output(1).toTensor().const_data_ptr());
}
}  // namespace
}  // namespace kiln::runtime
