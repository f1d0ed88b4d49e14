// DemoBackend end to end: every golden fixture (both IR levels) partitioned
// to DemoBackend, lowered to a .pte, loaded and run on the runtime (portable
// kernels for the rest, DemoBackend's runtime half for the delegates), gives
// the reference interpreter's results, case after case. And the two ways a
// delegate fails to load: a backend no runtime registered (NotFound, named)
// and a blob its backend refuses (DelegateInvalidCompatibility).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "aot/delegate/backend_api.h"
#include "aot/delegate/canonical_partitioners.h"
#include "aot/delegate/debug_handle.h"
#include "aot/emit/to_executorch.h"
#include "aot/import/pt2_reader.h"
#include "aot/import/testing/golden_fixtures.h"
#include "aot/ir/graph_builder.h"
#include "aot/passes/decompose.h"
#include "models/conv_relu_tan.h"
#include "runtime/backend/test/backend_test_util.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/loader/buffer_data_loader.h"
#include "tests/support/host_tensors.h"

namespace kiln::backends::demo {
namespace {

using aot::ExportedProgram;
using aot::HostTensor;
using runtime::Error;
using runtime::EValue;
using runtime::Result;
using runtime::testing::LogCapture;
using runtime::testing::OwnedTensor;
using ::testing::HasSubstr;

// One .pte held in memory, its "forward" loaded with fixed-size pools and
// planned buffers sized from MethodMeta, as an app with full control would.
class RuntimeRunner {
 public:
  explicit RuntimeRunner(std::vector<uint8_t> pte) : pte_(std::move(pte)), loader_(pte_.data(), pte_.size()) {}

  Error load() {
    Result<runtime::Program> program =
        runtime::Program::load(&loader_, runtime::Program::Verification::InternalConsistency);
    if (!program.ok()) return program.error();
    program_.emplace(std::move(program.get()));
    Result<runtime::MethodMeta> meta = program_->method_meta("forward");
    if (!meta.ok()) return meta.error();
    for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
      planned_.emplace_back(static_cast<size_t>(meta->memory_planned_buffer_size(i).get()));
    }
    for (auto& buffer : planned_) spans_.emplace_back(buffer.data(), buffer.size());
    planned_memory_.emplace(runtime::Span<runtime::Span<uint8_t>>(spans_.data(), spans_.size()));
    manager_.emplace(&method_allocator_, &*planned_memory_, &temp_allocator_);
    Result<runtime::Method> method = program_->load_method("forward", &*manager_);
    if (!method.ok()) return method.error();
    method_.emplace(std::move(method.get()));
    return Error::Ok;
  }

  const runtime::Program& program() const { return *program_; }
  size_t method_bytes_used() const { return method_allocator_.used_size(); }

  /// Runs one call; every output as a HostTensor.
  std::vector<HostTensor> run(const std::vector<aot::Value>& inputs) {
    std::vector<std::unique_ptr<OwnedTensor>> tensors;
    std::vector<EValue> values;
    for (const aot::Value& input : inputs) {
      tensors.push_back(std::make_unique<OwnedTensor>(std::get<HostTensor>(input)));
      values.push_back(tensors.back()->value());
    }
    EXPECT_EQ(method_->set_inputs({values.data(), values.size()}), Error::Ok);
    EXPECT_EQ(method_->execute(), Error::Ok);
    std::vector<HostTensor> outputs;
    for (size_t i = 0; i < method_->outputs_size(); ++i) {
      outputs.push_back(runtime::testing::to_host(method_->get_output(i), "output " + std::to_string(i)));
    }
    return outputs;
  }

 private:
  std::vector<uint8_t> pte_;
  runtime::BufferDataLoader loader_;
  std::optional<runtime::Program> program_;
  std::vector<uint8_t> method_pool_ = std::vector<uint8_t>(8 << 20);
  std::vector<uint8_t> temp_pool_ = std::vector<uint8_t>(1 << 20);
  runtime::MemoryAllocator method_allocator_{static_cast<uint32_t>(method_pool_.size()), method_pool_.data()};
  runtime::MemoryAllocator temp_allocator_{static_cast<uint32_t>(temp_pool_.size()), temp_pool_.data()};
  std::vector<std::vector<uint8_t>> planned_;
  std::vector<runtime::Span<uint8_t>> spans_;
  std::optional<runtime::HierarchicalAllocator> planned_memory_;
  std::optional<runtime::MemoryManager> manager_;
  std::optional<runtime::Method> method_;
};

// What the method returns for one case, from the interpreter's run of the
// same program: the plan's outputs are the program's outputs without buffer
// mutations, a mutated user input giving that input's value after the call.
std::vector<HostTensor> expected_plan_outputs(const ExportedProgram& executable, const aot::testing::CaseResult& run) {
  const aot::GraphSignature& signature = executable.graph_signature();
  std::vector<std::string> user_inputs;
  for (const aot::InputSpec& spec : signature.input_specs) {
    if (spec.kind == aot::InputKind::UserInput) user_inputs.push_back(spec.arg.name);
  }
  std::vector<HostTensor> expected;
  size_t next_output = 0;
  for (const aot::OutputSpec& spec : signature.output_specs) {
    if (spec.kind == aot::OutputKind::BufferMutation || spec.kind == aot::OutputKind::Token) continue;
    if (spec.kind == aot::OutputKind::UserInputMutation) {
      const auto it = std::find(user_inputs.begin(), user_inputs.end(), spec.target);
      expected.push_back(run.inputs_after.at(static_cast<size_t>(it - user_inputs.begin())));
    } else {
      expected.push_back(run.outputs.at(next_output++));
    }
  }
  return expected;
}

struct FixtureFile {
  std::string fixture;
  std::string file;
};

void PrintTo(const FixtureFile& f, std::ostream* out) { *out << f.fixture << "/" << f.file; }

std::vector<FixtureFile> fixture_files() {
  std::vector<FixtureFile> result;
  for (const auto& fixture : aot::testing::fixture_manifest().at("fixtures")) {
    for (const auto& [file, unused] : fixture.at("programs").items()) result.push_back({fixture.at("name"), file});
  }
  return result;
}

class DemoBackendPteTest : public ::testing::TestWithParam<FixtureFile> {};

TEST_P(DemoBackendPteTest, RunsOnTheRuntimeWithTheInterpretersResults) {
  const FixtureFile& p = GetParam();
  ExportedProgram program = aot::load_pt2(aot::testing::kFixtures + p.fixture + "/" + p.file);
  if (program.dialect() == aot::kTrainingDialect) program = aot::transform(program, {aot::decompose_to_core_aten()});
  ExportedProgram lowered = aot::to_backend(program, aot::CapabilityPartitioner("DemoBackend"));
  const size_t delegates = aot::get_lowered_backend_modules(lowered).size();
  const aot::ExecutorchProgram pte = aot::to_executorch(lowered);

  RuntimeRunner runner(pte.buffer);
  ASSERT_EQ(runner.load(), Error::Ok);
  Result<runtime::MethodMeta> meta = runner.program().method_meta("forward");
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->uses_backend("DemoBackend"), delegates > 0);
  // Every fixture but those with a dynamic batch, which DemoBackend does not take.
  const bool dynamic = p.fixture == "dynamic_batch" || p.fixture == "conv1d_net";
  EXPECT_EQ(delegates > 0, !dynamic) << delegates << " delegates";

  // Case after case on one method: mutated buffers carry over on both sides,
  // and nothing is taken from the method allocator after load.
  const size_t loaded_bytes = runner.method_bytes_used();
  const auto& fixtures = aot::testing::fixture_manifest().at("fixtures");
  const auto fixture =
      std::find_if(fixtures.begin(), fixtures.end(), [&](const auto& f) { return f.at("name") == p.fixture; });
  for (const std::string& name : aot::testing::manifest_cases(*fixture)) {
    const std::vector<aot::Value> inputs = aot::testing::read_case_inputs(p.fixture, name);
    const std::vector<HostTensor> actual = runner.run(inputs);
    const std::vector<HostTensor> expected =
        expected_plan_outputs(pte.executable, aot::testing::run_case(lowered, p.fixture, name));
    ASSERT_EQ(actual.size(), expected.size()) << name;
    for (size_t i = 0; i < actual.size(); ++i) {
      aot::testing::expect_close(actual[i], expected[i], p.fixture + " " + name + " output " + std::to_string(i));
    }
  }
  EXPECT_EQ(runner.method_bytes_used(), loaded_bytes);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, DemoBackendPteTest, ::testing::ValuesIn(fixture_files()), [](const auto& info) {
  std::string name = info.param.fixture + "_" + info.param.file;
  for (char& ch : name) if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
});

// y = relu(x * w) + 1: wholly delegated to DemoBackend.
std::vector<uint8_t> demo_backend_pte() {
  aot::GraphBuilder b;
  aot::Node* x = b.input("x", aot::f32({2, 3}));
  aot::Node* w = b.parameter("w", HostTensor::zeros(aot::ScalarType::Float, {2, 3}));
  b.output({b.call("aten::add.Tensor", {b.call("aten::relu", {b.call("aten::mul.Tensor", {x, w})}), 1.0})});
  return aot::to_executorch(aot::to_backend(std::move(b).build(), aot::CapabilityPartitioner("DemoBackend"))).buffer;
}

TEST(DemoBackendPteErrorsTest, ABackendNoRuntimeRegisteredIsNotFoundAndNamed) {
  // BackendWithDelegateMappingDemo has an AOT half only.
  ExportedProgram program = models::conv_relu_tan({1, 4, 4, 0});
  aot::generate_debug_handles(program);
  const aot::CapabilityPartitioner partitioner("BackendWithDelegateMappingDemo");
  RuntimeRunner runner(aot::to_executorch(aot::to_backend(program, partitioner)).buffer);
  LogCapture log;
  EXPECT_EQ(runner.load(), Error::NotFound);
  EXPECT_THAT(log.text(), HasSubstr("BackendWithDelegateMappingDemo"));
}

TEST(DemoBackendPteErrorsTest, ABlobTheBackendRefusesFailsTheLoad) {
  std::vector<uint8_t> pte = demo_backend_pte();
  ASSERT_EQ(RuntimeRunner(pte).load(), Error::Ok);
  const char magic[] = {'K', 'D', 'M', '1'};
  const auto blob = std::search(pte.begin(), pte.end(), std::begin(magic), std::end(magic));
  ASSERT_NE(blob, pte.end());
  blob[3] = '9';
  RuntimeRunner runner(pte);
  LogCapture log;
  EXPECT_EQ(runner.load(), Error::DelegateInvalidCompatibility);
  EXPECT_THAT(log.text(), HasSubstr("demo blob: bad magic (expected KDM1)"));
}

}  // namespace
}  // namespace kiln::backends::demo
