// Several methods in one .pte: constant methods parsed from JSON (every kind,
// every refusal naming the source, the key and the type), each written as
// ExecuTorch writes it (equal, plan for plan, to ExecuTorch's own
// constant_methods.pte), and program methods emitted side by side (name
// order, a memory plan each, constants shared, debug maps per method, names
// that clash refused).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <functional>

#include <nlohmann/json.hpp>

#include "aot/emit/constant_methods.h"
#include "aot/emit/pte_reader.h"
#include "aot/emit/pte_text.h"
#include "aot/emit/to_executorch.h"
#include "aot/ir/error.h"
#include "aot/ir/graph_builder.h"
#include "aot/ir/testing/aot_testing.h"

namespace kiln::aot {
namespace {

using testing::error_of;

namespace fb = executorch_flatbuffer;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::string kPteDir = std::string(KILN_SOURCE_DIR) + "/tests/fixtures/pte/";

TEST(ConstantMethods, ParsesEveryKind) {
  const ConstantMethods methods = parse_constant_methods(
      R"({"get_bos_id": 1, "get_rate": 0.5, "use_kv_cache": true, "get_name": "tiny", "get_eos_ids": [2, 3],
          "get_scales": [0.25, 1.0], "get_flags": [false, true], "get_words": ["a", "b"], "get_nothing": [],
          "get_big": -9223372036854775808})",
      "test.json");
  const ConstantMethods expected{{"get_bos_id", int64_t{1}},
                                 {"get_rate", 0.5},
                                 {"use_kv_cache", true},
                                 {"get_name", std::string("tiny")},
                                 {"get_eos_ids", std::vector<int64_t>{2, 3}},
                                 {"get_scales", std::vector<double>{0.25, 1.0}},
                                 {"get_flags", std::vector<bool>{false, true}},
                                 {"get_words", std::vector<std::string>{"a", "b"}},
                                 {"get_nothing", std::vector<int64_t>{}},
                                 {"get_big", std::numeric_limits<int64_t>::min()}};
  EXPECT_EQ(methods, expected);
}

TEST(ConstantMethods, RefusalsNameTheSourceTheKeyAndTheType) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"a": )", "cm.json: not valid JSON: [json.exception.parse_error"},
      {R"([1, 2])", "cm.json: expected a JSON object of method name -> value, got a list"},
      {R"({"a": null})", "cm.json: 'a' is null; a constant method returns an integer, a float, a boolean, a string or "
                         "a list of one of those"},
      {R"({"a": {"b": 1}})", "cm.json: 'a' is an object; a constant method returns"},
      {R"({"a": [[1]]})", "cm.json: 'a'[0] is a list; a list holds integers, floats, booleans or strings"},
      {R"({"a": [{"b": 1}]})", "cm.json: 'a'[0] is an object; a list holds"},
      {R"({"a": [1, 2.5]})", "cm.json: 'a'[1] is a float (2.5) in a list of integers (a list holds one kind of value)"},
      {R"({"a": [0.5, 2]})", "cm.json: 'a'[1] is an integer (2) in a list of floats"},
      {R"({"a": [true, 1]})", "cm.json: 'a'[1] is an integer (1) in a list of booleans"},
      {R"({"a": ["x", null]})", "cm.json: 'a'[1] is null in a list of strings"},
      {R"({"a": [1, [2]]})", "cm.json: 'a'[1] is a list in a list of integers"},
      {R"({"a": 18446744073709551615})", "cm.json: 'a' is an integer (18446744073709551615) out of the range of int64"},
      {R"({"a": [1, 9223372036854775808]})", "cm.json: 'a'[1] is an integer (9223372036854775808) out of the range"},
      {R"({"": 1})", "cm.json: a constant method has an empty name"},
  };
  for (const auto& [source, message] : cases) {
    const std::string& text = source;  // clang 14 cannot capture a structured binding
    SCOPED_TRACE(text);
    EXPECT_THAT(error_of([&] { parse_constant_methods(text, "cm.json"); }), HasSubstr(message));
  }
}

TEST(ConstantMethods, PrintAsJsonWouldWriteThem) {
  EXPECT_EQ(aot::to_string(ConstantValue(int64_t{-3})), "-3");
  EXPECT_EQ(aot::to_string(ConstantValue(0.5)), "0.5");
  EXPECT_EQ(aot::to_string(ConstantValue(true)), "true");
  EXPECT_EQ(aot::to_string(ConstantValue(std::string("a \"b\""))), R"("a \"b\"")");
  EXPECT_EQ(aot::to_string(ConstantValue(std::vector<int64_t>{2, 3})), "[2, 3]");
  EXPECT_EQ(aot::to_string(ConstantValue(std::vector<bool>{true, false})), "[true, false]");
  EXPECT_EQ(aot::to_string(ConstantValue(std::vector<std::string>{"x", "y"})), R"(["x", "y"])");
  EXPECT_EQ(aot::to_string(ConstantValue(std::vector<double>{})), "[]");
}

// The fixture made by ExecuTorch's to_edge(..., constant_methods=...)
// (tools/fixtures/generate_pte.py): every constant method Kiln writes from
// the same values is ExecuTorch's plan, field for field.
TEST(ConstantMethods, AreWrittenAsExecuTorchWritesThem) {
  const nlohmann::json manifest = nlohmann::json::parse(std::ifstream(kPteDir + "manifest.json"));
  const nlohmann::json& entry = manifest.at("multi_method_files").at(0);
  const pte::PteFile file = pte::read_pte_file(kPteDir + entry.at("file").get<std::string>());
  const ConstantMethods values = parse_constant_methods(entry.at("constant_methods").dump(), "manifest");
  ASSERT_EQ(values.size(), 8u);
  for (const auto& [name, value] : values) {
    SCOPED_TRACE(name);
    const fb::ExecutionPlanT* theirs = nullptr;
    for (const auto& plan : file.program->execution_plan) {
      if (plan->name == name) theirs = plan.get();
    }
    ASSERT_NE(theirs, nullptr);
    const auto ours = emit_constant_method(name, value);
    EXPECT_TRUE(*ours == *theirs);
    // On the wire too: the object API cannot tell an empty string from a
    // missing one, and ExecuTorch writes the empty input spec.
    flatbuffers::FlatBufferBuilder builder;
    builder.Finish(fb::ExecutionPlan::Pack(builder, ours.get()));
    const auto* packed = flatbuffers::GetRoot<fb::ExecutionPlan>(builder.GetBufferPointer());
    ASSERT_NE(packed->container_meta_type(), nullptr);
    EXPECT_NE(packed->container_meta_type()->encoded_inp_str(), nullptr);
    EXPECT_EQ(ours->container_meta_type->encoded_out_str, theirs->container_meta_type->encoded_out_str);
    EXPECT_EQ(pte::constant_method_value(*theirs), aot::to_string(value));
  }
}

TEST(ConstantMethods, AScalarIsOneOutputAndAListOneOutputPerItem) {
  const auto scalar = emit_constant_method("get_bos_id", int64_t{7});
  ASSERT_EQ(scalar->values.size(), 1u);
  EXPECT_EQ(scalar->values[0]->val.AsInt()->int_val, 7);
  EXPECT_THAT(scalar->outputs, ElementsAre(0));
  EXPECT_TRUE(scalar->inputs.empty());
  ASSERT_EQ(scalar->chains.size(), 1u);
  EXPECT_TRUE(scalar->chains[0]->instructions.empty());
  EXPECT_THAT(scalar->non_const_buffer_sizes, ElementsAre(0));
  EXPECT_EQ(scalar->container_meta_type->encoded_inp_str, "");
  EXPECT_EQ(scalar->container_meta_type->encoded_out_str, R"([1, {"type": null, "context": null, "children_spec": []}])");

  const auto list = emit_constant_method("get_words", std::vector<std::string>{"a", "b"});
  ASSERT_EQ(list->values.size(), 2u);
  EXPECT_EQ(list->values[1]->val.AsString()->string_val, "b");
  EXPECT_THAT(list->outputs, ElementsAre(0, 1));
  EXPECT_EQ(list->container_meta_type->encoded_out_str,
            R"([1, {"type": "builtins.list", "context": "null", "children_spec": [)"
            R"({"type": null, "context": null, "children_spec": []}, )"
            R"({"type": null, "context": null, "children_spec": []}]}])");
  EXPECT_EQ(pte::constant_method_value(*list), R"(["a", "b"])");
}

HostTensor filled(const std::vector<int64_t>& sizes, float value) {
  HostTensor t = HostTensor::zeros(ScalarType::Float, sizes);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = value + static_cast<float>(i);
  return t;
}

// x + w, and x * w with the same weight, under other input sizes.
ExportedProgram weighted(const char* op, const std::vector<int64_t>& sizes) {
  GraphBuilder b;
  Node* x = b.input("x", f32(std::vector<SymExpr>(sizes.begin(), sizes.end())));
  Node* w = b.parameter("w", filled({sizes.back()}, 1.0f));
  b.output({b.call(op, {x, w})});
  return std::move(b).build();
}

// ExecuTorch's runtime and Kiln's refuse a String value without its string:
// an empty one is written, not left out.
TEST(ConstantMethods, AnEmptyStringIsWritten) {
  const ExportedProgram forward = [] {
    GraphBuilder b;
    b.output({b.call("aten::relu", {b.input("x", f32({2}))})});
    return std::move(b).build();
  }();
  const ConstantMethods constants = parse_constant_methods(R"({"get_name": "", "get_words": ["", "b"]})", "test");
  const std::vector<uint8_t> bytes = to_executorch({{"forward", &forward}}, constants).buffer;
  const auto* plans = fb::GetProgram(bytes.data())->execution_plan();
  size_t strings = 0;
  for (const auto* plan : *plans) {
    for (const auto* value : *plan->values()) {
      if (value->val_type() != fb::KernelTypes::String) continue;
      ASSERT_NE(value->val_as_String()->string_val(), nullptr) << plan->name()->str();
      ++strings;
    }
  }
  EXPECT_EQ(strings, 3u);
  EXPECT_EQ(pte::constant_method_value(*pte::read_pte(bytes).program->execution_plan.at(2)), R"(["", "b"])");
}

TEST(ProgramMethods, EachHasItsOwnPlanAndTheyShareConstants) {
  ExportedProgram forward = weighted("aten::add.Tensor", {2, 4});
  ExportedProgram decode = weighted("aten::mul.Tensor", {5, 4});
  for (ExportedProgram* program : {&forward, &decode}) {
    int64_t handle = 100;
    for (Node* node : program->graph()) node->meta.debug_handle = handle++;
  }
  const ConstantMethods constants{{"get_eos_ids", std::vector<int64_t>{2, 3}}, {"a_flag", true}};
  const ExecutorchProgram result =
      to_executorch({{"forward", &forward}, {"decode", &decode}}, constants, ExecutorchBackendConfig{});
  const pte::PteFile file = pte::read_pte(result.buffer);
  std::vector<std::string> names;
  for (const auto& plan : file.program->execution_plan) names.push_back(plan->name);
  // ExecuTorch's order: program methods by name, then the constant methods.
  EXPECT_THAT(names, ElementsAre("decode", "forward", "a_flag", "get_eos_ids"));
  EXPECT_EQ(file.program->constant_segment->offsets.size(), 2u) << "the weight both methods read is stored once";

  const fb::ExecutionPlanT& decode_plan = *file.program->execution_plan[0];
  const fb::ExecutionPlanT& forward_plan = *file.program->execution_plan[1];
  EXPECT_EQ(decode_plan.values[decode_plan.inputs[0]]->val.AsTensor()->sizes, (std::vector<int32_t>{5, 4}));
  EXPECT_EQ(forward_plan.values[forward_plan.inputs[0]]->val.AsTensor()->sizes, (std::vector<int32_t>{2, 4}));
  EXPECT_EQ(forward_plan.non_const_buffer_sizes[1], result.memory_plan.total_bytes());
  ASSERT_EQ(result.other_methods.size(), 1u);
  EXPECT_EQ(result.method_name, "forward");
  EXPECT_EQ(result.other_methods[0].name, "decode");
  EXPECT_EQ(decode_plan.non_const_buffer_sizes[1], result.other_methods[0].memory_plan.total_bytes());
  EXPECT_GT(decode_plan.non_const_buffer_sizes[1], forward_plan.non_const_buffer_sizes[1]);

  EXPECT_EQ(result.emitted.debug_maps.size(), 2u) << "constant methods have no debug maps";
  EXPECT_EQ(result.emitted.debug_maps_of("forward").debug_handle_map.at(0), std::vector<int64_t>{102});
  EXPECT_EQ(result.emitted.debug_maps_of("decode").debug_handle_map.at(0), std::vector<int64_t>{102});
  EXPECT_THAT(error_of([&] { result.emitted.debug_maps_of("a_flag"); }),
              HasSubstr("no program method 'a_flag' (it has: decode, forward)"));
  EXPECT_THAT(pte::describe_pte(file), HasSubstr("methods (4):\n  decode: 1 inputs, 1 outputs, 1 instructions\n"
                                                 "  forward: 1 inputs, 1 outputs, 1 instructions\n"
                                                 "  a_flag: constant true\n  get_eos_ids: constant [2, 3]\n"));
}

TEST(ProgramMethods, OneProgramIsWrittenAsBefore) {
  const ExportedProgram forward = weighted("aten::add.Tensor", {2, 4});
  EXPECT_EQ(to_executorch({{"forward", &forward}}, {}).buffer, to_executorch(forward).buffer);
}

TEST(ProgramMethods, NamesMustDifferAndErrorsNameTheMethod) {
  const ExportedProgram forward = weighted("aten::add.Tensor", {2, 4});
  const ExportedProgram other = weighted("aten::mul.Tensor", {2, 4});
  EXPECT_THAT(error_of([&] { to_executorch({{"forward", &forward}}, {{"forward", int64_t{1}}}); }),
              HasSubstr("two methods are named 'forward' (the second a constant method)"));
  EXPECT_THAT(error_of([&] { to_executorch({{"f", &forward}, {"f", &other}}, {}); }),
              HasSubstr("two methods are named 'f' (the second a program method)"));
  EXPECT_THAT(error_of([&] { to_executorch({{"", &forward}}, {}); }), HasSubstr("a program method has an empty name"));
  EXPECT_THAT(error_of([&] { to_executorch({}, {{"get_bos_id", int64_t{1}}}); }),
              HasSubstr("needs at least one program method"));

  GraphBuilder b;  // a dynamic size without a bound cannot be planned
  b.output({b.call("aten::relu", {b.input("x", f32({SymExpr::symbol("s0"), 4}))})});
  const ExportedProgram unbounded = std::move(b).build();
  EXPECT_THAT(error_of([&] { to_executorch({{"forward", &forward}, {"decode", &unbounded}}, {}); }),
              HasSubstr("method 'decode': "));
}

}  // namespace
}  // namespace kiln::aot
