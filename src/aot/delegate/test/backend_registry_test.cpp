// The backend registry and the data a backend hands back (ExecuTorch's
// backend-not-found and named-data cases).
#include "aot/delegate/test/delegate_test_util.h"

namespace kiln::aot {
namespace {

using testing::expect_error;
using ::testing::HasSubstr;
using ::testing::IsSupersetOf;

class WholeProgramOnly : public BackendDetails {
 public:
  std::string id() const override { return "WholeProgramOnly"; }
  PreprocessResult preprocess(const ExportedProgram&, const std::vector<CompileSpec>&) const override { return {}; }
};

TEST(BackendRegistryTest, TheTestBackendsAreRegisteredAfterLinking) {
  EXPECT_THAT(registered_backend_ids(), IsSupersetOf({"AllOpsBackend", "SinCosBackend", "AddMulBackend"}));
  EXPECT_EQ(get_backend("SinCosBackend").id(), "SinCosBackend");
  EXPECT_EQ(find_backend("NoSuchBackend"), nullptr);
}

TEST(BackendRegistryTest, AnUnknownIdListsTheKnownOnes) {
  expect_error([] { get_backend("NoSuchBackend"); },
               "backend 'NoSuchBackend' was not found (registered backends: AddMulBackend, AllOpsBackend,");
}

TEST(BackendRegistryTest, AnIdIsRegisteredOnce) {
  register_backend(std::make_unique<WholeProgramOnly>());
  expect_error([] { register_backend(std::make_unique<WholeProgramOnly>()); },
               "backend 'WholeProgramOnly' is registered twice");
  unregister_backend("WholeProgramOnly");
  EXPECT_EQ(find_backend("WholeProgramOnly"), nullptr);
}

TEST(BackendRegistryTest, ABackendSupportsNoNodeUnlessItSaysSo) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2}));
  Node* y = b.call("aten::sin", {x});
  b.output({y});
  ExportedProgram program = std::move(b).build();
  const NodeSupport support = WholeProgramOnly().supports(*program.graph().node("sin"), program);
  EXPECT_FALSE(support.supported);
  EXPECT_EQ(support.reason, "backend 'WholeProgramOnly' takes whole programs only");
}

TEST(NamedDataStoreTest, SameBytesAreStoredOnce) {
  NamedDataStore store;
  store.add_named_data("a", {1, 2, 3}, 16);
  store.add_named_data("b", {1, 2, 3}, 64);
  store.add_named_data("c", {4}, 1);
  const NamedDataStoreOutput& out = store.get_named_data_store_output();
  EXPECT_EQ(out.buffers.size(), 2u);
  EXPECT_EQ(out.pte_data.at("a"), (DataEntry{0, 16}));
  EXPECT_EQ(out.pte_data.at("b"), (DataEntry{0, 64}));
  EXPECT_EQ(out.get("c"), std::vector<uint8_t>{4});
}

TEST(NamedDataStoreTest, RejectsAReusedKeyABadAlignmentAndAnUnknownKey) {
  NamedDataStore store;
  store.add_named_data("a", {1}, 8);
  store.add_named_data("a", {1}, 32);  // the same bytes again: the larger alignment wins
  EXPECT_EQ(store.get_named_data_store_output().pte_data.at("a").alignment, 32u);
  expect_error([&] { store.add_named_data("a", {2}); }, "named data key 'a' is already used for other data");
  expect_error([&] { store.add_named_data("b", {2}, 12); }, "named data 'b': alignment 12 is not a power of two");
  expect_error([&] { store.get_named_data_store_output().get("z"); }, "no named data under key 'z'");
}

TEST(CompileSpecTest, FromStringKeepsTheBytes) {
  const CompileSpec spec = CompileSpec::from_string("path", "/a/b");
  EXPECT_EQ(spec.key, "path");
  EXPECT_EQ(std::string(spec.value.begin(), spec.value.end()), "/a/b");
}

}  // namespace
}  // namespace kiln::aot
