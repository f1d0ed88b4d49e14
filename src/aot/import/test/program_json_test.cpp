#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aot/import/program_json.h"
#include "aot/import/sympy_srepr.h"
#include "aot/ir/error.h"

namespace kiln::aot {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const AotError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(SympySreprTest, ReadsWhatTorchWrites) {
  EXPECT_EQ(parse_sympy_srepr("Symbol('s77', positive=True, integer=True)").to_string(), "s77");
  EXPECT_EQ(parse_sympy_srepr("Integer(-3)").to_string(), "-3");
  EXPECT_EQ(parse_sympy_srepr("Mul(Integer(2), Symbol('s0', integer=True))").to_string(), "2*s0");
  EXPECT_EQ(parse_sympy_srepr("Add(Symbol('s0'), Integer(1))").to_string(), "s0 + 1");
  EXPECT_EQ(parse_sympy_srepr("FloorDiv(Add(Symbol('s0'), NegativeOne()), Integer(2))").to_string(),
            "((s0 - 1)//2)");
  EXPECT_EQ(parse_sympy_srepr("Pow(Symbol('s1'), Integer(2))").to_string(), "s1**2");
  EXPECT_EQ(parse_sympy_srepr("Max(One(), Symbol('s0'))").to_string(), "Max(1, s0)");
  EXPECT_EQ(parse_sympy_srepr("Mod(Symbol('s0'), Integer(4))").to_string(), "Mod(s0, 4)");
}

TEST(SympySreprTest, NamesWhatItCannotRead) {
  EXPECT_THAT(error_of([] { parse_sympy_srepr("Rational(1, 2)"); }), HasSubstr("unsupported sympy function 'Rational'"));
  EXPECT_THAT(error_of([] { parse_sympy_srepr("Symbol('s0'"); }), HasSubstr("expected ')'"));
  EXPECT_THAT(error_of([] { parse_sympy_srepr("Integer(99999999999999999999)"); }), HasSubstr("fits in 64 bits"));
  EXPECT_THAT(error_of([] { parse_sympy_srepr("Pow(Symbol('s0'), Symbol('s1'))"); }), HasSubstr("constant exponent"));
  EXPECT_THAT(error_of([] { parse_sympy_srepr(""); }), HasSubstr("expected a name"));
}

TEST(TreeSpecJsonTest, ReadsTorchTreespecDumps) {
  const std::string nested =
      R"([1, {"type": "builtins.tuple", "context": "null", "children_spec": [)"
      R"({"type": "builtins.tuple", "context": "null", "children_spec": [)"
      R"({"type": "builtins.dict", "context": "[\"a\", \"b\"]", "children_spec": [)"
      R"({"type": null, "context": null, "children_spec": []}, {"type": null, "context": null, "children_spec": []}]},)"
      R"({"type": "builtins.list", "context": "null", "children_spec": [{"type": null, "context": null, "children_spec": []}]}]},)"
      R"({"type": "builtins.dict", "context": "[]", "children_spec": []}]}])";
  EXPECT_EQ(tree_spec_from_json(nested).to_string(),
            "TreeSpec(tuple, None, [TreeSpec(tuple, None, [TreeSpec(dict, ['a', 'b'], [*, *]), "
            "TreeSpec(list, None, [*])]), TreeSpec(dict, [], [])])");
  EXPECT_EQ(tree_spec_from_json(R"([1, {"type": null, "context": null, "children_spec": []}])").to_string(), "*");
}

TEST(TreeSpecJsonTest, RejectsWhatItCannotRepresent) {
  EXPECT_THAT(error_of([] { tree_spec_from_json("[2, {}]"); }), HasSubstr("protocol 2 is not supported"));
  EXPECT_THAT(error_of([] { tree_spec_from_json("not json"); }), HasSubstr("tree spec is not JSON"));
  EXPECT_THAT(error_of([] {
                tree_spec_from_json(R"([1, {"type": "mylib.Point", "context": "null", "children_spec": []}])");
              }),
              HasSubstr("unsupported container type 'mylib.Point'"));
}

TEST(ProgramJsonTest, MapsEveryDtypeCodeAndRejectsUnknownOnes) {
  EXPECT_EQ(scalar_type_from_pt2(7), ScalarType::Float);
  EXPECT_EQ(scalar_type_from_pt2(5), ScalarType::Long);
  EXPECT_EQ(scalar_type_from_pt2(12), ScalarType::Bool);
  EXPECT_EQ(scalar_type_from_pt2(13), ScalarType::BFloat16);
  EXPECT_EQ(scalar_type_from_pt2(1), ScalarType::Byte);
  EXPECT_EQ(scalar_type_from_pt2(35), ScalarType::UInt64);
  EXPECT_THAT(error_of([] { scalar_type_from_pt2(99); }), HasSubstr("unknown or unsupported dtype code 99"));
  EXPECT_THAT(error_of([] { scalar_type_from_pt2(10); }), HasSubstr("complex dtypes are not supported"));
}

TEST(ProgramJsonTest, TensorMetaKeepsSymbolicSizesAndTheDimOrder) {
  const json channels_last = json::parse(R"J({"dtype": 7,
      "sizes": [{"as_expr": {"expr_str": "Symbol('s0', integer=True)", "hint": {"as_int": 2}}}, {"as_int": 3}, {"as_int": 4}, {"as_int": 5}],
      "strides": [{"as_int": 60}, {"as_int": 1}, {"as_int": 15}, {"as_int": 3}],
      "requires_grad": false, "storage_offset": {"as_int": 0}, "layout": 7})J");
  const TensorMeta meta = tensor_meta_from_json(channels_last);
  EXPECT_EQ(meta.to_string(), "f32[s0, 3, 4, 5]");
  EXPECT_EQ(meta.dim_order, (std::vector<uint8_t>{0, 2, 3, 1}));
}

// The smallest program: relu(x), with the default-valued argument of
// add.Tensor left out as torch leaves it out.
json tiny_program(int major = 8) {
  return json::parse(R"J({
    "graph_module": {
      "graph": {
        "inputs": [{"as_tensor": {"name": "x"}}],
        "outputs": [{"as_tensor": {"name": "add"}}],
        "nodes": [{"target": "torch.ops.aten.add.Tensor",
                   "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}, "kind": 1},
                              {"name": "other", "arg": {"as_int": 2}, "kind": 1}],
                   "outputs": [{"as_tensor": {"name": "add"}}],
                   "metadata": {"stack_trace": "File \"m.py\", line 3, in forward", "nn_module_stack": "L__self__,,m.M;L__self___fc,fc,torch.nn.Linear"}}],
        "tensor_values": {"x": {"dtype": 7, "sizes": [{"as_int": 2}], "strides": [{"as_int": 1}]},
                          "add": {"dtype": 7, "sizes": [{"as_int": 2}], "strides": [{"as_int": 1}]}}
      },
      "signature": {"input_specs": [{"user_input": {"arg": {"as_tensor": {"name": "x"}}}}],
                    "output_specs": [{"user_output": {"arg": {"as_tensor": {"name": "add"}}}}]},
      "module_call_graph": []
    },
    "range_constraints": {"s0": {"min_val": 2, "max_val": null}},
    "schema_version": {"major": )J" + std::to_string(major) + R"J(, "minor": 20},
    "verifiers": ["TRAINING"]
  })J");
}

TEST(ProgramJsonTest, FillsDefaultsAndKeepsMetadata) {
  ProgramParts parts = program_from_json(tiny_program());
  Node* add = parts.graph->node("add");
  EXPECT_EQ(add->target(), "aten::add.Tensor");
  ASSERT_NE(add->kwarg("alpha"), nullptr);  // absent in the file, filled from the schema
  EXPECT_EQ(add->kwarg("alpha")->to_int(), 1);
  EXPECT_EQ(add->meta.tensor().to_string(), "f32[2]");
  EXPECT_EQ(add->meta.stack_trace, "File \"m.py\", line 3, in forward");
  ASSERT_EQ(add->meta.nn_module_stack.size(), 2u);
  EXPECT_EQ(add->meta.nn_module_stack[1].path, "fc");
  EXPECT_EQ(add->meta.nn_module_stack[1].type, "torch.nn.Linear");
  EXPECT_EQ(parts.dialect, "TRAINING");
  EXPECT_EQ(parts.range_constraints.at("s0").to_string(), "VR[2, int_oo]");
}

TEST(ProgramJsonTest, BadProgramsNameTheProblem) {
  EXPECT_THAT(error_of([] { program_from_json(tiny_program(9)); }),
              HasSubstr("schema major version 9 is not supported (Kiln reads version 8.x)"));
  json unknown_op = tiny_program();
  unknown_op["graph_module"]["graph"]["nodes"][0]["target"] = "torch.ops.aten.frobnicate.default";
  EXPECT_THAT(error_of([&] { program_from_json(unknown_op); }),
              HasSubstr("node 'add': unknown op 'aten::frobnicate.default'"));
  json dangling = tiny_program();
  dangling["graph_module"]["graph"]["nodes"][0]["inputs"][0]["arg"]["as_tensor"]["name"] = "y";
  EXPECT_THAT(error_of([&] { program_from_json(dangling); }), HasSubstr("refers to 'y', which is not defined before it"));
  json bad_dtype = tiny_program();
  bad_dtype["graph_module"]["graph"]["tensor_values"]["add"]["dtype"] = 77;
  EXPECT_THAT(error_of([&] { program_from_json(bad_dtype); }), HasSubstr("value 'add': unknown or unsupported dtype code 77"));
  json wrong_arg = tiny_program();
  wrong_arg["graph_module"]["graph"]["nodes"][0]["inputs"][1]["name"] = "another";
  EXPECT_THAT(error_of([&] { program_from_json(wrong_arg); }), HasSubstr("op has no argument named 'another'"));
  json missing = tiny_program();
  missing["graph_module"].erase("signature");
  EXPECT_THAT(error_of([&] { program_from_json(missing); }), HasSubstr("missing field 'signature'"));
  json mismatch = tiny_program();
  mismatch["graph_module"]["graph"]["inputs"].push_back(json::parse(R"({"as_tensor": {"name": "z"}})"));
  EXPECT_THAT(error_of([&] { program_from_json(mismatch); }), HasSubstr("graph has 2 inputs but the signature has 1"));
}

}  // namespace
}  // namespace kiln::aot
