#include "aot/ir/testing/aot_testing.h"
#include "aot/ir/graph.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "aot/ir/error.h"

namespace kiln::aot {

// Readable failure messages (found by ADL, so outside the anonymous namespace).
void PrintTo(const Argument& argument, std::ostream* os) { *os << to_string(argument); }

namespace {

using testing::error_of;

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// The node names in graph order.
std::vector<std::string> names(const Graph& graph) {
  std::vector<std::string> result;
  for (Node* node : graph) result.push_back(node->name());
  return result;
}

// A list argument. Spelled out because `ArgumentList{ArgumentList{...}}` may
// copy the inner list instead of nesting it, depending on the compiler.
Argument list_of(ArgumentList items) { return Argument(std::move(items)); }

Node* neg(Graph& graph, Node* input, const std::string& name = "") {
  return graph.call_function("aten::neg", {input}, {}, name);
}

// ---------------------------------------------------------------------------
// Creating nodes

TEST(GraphTest, PlaceholderTargetsItsOwnNameAndKeepsItsMeta) {
  Graph graph;
  Node* x = graph.placeholder("x", f32({2, 3}));

  EXPECT_EQ(x->op(), OpKind::Placeholder);
  EXPECT_TRUE(x->is_placeholder());
  EXPECT_EQ(x->name(), "x");
  EXPECT_EQ(x->target(), "x");
  EXPECT_THAT(x->args(), IsEmpty());
  EXPECT_EQ(to_string(x->meta.val), "f32[2, 3]");
  EXPECT_EQ(&x->graph(), &graph);
  EXPECT_EQ(graph.placeholders(), std::vector<Node*>{x});
}

TEST(GraphTest, CallFunctionIsNamedAfterTheOpAndKeepsArgsAndKwargs) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* y = graph.placeholder("y");
  Node* add = graph.call_function("aten::add.Tensor", {x, y}, {{"alpha", 2}});

  EXPECT_EQ(add->op(), OpKind::CallFunction);
  EXPECT_EQ(add->name(), "add");
  EXPECT_EQ(add->target(), "aten::add.Tensor");
  EXPECT_EQ(add->args(), (ArgumentList{x, y}));
  ASSERT_NE(add->kwarg("alpha"), nullptr);
  EXPECT_EQ(add->kwarg("alpha")->to_int(), 2);
  EXPECT_EQ(add->kwarg("beta"), nullptr);
}

TEST(GraphTest, GetAttrKeepsThePathAsTargetAndNamesWithUnderscores) {
  Graph graph;
  Node* weight = graph.get_attr("layer1.conv.weight");

  EXPECT_EQ(weight->op(), OpKind::GetAttr);
  EXPECT_EQ(weight->name(), "layer1_conv_weight");
  EXPECT_EQ(weight->target(), "layer1.conv.weight");
}

TEST(GraphTest, OutputHoldsOneListOfTheGraphOutputs) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* relu = graph.call_function("aten::relu", {x});
  Node* output = graph.output({relu, x});

  EXPECT_EQ(output->op(), OpKind::Output);
  EXPECT_EQ(output->name(), "output");
  EXPECT_EQ(output->target(), "output");
  EXPECT_EQ(output->args(), (ArgumentList{list_of({relu, x})}));
  EXPECT_EQ(graph.output_node(), output);
  EXPECT_THAT(relu->users(), ElementsAre(output));
  EXPECT_THAT(x->users(), ElementsAre(relu, output));
  EXPECT_THAT(error_of([&] { graph.output({x}); }), HasSubstr("already has an output node"));
}

TEST(GraphTest, RepeatedNamesGetFxStyleSuffixes) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* x_again = graph.placeholder("x");
  Node* add = graph.call_function("aten::add.Tensor", {x, x_again});
  Node* add_1 = graph.call_function("aten::add.Tensor", {add, x});
  Node* add_2 = graph.call_function("aten::add.Scalar", {add_1, 1});

  EXPECT_EQ(x_again->name(), "x_1");
  EXPECT_EQ(add->name(), "add");
  EXPECT_EQ(add_1->name(), "add_1");
  EXPECT_EQ(add_2->name(), "add_2");
}

TEST(GraphTest, SuffixesSkipNamesAlreadyTaken) {
  Graph graph;
  Node* x = graph.placeholder("x");
  graph.call_function("aten::relu", {x}, {}, "relu_1");
  EXPECT_EQ(graph.call_function("aten::relu", {x})->name(), "relu");
  EXPECT_EQ(graph.call_function("aten::relu", {x})->name(), "relu_2");
}

TEST(GraphTest, InvalidCharactersInNamesAreReplaced) {
  Graph graph;
  Node* x = graph.placeholder("1st input");
  Node* relu = graph.call_function("aten::relu", {x}, {}, "my.relu-out");

  EXPECT_EQ(x->name(), "_1st_input");
  EXPECT_EQ(relu->name(), "my_relu_out");
  EXPECT_EQ(graph.unique_name("a b"), "a_b");
  EXPECT_EQ(graph.unique_name("my.relu-out"), "my_relu_out_1");
}

// ---------------------------------------------------------------------------
// Where new nodes go

TEST(GraphTest, PlaceholdersGoAfterTheLastPlaceholderEvenWhenOtherNodesExist) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* negated = neg(graph, x);
  graph.output({negated});

  graph.placeholder("y");
  EXPECT_THAT(names(graph), ElementsAre("x", "y", "neg", "output"));

  graph.set_insert_point(negated);
  graph.placeholder("z");
  EXPECT_THAT(names(graph), ElementsAre("x", "y", "z", "neg", "output"));
}

TEST(GraphTest, CallNodesGoBeforeTheOutputByDefault) {
  Graph graph;
  Node* x = graph.placeholder("x");
  graph.output({x});
  neg(graph, x);
  graph.get_attr("weight");

  EXPECT_THAT(names(graph), ElementsAre("x", "neg", "weight", "output"));
}

TEST(GraphTest, CallNodesGoBeforeTheInsertPointWhenOneIsSet) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* a = neg(graph, x, "a");
  Node* b = neg(graph, a, "b");
  graph.output({b});

  graph.set_insert_point(b);
  EXPECT_EQ(graph.insert_point(), b);
  neg(graph, x, "c");
  graph.get_attr("w");
  EXPECT_THAT(names(graph), ElementsAre("x", "a", "c", "w", "b", "output"));

  graph.set_insert_point(nullptr);
  neg(graph, x, "d");
  EXPECT_THAT(names(graph), ElementsAre("x", "a", "c", "w", "b", "d", "output"));
}

TEST(GraphTest, WithoutAnOutputNodeCallNodesAreAppended) {
  Graph graph;
  Node* x = graph.placeholder("x");
  neg(graph, x, "a");
  neg(graph, x, "b");
  EXPECT_THAT(names(graph), ElementsAre("x", "a", "b"));
}

TEST(GraphTest, PrevAndNextWalkTheNodeOrder) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* a = neg(graph, x, "a");
  Node* output = graph.output({a});

  EXPECT_EQ(x->prev(), nullptr);
  EXPECT_EQ(x->next(), a);
  EXPECT_EQ(a->prev(), x);
  EXPECT_EQ(a->next(), output);
  EXPECT_EQ(output->prev(), a);
  EXPECT_EQ(output->next(), nullptr);
}

TEST(GraphTest, MoveBeforeReordersWithoutTouchingUses) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* a = neg(graph, x, "a");
  Node* b = neg(graph, x, "b");
  graph.output({a, b});

  graph.move_before(b, a);

  EXPECT_THAT(names(graph), ElementsAre("x", "b", "a", "output"));
  EXPECT_EQ(b->prev(), x);
  EXPECT_EQ(b->next(), a);
  EXPECT_EQ(a->prev(), b);
  EXPECT_THAT(x->users(), ElementsAre(a, b));
  EXPECT_NO_THROW(graph.lint());
}

// ---------------------------------------------------------------------------
// Keeping users in step

TEST(GraphTest, UsersFollowSetArgsAndSetKwargs) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* y = graph.placeholder("y");
  Node* z = graph.placeholder("z");
  Node* op = graph.call_function("test::op", {x}, {{"other", z}});
  EXPECT_THAT(x->users(), ElementsAre(op));
  EXPECT_THAT(z->users(), ElementsAre(op));

  op->set_args({y});
  EXPECT_THAT(x->users(), IsEmpty());
  EXPECT_THAT(y->users(), ElementsAre(op));
  EXPECT_THAT(z->users(), ElementsAre(op));

  op->set_kwargs({{"other", x}});
  EXPECT_THAT(z->users(), IsEmpty());
  EXPECT_THAT(x->users(), ElementsAre(op));
  EXPECT_THAT(y->users(), ElementsAre(op));
}

TEST(GraphTest, ANodeUsedTwiceByOneUserListsThatUserOnce) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* y = graph.placeholder("y");
  Node* mul = graph.call_function("aten::mul.Tensor", {x, x});
  EXPECT_THAT(x->users(), ElementsAre(mul));

  mul->set_arg(0, y);
  EXPECT_EQ(mul->args(), (ArgumentList{y, x}));
  EXPECT_THAT(x->users(), ElementsAre(mul));  // still the second argument
  EXPECT_THAT(y->users(), ElementsAre(mul));

  mul->set_arg(1, y);
  EXPECT_THAT(x->users(), IsEmpty());
  EXPECT_THAT(y->users(), ElementsAre(mul));
}

TEST(GraphTest, SetArgPastTheEndNamesTheNodeAndIndex) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* mul = graph.call_function("aten::mul.Tensor", {x, x});
  const std::string message = error_of([&] { mul->set_arg(2, x); });
  EXPECT_THAT(message, HasSubstr("'mul'"));
  EXPECT_THAT(message, HasSubstr("2"));
}

TEST(GraphTest, ReplaceInputWithReachesNestedListsAndKwargs) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* y = graph.placeholder("y");
  Node* z = graph.placeholder("z");
  Node* cat = graph.call_function("aten::cat", {list_of({x, y, list_of({x})})}, {{"out", x}, {"dim", 0}});

  cat->replace_input_with(x, z);

  EXPECT_EQ(cat->args(), (ArgumentList{list_of({z, y, list_of({z})})}));
  EXPECT_EQ(*cat->kwarg("out"), Argument(z));
  EXPECT_EQ(*cat->kwarg("dim"), Argument(0));
  EXPECT_THAT(x->users(), IsEmpty());
  EXPECT_THAT(y->users(), ElementsAre(cat));
  EXPECT_THAT(z->users(), ElementsAre(cat));
}

TEST(GraphTest, ReplaceAllUsesWithRewritesEveryUserAndReturnsThem) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* w = graph.placeholder("w");
  Node* a = neg(graph, x, "a");
  Node* index = graph.call_function("aten::index.Tensor", {a, ArgumentList{None{}, x}}, {{"k", x}});
  Node* output = graph.output({index, x});

  const std::vector<Node*> changed = x->replace_all_uses_with(w);

  EXPECT_THAT(changed, ElementsAre(a, index, output));
  EXPECT_EQ(a->args(), (ArgumentList{w}));
  EXPECT_EQ(index->args(), (ArgumentList{a, ArgumentList{None{}, w}}));
  EXPECT_EQ(*index->kwarg("k"), Argument(w));
  EXPECT_EQ(output->args(), (ArgumentList{list_of({index, w})}));
  EXPECT_THAT(x->users(), IsEmpty());
  EXPECT_THAT(w->users(), ElementsAre(a, index, output));
  EXPECT_NO_THROW(graph.lint());
}

TEST(GraphTest, ReplaceAllUsesWithRewritesBothUsesOfAUserThatUsesTheNodeTwice) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* y = graph.placeholder("y");
  Node* mul = graph.call_function("aten::mul.Tensor", {x, x});

  EXPECT_THAT(x->replace_all_uses_with(y), ElementsAre(mul));

  EXPECT_EQ(mul->args(), (ArgumentList{y, y}));
  EXPECT_THAT(x->users(), IsEmpty());
  EXPECT_THAT(y->users(), ElementsAre(mul));
}

TEST(GraphTest, ReplaceAllUsesWithItselfChangesNothing) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* a = neg(graph, x);
  EXPECT_THAT(x->replace_all_uses_with(x), IsEmpty());
  EXPECT_EQ(a->args(), (ArgumentList{x}));
  EXPECT_THAT(x->users(), ElementsAre(a));
}

TEST(GraphTest, InputNodesAreInFirstReferenceOrderWithoutDuplicates) {
  Graph graph;
  Node* a = graph.placeholder("a");
  Node* b = graph.placeholder("b");
  Node* c = graph.placeholder("c");
  Node* op = graph.call_function("test::op", {b, ArgumentList{a, b}, None{}, 3}, {{"k", a}, {"j", c}});

  EXPECT_THAT(op->input_nodes(), ElementsAre(b, a, c));
}

// ---------------------------------------------------------------------------
// Erasing

TEST(GraphTest, EraseNodeRefusesWhileUsedAndNamesTheUsers) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* a = neg(graph, x, "a");
  Node* b = neg(graph, a, "b");
  Node* c = neg(graph, a, "c");

  const std::string message = error_of([&] { graph.erase_node(a); });
  EXPECT_THAT(message, HasSubstr("'a'"));
  EXPECT_THAT(message, HasSubstr("b, c"));
  EXPECT_EQ(graph.find_node("a"), a);

  graph.erase_node(b);
  graph.erase_node(c);
  graph.erase_node(a);
  EXPECT_THAT(names(graph), ElementsAre("x"));
  EXPECT_EQ(graph.find_node("a"), nullptr);
  EXPECT_THAT(x->users(), IsEmpty());
}

TEST(GraphTest, EraseNodeUnlinksItFromItsInputsUsers) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* y = graph.placeholder("y");
  Node* keep = neg(graph, x, "keep");
  Node* add = graph.call_function("aten::add.Tensor", {x, ArgumentList{y}});

  graph.erase_node(add);

  EXPECT_THAT(x->users(), ElementsAre(keep));
  EXPECT_THAT(y->users(), IsEmpty());
}

TEST(GraphTest, ErasingTheInsertPointResetsIt) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* a = neg(graph, x, "a");
  graph.output({x});
  graph.set_insert_point(a);

  graph.erase_node(a);

  EXPECT_EQ(graph.insert_point(), nullptr);
  neg(graph, x, "b");
  EXPECT_THAT(names(graph), ElementsAre("x", "b", "output"));
}

// ---------------------------------------------------------------------------
// Nodes of another graph

TEST(GraphTest, CallFunctionRejectsANodeOfAnotherGraph) {
  Graph graph;
  Graph other;
  graph.placeholder("x");
  Node* foreign = other.placeholder("y");

  const std::string message = error_of([&] { graph.call_function("aten::neg", {foreign}); });

  EXPECT_THAT(message, HasSubstr("'neg'"));
  EXPECT_THAT(message, HasSubstr("'y'"));
  EXPECT_THAT(names(graph), ElementsAre("x"));
  EXPECT_THAT(foreign->users(), IsEmpty());
}

TEST(GraphTest, RejectedCallFunctionLeavesNoUserBehindOnItsOtherInputs) {
  Graph graph;
  Graph other;
  Node* x = graph.placeholder("x");
  Node* foreign = other.placeholder("y");

  EXPECT_THROW(graph.call_function("aten::add.Tensor", {x, foreign}), AotError);

  EXPECT_THAT(x->users(), IsEmpty());
  graph.output({x});
  EXPECT_NO_THROW(graph.lint());
}

// ---------------------------------------------------------------------------
// lint

// x -> a -> b -> output(b), with c independent of a and b.
struct Chain {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* a = neg(graph, x, "a");
  Node* b = neg(graph, a, "b");
  Node* c = neg(graph, x, "c");
  Node* output = graph.output({b, c});
};

TEST(GraphTest, LintAcceptsAWellFormedGraph) {
  Chain chain;
  EXPECT_NO_THROW(chain.graph.lint());
  EXPECT_TRUE(chain.graph.is_topologically_sorted());
}

// The nodes as the list holds them, walked one by one.
std::vector<Node*> walked(const Graph& graph) {
  std::vector<Node*> nodes;
  for (Node* node : graph) nodes.push_back(node);
  return nodes;
}

TEST(GraphTest, NodeListFollowsEveryChangeAfterASnapshot) {
  Chain chain;
  ASSERT_EQ(chain.graph.node_list(), walked(chain.graph));
  chain.graph.move_before(chain.c, chain.a);
  EXPECT_EQ(chain.graph.node_list(), walked(chain.graph));
  EXPECT_EQ(chain.graph.node_list()[1], chain.c);
  chain.graph.set_insert_point(chain.b);
  Node* d = neg(chain.graph, chain.a, "d");
  EXPECT_EQ(chain.graph.node_list(), walked(chain.graph));
  chain.graph.erase_node(d);
  Node* y = chain.graph.placeholder("y");
  EXPECT_EQ(chain.graph.node_list(), walked(chain.graph));
  EXPECT_EQ(chain.graph.placeholders(), (std::vector<Node*>{chain.x, y}));
  chain.graph.rename(chain.a, "renamed");
  EXPECT_NO_THROW(chain.graph.lint());
  EXPECT_EQ(chain.graph.find_node("renamed"), chain.a);
  const std::unique_ptr<Graph> copy = chain.graph.clone();
  EXPECT_EQ(copy->node_list(), walked(*copy));
  EXPECT_NO_THROW(copy->lint());
}

TEST(GraphTest, LintCatchesAUseBeforeItsDefinition) {
  Chain chain;
  chain.graph.move_before(chain.b, chain.a);

  const std::string message = error_of([&] { chain.graph.lint(); });
  EXPECT_THAT(message, HasSubstr("node 'b'"));
  EXPECT_THAT(message, HasSubstr("'a' before it is defined"));
}

TEST(GraphTest, LintCatchesAPlaceholderAfterACallNode) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* y = graph.placeholder("y");
  Node* a = neg(graph, x, "a");
  graph.output({a, y});
  graph.move_before(a, y);

  const std::string message = error_of([&] { graph.lint(); });
  EXPECT_THAT(message, HasSubstr("node 'y'"));
  EXPECT_THAT(message, HasSubstr("placeholder after a non-placeholder"));
}

TEST(GraphTest, LintCatchesANodeAfterTheOutput) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* a = neg(graph, x, "a");
  Node* dead = neg(graph, x, "dead");
  Node* output = graph.output({a});
  graph.move_before(output, dead);

  const std::string message = error_of([&] { graph.lint(); });
  EXPECT_THAT(message, HasSubstr("node 'dead'"));
  EXPECT_THAT(message, HasSubstr("after the output node"));
}

TEST(GraphTest, LintCatchesAMissingOutputNode) {
  Graph graph;
  neg(graph, graph.placeholder("x"));
  EXPECT_THAT(error_of([&] { graph.lint(); }), HasSubstr("no output node"));
}

// ---------------------------------------------------------------------------
// Topological order

TEST(GraphTest, MovingAUserAboveItsInputBreaksTopologicalOrder) {
  Chain chain;
  chain.graph.move_before(chain.b, chain.a);
  EXPECT_FALSE(chain.graph.is_topologically_sorted());
}

TEST(GraphTest, StableTopologicalSortRestoresAValidOrderKeepingFreeNodesInPlace) {
  // x, c, b, a, output: b must follow a; c is free and keeps its place first.
  Chain chain;
  chain.graph.move_before(chain.c, chain.a);
  chain.graph.move_before(chain.b, chain.a);
  ASSERT_THAT(names(chain.graph), ElementsAre("x", "c", "b", "a", "output"));

  chain.graph.stable_topological_sort();

  EXPECT_THAT(names(chain.graph), ElementsAre("x", "c", "a", "b", "output"));
  EXPECT_TRUE(chain.graph.is_topologically_sorted());
  EXPECT_NO_THROW(chain.graph.lint());
}

TEST(GraphTest, StableTopologicalSortLeavesASortedGraphAlone) {
  Chain chain;
  chain.graph.stable_topological_sort();
  EXPECT_THAT(names(chain.graph), ElementsAre("x", "a", "b", "c", "output"));
}

TEST(GraphTest, StableTopologicalSortKeepsTheOutputLast) {
  Chain chain;
  chain.graph.move_before(chain.output, chain.a);
  ASSERT_THAT(names(chain.graph), ElementsAre("x", "output", "a", "b", "c"));

  chain.graph.stable_topological_sort();

  EXPECT_THAT(names(chain.graph), ElementsAre("x", "a", "b", "c", "output"));
  EXPECT_NO_THROW(chain.graph.lint());
}

TEST(GraphTest, StableTopologicalSortKeepsAMovedNodeAheadOfLaterIndependentNodes) {
  // x, b, a, c, output: b waits for a; c never depended on b and came after it.
  Chain chain;
  chain.graph.move_before(chain.b, chain.a);
  ASSERT_THAT(names(chain.graph), ElementsAre("x", "b", "a", "c", "output"));

  chain.graph.stable_topological_sort();

  EXPECT_THAT(names(chain.graph), ElementsAre("x", "a", "b", "c", "output"));
}

TEST(GraphTest, StableTopologicalSortHonorsOrderingsBeyondTheData) {
  // x, a, b, c: c (on x alone) also after b; then a pair against the data
  // (a after b, b reading a) is a cycle that leaves the order as it was.
  Chain chain;
  chain.graph.move_before(chain.c, chain.a);
  ASSERT_THAT(names(chain.graph), ElementsAre("x", "c", "a", "b", "output"));
  chain.graph.stable_topological_sort({{chain.b, chain.c}});
  EXPECT_THAT(names(chain.graph), ElementsAre("x", "a", "b", "c", "output"));
  EXPECT_THROW(chain.graph.stable_topological_sort({{chain.b, chain.a}}), AotError);
  EXPECT_THAT(names(chain.graph), ElementsAre("x", "a", "b", "c", "output"));
}

TEST(GraphTest, StableTopologicalSortOfACycleThrowsNamingItsNodes) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* a = neg(graph, x, "a");
  Node* b = neg(graph, a, "b");
  graph.output({b});
  a->set_args({b});
  EXPECT_FALSE(graph.is_topologically_sorted());

  const std::string message = error_of([&] { graph.stable_topological_sort(); });
  EXPECT_THAT(message, HasSubstr("cycle"));
  EXPECT_THAT(message, HasSubstr("a, b"));
}

// ---------------------------------------------------------------------------
// clone

TEST(GraphTest, CloneIsADeepCopyWithArgsRemappedToTheNewNodes) {
  Graph graph;
  Node* x = graph.placeholder("x", f32({2, 3}));
  Node* weight = graph.get_attr("linear.weight");
  Node* mm = graph.call_function("aten::mm", {x, weight}, {{"extra", ArgumentList{x, None{}}}});
  mm->meta.val = f32({2, 2});
  mm->meta.debug_handle = 7;
  mm->meta.stack_trace = "model.py:12";
  mm->meta.delegation_tag = "tag0";
  graph.output({mm});

  std::map<const Node*, Node*> node_map;
  std::unique_ptr<Graph> copy = graph.clone(&node_map);

  EXPECT_THAT(names(*copy), ElementsAre("x", "linear_weight", "mm", "output"));
  ASSERT_EQ(node_map.size(), 4u);
  for (Node* old_node : graph) {
    Node* new_node = node_map.at(old_node);
    EXPECT_NE(new_node, old_node);
    EXPECT_EQ(&new_node->graph(), copy.get());
    EXPECT_EQ(new_node->name(), old_node->name());
    EXPECT_EQ(new_node->op(), old_node->op());
    EXPECT_EQ(new_node->target(), old_node->target());
    EXPECT_EQ(to_string(new_node->meta.val), to_string(old_node->meta.val));
  }
  Node* new_x = node_map.at(x);
  Node* new_weight = node_map.at(weight);
  Node* new_mm = node_map.at(mm);
  EXPECT_EQ(new_mm->args(), (ArgumentList{new_x, new_weight}));
  EXPECT_EQ(*new_mm->kwarg("extra"), Argument(ArgumentList{new_x, None{}}));
  EXPECT_EQ(new_mm->meta.debug_handle, 7);
  EXPECT_EQ(new_mm->meta.stack_trace, "model.py:12");
  EXPECT_EQ(new_mm->meta.delegation_tag, "tag0");
  EXPECT_THAT(new_x->users(), ElementsAre(new_mm));
  EXPECT_THAT(new_mm->users(), ElementsAre(copy->output_node()));
  EXPECT_NO_THROW(copy->lint());
}

TEST(GraphTest, EditingACloneLeavesTheOriginalAlone) {
  Chain chain;
  std::unique_ptr<Graph> copy = chain.graph.clone();
  Node* new_c = copy->node("c");

  new_c->replace_all_uses_with(copy->node("x"));
  copy->erase_node(new_c);
  copy->rename(copy->node("a"), "renamed");

  EXPECT_THAT(names(*copy), ElementsAre("x", "renamed", "b", "output"));
  EXPECT_THAT(names(chain.graph), ElementsAre("x", "a", "b", "c", "output"));
  EXPECT_THAT(chain.x->users(), ElementsAre(chain.a, chain.c));
  EXPECT_EQ(chain.output->args(), (ArgumentList{list_of({chain.b, chain.c})}));
  EXPECT_NO_THROW(chain.graph.lint());
}

// ---------------------------------------------------------------------------
// Names and lookup

TEST(GraphTest, RenameMovesTheNodeToItsNewName) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* add = graph.call_function("aten::add.Tensor", {x, x});

  graph.rename(add, "total");

  EXPECT_EQ(add->name(), "total");
  EXPECT_EQ(graph.node("total"), add);
  EXPECT_EQ(graph.find_node("add"), nullptr);
  EXPECT_NO_THROW(graph.rename(add, "total"));
}

TEST(GraphTest, RenameToATakenNameThrowsNamingBoth) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* add = graph.call_function("aten::add.Tensor", {x, x});

  const std::string message = error_of([&] { graph.rename(add, "x"); });
  EXPECT_THAT(message, HasSubstr("'add'"));
  EXPECT_THAT(message, HasSubstr("'x' is taken"));
  EXPECT_EQ(add->name(), "add");
  EXPECT_EQ(graph.node("x"), x);
}

TEST(GraphTest, NodeLookupOfAnUnknownNameThrowsNamingIt) {
  Graph graph;
  graph.placeholder("x");
  EXPECT_EQ(graph.find_node("nope"), nullptr);
  EXPECT_THAT(error_of([&] { graph.node("nope"); }), HasSubstr("'nope'"));
}

// ---------------------------------------------------------------------------
// Text

TEST(GraphTest, FormatShowsNameKindTargetArgsAndKwargs) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* y = graph.placeholder("y");
  Node* add = graph.call_function("aten::add.Tensor", {x, y}, {{"alpha", 2}});
  Node* output = graph.output({add});

  EXPECT_EQ(x->format(), "x = placeholder[target=x]()");
  EXPECT_EQ(add->format(), "add = call_function[target=aten::add.Tensor](x, y, alpha=2)");
  EXPECT_EQ(output->format(), "output = output[target=output]([add])");
}

TEST(GraphTest, ArgumentToStringPrintsEveryAlternativeLikePython) {
  Graph graph;
  Node* x = graph.placeholder("x");

  EXPECT_EQ(to_string(Argument()), "None");
  EXPECT_EQ(to_string(Argument(x)), "x");
  EXPECT_EQ(to_string(Argument(3)), "3");
  EXPECT_EQ(to_string(Argument(int64_t{-7})), "-7");
  EXPECT_EQ(to_string(Argument(1.0)), "1.0");
  EXPECT_EQ(to_string(Argument(0.5)), "0.5");
  EXPECT_EQ(to_string(Argument(-2.5)), "-2.5");
  EXPECT_EQ(to_string(Argument(0.1)), "0.1");
  EXPECT_EQ(to_string(Argument(1e-05)), "1e-05");
  EXPECT_EQ(to_string(Argument(std::numeric_limits<double>::infinity())), "inf");
  EXPECT_EQ(to_string(Argument(-std::numeric_limits<double>::infinity())), "-inf");
  EXPECT_EQ(to_string(Argument(std::nan(""))), "nan");
  EXPECT_EQ(to_string(Argument(true)), "True");
  EXPECT_EQ(to_string(Argument(false)), "False");
  EXPECT_EQ(to_string(Argument("mean")), "'mean'");
  EXPECT_EQ(to_string(Argument(ScalarType::Float)), "torch.float32");
  EXPECT_EQ(to_string(Argument(ScalarType::Long)), "torch.int64");
  EXPECT_EQ(to_string(Argument(ScalarType::BFloat16)), "torch.bfloat16");
  EXPECT_EQ(to_string(Argument(MemoryFormat::ChannelsLast)), "torch.channels_last");
  EXPECT_EQ(to_string(Argument(MemoryFormat::Contiguous)), "torch.contiguous_format");
  EXPECT_EQ(to_string(Argument(Layout::Strided)), "torch.strided");
  EXPECT_EQ(to_string(Argument(Device{})), "device(type='cpu')");
  EXPECT_EQ(to_string(Argument(Device{"cuda", 0})), "device(type='cuda', index=0)");
  EXPECT_EQ(to_string(Argument(ArgumentList{})), "[]");
  EXPECT_EQ(to_string(Argument(ArgumentList{1, ArgumentList{x, None{}}, 2.5})), "[1, [x, None], 2.5]");
}

TEST(GraphTest, ArgumentToStringPrintsWholeFloatsInPositionalNotation) {
  EXPECT_EQ(to_string(Argument(10.0)), "10.0");
  EXPECT_EQ(to_string(Argument(100.0)), "100.0");
  EXPECT_EQ(to_string(Argument(-300.0)), "-300.0");
  EXPECT_EQ(to_string(Argument(123456.0)), "123456.0");
  EXPECT_EQ(to_string(Argument(1e16)), "1e+16");
}

}  // namespace
}  // namespace kiln::aot

namespace kiln::aot {
namespace {

TEST(GraphTest, ReplaceInputWithAForeignNodeChangesNothing) {
  Graph graph;
  Graph other;
  Node* x = graph.placeholder("x");
  Node* relu = graph.call_function("aten::relu.default", {x});
  graph.output({relu});
  Node* foreign = other.placeholder("z");
  EXPECT_THROW(relu->replace_input_with(x, foreign), AotError);
  EXPECT_EQ(relu->args()[0].node(), x);
  EXPECT_EQ(x->users(), std::vector<Node*>{relu});
  EXPECT_NO_THROW(graph.lint());
  EXPECT_THROW(other.output({x}), AotError);
  EXPECT_EQ(other.output_node(), nullptr);
}

// Whether is_before agrees with the list order for every pair of neighbours.
bool order_matches_list(const Graph& graph) {
  const Node* previous = nullptr;
  for (const Node* node : graph) {
    if (previous != nullptr && !previous->is_before(*node)) return false;
    previous = node;
  }
  return true;
}

TEST(GraphTest, IsBeforeFollowsTheListThroughCrowdedInsertionsMovesAndSorts) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* anchor = graph.call_function("aten::relu.default", {x});
  graph.output({anchor});
  // Thousands of nodes inserted at one spot, and placeholders always after
  // the last one: keys must be spread out again and again.
  graph.set_insert_point(anchor);
  Node* last = x;
  for (int i = 0; i < 3000; ++i) {
    last = graph.call_function("aten::sin.default", {last});
    if (i % 3 == 0) graph.placeholder("p" + std::to_string(i));
  }
  anchor->set_arg(0, last);
  ASSERT_TRUE(order_matches_list(graph));
  EXPECT_TRUE(x->is_before(*anchor));
  EXPECT_FALSE(anchor->is_before(*x));
  // Moving placeholders one by one to just before the first call node.
  const std::vector<Node*> placeholders = graph.placeholders();
  Node* first_call = placeholders.back()->next();
  for (Node* node : placeholders) graph.move_before(node, first_call);
  ASSERT_TRUE(order_matches_list(graph));
  EXPECT_EQ(graph.placeholders().size(), placeholders.size());
  EXPECT_EQ(graph.placeholders().front(), placeholders.front());
  graph.stable_topological_sort();
  EXPECT_TRUE(order_matches_list(graph));
  EXPECT_NO_THROW(graph.lint());
}

TEST(GraphTest, PlaceholdersGoAfterTheLastPlaceholderAfterErasuresAndMoves) {
  Graph graph;
  Node* a = graph.placeholder("a");
  Node* relu = graph.call_function("aten::relu.default", {a});
  Node* b = graph.placeholder("b");
  EXPECT_EQ(b->next(), relu);
  Node* sin = graph.call_function("aten::sin.default", {b});
  graph.set_insert_point(relu);
  Node* cos = graph.call_function("aten::cos.default", {a});  // now the first non-placeholder
  graph.set_insert_point(nullptr);
  Node* c = graph.placeholder("c");
  EXPECT_EQ(c->next(), cos);
  graph.erase_node(cos);
  Node* d = graph.placeholder("d");
  EXPECT_EQ(d->next(), relu);
  graph.move_before(relu, sin);  // moves keep the answer right too
  Node* e = graph.placeholder("e");
  EXPECT_EQ(e->next(), relu);
  graph.output({relu, sin});
  EXPECT_EQ(graph.output_node()->args().size(), 1u);
  EXPECT_EQ(graph.placeholders().size(), 5u);
  EXPECT_TRUE(order_matches_list(graph));
}

}  // namespace
}  // namespace kiln::aot
