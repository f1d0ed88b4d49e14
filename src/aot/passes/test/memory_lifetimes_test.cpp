// compute_lifetimes on small programs in the executable form, written by
// hand: GraphBuilder makes the placeholders and the signature, the body is
// written with the Graph API (memory.alloc nodes and out-variant calls) and
// the output node is pointed at it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aot/ir/error.h"
#include "aot/ir/graph_builder.h"
#include "aot/ir/memory_ops.h"
#include "aot/ir/module_attribute.h"
#include "aot/passes/memory_planning.h"

namespace kiln::aot {
namespace {

using ::testing::HasSubstr;

Node* alloc(Graph& graph, TensorMeta meta) {
  Node* node = graph.call_function(kMemoryAlloc, {}, {}, "alloc");
  node->meta.val = std::move(meta);
  return node;
}

Node* call_out(Graph& graph, const std::string& op, ArgumentList args, KwargList kwargs, ValueMeta val) {
  Node* node = graph.call_function(op, std::move(args), std::move(kwargs));
  node->meta.val = std::move(val);
  return node;
}

// Points the output node at `values`, which replace the outputs in signature order.
void set_outputs(ExportedProgram& program, const std::vector<Node*>& values) {
  for (size_t i = 0; i < values.size(); ++i) {
    program.graph_signature().output_specs.at(i).arg.name = values[i]->name();
  }
  program.graph().output_node()->set_arg(0, ArgumentList(values.begin(), values.end()));
}

// "label size [first, last]" plus the flags that are set, one record a line.
std::string describe(const std::vector<TensorLifetime>& records) {
  std::string text;
  for (const TensorLifetime& r : records) {
    text += r.label + " " + std::to_string(r.size) + " [" + std::to_string(r.first_step) + ", " +
            std::to_string(r.last_step) + "]";
    if (r.whole_run) text += " whole_run";
    if (r.graph_input) text += " input";
    if (r.graph_output) text += " output";
    text += "\n";
  }
  return text;
}

// x -> add.out -> mul.out -> relu.out -> output: each alloc lives from its
// node to the last use of the call that wrote it.
ExportedProgram chain_program() {
  GraphBuilder b;
  Node* x = b.input("x", f32({4}));
  b.output({x});
  ExportedProgram program = std::move(b).build();
  Graph& g = program.graph();
  Node* a1 = alloc(g, f32({4}));                                                      // 1
  Node* add = call_out(g, "aten::add.out", {x, x}, {{"out", a1}}, f32({4}));          // 2
  Node* a2 = alloc(g, f32({4}));                                                      // 3
  Node* mul = call_out(g, "aten::mul.out", {add, add}, {{"out", a2}}, f32({4}));      // 4
  Node* a3 = alloc(g, f32({4}));                                                      // 5
  Node* relu = call_out(g, "aten::relu.out", {mul}, {{"out", a3}}, f32({4}));         // 6
  set_outputs(program, {relu});                                                       // 7
  return program;
}

TEST(MemoryPlanLifetimesTest, OutVariantCallsExtendTheirAllocsAndOutputsLiveToTheEnd) {
  const ExportedProgram program = chain_program();
  const std::vector<TensorLifetime> records = compute_lifetimes(program);
  EXPECT_EQ(describe(records),
            "x 16 [0, 2] input\n"
            "alloc 16 [1, 4]\n"
            "alloc_1 16 [3, 6]\n"
            "alloc_2 16 [5, 7] output\n");
  EXPECT_EQ(records[1].node, program.graph().node("alloc"));
  EXPECT_EQ(records[0].node, program.graph().node("x"));

  // Planned and handed to the emitter: the alloc nodes get (mem_id, offset).
  const MemoryPlan plan = plan_memory(records);
  verify_memory_plan(records, plan);
  const EmitterMemoryPlan emitted = emitter_allocations(records, plan);
  ASSERT_NE(emitted.find(program.graph().node("alloc_2")), nullptr);
  EXPECT_EQ(emitted.find(program.graph().node("alloc_2"))->memory_id, 1u);
  EXPECT_EQ(emitted.non_const_buffer_sizes.size(), 2u);
  EXPECT_EQ(emitted.non_const_buffer_sizes[1], plan.arena_sizes[0]);
}

TEST(MemoryPlanLifetimesTest, InputsAndOutputsAreLeftOutIfTheOptionsSaySo) {
  const ExportedProgram program = chain_program();
  MemoryPlanOptions options;
  options.plan_inputs = false;
  options.plan_outputs = false;
  EXPECT_EQ(describe(compute_lifetimes(program, options)),
            "alloc 16 [1, 4]\n"
            "alloc_1 16 [3, 6]\n");
}

TEST(MemoryPlanLifetimesTest, AGetitemAliasesItsOwnElementOnly) {
  GraphBuilder b;
  Node* x = b.input("x", f32({6}));
  b.output({x});
  ExportedProgram program = std::move(b).build();
  Graph& g = program.graph();
  Node* a0 = alloc(g, f32({2}));                                                       // 1
  Node* a1 = alloc(g, f32({4}));                                                       // 2
  Node* split = call_out(g, "aten::split_with_sizes_copy.out", {x, ArgumentList{2, 4}, 0},
                         {{"out", ArgumentList{a0, a1}}}, std::vector<TensorMeta>{f32({2}), f32({4})});  // 3
  Node* first = call_out(g, "getitem", {split, 0}, {}, f32({2}));                     // 4
  Node* second = call_out(g, "getitem", {split, 1}, {}, f32({4}));                    // 5
  Node* a2 = alloc(g, f32({4}));                                                       // 6
  Node* sin = call_out(g, "aten::sin.out", {second}, {{"out", a2}}, f32({4}));        // 7
  Node* a3 = alloc(g, f32({2}));                                                       // 8
  Node* relu = call_out(g, "aten::relu.out", {first}, {{"out", a3}}, f32({2}));       // 9
  Node* a4 = alloc(g, f32({4}));                                                       // 10
  call_out(g, "aten::relu.out", {second}, {{"out", a4}}, f32({4}));                   // 11, unused
  set_outputs(program, {sin});                                                         // 12
  (void)relu;
  // Both getitems use `split` (steps 4, 5); then a0 is used through `first`
  // at 9, a1 through `second` at 7 and 11; the unused relu's alloc ends at its call.
  EXPECT_EQ(describe(compute_lifetimes(program)),
            "x 24 [0, 3] input\n"
            "alloc 8 [1, 9]\n"
            "alloc_1 16 [2, 11]\n"
            "alloc_2 16 [6, 12] output\n"
            "alloc_3 8 [8, 9]\n"
            "alloc_4 16 [10, 11]\n");
}

TEST(MemoryPlanLifetimesTest, DelegateOutputsAreTensorsOfTheirOwnFromTheCall) {
  GraphBuilder b;
  Node* x = b.input("x", f32({4}));
  b.output({x});
  ExportedProgram program = std::move(b).build();
  Graph& g = program.graph();
  Node* module = g.get_attr("lowered_module_0");                                      // 1
  Node* call = call_out(g, kCallDelegate, {module, x}, {},
                        std::vector<TensorMeta>{f32({4}), f32({8}), f32({2})});       // 2
  Node* out0 = call_out(g, "getitem", {call, 0}, {}, f32({4}));                       // 3
  Node* out2 = call_out(g, "getitem", {call, 2}, {}, f32({2}));                       // 4
  Node* a = alloc(g, f32({4}));                                                        // 5
  Node* add = call_out(g, "aten::add.out", {out0, out0}, {{"out", a}}, f32({4}));     // 6
  set_outputs(program, {add});                                                         // 7
  (void)out2;
  const std::vector<TensorLifetime> records = compute_lifetimes(program);
  // Element 1 has no getitem: it is a record of the call with its index.
  EXPECT_EQ(describe(records),
            "x 16 [0, 2] input\n"
            "getitem 16 [2, 6]\n"
            "executorch_call_delegate[1] 32 [2, 4]\n"
            "getitem_1 8 [2, 4]\n"
            "alloc 16 [5, 7] output\n");
  EXPECT_EQ(records[2].node, call);
  EXPECT_EQ(records[2].output_index, 1);
  EXPECT_EQ(records[3].node, out2);
  EXPECT_EQ(records[3].output_index, -1);
}

TEST(MemoryPlanLifetimesTest, MutatedBuffersLiveTheWholeRunAndWeightsAreNotPlanned) {
  GraphBuilder b;
  Node* w = b.parameter("w", HostTensor::zeros(ScalarType::Float, {4}));
  Node* count = b.buffer("count", HostTensor::zeros(ScalarType::Float, {4}));
  Node* fixed = b.buffer("fixed", HostTensor::zeros(ScalarType::Float, {4}));
  Node* x = b.input("x", f32({4}));
  b.mutate_buffer("count", x);
  b.output({x, x});
  ExportedProgram program = std::move(b).build();
  Graph& g = program.graph();
  Node* a1 = alloc(g, f32({4}));                                                       // 4
  Node* updated = call_out(g, "aten::add.out", {count, w}, {{"out", a1}}, f32({4}));  // 5
  Node* a2 = alloc(g, f32({4}));                                                       // 6
  Node* y = call_out(g, "aten::mul.out", {x, fixed}, {{"out", a2}}, f32({4}));        // 7
  set_outputs(program, {updated, y, count});  // 8: the mutation, then the user outputs
  // The new value of the buffer is not a user output: it is planned like any
  // intermediate and lives to the output node. The buffer, also returned to
  // the user, keeps its planned memory even when outputs are not planned.
  EXPECT_EQ(describe(compute_lifetimes(program)),
            "b_count 16 [0, 8] whole_run\n"
            "x 16 [0, 7] input\n"
            "alloc 16 [4, 8]\n"
            "alloc_1 16 [6, 8] output\n");
  MemoryPlanOptions options;
  options.plan_inputs = false;
  options.plan_outputs = false;
  EXPECT_EQ(describe(compute_lifetimes(program, options)),
            "b_count 16 [0, 8] whole_run\n"
            "alloc 16 [4, 8]\n");
}

TEST(MemoryPlanLifetimesTest, AWriteBackCopyAliasesTheTensorItWritesInto) {
  GraphBuilder b;
  Node* count = b.buffer("count", HostTensor::zeros(ScalarType::Float, {4}));
  Node* x = b.input("x", f32({4}));
  b.mutate_buffer("count", x);
  b.mutate_input(x, x);
  b.output({x});
  ExportedProgram program = std::move(b).build();
  Graph& g = program.graph();
  Node* a1 = alloc(g, f32({4}));                                                          // 2
  Node* sum = call_out(g, "aten::add.out", {count, x}, {{"out", a1}}, f32({4}));         // 3
  Node* a2 = alloc(g, f32({4}));                                                          // 4
  Node* product = call_out(g, "aten::mul.out", {x, x}, {{"out", a2}}, f32({4}));         // 5
  Node* new_count = call_out(g, "aten::copy_.default", {count, sum}, {}, f32({4}));      // 6
  Node* new_x = call_out(g, "aten::copy_.default", {x, product}, {}, f32({4}));          // 7
  set_outputs(program, {new_count, new_x, product});                                     // 8
  // The input is written at step 7 and returned through its copy_: it lives
  // to the output node, as does the buffer; `sum` ends at its copy_.
  EXPECT_EQ(describe(compute_lifetimes(program)),
            "b_count 16 [0, 8] whole_run\n"
            "x 16 [0, 8] input\n"
            "alloc 16 [2, 6]\n"
            "alloc_1 16 [4, 8] output\n");
}

// x: f32[s0, 4] with s0 in [2, 10]; allocs sized by expressions of s0.
ExportedProgram dynamic_program(ValueRange range, std::vector<std::vector<SymExpr>> alloc_sizes) {
  const SymExpr s0 = SymExpr::symbol("s0");
  GraphBuilder b;
  b.set_range("s0", range);
  Node* x = b.input("x", f32({s0, 4}));
  b.output({x});
  ExportedProgram program = std::move(b).build();
  Graph& g = program.graph();
  Node* last = x;
  for (const auto& sizes : alloc_sizes) {
    Node* a = alloc(g, f32(sizes));
    last = call_out(g, "aten::relu.out", {last}, {{"out", a}}, f32(sizes));
  }
  set_outputs(program, {last});
  return program;
}

TEST(MemoryPlanLifetimesTest, SymbolicDimsArePlannedAtTheirUpperBound) {
  const SymExpr s0 = SymExpr::symbol("s0");
  const ExportedProgram program = dynamic_program(
      ValueRange{2, 10}, {{2 * s0, 4}, {SymExpr::parse("((s0 - 1)//2) + 1")}, {SymExpr::parse("Max(1, s0 - 3)")},
                          {SymExpr::parse("Min(3, s0)"), SymExpr::parse("Mod(s0, 4)")}, {12 - s0}});
  EXPECT_EQ(describe(compute_lifetimes(program)),
            "x 160 [0, 2] input\n"
            "alloc 320 [1, 4]\n"     // 20 * 4 * 4
            "alloc_1 20 [3, 6]\n"    // (9 // 2) + 1 = 5
            "alloc_2 28 [5, 8]\n"    // 7
            "alloc_3 36 [7, 10]\n"   // 3 * 3
            "alloc_4 40 [9, 11] output\n");  // 12 - 2
}

TEST(MemoryPlanLifetimesTest, AnUnboundedDynamicSizeIsAnError) {
  const SymExpr s0 = SymExpr::symbol("s0");
  const ExportedProgram program = dynamic_program(ValueRange{2, std::nullopt}, {{s0, 4}});
  EXPECT_THAT([&] { compute_lifetimes(program); },
              ::testing::ThrowsMessage<AotError>(HasSubstr(
                  "cannot plan memory for node 'x' (x f32[s0, 4]): unbounded dynamic size: dim 0 (s0) has no upper "
                  "bound in the range constraints")));
  MemoryPlanOptions options;
  options.plan_inputs = false;
  EXPECT_THAT([&] { compute_lifetimes(program, options); },
              ::testing::ThrowsMessage<AotError>(HasSubstr(
                  "cannot plan memory for node 'alloc' (memory.alloc f32[s0, 4]): unbounded dynamic size")));
  options.plan_outputs = false;
  EXPECT_TRUE(compute_lifetimes(program, options).empty());  // nothing left to plan, nothing to bound
}

TEST(MemoryPlanLifetimesTest, ASizeOverflowingInt64IsAnError) {
  const SymExpr s0 = SymExpr::symbol("s0");
  const ExportedProgram program = dynamic_program(ValueRange{2, int64_t{1} << 40}, {{s0 * s0}, {s0, s0}});
  MemoryPlanOptions options;
  options.plan_inputs = false;
  EXPECT_THAT([&] { compute_lifetimes(program, options); },
              ::testing::ThrowsMessage<AotError>(
                  HasSubstr("cannot plan memory for node 'alloc' (memory.alloc f32[s0**2]): dim 0 (s0**2) overflows "
                            "int64 at its upper bound")));
  const ExportedProgram two_dims = dynamic_program(ValueRange{2, int64_t{1} << 40}, {{s0, s0}});
  EXPECT_THAT([&] { compute_lifetimes(two_dims, options); },
              ::testing::ThrowsMessage<AotError>(HasSubstr("its size in bytes overflows int64")));
}

TEST(MemoryPlanLifetimesTest, AFunctionalCallIsNotTheExecutableForm) {
  GraphBuilder b;
  Node* x = b.input("x", f32({4}));
  b.output({b.call("aten::relu", {x})});
  const ExportedProgram program = std::move(b).build();
  EXPECT_THAT([&] { compute_lifetimes(program); },
              ::testing::ThrowsMessage<AotError>(HasSubstr(
                  "cannot plan memory for node 'relu' (aten::relu.default): it makes a tensor but writes no memory.alloc")));
}

}  // namespace
}  // namespace kiln::aot
