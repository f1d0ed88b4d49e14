// Several methods through lower(): each program method lowered on its own
// (its delegates, its memory plan) and run on the runtime with PyTorch's
// results, the constant methods beside them, the debug record of the main
// method; and load_program_methods, which reads them from .pt2 files: the
// archive's kiln/constant_methods.json, a --constant-methods file over it,
// further programs, and each refusal naming the file, the key or the name.
#include "aot/pipeline/program_methods.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "aot/emit/pte_reader.h"
#include "aot/import/pt2_reader.h"
#include "aot/import/testing/golden_fixtures.h"
#include "aot/ir/error.h"
#include "aot/ir/testing/aot_testing.h"
#include "runtime/module/module.h"
#include "tests/support/host_tensors.h"
#include "tests/support/method_test_util.h"
#include "tests/support/program_test_util.h"

// A namespace of its own: the pipeline tests build as one unity file.
namespace kiln::aot::program_methods_test {
namespace {

using testing::error_of;

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using runtime::EValue;
using runtime::Module;

std::string fixture_path(const std::string& name, const std::string& file) {
  return std::string(KILN_SOURCE_DIR) + "/tests/fixtures/" + name + "/" + file;
}

ExportedProgram fixture(const std::string& name, const std::string& file) { return load_pt2(fixture_path(name, file)); }

std::string write_text(const std::string& stem, const std::string& text) {
  return runtime::testing::write_temp_file(std::vector<uint8_t>(text.begin(), text.end()), stem);
}

std::vector<std::string> plan_names(const std::vector<uint8_t>& pte) {
  const pte::PteFile file = pte::read_pte(pte);
  std::vector<std::string> names;
  for (const auto& plan : file.program->execution_plan) names.push_back(plan->name);
  return names;
}

// Runs `method` of the .pte in `module` on a fixture case and compares each
// output with PyTorch's.
void expect_case(Module& module, const std::string& method, const std::string& fixture, const std::string& case_name) {
  SCOPED_TRACE(method + " on " + fixture + "/" + case_name);
  std::vector<std::unique_ptr<runtime::testing::OwnedTensor>> tensors;
  std::vector<EValue> inputs;
  for (const Value& input : testing::read_case_inputs(fixture, case_name)) {
    tensors.push_back(std::make_unique<runtime::testing::OwnedTensor>(std::get<HostTensor>(input)));
    inputs.push_back(tensors.back()->value());
  }
  runtime::Result<std::vector<EValue>> outputs = module.execute(method, inputs);
  ASSERT_TRUE(outputs.ok()) << runtime::to_string(outputs.error());
  const auto expected = testing::read_case_expected(fixture, case_name);
  for (size_t i = 0; i < outputs->size(); ++i) {
    const std::string key = "output_" + std::to_string(i);
    runtime::method_testing::expect_matches(runtime::testing::to_host((*outputs)[i], key), expected.at(key), key);
  }
}

TEST(LowerMethods, EachProgramMethodRunsAsPyTorchDidBesideTheConstants) {
  ProgramMethods methods;
  methods.programs.emplace("forward", fixture("mlp", "model.pt2"));
  methods.programs.emplace("decode", fixture("split_cast", "model.core.pt2"));
  methods.constants = {{"get_bos_id", int64_t{1}}, {"get_eos_ids", std::vector<int64_t>{2, 3}}};
  LowerOptions options;
  options.debug_record = true;
  const LoweredProgram lowered = lower(std::move(methods), options);
  EXPECT_EQ(lowered.method_name, "forward");
  ASSERT_EQ(lowered.other_methods.size(), 1u);
  EXPECT_EQ(lowered.other_methods[0].name, "decode");
  EXPECT_EQ(lowered.executorch->other_methods.at(0).name, "decode");
  EXPECT_THAT(plan_names(lowered.buffer()), ElementsAre("decode", "forward", "get_bos_id", "get_eos_ids"));

  // The debug record's nodes are the main method's, as if it had been lowered alone.
  const LoweredProgram alone = lower(fixture("mlp", "model.pt2"), options);
  EXPECT_EQ(lowered.executorch->emitted.debug_maps_of("forward").debug_handle_map,
            alone.executorch->emitted.debug_maps_of("forward").debug_handle_map);
  ASSERT_TRUE(lowered.source_nodes.has_value());
  EXPECT_EQ(lowered.source_nodes->size(), alone.source_nodes->size());

  Module module(runtime::testing::write_temp_file(lowered.buffer(), "lower_methods"));
  expect_case(module, "forward", "mlp", "case0");
  expect_case(module, "decode", "split_cast", "case0");
  runtime::Result<EValue> bos = module.constant_value("get_bos_id");
  ASSERT_TRUE(bos.ok());
  EXPECT_EQ(bos->toInt(), 1);
}

TEST(LowerMethods, EveryProgramMethodGoesToTheBackends) {
  ProgramMethods methods;
  methods.programs.emplace("forward", fixture("mlp", "model.core.pt2"));
  methods.programs.emplace("prefill", fixture("buffer_mutation", "model.core.pt2"));
  LowerOptions options;
  options.backends = {"DemoBackend"};
  const LoweredProgram lowered = lower(std::move(methods), options);
  ASSERT_EQ(lowered.other_methods.size(), 1u);
  EXPECT_EQ(lowered.reports.size(), 1u);
  EXPECT_EQ(lowered.other_methods[0].reports.size(), 1u);
  EXPECT_FALSE(get_lowered_submodules(lowered.other_methods[0].delegated).empty());
  Module module(runtime::testing::write_temp_file(lowered.buffer(), "lower_methods_demo"));
  expect_case(module, "forward", "mlp", "case0");
  expect_case(module, "prefill", "buffer_mutation", "case0");
}

TEST(LowerMethods, WithoutForwardTheFirstMethodIsTheMain) {
  ProgramMethods methods;
  methods.programs.emplace("b_second", fixture("mlp", "model.core.pt2"));
  methods.programs.emplace("a_first", fixture("split_cast", "model.core.pt2"));
  const LoweredProgram lowered = lower(std::move(methods));
  EXPECT_EQ(lowered.method_name, "a_first");
  EXPECT_EQ(lowered.executorch->method_name, "a_first");
  EXPECT_EQ(lowered.other_methods.at(0).name, "b_second");
}

TEST(LowerMethods, RefusalsNameTheMethod) {
  const auto methods = [] {
    ProgramMethods m;
    m.programs.emplace("forward", fixture("mlp", "model.core.pt2"));
    m.programs.emplace("decode", fixture("split_cast", "model.core.pt2"));
    return m;
  };
  EXPECT_THAT(error_of([&] {
                ProgramMethods m = methods();
                m.constants.emplace("decode", int64_t{1});
                lower(std::move(m));
              }),
              HasSubstr("constant method 'decode' has the name of a program method; method names must differ"));
  EXPECT_THAT(error_of([] { lower(ProgramMethods{}); }), HasSubstr("a .pte needs at least one program method"));
  EXPECT_THAT(error_of([&] {
                ProgramMethods m = methods();
                m.constants.emplace("", int64_t{1});
                lower(std::move(m));
              }),
              HasSubstr("a constant method has an empty name"));
  LowerOptions no_kernels;
  no_kernels.has_kernel = [](const std::string& op) { return op.rfind("aten::hardtanh", 0) != 0; };  // decode's clamp
  EXPECT_THAT(error_of([&] { lower(methods(), no_kernels); }), HasSubstr("method 'decode': "));
}

// kv_cache_index_copy's archives carry kiln/constant_methods.json
// (tools/fixtures/generate.py).
const ConstantMethods kArchiveConstants{{"get_eos_ids", std::vector<int64_t>{2, 3}},
                                        {"get_max_seq_len", int64_t{6}},
                                        {"get_name", std::string("kv_cache_index_copy")},
                                        {"get_scale", 0.5},
                                        {"use_kv_cache", true}};

TEST(LoadProgramMethods, TheArchivesConstantMethodsAndAFileOverThem) {
  MethodSources sources;
  sources.path = fixture_path("kv_cache_index_copy", "model.core.pt2");
  EXPECT_EQ(pt2_constant_methods(sources.path), kArchiveConstants);
  EXPECT_TRUE(pt2_constant_methods(fixture_path("mlp", "model.pt2")).empty());
  ProgramMethods methods = load_program_methods(sources);
  EXPECT_EQ(methods.constants, kArchiveConstants);
  ASSERT_EQ(methods.programs.size(), 1u);
  EXPECT_EQ(methods.programs.count("forward"), 1u);

  sources.constant_methods_path = write_text("constants.json", R"({"get_max_seq_len": 4, "get_bos_id": 1})");
  sources.programs = {{"decode", fixture_path("mlp", "model.core.pt2")}};
  methods = load_program_methods(sources);
  ConstantMethods expected = kArchiveConstants;
  expected["get_max_seq_len"] = int64_t{4};
  expected["get_bos_id"] = int64_t{1};
  EXPECT_EQ(methods.constants, expected);
  EXPECT_EQ(methods.programs.size(), 2u);

  const LoweredProgram lowered = lower(std::move(methods));
  EXPECT_THAT(plan_names(lowered.buffer()), ElementsAre("decode", "forward", "get_bos_id", "get_eos_ids",
                                                        "get_max_seq_len", "get_name", "get_scale", "use_kv_cache"));
  Module module(runtime::testing::write_temp_file(lowered.buffer(), "kv_cache_methods"));
  expect_case(module, "forward", "kv_cache_index_copy", "case0");
  expect_case(module, "decode", "mlp", "case0");
  runtime::Result<EValue> length = module.constant_value("get_max_seq_len");
  ASSERT_TRUE(length.ok());
  EXPECT_EQ(length->toInt(), 4);
}

TEST(LoadProgramMethods, RefusalsNameTheFileTheKeyOrTheName) {
  const std::string mlp = fixture_path("mlp", "model.core.pt2");
  const auto error = [&](std::vector<std::pair<std::string, std::string>> programs, const std::string& constants) {
    return error_of([&] { load_program_methods(MethodSources{mlp, "", std::move(programs), constants}); });
  };
  EXPECT_THAT(error({{"forward", mlp}}, ""), HasSubstr("'forward' is the main program's method; name the method from"));
  EXPECT_THAT(error({{"decode", mlp}, {"decode", mlp}}, ""), HasSubstr("two program methods are named 'decode'"));
  EXPECT_THAT(error({{"", mlp}}, ""), HasSubstr("has an empty name"));
  EXPECT_THAT(error({{"decode", "/no/such/file.pt2"}}, ""), HasSubstr("/no/such/file.pt2: cannot open"));
  EXPECT_THAT(error({}, "/no/such/constants.json"), HasSubstr("/no/such/constants.json: cannot open"));
  const std::string bad_json = write_text("bad.json", R"({"get_bos_id": )");
  EXPECT_THAT(error({}, bad_json), HasSubstr(bad_json + ": not valid JSON"));
  const std::string mixed = write_text("mixed.json", R"({"get_eos_ids": [1, 2.5]})");
  EXPECT_THAT(error({}, mixed), HasSubstr(mixed + ": 'get_eos_ids'[1] is a float (2.5) in a list of integers"));
  const std::string clash = write_text("clash.json", R"({"decode": 1})");
  EXPECT_THAT(error({{"decode", mlp}}, clash), HasSubstr("constant method 'decode' has the name of a program method"));
}

}  // namespace
}  // namespace kiln::aot::program_methods_test
