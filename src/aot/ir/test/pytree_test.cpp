#include "aot/ir/testing/aot_testing.h"
#include "aot/ir/pytree.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "aot/ir/error.h"

namespace kiln::aot {
namespace {

using testing::error_of;

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

PyTree leaf(int64_t value) { return PyTree::make_leaf(value); }

// The tree as Python would print it: ((1, [2, None]), {'a': 3, 'b': (4,)}).
std::string python(const PyTree& tree) {
  std::string text;
  switch (tree.kind) {
    case PyTree::Kind::Leaf: return describe(tree.leaf);
    case PyTree::Kind::None: return "None";
    case PyTree::Kind::Dict:
      for (size_t i = 0; i < tree.children.size(); ++i) {
        text += (i ? ", '" : "'") + tree.keys[i] + "': " + python(tree.children[i]);
      }
      return "{" + text + "}";
    case PyTree::Kind::Tuple:
    case PyTree::Kind::List:
      for (size_t i = 0; i < tree.children.size(); ++i) text += (i ? ", " : "") + python(tree.children[i]);
      if (tree.kind == PyTree::Kind::List) return "[" + text + "]";
      return "(" + text + (tree.children.size() == 1 ? ",)" : ")");
  }
  return "?";
}

std::vector<std::string> described(const std::vector<Value>& values) {
  std::vector<std::string> result;
  for (const Value& value : values) result.push_back(describe(value));
  return result;
}

// ((x, [y, None]), {'a': z, 'b': (w,)}) with x, y, z, w = 1, 2, 3, 4.
PyTree nested() {
  return PyTree::tuple({
      PyTree::tuple({leaf(1), PyTree::list({leaf(2), PyTree::none()})}),
      PyTree::dict({{"a", leaf(3)}, {"b", PyTree::tuple({leaf(4)})}}),
  });
}

TreeSpec spec_of(const PyTree& tree) { return tree_flatten(tree).second; }

// ---------------------------------------------------------------------------
// tree_flatten / tree_unflatten

TEST(PyTreeTest, ALeafFlattensToItself) {
  const auto [leaves, spec] = tree_flatten(leaf(5));
  EXPECT_THAT(described(leaves), ElementsAre("5"));
  EXPECT_EQ(spec, TreeSpec::leaf());
  EXPECT_EQ(spec.to_string(), "*");
  EXPECT_EQ(spec.num_leaves(), 1u);
  EXPECT_EQ(python(tree_unflatten(leaves, spec)), "5");
}

TEST(PyTreeTest, NoneIsAContainerWithoutLeaves) {
  const auto [leaves, spec] = tree_flatten(PyTree::none());
  EXPECT_THAT(leaves, IsEmpty());
  EXPECT_EQ(spec.kind, PyTree::Kind::None);
  EXPECT_EQ(spec.to_string(), "TreeSpec(NoneType, None, [])");
  EXPECT_EQ(spec.num_leaves(), 0u);
  EXPECT_EQ(python(tree_unflatten({}, spec)), "None");
}

TEST(PyTreeTest, TuplesListsAndDictsRoundTrip) {
  const PyTree tuple = PyTree::tuple({leaf(1), PyTree::make_leaf(std::string("s"))});
  const PyTree list = PyTree::list({leaf(1), PyTree::make_leaf(2.5), PyTree::make_leaf(true)});
  const PyTree dict = PyTree::dict({{"k", leaf(1)}, {"j", PyTree::make_leaf(None{})}});

  for (const PyTree* tree : {&tuple, &list, &dict}) {
    const auto [leaves, spec] = tree_flatten(*tree);
    EXPECT_EQ(python(tree_unflatten(leaves, spec)), python(*tree));
  }
  EXPECT_EQ(python(tuple), "(1, 's')");
  EXPECT_THAT(described(tree_flatten(list).first), ElementsAre("1", "2.5", "True"));
  EXPECT_EQ(spec_of(dict).to_string(), "TreeSpec(dict, ['k', 'j'], [*, *])");
}

TEST(PyTreeTest, NestedTreeFlattensDepthFirstAndRoundTrips) {
  const PyTree tree = nested();
  const auto [leaves, spec] = tree_flatten(tree);

  EXPECT_THAT(described(leaves), ElementsAre("1", "2", "3", "4"));
  EXPECT_EQ(spec.num_leaves(), 4u);
  EXPECT_EQ(spec.to_string(),
            "TreeSpec(tuple, None, ["
            "TreeSpec(tuple, None, [*, TreeSpec(list, None, [*, TreeSpec(NoneType, None, [])])]), "
            "TreeSpec(dict, ['a', 'b'], [*, TreeSpec(tuple, None, [*])])])");
  EXPECT_EQ(python(tree_unflatten(leaves, spec)), "((1, [2, None]), {'a': 3, 'b': (4,)})");
}

TEST(PyTreeTest, UnflattenPutsNewLeavesIntoTheSameStructure) {
  const TreeSpec spec = spec_of(nested());
  const PyTree rebuilt = tree_unflatten({int64_t{10}, std::string("y"), 0.5, false}, spec);
  EXPECT_EQ(python(rebuilt), "((10, ['y', None]), {'a': 0.5, 'b': (False,)})");
  EXPECT_EQ(describe(rebuilt.children[1].at("b").children[0].leaf), "False");
}

TEST(PyTreeTest, EmptyContainersHaveSpecsButNoLeaves) {
  const PyTree tree = PyTree::tuple({PyTree::tuple({}), PyTree::list({}), PyTree::dict({})});
  const auto [leaves, spec] = tree_flatten(tree);

  EXPECT_THAT(leaves, IsEmpty());
  EXPECT_EQ(spec.num_leaves(), 0u);
  EXPECT_EQ(spec.to_string(),
            "TreeSpec(tuple, None, [TreeSpec(tuple, None, []), TreeSpec(list, None, []), TreeSpec(dict, [], [])])");
  EXPECT_EQ(python(tree_unflatten({}, spec)), "((), [], {})");
}

TEST(PyTreeTest, TensorLeavesShareStorageWithTheTree) {
  const HostTensor x = HostTensor::from_vector<float>({2}, {1.0f, 2.0f});
  const auto [leaves, spec] = tree_flatten(PyTree::list({PyTree::make_leaf(x)}));

  ASSERT_EQ(leaves.size(), 1u);
  const HostTensor& flat = std::get<HostTensor>(leaves[0]);
  EXPECT_EQ(flat.storage(), x.storage());
  EXPECT_EQ(describe(leaves[0]), "f32[2]");
}

TEST(PyTreeTest, UnflattenWithTheWrongNumberOfLeavesThrows) {
  const TreeSpec spec = spec_of(PyTree::tuple({leaf(1), leaf(2)}));

  const std::string too_many = error_of([&] { tree_unflatten({int64_t{1}, int64_t{2}, int64_t{3}}, spec); });
  EXPECT_THAT(too_many, HasSubstr("3 values"));
  EXPECT_THAT(too_many, HasSubstr("TreeSpec(tuple, None, [*, *])"));
  EXPECT_THAT(too_many, HasSubstr("2 leaves"));
  EXPECT_THAT(error_of([&] { tree_unflatten({int64_t{1}}, spec); }), HasSubstr("1 values"));
}

TEST(PyTreeTest, DictAtFindsAKeyAndNamesAMissingOne) {
  const PyTree dict = PyTree::dict({{"a", leaf(1)}, {"b", leaf(2)}});
  EXPECT_EQ(python(dict.at("b")), "2");
  EXPECT_THAT(error_of([&] { dict.at("zz"); }), HasSubstr("'zz'"));
}

// ---------------------------------------------------------------------------
// flatten_by_spec

TEST(FlattenBySpecTest, LeavesCarryTheirKeyPaths) {
  const std::vector<FlatLeaf> leaves = flatten_by_spec(nested(), spec_of(nested()));

  ASSERT_EQ(leaves.size(), 4u);
  EXPECT_EQ(leaves[0].path, "[0][0]");
  EXPECT_EQ(leaves[1].path, "[0][1][0]");
  EXPECT_EQ(leaves[2].path, "[1]['a']");
  EXPECT_EQ(leaves[3].path, "[1]['b'][0]");
  EXPECT_EQ(describe(leaves[2].value), "3");
}

TEST(FlattenBySpecTest, ATopLevelLeafHasAnEmptyPath) {
  const std::vector<FlatLeaf> leaves = flatten_by_spec(leaf(9), TreeSpec::leaf());
  ASSERT_EQ(leaves.size(), 1u);
  EXPECT_EQ(leaves[0].path, "");
  EXPECT_EQ(describe(leaves[0].value), "9");
}

TEST(FlattenBySpecTest, DictKeysAreMatchedByNameAndReturnedInSpecOrder) {
  const TreeSpec spec = spec_of(PyTree::dict({{"a", leaf(0)}, {"b", PyTree::list({leaf(0)})}}));
  const PyTree given = PyTree::dict({{"b", PyTree::list({leaf(2)})}, {"a", leaf(1)}});

  const std::vector<FlatLeaf> leaves = flatten_by_spec(given, spec);

  ASSERT_EQ(leaves.size(), 2u);
  EXPECT_EQ(leaves[0].path, "['a']");
  EXPECT_EQ(describe(leaves[0].value), "1");
  EXPECT_EQ(leaves[1].path, "['b'][0]");
  EXPECT_EQ(describe(leaves[1].value), "2");
}

TEST(FlattenBySpecTest, ATupleWhereAListIsExpectedNamesThePath) {
  const TreeSpec spec = spec_of(PyTree::tuple({leaf(0), PyTree::tuple({leaf(0), leaf(0)})}));
  const PyTree given = PyTree::tuple({leaf(1), PyTree::list({leaf(2), leaf(3)})});
  EXPECT_EQ(error_of([&] { flatten_by_spec(given, spec); }), "at [1]: expected a tuple of 2, got a list of 2");
}

TEST(FlattenBySpecTest, AMismatchAtTheTopIsSaidSo) {
  const TreeSpec spec = spec_of(PyTree::tuple({leaf(0)}));
  EXPECT_EQ(error_of([&] { flatten_by_spec(PyTree::list({leaf(1)}), spec); }),
            "at the top level: expected a tuple of 1, got a list of 1");
}

TEST(FlattenBySpecTest, AWrongLengthNamesThePathAndBothLengths) {
  const TreeSpec spec = spec_of(PyTree::tuple({PyTree::dict({{"a", PyTree::list({leaf(0), leaf(0)})}})}));
  const PyTree given = PyTree::tuple({PyTree::dict({{"a", PyTree::list({leaf(1), leaf(2), leaf(3)})}})});
  EXPECT_EQ(error_of([&] { flatten_by_spec(given, spec); }), "at [0]['a']: expected a list of 2, got a list of 3");
}

TEST(FlattenBySpecTest, AMissingDictKeyShowsBothKeyLists) {
  const TreeSpec spec = spec_of(PyTree::tuple({PyTree::dict({{"a", leaf(0)}, {"b", leaf(0)}})}));

  EXPECT_EQ(error_of([&] { flatten_by_spec(PyTree::tuple({PyTree::dict({{"a", leaf(1)}})}), spec); }),
            "at [0]: expected a dict with keys ['a', 'b'], got a dict with keys ['a']");
  EXPECT_EQ(error_of([&] {
              flatten_by_spec(PyTree::tuple({PyTree::dict({{"a", leaf(1)}, {"c", leaf(2)}})}), spec);
            }),
            "at [0]: expected a dict with keys ['a', 'b'], got a dict with keys ['a', 'c']");
}

TEST(FlattenBySpecTest, AnExtraDictKeyShowsBothKeyLists) {
  const TreeSpec spec = spec_of(PyTree::dict({{"a", leaf(0)}}));
  const PyTree given = PyTree::dict({{"a", leaf(1)}, {"extra", leaf(2)}});
  EXPECT_EQ(error_of([&] { flatten_by_spec(given, spec); }),
            "at the top level: expected a dict with keys ['a'], got a dict with keys ['a', 'extra']");
}

TEST(FlattenBySpecTest, ALeafWhereAContainerIsExpectedShowsTheLeaf) {
  const TreeSpec spec = spec_of(PyTree::tuple({leaf(0), PyTree::tuple({leaf(0), leaf(0)})}));
  EXPECT_EQ(error_of([&] { flatten_by_spec(PyTree::tuple({leaf(1), leaf(2)}), spec); }),
            "at [1]: expected a tuple of 2, got a leaf (2)");
}

TEST(FlattenBySpecTest, AContainerWhereALeafIsExpectedIsRejected) {
  const TreeSpec spec = spec_of(PyTree::list({leaf(0)}));
  EXPECT_EQ(error_of([&] { flatten_by_spec(PyTree::list({PyTree::list({leaf(1)})}), spec); }),
            "at [0]: expected a leaf, got a list of 1");
}

TEST(FlattenBySpecTest, NoneMustMatchNone) {
  const TreeSpec spec = spec_of(PyTree::list({PyTree::none()}));
  EXPECT_THAT(flatten_by_spec(PyTree::list({PyTree::none()}), spec), IsEmpty());
  EXPECT_EQ(error_of([&] { flatten_by_spec(PyTree::list({leaf(1)}), spec); }),
            "at [0]: expected None, got a leaf (1)");
}

}  // namespace
}  // namespace kiln::aot
