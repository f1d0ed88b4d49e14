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
#include "backends/onednn/test/runtime_runner.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/loader/buffer_data_loader.h"

namespace kiln::backends::onednn {
namespace {

using aot::ExportedProgram;
using aot::HostTensor;
using runtime::Error;
using runtime::EValue;
using runtime::Result;
using testing::RuntimeRunner;

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
  // Every fixture but conv1d_net, whose batch is dynamic: OneDnnBackend
  // takes a run-time size only in a matmul's rows (dynamic_batch's linears),
  // so its convolutions run on the portable kernels.
  const bool dynamic = p.fixture == "conv1d_net";
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
