// op_support and check_ops_supported on a hand-given kernel set, and the
// in-place -> functional rule of the op table they rest on.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "aot/ir/graph_builder.h"
#include "aot/ir/testing/aot_testing.h"
#include "aot/passes/op_support.h"
#include "aot/passes/test/decompose_testing.h"

namespace kiln::aot {
namespace {

using ::testing::HasSubstr;
using testing::error_of;

std::string functional_of(const std::string& name) {
  const OpSchema* functional = functional_of_inplace(get_op_schema(name));
  return functional == nullptr ? "none" : functional->qualified_name();
}

TEST(FunctionalOfInplace, FollowsPyTorchsNamingAndArguments) {
  EXPECT_EQ(functional_of("aten::relu_.default"), "aten::relu.default");
  EXPECT_EQ(functional_of("aten::add_.Tensor"), "aten::add.Tensor");
  EXPECT_EQ(functional_of("aten::dropout_.default"), "aten::dropout.default");
  EXPECT_EQ(functional_of("aten::index_put_.default"), "aten::index_put.default");
  EXPECT_EQ(functional_of("aten::index_copy_.default"), "aten::index_copy.default");
  EXPECT_EQ(functional_of("aten::copy_.default"), "aten::copy.default");
  EXPECT_EQ(functional_of("aten::relu.default"), "none");    // not in-place
  EXPECT_EQ(functional_of("aten::add.out"), "none");         // an out variant
  EXPECT_EQ(functional_of("aten::__iand__.Tensor"), "none");  // dunder: no functional twin by name
}

// The kernels of these tests: relu's and view_copy's out variants, and sym_size.
bool test_kernels(const std::string& name) {
  static const std::set<std::string> names = {"aten::relu.out", "aten::view_copy.out", "aten::add.out",
                                              "aten::sym_size.int"};
  return names.count(name) > 0;
}

OpSupport support_of(const std::string& name) { return op_support(get_op_schema(name), test_kernels); }

TEST(OpSupport, KernelViewDecompositionAssertOrNone) {
  EXPECT_EQ(support_of("aten::relu.default"), OpSupport::kKernel);
  EXPECT_EQ(support_of("aten::sym_size.int"), OpSupport::kKernel);  // a prim op: the op's own name
  EXPECT_EQ(support_of("aten::view.default"), OpSupport::kViewCopy);
  EXPECT_EQ(support_of("aten::linear.default"), OpSupport::kDecomposition);
  EXPECT_EQ(support_of("aten::relu_.default"), OpSupport::kDecomposition);  // functionalized to relu
  EXPECT_EQ(support_of("aten::_assert_tensor_metadata.default"), OpSupport::kGraphAssert);
  EXPECT_EQ(support_of("aten::sin.default"), OpSupport::kNone);
  EXPECT_EQ(support_of("aten::sin_.default"), OpSupport::kNone);  // its functional op does not run
  EXPECT_EQ(support_of("aten::permute.default"), OpSupport::kNone);  // permute_copy has no kernel here
}

TEST(OpSupport, GradientsAndTrainingModeRandomnessAreTrainingOnly) {
  for (const char* name : {"aten::native_dropout.default", "aten::convolution_backward.default", "aten::rrelu_with_noise.default"}) {
    EXPECT_TRUE(is_training_only(get_op_schema(name))) << name;
  }
  for (const char* name : {"aten::dropout.default", "aten::relu.default", "aten::rand.default", "aten::bernoulli.p"}) {
    EXPECT_FALSE(is_training_only(get_op_schema(name))) << name;
  }
}

TEST(OpSupport, SamplingIsRandomAndRefusedWithItsReasonWhereNoKernelDraws) {
  for (const char* name : {"aten::rand.default", "aten::randn_like.default", "aten::uniform.default", "aten::randint.low",
                           "aten::bernoulli.p", "aten::native_dropout.default", "aten::rand.generator"}) {
    EXPECT_TRUE(is_random(get_op_schema(name))) << name;
  }
  EXPECT_FALSE(is_random(get_op_schema("aten::dropout.default")));  // eval mode: the identity
  EXPECT_FALSE(is_random(get_op_schema("aten::full.default")));
  EXPECT_THAT(refusal_reason(get_op_schema("aten::bernoulli.p")), ::testing::HasSubstr("random distribution"));
  EXPECT_THAT(refusal_reason(get_op_schema("aten::rand.generator")), ::testing::HasSubstr("torch.Generator"));
  EXPECT_EQ(refusal_reason(get_op_schema("aten::native_dropout.default")), "not for inference: training only");
}

TEST(CheckOpsSupported, NamesEveryNodeThatCannotRunAtOnce) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 3}));
  Node* s = b.call("aten::sin", {x});
  Node* r = b.call("aten::relu", {s});
  Node* c = b.call("aten::cos", {r});
  b.output({b.call("aten::add.Scalar", {c, 1.0})});
  const ExportedProgram program = std::move(b).build();
  const std::string message = error_of([&] { check_ops_supported(program, test_kernels, "the test kernels"); });
  EXPECT_THAT(message, HasSubstr("3 nodes call ops the test kernels cannot run (no kernel and no decomposition):\n"));
  EXPECT_THAT(message, HasSubstr("\n  sin: aten::sin.default"));
  EXPECT_THAT(message, HasSubstr("\n  cos: aten::cos.default"));
  EXPECT_THAT(message, HasSubstr("\n  add: aten::add.Scalar (nearest that runs: aten::add.Tensor)"));
  EXPECT_THAT(message, ::testing::Not(HasSubstr("relu:")));

  GraphBuilder ok;
  ok.output({ok.call("aten::relu", {ok.input("x", f32({2}))})});
  EXPECT_NO_THROW(check_ops_supported(std::move(ok).build(), test_kernels, "the test kernels"));
}

TEST(CheckOpsSupported, GivesTheReasonOfAnOpRefusedByDesign) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3, 3}));
  b.output({testing::call_with_meta(b, "aten::det", {x}, f32({}))});
  const std::string message = error_of([&] { check_ops_supported(std::move(b).build(), test_kernels, "the test kernels"); });
  EXPECT_THAT(message, HasSubstr("\n  det: aten::det.default (no kernel: a LAPACK-class factorization)"));
}

}  // namespace
}  // namespace kiln::aot
