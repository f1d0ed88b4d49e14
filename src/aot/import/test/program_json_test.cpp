#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aot/import/program_json.h"
#include "aot/import/sympy_srepr.h"
#include "aot/ir/error.h"
#include "aot/ir/testing/aot_testing.h"

namespace kiln::aot {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

using testing::error_of;

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
  EXPECT_EQ(scalar_type_from_pt2(10), ScalarType::ComplexFloat);
  EXPECT_EQ(scalar_type_from_pt2(11), ScalarType::ComplexDouble);
  EXPECT_THAT(error_of([] { scalar_type_from_pt2(9); }), HasSubstr("ComplexHalf is not supported"));
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

TEST(ProgramJsonTest, ReadsEveryArgumentKind) {
  json program = tiny_program();
  json& graph = program["graph_module"]["graph"];
  graph["nodes"][0] = json::parse(R"J({"target": "torch.ops.aten._to_copy.default",
      "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}, "kind": 1},
                 {"name": "dtype", "arg": {"as_scalar_type": 5}, "kind": 2},
                 {"name": "layout", "arg": {"as_layout": 7}, "kind": 2},
                 {"name": "device", "arg": {"as_device": {"type": "cpu", "index": 0}}, "kind": 2},
                 {"name": "pin_memory", "arg": {"as_none": true}, "kind": 2},
                 {"name": "memory_format", "arg": {"as_memory_format": 2}, "kind": 2}],
      "outputs": [{"as_tensor": {"name": "add"}}], "metadata": {}})J");
  graph["tensor_values"]["add"]["dtype"] = 5;
  graph["nodes"].push_back(json::parse(R"J({"target": "torch.ops.aten.sym_size.int",
      "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}, "kind": 1},
                 {"name": "dim", "arg": {"as_int": 0}, "kind": 1}],
      "outputs": [{"as_sym_int": {"as_name": "sym_size_int"}}], "metadata": {}})J"));
  graph["sym_int_values"] = json::parse(R"J({"sym_size_int": {"as_expr": {"expr_str": "Symbol('s0')", "hint": null}}})J");
  graph["nodes"].push_back(json::parse(R"J({"target": "torch.ops.aten.view.default",
      "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "add"}}, "kind": 1},
                 {"name": "size", "arg": {"as_sym_ints": [{"as_name": "sym_size_int"}, {"as_int": 1}]}, "kind": 1}],
      "outputs": [{"as_tensor": {"name": "view"}}], "metadata": {}})J"));
  graph["tensor_values"]["view"] = json::parse(R"J({"dtype": 5, "sizes": [{"as_int": 2}, {"as_int": 1}], "strides": [{"as_int": 1}, {"as_int": 1}]})J");
  graph["nodes"].push_back(json::parse(R"J({"target": "torch.ops.aten.native_layer_norm.default",
      "inputs": [{"name": "input", "arg": {"as_tensor": {"name": "x"}}, "kind": 1},
                 {"name": "normalized_shape", "arg": {"as_ints": [2]}, "kind": 1},
                 {"name": "weight", "arg": {"as_none": true}, "kind": 1},
                 {"name": "bias", "arg": {"as_none": true}, "kind": 1},
                 {"name": "eps", "arg": {"as_float": "Infinity"}, "kind": 1}],
      "outputs": [{"as_tensor": {"name": "normed"}}, {"as_tensor": {"name": "native_layer_norm_unused_1"}},
                  {"as_tensor": {"name": "rstd"}}],
      "metadata": {}, "name": "native_layer_norm"})J"));
  for (const char* name : {"normed", "native_layer_norm_unused_1", "rstd"}) {
    graph["tensor_values"][name] = json::parse(R"J({"dtype": 7, "sizes": [{"as_int": 2}], "strides": [{"as_int": 1}]})J");
  }
  ProgramParts parts = program_from_json(program);
  Node* copy = parts.graph->node("add");
  EXPECT_EQ(to_string(*copy->kwarg("dtype")), "torch.int64");
  EXPECT_EQ(to_string(*copy->kwarg("layout")), "torch.strided");
  EXPECT_EQ(to_string(*copy->kwarg("device")), "device(type='cpu', index=0)");
  EXPECT_TRUE(copy->kwarg("pin_memory")->is_none());
  EXPECT_EQ(to_string(*copy->kwarg("memory_format")), "torch.channels_last");
  EXPECT_FALSE(copy->kwarg("non_blocking")->to_bool());  // absent in the file: its default
  Node* size = parts.graph->node("sym_size_int");
  EXPECT_EQ(to_string(size->meta.val), "Sym(s0)");
  EXPECT_EQ(to_string(parts.graph->node("view")->args()[1]), "[sym_size_int, 1]");
  Node* norm = parts.graph->node("native_layer_norm");
  EXPECT_EQ(to_string(norm->args()[4]), "inf");
  EXPECT_EQ(to_string(norm->meta.val), "(f32[2], f32[2], f32[2])");
  EXPECT_EQ(parts.graph->node("rstd")->format(), "rstd = call_function[target=getitem](native_layer_norm, 2)");
  EXPECT_EQ(parts.graph->find_node("native_layer_norm_unused_1"), nullptr);  // unused outputs get no getitem
}

TEST(ProgramJsonTest, ReadsEverySignatureKind) {
  json program = tiny_program();
  json& graph = program["graph_module"]["graph"];
  graph["inputs"] = json::parse(R"J([{"as_tensor": {"name": "p_w"}}, {"as_tensor": {"name": "b_buf"}},
      {"as_tensor": {"name": "c_k"}}, {"as_custom_obj": {"name": "obj", "class_fqn": "my.Obj"}},
      {"as_token": {"name": "token"}}, {"as_int": 3}, {"as_tensor": {"name": "x"}}])J");
  program["graph_module"]["signature"] = json::parse(R"J({
    "input_specs": [
      {"parameter": {"arg": {"name": "p_w"}, "parameter_name": "w"}},
      {"buffer": {"arg": {"name": "b_buf"}, "buffer_name": "buf", "persistent": false}},
      {"tensor_constant": {"arg": {"name": "c_k"}, "tensor_constant_name": "k"}},
      {"custom_obj": {"arg": {"name": "obj", "class_fqn": "my.Obj"}, "custom_obj_name": "o"}},
      {"token": {"arg": {"name": "token"}}},
      {"constant_input": {"name": "n", "value": {"as_int": 3}}},
      {"user_input": {"arg": {"as_tensor": {"name": "x"}}}}],
    "output_specs": [
      {"buffer_mutation": {"arg": {"name": "add"}, "buffer_name": "buf"}},
      {"user_input_mutation": {"arg": {"name": "add"}, "user_input_name": "x"}},
      {"loss_output": {"arg": {"name": "add"}}},
      {"gradient_to_parameter": {"arg": {"name": "add"}, "parameter_name": "w"}},
      {"gradient_to_user_input": {"arg": {"name": "add"}, "user_input_name": "x"}},
      {"token": {"arg": {"name": "add"}}},
      {"user_output": {"arg": {"as_tensor": {"name": "add"}}}}]})J");
  graph["outputs"] = json::parse(R"J([{"as_tensor": {"name": "add"}}, {"as_tensor": {"name": "add"}},
      {"as_tensor": {"name": "add"}}, {"as_tensor": {"name": "add"}}, {"as_tensor": {"name": "add"}},
      {"as_tensor": {"name": "add"}}, {"as_tensor": {"name": "add"}}])J");
  const ProgramParts parts = program_from_json(program);
  const GraphSignature& sig = parts.signature;
  EXPECT_EQ(sig.parameters(), std::vector<std::string>{"w"});
  EXPECT_EQ(sig.non_persistent_buffers(), std::vector<std::string>{"buf"});
  EXPECT_EQ(sig.lifted_tensor_constants(), std::vector<std::string>{"k"});
  EXPECT_EQ(sig.lifted_custom_objs(), std::vector<std::string>{"o"});
  EXPECT_EQ(sig.input_tokens(), std::vector<std::string>{"token"});
  EXPECT_EQ(sig.user_inputs(), (std::vector<std::string>{"3", "x"}));
  EXPECT_EQ(sig.input_specs[5].arg.name, "n");  // the constant input's placeholder
  EXPECT_EQ(sig.buffers_to_mutate().at("add"), "buf");
  EXPECT_EQ(sig.user_inputs_to_mutate().at("add"), "x");
  EXPECT_EQ(sig.gradients_to_parameters().at("add"), "w");
  EXPECT_EQ(sig.gradients_to_user_inputs().at("add"), "x");
  EXPECT_EQ(sig.loss_output(), std::optional<size_t>{2});
  EXPECT_EQ(sig.output_tokens(), std::vector<std::string>{"add"});
  EXPECT_NO_THROW(sig.validate());
}

}  // namespace
}  // namespace kiln::aot
