// DelegateMappingBuilder and the debug-handle pass (ExecuTorch's
// test_delegate_map_builder.py and test_debug_handle_map.py cases).
#include "aot/delegate/debug_handle.h"
#include "aot/delegate/test/delegate_test_util.h"

namespace kiln::aot {
namespace {

using testing::expect_error;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// x -> sin -> cos, with handles: sin 1, cos 2 (the placeholder and output have none).
class DelegateMappingBuilderTest : public ::testing::Test {
 protected:
  void SetUp() override { generate_debug_handles(program_); }

  static ExportedProgram build() {
    GraphBuilder b;
    Node* x = b.input("x", f32({1, 1}));
    b.output({b.call("aten::cos", {b.call("aten::sin", {x})})});
    return std::move(b).build();
  }
  std::vector<const Node*> all_nodes() const {
    const auto nodes = program_.graph().node_list();
    return {nodes.begin(), nodes.end()};
  }
  const Node* node(const std::string& name) const { return program_.graph().node(name); }

  ExportedProgram program_ = build();
};

TEST_F(DelegateMappingBuilderTest, DebugHandlesNumberTheOperatorNodesFromOne) {
  EXPECT_FALSE(node("x")->meta.debug_handle.has_value());
  EXPECT_EQ(node("sin")->meta.debug_handle, 1);
  EXPECT_EQ(node("cos")->meta.debug_handle, 2);
  EXPECT_FALSE(node("output")->meta.debug_handle.has_value());
}

TEST_F(DelegateMappingBuilderTest, TheDebugHandlePassReplacesOldHandles) {
  program_.graph().node("cos")->meta.debug_handle = 40;
  program_.graph().node("x")->meta.debug_handle = 7;
  PassManager({generate_debug_handles()}).run(program_);
  EXPECT_FALSE(node("x")->meta.debug_handle.has_value());
  EXPECT_EQ(node("cos")->meta.debug_handle, 2);
}

TEST_F(DelegateMappingBuilderTest, GeneratedIdentifiersCountFromZero) {
  DelegateMappingBuilder builder(/*generated_identifiers=*/true);
  EXPECT_EQ(builder.insert_delegate_mapping_entry(all_nodes()), DelegateDebugId(int64_t{0}));
  EXPECT_EQ(to_string(builder.get_delegate_mapping()), "{0: (1, 2)}");
  EXPECT_EQ(builder.insert_delegate_mapping_entry(node("sin")), DelegateDebugId(int64_t{1}));
  EXPECT_EQ(to_string(builder.get_delegate_mapping()), "{0: (1, 2), 1: (1,)}");
}

TEST_F(DelegateMappingBuilderTest, GivenIntIdentifiers) {
  DelegateMappingBuilder builder;
  EXPECT_EQ(builder.insert_delegate_mapping_entry(all_nodes(), int64_t{22}), DelegateDebugId(int64_t{22}));
  EXPECT_EQ(builder.insert_delegate_mapping_entry(node("cos"), int64_t{55}), DelegateDebugId(int64_t{55}));
  EXPECT_EQ(to_string(builder.get_delegate_mapping()), "{22: (1, 2), 55: (2,)}");
}

TEST_F(DelegateMappingBuilderTest, GivenStringIdentifiers) {
  DelegateMappingBuilder builder;
  EXPECT_EQ(builder.insert_delegate_mapping_entry(all_nodes(), std::string("22")), DelegateDebugId(std::string("22")));
  builder.insert_delegate_mapping_entry(node("sin"), std::string("55"));
  EXPECT_EQ(to_string(builder.get_delegate_mapping()), "{'22': (1, 2), '55': (1,)}");
}

TEST_F(DelegateMappingBuilderTest, GivingAnIdentifierWhenTheyAreGeneratedFails) {
  DelegateMappingBuilder builder(true);
  expect_error([&] { builder.insert_delegate_mapping_entry(all_nodes(), std::string("22")); },
               "generates identifiers; entry for handles [1, 2] must not give one (got '22')");
  EXPECT_TRUE(builder.get_delegate_mapping().empty());
}

TEST_F(DelegateMappingBuilderTest, OmittingTheIdentifierWhenNotGeneratedFails) {
  DelegateMappingBuilder builder;
  expect_error([&] { builder.insert_delegate_mapping_entry(all_nodes()); }, "needs an identifier (int or string)");
}

TEST_F(DelegateMappingBuilderTest, ReinsertingAnIdentifierFails) {
  DelegateMappingBuilder builder;
  builder.insert_delegate_mapping_entry(node("sin"), std::string("1"));
  expect_error([&] { builder.insert_delegate_mapping_entry(node("cos"), std::string("1")); },
               "delegate debug identifier '1' is already in the mapping");
  EXPECT_EQ(to_string(builder.get_delegate_mapping()), "{'1': (1,)}");
}

TEST_F(DelegateMappingBuilderTest, NodesWithoutHandlesAreSkippedButOneIsNeeded) {
  DelegateMappingBuilder builder(true);
  builder.insert_delegate_mapping_entry(std::vector<const Node*>{node("x"), node("cos")});
  EXPECT_EQ(to_string(builder.get_delegate_mapping()), "{0: (2,)}");
  expect_error([&] { builder.insert_delegate_mapping_entry(node("x")); },
               "node [x] has a debug handle (give the program's nodes handles with generate_debug_handles");
  expect_error([&] { builder.insert_delegate_mapping_entry(std::vector<const Node*>{node("x"), node("output")}); },
               "none of the nodes [x, output] has a debug handle");
}

TEST_F(DelegateMappingBuilderTest, HandlesGivenDirectlyAreSortedOnce) {
  DelegateMappingBuilder builder(true);
  builder.insert_delegate_mapping_entry(std::vector<int64_t>{5, 3, 5, 4});
  EXPECT_THAT(builder.get_delegate_mapping().at(int64_t{0}), ElementsAre(3, 4, 5));
  expect_error([&] { builder.insert_delegate_mapping_entry(std::vector<int64_t>{}); }, "at least one debug handle");
}

TEST(DebugHandleMapTest, PrintsLikePython) {
  DebugHandleMap map;
  EXPECT_EQ(to_string(map), "{}");
  map[int64_t{1}] = {3};
  map[int64_t{0}] = {1, 2};
  EXPECT_EQ(to_string(map), "{0: (1, 2), 1: (3,)}");
}

}  // namespace
}  // namespace kiln::aot
