// compare_program and the reference call it makes: a fixture lowered with
// its debug record, run on a RuntimeSession and compared with the .pt2 it
// came from, as `kiln compare` does; the user's inputs ordered from an .npz's
// names and called on the reference interpreter as flattened leaves.
#include "devtools/compare_program.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "aot/import/npz.h"
#include "aot/import/pt2_reader.h"
#include "aot/ir/error.h"
#include "aot/ir/testing/aot_testing.h"
#include "aot/pipeline/lower.h"
#include "aot/pipeline/reference_call.h"
#include "devtools/divergence.h"

namespace kiln::aot {
namespace {

using ::testing::HasSubstr;
using devtools::compare_program;
using devtools::ones_user_inputs;

std::string compare_fixture_path(const std::string& file) { return std::string(KILN_SOURCE_DIR) + "/tests/fixtures/" + file; }

// A fixture's .pt2 lowered with its debug record, and a session on the .pte.
struct ComparedProgram {
  LoweredProgram program;
  std::unique_ptr<devtools::RuntimeSession> session;
  devtools::DebugRecord record;
};

std::unique_ptr<ComparedProgram> lower_for_compare(const std::string& file, const std::vector<std::string>& backends = {}) {
  LowerOptions options;
  options.backends = backends;
  options.debug_record = true;
  auto lowered =
      std::make_unique<ComparedProgram>(ComparedProgram{lower(load_pt2(compare_fixture_path(file)), options), nullptr, {}});
  lowered->record = devtools::make_debug_record(lowered->program);
  const std::vector<uint8_t>& pte = lowered->program.buffer();
  lowered->session = devtools::RuntimeSession::from_bytes(pte.data(), pte.size(), file);
  return lowered;
}

std::vector<Value> fixture_case_inputs(const std::string& name, const ExportedProgram& program) {
  const std::string path = compare_fixture_path(name + "/case0.inputs.npz");
  return order_inputs(program, read_npz(path), path);
}

devtools::Comparison compare_with_source(const std::string& name, const std::string& file,
                                         const std::vector<std::string>& backends, bool case_inputs_given) {
  const auto lowered = lower_for_compare(name + "/" + file, backends);
  ExportedProgram reference = load_pt2(compare_fixture_path(name + "/" + file));
  std::optional<std::vector<Value>> inputs;
  if (case_inputs_given) inputs = fixture_case_inputs(name, reference);
  return compare_program(lowered->record, *lowered->session, std::move(reference), file,
                         std::move(inputs));
}

TEST(CompareProgram, AProgramOnThePortableKernelsIsExactlyItsSource) {
  const devtools::Comparison comparison = compare_with_source("conv_relu_tan", "model.pt2", {}, true);
  std::set<int64_t> covered;
  for (const devtools::CompareRow& row : comparison.rows) {
    EXPECT_TRUE(row.note.empty()) << row.label << ": " << row.note;
    EXPECT_TRUE(std::isinf(row.snr_db) && row.snr_db > 0) << row.label << ": " << row.snr_db;
    EXPECT_EQ(row.max_abs_error, 0.0) << row.label;
    EXPECT_EQ(row.where, "portable") << row.label;
    covered.insert(row.handles.begin(), row.handles.end());
  }
  EXPECT_EQ(covered.size(), 5u);  // conv, relu, conv, relu, tan
  EXPECT_EQ(devtools::first_divergence(comparison, 60), nullptr);
}

TEST(CompareProgram, ABackendsOpsAreComparedOnInputsOfOnes) {
  const devtools::Comparison comparison = compare_with_source("conv_relu_tan", "model.pt2", {"DemoBackend"}, false);
  bool backend_rows = false;
  for (const devtools::CompareRow& row : comparison.rows) {
    EXPECT_TRUE(row.note.empty()) << row.label << ": " << row.note;
    EXPECT_GT(row.snr_db, 100.0) << row.label;
    backend_rows |= row.where == "DemoBackend";
  }
  EXPECT_TRUE(backend_rows);
  EXPECT_THAT(devtools::format_comparison(comparison, 0, 60), HasSubstr("Every compared op is above 60.0 dB."));
}

// The reference writes a mutated user input back into its tensor; the run
// still gets the user's values.
TEST(CompareProgram, TheRunSeesTheInputsTheReferenceSaw) {
  const devtools::Comparison comparison = compare_with_source("input_mutation", "model.pt2", {}, true);
  ASSERT_FALSE(comparison.rows.empty());
  for (const devtools::CompareRow& row : comparison.rows) {
    EXPECT_TRUE(row.note.empty()) << row.label << ": " << row.note;
    EXPECT_EQ(row.max_abs_error, 0.0) << row.label;
  }
}

TEST(CompareProgram, RefusesAnotherReferenceNamingIt) {
  const auto lowered = lower_for_compare("conv_relu_tan/model.pt2");
  const std::string error = testing::error_of([&] {
    compare_program(lowered->record, *lowered->session, load_pt2(compare_fixture_path("mlp/model.pt2")),
                    "mlp.pt2");
  });
  EXPECT_THAT(error, HasSubstr("mlp.pt2 is not the program the debug record was lowered from: handle 1 is"));
}

TEST(CompareProgram, RefusesANumberForAnInput) {
  const auto lowered = lower_for_compare("mlp/model.pt2");
  EXPECT_THAT(testing::error_of([&] {
                compare_program(lowered->record, *lowered->session,
                                load_pt2(compare_fixture_path("mlp/model.pt2")), "mlp.pt2", std::vector<Value>{int64_t{3}});
              }),
              HasSubstr("passes tensor inputs only; an input is a number"));
}

TEST(OnesUserInputs, GivesOnesAtStaticShapesAndRefusesADynamicSize) {
  const std::vector<Value> ones = ones_user_inputs(load_pt2(compare_fixture_path("mlp/model.pt2")));
  ASSERT_EQ(ones.size(), 1u);
  const HostTensor& input = std::get<HostTensor>(ones[0]);
  EXPECT_EQ(input.sizes(), (std::vector<int64_t>{2, 16}));
  EXPECT_EQ(input.to_doubles(), std::vector<double>(32, 1.0));
  EXPECT_THAT(testing::error_of([] { ones_user_inputs(load_pt2(compare_fixture_path("dynamic_batch/model.pt2"))); }),
              HasSubstr("has a dynamic size; pass the inputs with --inputs"));
}

TEST(OrderInputs, TakesPositionsOrTheProgramsNames) {
  const ExportedProgram program = load_pt2(compare_fixture_path("nested_io/model.pt2"));
  const auto tensor = [](float value) { return testing::filled({2, 3}, value); };
  const auto first_values = [](const std::vector<Value>& leaves) {
    std::vector<double> values;
    for (const Value& leaf : leaves) values.push_back(std::get<HostTensor>(leaf).to_doubles()[0]);
    return values;
  };
  EXPECT_EQ(first_values(order_inputs(program, {{"arr_1", tensor(1)}, {"arr_0", tensor(0)}, {"arr_3", tensor(3)},
                                                {"arr_2", tensor(2)}}, "in.npz")),
            (std::vector<double>{0, 1, 2, 3}));
  EXPECT_EQ(first_values(order_inputs(program, {{"pair_1", tensor(3)}, {"inputs_b", tensor(1)},
                                                {"pair_0", tensor(2)}, {"inputs_a", tensor(0)}}, "in.npz")),
            (std::vector<double>{0, 1, 2, 3}));
  EXPECT_THAT(testing::error_of([&] { order_inputs(program, {{"arr_0", tensor(0)}}, "in.npz"); }),
              HasSubstr("in.npz holds 1 arrays, but the program takes 4 user inputs (inputs_a, inputs_b, pair_0, pair_1)"));
  EXPECT_THAT(testing::error_of([&] {
                order_inputs(program, {{"arr_0", tensor(0)}, {"arr_1", tensor(0)}, {"arr_2", tensor(0)},
                                       {"arr_99999999999", tensor(0)}}, "in.npz");
              }),
              HasSubstr("in.npz: array 'arr_99999999999' matches no user input (expected arr_0 ... arr_3)"));
}

TEST(CallWithLeaves, CallsTheProgramAsItsInputSpecNestsTheLeaves) {
  ExportedProgram program = load_pt2(compare_fixture_path("nested_io/model.pt2"));
  to_core_aten(program);
  const std::vector<Value> leaves = fixture_case_inputs("nested_io", program);
  size_t ops = 0;
  const PyTree result = call_with_leaves(program, leaves, [&](const Node&, const std::vector<Value>&) { ++ops; });
  EXPECT_GT(ops, 0u);
  std::map<std::string, HostTensor> expected;
  for (auto& [name, tensor] : read_npz(compare_fixture_path("nested_io/case0.expected.npz"))) expected[name] = tensor;
  const std::vector<Value> outputs = tree_flatten(result).first;
  ASSERT_EQ(outputs.size(), 4u);
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::vector<double> got = std::get<HostTensor>(outputs[i]).to_doubles();
    const std::vector<double> want = expected.at("output_" + std::to_string(i)).to_doubles();
    ASSERT_EQ(got.size(), want.size());
    for (size_t j = 0; j < got.size(); ++j) EXPECT_NEAR(got[j], want[j], 1e-5) << "output_" << i << "[" << j << "]";
  }
}

}  // namespace
}  // namespace kiln::aot
