// OneDnnBackend end to end: every golden fixture (both IR levels)
// partitioned to OneDnnBackend by its AOT side, lowered to a .pte, loaded and
// run on the runtime (oneDNN for the delegates, portable kernels for the
// rest) at 1 and 2 threads, gives the reference interpreter's results, case
// after case (tolerance: aot::testing::expect_close's). The runner is the
// one the DemoBackend end-to-end test uses, with a larger method pool
// (oneDNN's weights live there).
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "aot/delegate/backend_api.h"
#include "aot/delegate/canonical_partitioners.h"
#include "aot/emit/to_executorch.h"
#include "aot/import/pt2_reader.h"
#include "aot/import/testing/golden_fixtures.h"
#include "aot/passes/decompose.h"
#include "backends/onednn/onednn_blob.h"
#include "backends/onednn/runtime/onednn_runtime.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/loader/buffer_data_loader.h"
#include "runtime/module/test/host_tensors.h"

namespace kiln::backends::onednn {
namespace {

using aot::ExportedProgram;
using aot::HostTensor;
using runtime::Error;
using runtime::EValue;
using runtime::Result;
using runtime::testing::OwnedTensor;

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
  std::vector<uint8_t> method_pool_ = std::vector<uint8_t>(64 << 20);
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


std::vector<FixtureFile> fixture_files() {
  std::vector<FixtureFile> result;
  for (const auto& fixture : aot::testing::fixture_manifest().at("fixtures")) {
    for (const auto& [file, unused] : fixture.at("programs").items()) result.push_back({fixture.at("name"), file});
  }
  return result;
}

struct Case {
  FixtureFile file;
  int threads;
};

void PrintTo(const Case& c, std::ostream* out) { *out << c.file.fixture << "/" << c.file.file << " x" << c.threads; }

std::vector<Case> cases() {
  std::vector<Case> result;
  for (const FixtureFile& f : fixture_files()) {
    for (int threads : {1, 2}) result.push_back({f, threads});
  }
  return result;
}

class OneDnnPteTest : public ::testing::TestWithParam<Case> {
 protected:
  void TearDown() override { set_num_threads(1); }
};

TEST_P(OneDnnPteTest, RunsOnTheRuntimeWithTheInterpretersResults) {
  const FixtureFile& p = GetParam().file;
  set_num_threads(GetParam().threads);
  ExportedProgram program = aot::load_pt2(aot::testing::kFixtures + p.fixture + "/" + p.file);
  if (program.dialect() == aot::kTrainingDialect) program = aot::transform(program, {aot::decompose_to_core_aten()});
  ExportedProgram lowered = aot::to_backend(program, aot::CapabilityPartitioner(kBackendId));
  const size_t delegates = aot::get_lowered_backend_modules(lowered).size();
  const aot::ExecutorchProgram pte = aot::to_executorch(lowered);

  RuntimeRunner runner(pte.buffer);
  ASSERT_EQ(runner.load(), Error::Ok);
  Result<runtime::MethodMeta> meta = runner.program().method_meta("forward");
  ASSERT_TRUE(meta.ok());
  // Every fixture but those with a dynamic batch, which OneDnnBackend does
  // not take (static shapes only): they run on the portable kernels alone.
  const bool dynamic = p.fixture == "dynamic_batch" || p.fixture == "conv1d_net";
  EXPECT_EQ(delegates > 0, !dynamic) << delegates << " delegates";
  EXPECT_EQ(meta->uses_backend(kBackendId), delegates > 0);

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

INSTANTIATE_TEST_SUITE_P(Fixtures, OneDnnPteTest, ::testing::ValuesIn(cases()), [](const auto& info) {
  std::string name = info.param.file.fixture + "_" + info.param.file.file + "_" + std::to_string(info.param.threads) + "t";
  for (char& ch : name) if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
});

}  // namespace
}  // namespace kiln::backends::onednn
