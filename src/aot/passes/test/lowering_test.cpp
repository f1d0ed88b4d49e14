// The lowering passes one by one on small built programs (golden before/after
// printouts), the error listing every op without an out variant, provenance
// kept through every pass, and lower_to_executable on whole programs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "aot/interpreter/interpreter.h"
#include "aot/ir/graph_builder.h"
#include "aot/ir/memory_ops.h"
#include "aot/ir/testing/aot_testing.h"
#include "aot/passes/lowering.h"
#include "aot/passes/test/decompose_testing.h"

namespace kiln::aot {
namespace {

using ::testing::HasSubstr;
using testing::call_with_meta;
using testing::error_of;
using testing::filled;

// The graph part of the printout (up to the signature).
std::string graph_text(const ExportedProgram& program) {
  const std::string text = program.to_string();
  return text.substr(0, text.find("Graph signature:"));
}

// Runs `pass` through the pass manager (which verifies the result).
ExportedProgram after(const ExportedProgram& program, const char* name, bool (*pass)(ExportedProgram&)) {
  return transform(program, {Pass{name, pass}});
}

TEST(RemoveGraphAssertsTest, DropsTheAssertsAndNothingElse) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 2}));
  Node* y = b.call("aten::relu", {x});
  b.call("aten::_assert_tensor_metadata", {y, ArgumentList{2, 2}, None{}, ScalarType::Float});
  b.output({b.call("aten::_to_copy", {y}, {{"dtype", ScalarType::Double}})});
  const ExportedProgram program = std::move(b).build();
  EXPECT_THAT(graph_text(program), HasSubstr("torch.ops.aten._assert_tensor_metadata.default(relu, [2, 2], None, torch.float32)"));
  EXPECT_EQ(graph_text(after(program, "remove_graph_asserts", remove_graph_asserts)), R"golden(ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, x: "f32[2, 2]"):
            relu: "f32[2, 2]" = torch.ops.aten.relu.default(x);  x = None
            _to_copy: "f64[2, 2]" = torch.ops.aten._to_copy.default(relu, dtype = torch.float64);  relu = None
            return (_to_copy,)
    
)golden");
  EXPECT_TRUE(is_graph_assert("aten::_assert_scalar.default"));
  EXPECT_TRUE(is_graph_assert("aten::sym_constrain_range_for_size.default"));
  EXPECT_FALSE(is_graph_assert("aten::relu.default"));
}

TEST(ViewToCopyTest, ViewsBecomeTheirCopies) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 6}));
  Node* t = b.call("aten::permute", {x, ArgumentList{1, 0}});
  Node* v = b.call("aten::view", {t, ArgumentList{3, 4}});
  Node* parts = b.call("aten::split_with_sizes", {v, ArgumentList{1, 2}});
  b.output({b.getitem(parts, 1), b.call("aten::relu", {b.getitem(parts, 0)})});
  const ExportedProgram program = std::move(b).build();
  EXPECT_EQ(graph_text(after(program, "view_to_copy", view_to_copy)), R"golden(ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, x: "f32[2, 6]"):
            permute: "f32[6, 2]" = torch.ops.aten.permute_copy.default(x, [1, 0]);  x = None
            view: "f32[3, 4]" = torch.ops.aten.view_copy.default(permute, [3, 4]);  permute = None
            split_with_sizes = torch.ops.aten.split_with_sizes_copy.default(view, [1, 2]);  view = None
            getitem: "f32[2, 4]" = split_with_sizes[1]
            getitem_1: "f32[1, 4]" = split_with_sizes[0];  split_with_sizes = None
            relu: "f32[1, 4]" = torch.ops.aten.relu.default(getitem_1);  getitem_1 = None
            return (getitem, relu)
    
)golden");
}

TEST(ViewToCopyTest, OneRuleForWhichOpIsAView) {
  EXPECT_EQ(view_copy_twin(get_op_schema("aten::view"))->qualified_name(), "aten::view_copy.default");
  EXPECT_EQ(view_copy_twin(get_op_schema("aten::split_with_sizes"))->qualified_name(),
            "aten::split_with_sizes_copy.default");
  EXPECT_EQ(view_copy_twin(get_op_schema("aten::relu")), nullptr);
  EXPECT_EQ(view_copy_twin(get_op_schema("aten::view_copy")), nullptr);  // has an out variant of its own
}

TEST(AliasStaticViewsTest, StaticReshapesOfOpResultsBecomeAliases) {
  GraphBuilder b;
  const SymExpr s0 = SymExpr::symbol("s0");
  Node* x = b.input("x", f32({2, 6}));
  Node* d = b.input("d", f32({s0, SymExpr::constant(6)}));
  b.set_range("s0", ValueRange{1, 8});
  Node* of_input = b.call("aten::view_copy", {x, ArgumentList{3, 4}});             // a placeholder: stays a copy
  Node* relu = b.call("aten::relu", {x});
  Node* aliased = b.call("aten::view_copy", {relu, ArgumentList{12}});              // an op's result: an alias
  Node* twice = b.call("aten::view_copy", {aliased, ArgumentList{4, 3}});           // of an alias: an alias
  Node* dynamic = b.call("aten::relu", {d});
  Node* kept = call_with_meta(b, "aten::view_copy", {dynamic, ArgumentList{-1}}, f32({s0 * SymExpr::constant(6)}));
  b.output({of_input, twice, kept});
  const ExportedProgram program = std::move(b).build();
  EXPECT_EQ(graph_text(after(program, "alias_static_views", alias_static_views)), R"golden(ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, x: "f32[2, 6]", d: "f32[s0, 6]"):
            view_copy: "f32[3, 4]" = torch.ops.aten.view_copy.default(x, [3, 4])
            relu: "f32[2, 6]" = torch.ops.aten.relu.default(x);  x = None
            view_copy_1: "f32[12]" = memory.view(relu, [12]);  relu = None
            view_copy_2: "f32[4, 3]" = memory.view(view_copy_1, [4, 3]);  view_copy_1 = None
            relu_1: "f32[s0, 6]" = torch.ops.aten.relu.default(d);  d = None
            view_copy_3: "f32[6*s0]" = torch.ops.aten.view_copy.default(relu_1, [-1]);  relu_1 = None
            return (view_copy, view_copy_2, view_copy_3)
    
)golden");
}

TEST(FoldStaticSymSizesTest, FoldsStaticDimsAndKeepsDynamicOnes) {
  GraphBuilder b;
  const SymExpr s0 = SymExpr::symbol("s0");
  Node* x = b.input("x", f32({s0, SymExpr::constant(6)}));
  b.set_range("s0", ValueRange{1, 8});
  Node* rows = b.call("aten::sym_size.int", {x, 0});
  Node* cols = b.call("aten::sym_size.int", {x, 1});
  Node* y = call_with_meta(b, "aten::view", {x, ArgumentList{rows, cols}}, f32({s0, SymExpr::constant(6)}));
  b.output({b.call("aten::relu", {y})});
  const ExportedProgram program = std::move(b).build();
  EXPECT_EQ(graph_text(after(program, "fold_static_sym_sizes", fold_static_sym_sizes)), R"golden(ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, x: "f32[s0, 6]"):
            sym_size: "Sym(s0)" = torch.ops.aten.sym_size.int(x, 0)
            view: "f32[s0, 6]" = torch.ops.aten.view.default(x, [sym_size, 6]);  x = sym_size = None
            relu: "f32[s0, 6]" = torch.ops.aten.relu.default(view);  view = None
            return (relu,)
    
)golden");
}

TEST(ScalarToTensorTest, NumbersBecomeLiftedConstants) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3}));
  Node* i = b.input("i", TensorMeta(ScalarType::Int, std::vector<int64_t>{3}));
  Node* doubled = b.call("aten::mul.Tensor", {x, 2});
  Node* again = b.call("aten::add.Tensor", {doubled, 2});
  Node* shifted = b.call("aten::add.Tensor", {i, 3});
  Node* big = b.call("aten::gt.Tensor", {x, 1.5});
  b.output({again, shifted, big});
  const ExportedProgram program = std::move(b).build();
  const ExportedProgram lifted = after(program, "scalar_to_tensor", scalar_to_tensor);
  EXPECT_EQ(lifted.to_string(), R"golden(ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, c_lifted_tensor_0: "f32[]", c_lifted_tensor_1: "i32[]", c_lifted_tensor_2: "f32[]", x: "f32[3]", i: "i32[3]"):
            mul: "f32[3]" = torch.ops.aten.mul.Tensor(x, c_lifted_tensor_0)
            add: "f32[3]" = torch.ops.aten.add.Tensor(mul, c_lifted_tensor_0);  mul = c_lifted_tensor_0 = None
            add_1: "i32[3]" = torch.ops.aten.add.Tensor(i, c_lifted_tensor_1);  i = c_lifted_tensor_1 = None
            gt: "b8[3]" = torch.ops.aten.gt.Tensor(x, c_lifted_tensor_2);  x = c_lifted_tensor_2 = None
            return (add, add_1, gt)
    
Graph signature:
    # inputs
    c_lifted_tensor_0: CONSTANT_TENSOR target='lifted_tensor_0'
    c_lifted_tensor_1: CONSTANT_TENSOR target='lifted_tensor_1'
    c_lifted_tensor_2: CONSTANT_TENSOR target='lifted_tensor_2'
    x: USER_INPUT
    i: USER_INPUT
    
    # outputs
    add: USER_OUTPUT
    add_1: USER_OUTPUT
    gt: USER_OUTPUT
    
Range constraints: {}
)golden");
  EXPECT_EQ(std::get<HostTensor>(lifted.constants().at("lifted_tensor_0")).describe(), "f32[]");
}

// A Bool result (a comparison) says nothing of the number's dtype: the
// literal's own kind does.
TEST(ScalarToTensorTest, AComparisonTakesTheLiteralsKind) {
  GraphBuilder b;
  Node* i = b.input("i", TensorMeta(ScalarType::Int, std::vector<int64_t>{3}));
  Node* m = b.input("m", TensorMeta(ScalarType::Bool, std::vector<int64_t>{3}));
  b.output({b.call("aten::eq.Tensor", {i, 2}), b.call("aten::eq.Tensor", {m, true})});
  const ExportedProgram lifted = after(std::move(b).build(), "scalar_to_tensor", scalar_to_tensor);
  const HostTensor& two = std::get<HostTensor>(lifted.constants().at("lifted_tensor_0"));
  EXPECT_EQ(two.describe(), "i64[]");
  EXPECT_EQ(two.to_doubles(), std::vector<double>{2});
  const HostTensor& yes = std::get<HostTensor>(lifted.constants().at("lifted_tensor_1"));
  EXPECT_EQ(yes.describe(), "b8[]");
  EXPECT_EQ(yes.to_doubles(), std::vector<double>{1});
}

// `position.add_(seq_len)` with seq_len a size known at run time: the
// symbolic int becomes a 0-dim tensor made at run time, of the result's dtype.
TEST(ScalarToTensorTest, ASymbolicIntBecomesAScalarTensorMadeAtRunTime) {
  GraphBuilder b;
  const SymExpr s0 = SymExpr::symbol("s0");
  Node* ids = b.input("ids", TensorMeta(ScalarType::Long, std::vector<SymExpr>{SymExpr::constant(1), s0}));
  b.set_range("s0", ValueRange{1, 8});
  Node* position = b.input("position", TensorMeta(ScalarType::Long, std::vector<int64_t>{1}));
  Node* length = b.call("aten::sym_size.int", {ids, 1});
  b.output({b.call("aten::add.Tensor", {position, length}), b.call("aten::mul.Tensor", {position, length})});
  const ExportedProgram lifted = after(std::move(b).build(), "scalar_to_tensor", scalar_to_tensor);
  const std::string text = graph_text(lifted);
  EXPECT_THAT(text, HasSubstr("scalar_tensor: \"i64[]\" = torch.ops.aten.scalar_tensor.default(sym_size, dtype = torch.int64)"));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.add.Tensor(position, scalar_tensor)"));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.mul.Tensor(position, scalar_tensor)"));  // made once
  EXPECT_TRUE(lifted.constants().empty());
}

TEST(WriteBackMutationsTest, CopiesBackBeforeTheOutput) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2}));
  Node* count = b.buffer("count", filled({2}, 0.0f));
  Node* next = b.call("aten::add.Tensor", {count, x});
  b.mutate_buffer("count", next);
  Node* scaled = b.call("aten::mul.Tensor", {x, x});
  b.mutate_input(x, scaled);
  b.output({b.call("aten::relu", {next})});
  const ExportedProgram program = std::move(b).build();
  EXPECT_EQ(after(program, "write_back_mutations", write_back_mutations).to_string(), R"golden(ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, b_count: "f32[2]", x: "f32[2]"):
            add: "f32[2]" = torch.ops.aten.add.Tensor(b_count, x)
            mul: "f32[2]" = torch.ops.aten.mul.Tensor(x, x)
            relu: "f32[2]" = torch.ops.aten.relu.default(add)
            copy_: "f32[2]" = torch.ops.aten.copy_.default(b_count, add);  b_count = add = None
            copy__1: "f32[2]" = torch.ops.aten.copy_.default(x, mul);  x = mul = None
            return (copy_, copy__1, relu)
    
Graph signature:
    # inputs
    b_count: BUFFER target='count' persistent=True
    x: USER_INPUT
    
    # outputs
    copy_: BUFFER_MUTATION target='count'
    copy__1: USER_INPUT_MUTATION target='x'
    relu: USER_OUTPUT
    
Range constraints: {}
)golden");
}

// A KV cache's update (index_copy_ as index_put) writes into the buffer
// itself: no new tensor, no copy_ back. The interpreter runs the executable
// form: the buffer holds the update, and the value read after it is the new one.
TEST(UpdateBuffersInPlaceTest, AnIndexPutOfABufferWritesIntoIt) {
  GraphBuilder b;
  Node* cache = b.buffer("cache", filled({4, 2}, 0.0f));
  Node* position = b.input("position", TensorMeta(ScalarType::Long, std::vector<int64_t>{1}));
  Node* row = b.input("row", f32({1, 2}));
  Node* updated = b.call("aten::index_put", {cache, ArgumentList{position}, row});
  b.mutate_buffer("cache", updated);
  b.output({b.call("aten::sum.dim_IntList", {updated, ArgumentList{0}})});
  ExportedProgram lowered = lower_to_executable(std::move(b).build());
  const std::string text = graph_text(lowered);
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.index_put.out(b_cache, [position], row, out = b_cache)"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("copy_")));
  EXPECT_EQ(lowered.graph_signature().output_specs.at(0).arg.name, "b_cache");
  EXPECT_TRUE(is_executable_form(lowered));

  ExportedProgram& program = lowered;
  HostTensor where = HostTensor::from_vector<int64_t>({1}, {2});
  HostTensor values = HostTensor::from_vector<float>({1, 2}, {5, 6});
  const auto flat = tree_flatten(call_program(program, PyTree::tuple({PyTree::make_leaf(where), PyTree::make_leaf(values)})));
  EXPECT_EQ(std::get<HostTensor>(flat.first.at(0)).to_doubles(), (std::vector<double>{5, 6}));
  EXPECT_EQ(program.named_buffers().at(0).second.to_doubles(), (std::vector<double>{0, 0, 0, 0, 5, 6, 0, 0}));
}

// When the buffer's old value is read after the update, the update needs a
// tensor of its own, and the write-back stays.
TEST(UpdateBuffersInPlaceTest, ABufferReadAfterItsUpdateKeepsItsWriteBack) {
  GraphBuilder b;
  Node* cache = b.buffer("cache", filled({4, 2}, 0.0f));
  Node* row = b.input("row", f32({1, 2}));
  Node* updated = b.call("aten::slice_scatter", {cache, row, 0, 1, 2});
  b.mutate_buffer("cache", updated);
  b.output({b.call("aten::sub.Tensor", {updated, cache})});
  const std::string text = graph_text(lower_to_executable(std::move(b).build()));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.slice_scatter.out(b_cache, row, 0, 1, 2, out = alloc)"));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.copy_.default(b_cache, slice_scatter)"));
}

TEST(ToOutVariantTest, CallsBecomeOutVariantsWithAllocs) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 1, 4, 4}));
  Node* sum = b.call("aten::add.Tensor", {x, x}, {{"alpha", 2}});
  Node* pooled = b.call("aten::max_pool2d_with_indices", {sum, ArgumentList{2, 2}});
  Node* flat = b.call("aten::view_copy", {b.getitem(pooled, 0), ArgumentList{4}});
  Node* parts = b.call("aten::split_with_sizes_copy", {flat, ArgumentList{1, 3}});
  Node* wide = b.call("aten::_to_copy", {b.getitem(parts, 1)}, {{"dtype", ScalarType::Double}});
  b.output({wide, b.getitem(pooled, 1)});
  const ExportedProgram program = std::move(b).build();
  const ExportedProgram lowered = after(program, "to_out_variant", to_out_variant);
  EXPECT_EQ(graph_text(lowered), R"golden(ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, x: "f32[1, 1, 4, 4]"):
            alloc: "f32[1, 1, 4, 4]" = memory.alloc()
            add: "f32[1, 1, 4, 4]" = torch.ops.aten.add.out(x, x, alpha = 2, out = alloc);  x = alloc = None
            alloc_1: "f32[1, 1, 2, 2]" = memory.alloc()
            alloc_2: "i64[1, 1, 2, 2]" = memory.alloc()
            max_pool2d_with_indices = torch.ops.aten.max_pool2d_with_indices.out(add, [2, 2], out = alloc_1, indices = alloc_2);  add = alloc_1 = alloc_2 = None
            getitem: "f32[1, 1, 2, 2]" = max_pool2d_with_indices[0]
            alloc_3: "f32[4]" = memory.alloc()
            view_copy: "f32[4]" = torch.ops.aten.view_copy.out(getitem, [4], out = alloc_3);  getitem = alloc_3 = None
            alloc_4: "f32[1]" = memory.alloc()
            alloc_5: "f32[3]" = memory.alloc()
            split_with_sizes_copy = torch.ops.aten.split_with_sizes_copy.out(view_copy, [1, 3], out = [alloc_4, alloc_5]);  view_copy = alloc_4 = alloc_5 = None
            getitem_1: "f32[3]" = split_with_sizes_copy[1];  split_with_sizes_copy = None
            alloc_6: "f64[3]" = memory.alloc()
            _to_copy: "f64[3]" = torch.ops.aten._to_copy.out(getitem_1, out = alloc_6);  getitem_1 = alloc_6 = None
            getitem_2: "i64[1, 1, 2, 2]" = max_pool2d_with_indices[1];  max_pool2d_with_indices = None
            return (_to_copy, getitem_2)
    
)golden");
  EXPECT_TRUE(is_executable_form(lowered)) << ::testing::PrintToString(executable_form_violations(lowered));
}

TEST(ToOutVariantTest, ListsEveryNodeWithoutAnOutVariant) {
  GraphBuilder b;
  Node* x = b.input("x", f32({1, 1, 4, 4}));
  Node* w = b.parameter("w", filled({1, 1, 3, 3}, 1.0f));
  Node* conv = b.call("aten::conv2d", {x, w});
  Node* relu = b.call("aten::relu", {conv});
  Node* flat = b.call("aten::flatten.using_ints", {relu, 1});
  // linear has an out variant (aten::linear.out), which to_out_variant takes.
  b.output({b.call("aten::linear", {flat, b.parameter("fc", filled({2, 4}, 1.0f))})});
  const ExportedProgram program = std::move(b).build();
  EXPECT_EQ(error_of([&] { lower_to_executable(program); }),
            "pass 'to_out_variant': 2 nodes call ops without an out variant (decompose the program to core ATen "
            "first):\n  conv2d: aten::conv2d.default\n  flatten: aten::flatten.using_ints");
}

TEST(LowerToExecutableTest, GoldenProgram) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3}));
  Node* w = b.parameter("w", filled({3, 3}, 0.5f));
  Node* count = b.buffer("count", filled({2, 3}, 0.0f));
  Node* t = b.call("aten::permute", {w, ArgumentList{1, 0}});
  Node* y = b.call("aten::mm", {x, t});
  Node* next = b.call("aten::add.Tensor", {count, y});
  b.mutate_buffer("count", next);
  b.output({b.call("aten::mul.Tensor", {next, 2})});
  const ExportedProgram program = std::move(b).build();
  const ExportedProgram lowered = lower_to_executable(program);
  EXPECT_EQ(lowered.to_string(), R"golden(ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, p_w: "f32[3, 3]", b_count: "f32[2, 3]", c_lifted_tensor_0: "f32[]", x: "f32[2, 3]"):
            alloc: "f32[3, 3]" = memory.alloc()
            permute: "f32[3, 3]" = torch.ops.aten.permute_copy.out(p_w, [1, 0], out = alloc);  p_w = alloc = None
            alloc_1: "f32[2, 3]" = memory.alloc()
            mm: "f32[2, 3]" = torch.ops.aten.mm.out(x, permute, out = alloc_1);  x = permute = alloc_1 = None
            alloc_2: "f32[2, 3]" = memory.alloc()
            add: "f32[2, 3]" = torch.ops.aten.add.out(b_count, mm, out = alloc_2);  mm = alloc_2 = None
            alloc_3: "f32[2, 3]" = memory.alloc()
            mul: "f32[2, 3]" = torch.ops.aten.mul.out(add, c_lifted_tensor_0, out = alloc_3);  c_lifted_tensor_0 = alloc_3 = None
            copy_: "f32[2, 3]" = torch.ops.aten.copy_.default(b_count, add);  b_count = add = None
            return (copy_, mul)
    
Graph signature:
    # inputs
    p_w: PARAMETER target='w'
    b_count: BUFFER target='count' persistent=True
    c_lifted_tensor_0: CONSTANT_TENSOR target='lifted_tensor_0'
    x: USER_INPUT
    
    # outputs
    copy_: BUFFER_MUTATION target='count'
    mul: USER_OUTPUT
    
Range constraints: {}
)golden");
  EXPECT_TRUE(is_executable_form(lowered));
  EXPECT_FALSE(is_executable_form(program));
  EXPECT_EQ(lower_to_executable(lowered).to_string(), lowered.to_string());  // nothing left to decide
}

// Every node a pass creates or rewrites keeps the debug handle, stack trace
// and module stack of the node it stands for.
TEST(LowerToExecutableTest, KeepsProvenance) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3}));
  Node* count = b.buffer("count", filled({2, 3}, 0.0f));
  Node* t = b.call("aten::permute", {x, ArgumentList{1, 0}});
  Node* next = b.call("aten::add.Tensor", {count, b.call("aten::permute", {t, ArgumentList{1, 0}})});
  b.mutate_buffer("count", next);
  b.output({b.call("aten::mul.Tensor", {next, 2})});
  ExportedProgram program = std::move(b).build();
  int64_t handle = 1;
  for (Node* node : program.graph()) {
    if (!node->is_call_function()) continue;
    node->meta.debug_handle = handle++;
    node->meta.stack_trace = "File \"model.py\", line " + std::to_string(node->meta.debug_handle.value()) + ", in forward";
    node->meta.nn_module_stack = {{"L__self__", "", "Model"}, {"L__self___" + node->name(), node->name(), "Layer"}};
  }
  std::map<std::string, NodeMeta> source;
  for (const Node* node : program.graph()) source[node->name()] = node->meta;

  const ExportedProgram lowered = lower_to_executable(program);
  auto expect_from = [&](const std::string& name, const std::string& from) {
    const NodeMeta& meta = lowered.graph().node(name)->meta;
    EXPECT_EQ(meta.debug_handle, source.at(from).debug_handle) << name;
    EXPECT_EQ(meta.stack_trace, source.at(from).stack_trace) << name;
    EXPECT_EQ(meta.nn_module_stack, source.at(from).nn_module_stack) << name;
  };
  for (const char* name : {"permute", "permute_1", "add", "mul"}) expect_from(name, name);  // rewritten in place
  // Each alloc stands for the output of the call it precedes.
  for (const Node* node : lowered.graph()) {
    if (node->target() == kMemoryAlloc) expect_from(node->name(), node->next()->name());
  }
  expect_from("copy_", "add");                  // the write-back of the value it writes
  expect_from("c_lifted_tensor_0", "mul");      // the number's constant
  EXPECT_EQ(lowered.graph().node("alloc_3")->next()->name(), "mul");
}

}  // namespace
}  // namespace kiln::aot
