// op_support tells the truth over the whole op table: every op it reports as
// runnable on the portable kernels (a kernel of its own, a view's _copy twin,
// a decomposition, or an in-place op functionalized) becomes, on the way a
// program takes, ops that all have meta rules and kernels.
//
//  - An in-place op is functionalized to its functional op, which the pass
//    builds with infer_meta: that op needs a meta rule (detach_ and
//    index_copy_ once failed there).
//  - A view op is built by decompositions and lowered to its twin: both need
//    meta rules.
//  - An op with a decomposition rule is decomposed here on a sample call and
//    the result run on the portable kernels; every such op has a sample, so a
//    new rule without one fails the coverage test.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "aot/interpreter/interpreter.h"
#include "aot/interpreter/kernel_call.h"
#include "aot/ir/graph_builder.h"
#include "aot/ir/op_table/infer_meta.h"
#include "aot/ir/op_table/op_schema.h"
#include "aot/ir/pass_manager.h"
#include "aot/passes/decompose.h"
#include "aot/passes/op_support.h"
#include "aot/passes/test/decompose_testing.h"
#include "aot/passes/test/op_samples.h"

namespace kiln::aot {
namespace {

using testing::call_with_meta;
using testing::kBool;
using testing::kC64;
using testing::kF32;
using testing::kF64;
using testing::kI32;
using testing::kI64;
using testing::one;
using testing::Sample;
using testing::SampleBuilder;

OpSupport support_of(const OpSchema& schema) { return op_support(schema, interpreter_has_kernel); }

// The functional ops op_support reports as runnable, by how they run.
std::map<std::string, OpSupport> runnable_ops() {
  std::map<std::string, OpSupport> ops;
  for (const OpSchema& schema : all_op_schemas()) {
    if (schema.is_out_variant() || is_training_only(schema)) continue;
    const OpSupport support = support_of(schema);
    if (support != OpSupport::kNone && support != OpSupport::kGraphAssert) ops[schema.qualified_name()] = support;
  }
  return ops;
}

TEST(OpSupportTable, InPlaceOpsFunctionalizeToOpsWithMetaRules) {
  std::vector<std::string> missing;
  size_t checked = 0;
  for (const auto& [name, support] : runnable_ops()) {
    const OpSchema* functional = functional_of_inplace(get_op_schema(name));
    if (functional == nullptr) continue;
    ++checked;
    // Without a meta rule, functionalization gives the call self's meta and
    // the functional op's decomposition checks it.
    if (!has_meta_rule(functional->qualified_name()) && !has_decomposition(functional->qualified_name())) {
      missing.push_back(name + " -> " + functional->qualified_name());
    }
    EXPECT_NE(support_of(*functional), OpSupport::kNone) << name;
  }
  EXPECT_THAT(missing, ::testing::IsEmpty()) << "functionalization builds these with infer_meta or decomposes them";
  EXPECT_GT(checked, 50u);
}

TEST(OpSupportTable, ViewsAndTheirTwinsHaveMetaRules) {
  std::vector<std::string> missing;
  for (const auto& [name, support] : runnable_ops()) {
    if (support != OpSupport::kViewCopy) continue;
    const OpSchema* twin = view_copy_twin(get_op_schema(name));
    ASSERT_NE(twin, nullptr) << name;
    if (!has_meta_rule(name)) missing.push_back(name);
    if (!has_meta_rule(twin->qualified_name())) missing.push_back(twin->qualified_name());
  }
  EXPECT_THAT(missing, ::testing::IsEmpty());
}

TEST(OpSupportTable, SamplingRunsOnItsKernels) {
  for (const char* name : {"aten::rand.default", "aten::randn.default", "aten::rand_like.default", "aten::randn_like.default",
                           "aten::uniform.default", "aten::randint.default", "aten::randint.low", "aten::randperm.default"}) {
    EXPECT_EQ(support_of(get_op_schema(name)), OpSupport::kKernel) << name;
    EXPECT_TRUE(has_meta_rule(name)) << name;
  }
  // Spelled with those (and normal's kernel): samples below.
  for (const char* name : {"aten::normal_functional.default", "aten::bernoulli.default", "aten::bernoulli.p",
                           "aten::normal_.default"}) {
    EXPECT_EQ(support_of(get_op_schema(name)), OpSupport::kDecomposition) << name;
  }
  EXPECT_EQ(support_of(get_op_schema("aten::multinomial.default")), OpSupport::kNone);
}

TEST(OpSupportTable, OpsWithKernelsHaveMetaRules) {
  std::vector<std::string> missing;
  for (const auto& [name, support] : runnable_ops()) {
    if (support == OpSupport::kKernel && !has_meta_rule(name)) missing.push_back(name);
  }
  EXPECT_THAT(missing, ::testing::IsEmpty()) << "a decomposition may build any of these";
}

// Every op with a decomposition rule (op_support kDecomposition, not in-place)
// with a call torch accepts. Shapes are small; values come from the test.
const std::map<std::string, SampleBuilder>& samples() {
  using S = Sample;
  static const std::map<std::string, SampleBuilder> table = {
      {"aten::_native_batch_norm_legit.default",
       [](S& s) {
         Node* n = s.call("aten::_native_batch_norm_legit",
                          {s.f32({2, 3, 4, 4}), s.f32({3}), s.f32({3}), s.f32({3}), s.f32({3}), false, 0.1, 1e-5},
                          std::vector<TensorMeta>{S::meta({2, 3, 4, 4}), S::meta({0}), S::meta({0})});
         return one(s.b.getitem(n, 0));
       }},
      {"aten::_native_batch_norm_legit.no_stats",
       [](S& s) {
         Node* n = s.call("aten::_native_batch_norm_legit.no_stats", {s.f32({2, 3, 4}), s.f32({3}), s.f32({3}), true, 0.1, 1e-5},
                          std::vector<TensorMeta>{S::meta({2, 3, 4}), S::meta({3}), S::meta({3})});
         return one(s.b.getitem(n, 0));
       }},
      {"aten::lstm.input",
       [](S& s) {
         // One layer of hidden size 3 over 4 steps of a batch of 2, bidirectional, batch first.
         ArgumentList params;
         for (int d = 0; d < 2; ++d) {
           for (const std::vector<int64_t>& sizes : std::vector<std::vector<int64_t>>{{12, 5}, {12, 3}, {12}, {12}}) {
             params.emplace_back(s.f32(sizes));
           }
         }
         Node* n = s.call("aten::lstm.input",
                          {s.f32({2, 4, 5}), ArgumentList{s.f32({2, 2, 3}), s.f32({2, 2, 3})}, params, true, 1, 0.0, false,
                           true, true},
                          std::vector<TensorMeta>{S::meta({2, 4, 6}), S::meta({2, 2, 3}), S::meta({2, 2, 3})});
         return std::vector<Node*>{s.b.getitem(n, 0), s.b.getitem(n, 1), s.b.getitem(n, 2)};
       }},
      {"aten::gru.input",
       [](S& s) {
         // Two layers of hidden size 3 over 4 steps of a batch of 2, no biases.
         ArgumentList params{s.f32({9, 5}), s.f32({9, 3}), s.f32({9, 3}), s.f32({9, 3})};
         Node* n = s.call("aten::gru.input", {s.f32({4, 2, 5}), s.f32({2, 2, 3}), params, false, 2, 0.0, false, false, false},
                          std::vector<TensorMeta>{S::meta({4, 2, 3}), S::meta({2, 2, 3})});
         return std::vector<Node*>{s.b.getitem(n, 0), s.b.getitem(n, 1)};
       }},
      {"aten::adaptive_avg_pool1d.default",
       [](S& s) { return one(s.call("aten::adaptive_avg_pool1d", {s.f32({2, 3, 8}), ArgumentList{4}}, S::meta({2, 3, 4}))); }},
      {"aten::avg_pool1d.default",
       [](S& s) { return one(s.call("aten::avg_pool1d", {s.f32({2, 3, 8}), ArgumentList{2}}, S::meta({2, 3, 4}))); }},
      {"aten::normal_functional.default",
       [](S& s) { return one(s.call("aten::normal_functional", {s.f32({2, 3}), 0.5, 2.0}, S::meta({2, 3}))); }},
      {"aten::bernoulli.default", [](S& s) { return one(s.call("aten::bernoulli", {s.f32({2, 3})}, S::meta({2, 3}))); }},
      {"aten::bernoulli.p", [](S& s) { return one(s.call("aten::bernoulli.p", {s.f32({2, 3}), 0.25}, S::meta({2, 3}))); }},
      {"aten::fill.Scalar", [](S& s) { return one(s.call("aten::fill.Scalar", {s.f32({2, 3}), 1.5}, S::meta({2, 3}))); }},
      {"aten::mean.default", [](S& s) { return one(s.call("aten::mean", {s.f32({2, 3})}, S::meta({}))); }},
      {"aten::squeeze.dim", [](S& s) { return one(s.call("aten::squeeze.dim", {s.f32({2, 1, 3}), 1}, S::meta({2, 3}))); }},
      {"aten::sym_is_contiguous.default",
       [](S& s) {
         Node* x = s.f32({2, 3});
         Node* flag = call_with_meta(s.b, "aten::sym_is_contiguous", {x}, SymExpr::symbol("u0"));
         return one(s.call("aten::mul.Scalar", {x, flag}, S::meta({2, 3})));
       }},
      {"aten::sym_storage_offset.default",
       [](S& s) {
         Node* x = s.f32({2, 3});
         Node* offset = call_with_meta(s.b, "aten::sym_storage_offset", {x}, SymExpr::symbol("u0"));
         return one(s.call("aten::add.Scalar", {x, offset}, S::meta({2, 3})));
       }},
      {"aten::sym_stride.int",
       [](S& s) {
         Node* x = s.f32({2, 3});
         Node* stride = call_with_meta(s.b, "aten::sym_stride.int", {x, 0}, SymExpr::symbol("u0"));
         return one(s.call("aten::mul.Scalar", {x, stride}, S::meta({2, 3})));
       }},
      {"aten::var.dim", [](S& s) { return one(s.call("aten::var.dim", {s.f32({2, 3}), ArgumentList{1}}, S::meta({2}))); }},
      {"aten::__and__.Scalar",
       [](S& s) { return one(s.call("aten::__and__.Scalar", {s.tensor(kI32, {4}), 3}, S::meta(kI32, {4}))); }},
      {"aten::__and__.Tensor",
       [](S& s) {
         return one(s.call("aten::__and__.Tensor", {s.tensor(kBool, {4}), s.tensor(kBool, {4})}, S::meta(kBool, {4})));
       }},
      {"aten::__or__.Scalar",
       [](S& s) { return one(s.call("aten::__or__.Scalar", {s.tensor(kI32, {4}), 3}, S::meta(kI32, {4}))); }},
      {"aten::__or__.Tensor",
       [](S& s) {
         return one(s.call("aten::__or__.Tensor", {s.tensor(kI32, {4}), s.tensor(kI32, {4})}, S::meta(kI32, {4})));
       }},
      {"aten::__xor__.Scalar",
       [](S& s) { return one(s.call("aten::__xor__.Scalar", {s.tensor(kI64, {4}), 3}, S::meta(kI64, {4}))); }},
      {"aten::__xor__.Tensor",
       [](S& s) {
         return one(s.call("aten::__xor__.Tensor", {s.tensor(kBool, {4}), s.tensor(kBool, {4})}, S::meta(kBool, {4})));
       }},
      {"aten::_unsafe_view.default",
       [](S& s) { return one(s.call("aten::_unsafe_view", {s.f32({2, 3}), ArgumentList{3, 2}}, S::meta({3, 2}))); }},
      {"aten::adaptive_avg_pool2d.default",
       [](S& s) {
         return one(s.call("aten::adaptive_avg_pool2d", {s.f32({1, 2, 4, 4}), ArgumentList{2, 2}}, S::meta({1, 2, 2, 2})));
       }},
      {"aten::adaptive_avg_pool3d.default",
       [](S& s) {
         return one(s.call("aten::adaptive_avg_pool3d", {s.f32({1, 2, 4, 4, 4}), ArgumentList{2, 2, 2}},
                           S::meta({1, 2, 2, 2, 2})));
       }},
      {"aten::arange.default",
       [](S& s) {
         Node* range = s.call("aten::arange", {5}, S::meta(kI64, {5}));
         return one(s.call("aten::add.Tensor", {range, s.tensor(kI64, {5})}, S::meta(kI64, {5})));
       }},
      {"aten::arange.start",
       [](S& s) {
         Node* range = s.call("aten::arange.start", {1, 5}, S::meta(kI64, {4}));
         return one(s.call("aten::add.Tensor", {range, s.tensor(kI64, {4})}, S::meta(kI64, {4})));
       }},
      {"aten::batch_norm.default",
       [](S& s) {
         return one(s.call("aten::batch_norm",
                           {s.f32({2, 3, 4, 4}), s.f32({3}), s.f32({3}), s.f32({3}), s.f32({3}), false, 0.1, 1e-5, true},
                           S::meta({2, 3, 4, 4})));
       }},
      {"aten::cdist.default", [](S& s) { return one(s.call("aten::cdist", {s.f32({2, 3}), s.f32({4, 3})}, S::meta({2, 4}))); }},
      {"aten::chunk.default",
       [](S& s) {
         Node* parts = s.call("aten::chunk", {s.f32({4, 3}), 2}, std::vector<TensorMeta>{S::meta({2, 3}), S::meta({2, 3})});
         return std::vector<Node*>{s.b.getitem(parts, 0), s.b.getitem(parts, 1)};
       }},
      {"aten::clamp_max.default", [](S& s) { return one(s.call("aten::clamp_max", {s.f32({2, 3}), 0.5}, S::meta({2, 3}))); }},
      {"aten::clamp_min.default", [](S& s) { return one(s.call("aten::clamp_min", {s.f32({2, 3}), 0.5}, S::meta({2, 3}))); }},
      {"aten::contiguous.default", [](S& s) { return one(s.call("aten::contiguous", {s.f32({2, 3})}, S::meta({2, 3}))); }},
      {"aten::conv1d.default",
       [](S& s) { return one(s.call("aten::conv1d", {s.f32({1, 2, 8}), s.f32({3, 2, 3})}, S::meta({1, 3, 6}))); }},
      {"aten::conv2d.default",
       [](S& s) {
         return one(s.call("aten::conv2d", {s.f32({1, 2, 5, 5}), s.f32({3, 2, 3, 3}), s.f32({3})}, S::meta({1, 3, 3, 3})));
       }},
      {"aten::conv3d.default",
       [](S& s) {
         return one(s.call("aten::conv3d", {s.f32({1, 2, 4, 4, 4}), s.f32({3, 2, 3, 3, 3})}, S::meta({1, 3, 2, 2, 2})));
       }},
      {"aten::conv_transpose1d.default",
       [](S& s) { return one(s.call("aten::conv_transpose1d", {s.f32({1, 2, 5}), s.f32({2, 3, 3})}, S::meta({1, 3, 7}))); }},
      {"aten::conv_transpose2d.input",
       [](S& s) {
         return one(s.call("aten::conv_transpose2d.input", {s.f32({1, 2, 4, 4}), s.f32({2, 3, 3, 3})}, S::meta({1, 3, 6, 6})));
       }},
      {"aten::diff.default", [](S& s) { return one(s.call("aten::diff", {s.f32({2, 5})}, S::meta({2, 4}))); }},
      {"aten::dropout.default", [](S& s) { return one(s.call("aten::dropout", {s.f32({2, 3}), 0.5, false}, S::meta({2, 3}))); }},
      {"aten::einsum.default",
       [](S& s) {
         return one(s.call("aten::einsum", {"ij,jk->ik", ArgumentList{s.f32({2, 3}), s.f32({3, 4})}}, S::meta({2, 4})));
       }},
      {"aten::expand_as.default",
       [](S& s) { return one(s.call("aten::expand_as", {s.f32({1, 3}), s.f32({2, 3})}, S::meta({2, 3}))); }},
      {"aten::fft_rfft.default", [](S& s) { return one(s.call("aten::fft_rfft", {s.f32({2, 8})}, S::meta(kC64, {2, 5}))); }},
      {"aten::fft_irfft.default",
       [](S& s) { return one(s.call("aten::fft_irfft", {s.tensor(kC64, {2, 5})}, S::meta({2, 8}))); }},
      {"aten::fft_rfft2.default",
       [](S& s) { return one(s.call("aten::fft_rfft2", {s.f32({2, 4, 6})}, S::meta(kC64, {2, 4, 4}))); }},
      {"aten::fft_irfft2.default",
       [](S& s) { return one(s.call("aten::fft_irfft2", {s.tensor(kC64, {2, 4, 4})}, S::meta({2, 4, 6}))); }},
      {"aten::fft_rfftn.default",
       [](S& s) { return one(s.call("aten::fft_rfftn", {s.f32({2, 4, 6})}, S::meta(kC64, {2, 4, 4}))); }},
      {"aten::fft_irfftn.default",
       [](S& s) { return one(s.call("aten::fft_irfftn", {s.tensor(kC64, {2, 4, 4})}, S::meta({2, 4, 6}))); }},
      // The parts of a complex FFT of a real tensor (fftn(x).real, FNet's mixing).
      {"aten::real.default",
       [](S& s) {
         Node* fft = s.call("aten::fft_fftn", {s.f32({2, 4, 6}), None{}, ArgumentList{int64_t{1}, int64_t{2}}}, S::meta(kC64, {2, 4, 6}));
         return one(s.call("aten::real", {fft}, S::meta({2, 4, 6})));
       }},
      {"aten::imag.default",
       [](S& s) {
         Node* fft = s.call("aten::fft_fft", {s.f32({2, 8})}, S::meta(kC64, {2, 8}));
         return one(s.call("aten::imag", {fft}, S::meta({2, 8})));
       }},
      {"aten::flatten.using_ints",
       [](S& s) { return one(s.call("aten::flatten.using_ints", {s.f32({2, 3, 4}), 1}, S::meta({2, 12}))); }},
      {"aten::grid_sampler.default",
       [](S& s) {
         return one(s.call("aten::grid_sampler", {s.f32({1, 2, 4, 4}), s.f32({1, 3, 3, 2}), 0, 0, false},
                           S::meta({1, 2, 3, 3})));
       }},
      {"aten::group_norm.default",
       [](S& s) { return one(s.call("aten::group_norm", {s.f32({2, 4, 3, 3}), 2}, S::meta({2, 4, 3, 3}))); }},
      {"aten::hann_window.default",
       [](S& s) {
         Node* window = s.call("aten::hann_window", {8}, S::meta({8}));
         return one(s.call("aten::mul.Tensor", {window, s.f32({8})}, S::meta({8})));
       }},
      {"aten::hann_window.periodic",
       [](S& s) {
         Node* window = s.call("aten::hann_window.periodic", {8, false}, S::meta({8}));
         return one(s.call("aten::mul.Tensor", {window, s.f32({8})}, S::meta({8})));
       }},
      {"aten::layer_norm.default",
       [](S& s) {
         return one(s.call("aten::layer_norm", {s.f32({2, 3, 4}), ArgumentList{4}, s.f32({4}), s.f32({4})},
                           S::meta({2, 3, 4})));
       }},
      {"aten::linalg_vector_norm.default",
       [](S& s) { return one(s.call("aten::linalg_vector_norm", {s.f32({2, 3})}, S::meta({}))); }},
      {"aten::linear.default",
       [](S& s) { return one(s.call("aten::linear", {s.f32({2, 4}), s.f32({3, 4}), s.f32({3})}, S::meta({2, 3}))); }},
      {"aten::log_softmax.int",
       [](S& s) { return one(s.call("aten::log_softmax.int", {s.f32({2, 3}), 1}, S::meta({2, 3}))); }},
      {"aten::softmax.int", [](S& s) { return one(s.call("aten::softmax.int", {s.f32({2, 3}), 1}, S::meta({2, 3}))); }},
      {"aten::matmul.default",
       [](S& s) { return one(s.call("aten::matmul", {s.f32({2, 2, 3}), s.f32({3, 4})}, S::meta({2, 2, 4}))); }},
      {"aten::max.other", [](S& s) { return one(s.call("aten::max.other", {s.f32({2, 3}), s.f32({2, 3})}, S::meta({2, 3}))); }},
      {"aten::min.other", [](S& s) { return one(s.call("aten::min.other", {s.f32({2, 3}), s.f32({2, 3})}, S::meta({2, 3}))); }},
      {"aten::max_pool1d.default",
       [](S& s) { return one(s.call("aten::max_pool1d", {s.f32({1, 2, 8}), ArgumentList{2}}, S::meta({1, 2, 4}))); }},
      {"aten::max_pool2d.default",
       [](S& s) {
         return one(s.call("aten::max_pool2d", {s.f32({1, 2, 4, 4}), ArgumentList{2, 2}}, S::meta({1, 2, 2, 2})));
       }},
      {"aten::mish.default", [](S& s) { return one(s.call("aten::mish", {s.f32({2, 3})}, S::meta({2, 3}))); }},
      {"aten::new_ones.default",
       [](S& s) {
         Node* x = s.f32({2, 3});
         return one(s.call("aten::add.Tensor", {s.call("aten::new_ones", {x, ArgumentList{3}}, S::meta({3})), x},
                           S::meta({2, 3})));
       }},
      {"aten::new_zeros.default",
       [](S& s) {
         Node* x = s.f32({2, 3});
         return one(s.call("aten::add.Tensor", {s.call("aten::new_zeros", {x, ArgumentList{3}}, S::meta({3})), x},
                           S::meta({2, 3})));
       }},
      {"aten::ones_like.default", [](S& s) { return one(s.call("aten::ones_like", {s.f32({2, 3})}, S::meta({2, 3}))); }},
      {"aten::zeros_like.default", [](S& s) { return one(s.call("aten::zeros_like", {s.f32({2, 3})}, S::meta({2, 3}))); }},
      {"aten::pad.default",
       [](S& s) { return one(s.call("aten::pad", {s.f32({1, 2, 4, 4}), ArgumentList{1, 1, 1, 1}}, S::meta({1, 2, 6, 6}))); }},
      {"aten::pdist.default", [](S& s) { return one(s.call("aten::pdist", {s.f32({4, 3})}, S::meta({6}))); }},
      {"aten::reshape.default",
       [](S& s) { return one(s.call("aten::reshape", {s.f32({2, 3}), ArgumentList{3, 2}}, S::meta({3, 2}))); }},
      {"aten::reshape_as.default",
       [](S& s) { return one(s.call("aten::reshape_as", {s.f32({2, 3}), s.f32({3, 2})}, S::meta({3, 2}))); }},
      {"aten::resize.default",
       [](S& s) { return one(s.call("aten::resize", {s.f32({2, 3}), ArgumentList{6}}, S::meta({6}))); }},
      {"aten::roll.default",
       [](S& s) { return one(s.call("aten::roll", {s.f32({2, 3}), ArgumentList{1}, ArgumentList{1}}, S::meta({2, 3}))); }},
      {"aten::scaled_dot_product_attention.default",
       [](S& s) {
         return one(s.call("aten::scaled_dot_product_attention", {s.f32({1, 2, 4, 8}), s.f32({1, 2, 4, 8}), s.f32({1, 2, 4, 8})},
                           S::meta({1, 2, 4, 8})));
       }},
      {"aten::split.Tensor",
       [](S& s) {
         Node* parts = s.call("aten::split.Tensor", {s.f32({4, 3}), 2}, std::vector<TensorMeta>{S::meta({2, 3}), S::meta({2, 3})});
         return std::vector<Node*>{s.b.getitem(parts, 0), s.b.getitem(parts, 1)};
       }},
      {"aten::squeeze.default", [](S& s) { return one(s.call("aten::squeeze", {s.f32({2, 1, 3})}, S::meta({2, 3}))); }},
      {"aten::stack.default",
       [](S& s) { return one(s.call("aten::stack", {Argument(ArgumentList{s.f32({2, 3}), s.f32({2, 3})})}, S::meta({2, 2, 3}))); }},
      {"aten::stft.default",
       [](S& s) {
         return one(s.call("aten::stft", {s.f32({1, 32}), 8, 2, 8, s.f32({8}), false, true, true}, S::meta(kC64, {1, 5, 13})));
       }},
      {"aten::swapaxes.default", [](S& s) { return one(s.call("aten::swapaxes", {s.f32({2, 3}), 0, 1}, S::meta({3, 2}))); }},
      {"aten::swapdims.default", [](S& s) { return one(s.call("aten::swapdims", {s.f32({2, 3}), 0, 1}, S::meta({3, 2}))); }},
      {"aten::t.default", [](S& s) { return one(s.call("aten::t", {s.f32({2, 3})}, S::meta({3, 2}))); }},
      {"aten::to.device",
       [](S& s) { return one(s.call("aten::to.device", {s.f32({2, 3}), Device{}, kF64}, S::meta(kF64, {2, 3}))); }},
      {"aten::to.dtype", [](S& s) { return one(s.call("aten::to.dtype", {s.f32({2, 3}), kF64}, S::meta(kF64, {2, 3}))); }},
      {"aten::to.dtype_layout",
       [](S& s) { return one(s.call("aten::to.dtype_layout", {s.f32({2, 3})}, S::meta(kF64, {2, 3}), {{"dtype", kF64}})); }},
      {"aten::to.other",
       [](S& s) { return one(s.call("aten::to.other", {s.f32({2, 3}), s.tensor(kF64, {1})}, S::meta(kF64, {2, 3}))); }},
      {"aten::type_as.default",
       [](S& s) { return one(s.call("aten::type_as", {s.f32({2, 3}), s.tensor(kI32, {1})}, S::meta(kI32, {2, 3}))); }},
      {"aten::unflatten.int",
       [](S& s) { return one(s.call("aten::unflatten.int", {s.f32({2, 6}), 1, ArgumentList{2, 3}}, S::meta({2, 2, 3}))); }},
      {"aten::upsample_bilinear2d.default",
       [](S& s) {
         return one(s.call("aten::upsample_bilinear2d", {s.f32({1, 2, 4, 4}), ArgumentList{8, 8}, false},
                           S::meta({1, 2, 8, 8})));
       }},
      {"aten::upsample_nearest2d.default",
       [](S& s) {
         return one(s.call("aten::upsample_nearest2d", {s.f32({1, 2, 4, 4}), ArgumentList{8, 8}}, S::meta({1, 2, 8, 8})));
       }},
      {"aten::view_as.default",
       [](S& s) { return one(s.call("aten::view_as", {s.f32({2, 3}), s.f32({3, 2})}, S::meta({3, 2}))); }},
      {"aten::where.ScalarOther",
       [](S& s) { return one(s.call("aten::where.ScalarOther", {s.tensor(kBool, {4}), s.f32({4}), 0.5}, S::meta({4}))); }},
      {"aten::where.ScalarSelf",
       [](S& s) { return one(s.call("aten::where.ScalarSelf", {s.tensor(kBool, {4}), 0.5, s.f32({4})}, S::meta({4}))); }},
      {"aten::zero.default", [](S& s) { return one(s.call("aten::zero", {s.f32({2, 3})}, S::meta({2, 3}))); }},
      {"aten::detach.default", [](S& s) { return one(s.call("aten::detach", {s.f32({2, 3})}, S::meta({2, 3}))); }},
      {"aten::index_copy.default",
       [](S& s) {
         return one(s.call("aten::index_copy", {s.f32({3, 4}), 1, s.tensor(kI64, {2}), s.f32({3, 2})}, S::meta({3, 4})));
       }},
  };
  return table;
}

// The samples above and those of op_samples_training_ir.cpp.
const std::map<std::string, SampleBuilder>& all_samples() {
  static const std::map<std::string, SampleBuilder> table = [] {
    std::map<std::string, SampleBuilder> all = samples();
    add_training_ir_samples(all);
    return all;
  }();
  return table;
}

std::set<std::string> decomposed_ops() {
  std::set<std::string> ops;
  for (const auto& [name, support] : runnable_ops()) {
    const OpSchema& schema = get_op_schema(name);
    // Aliases are rewritten to their op, arguments unchanged (AliasesTakeTheirOpsArguments).
    if (support == OpSupport::kDecomposition && functional_of_inplace(schema) == nullptr && alias_target(schema) == nullptr) {
      ops.insert(name);
    }
  }
  return ops;
}

TEST(OpSupportTable, EveryDecomposedOpHasASample) {
  std::set<std::string> sampled;
  for (const auto& [name, builder] : all_samples()) sampled.insert(name);
  const std::set<std::string> decomposed = decomposed_ops();
  std::vector<std::string> missing, stale;
  for (const std::string& op : decomposed) {
    if (!sampled.count(op)) missing.push_back(op);
  }
  for (const std::string& op : sampled) {
    if (!decomposed.count(op)) stale.push_back(op);
  }
  EXPECT_THAT(missing, ::testing::IsEmpty()) << "add a sample call for each";
  EXPECT_THAT(stale, ::testing::IsEmpty()) << "op_support no longer reports these as decomposed";
}

// An alias is its op under another name: the same arguments (names, types,
// defaults), so its call carries over as it is, and the same returns.
TEST(OpSupportTable, AliasesTakeTheirOpsArguments) {
  size_t aliases = 0;
  for (const OpSchema& schema : all_op_schemas()) {
    const OpSchema* target = alias_target(schema);
    if (target == nullptr) continue;
    ++aliases;
    EXPECT_EQ(schema.arguments, target->arguments) << schema.qualified_name() << " -> " << target->qualified_name();
    ASSERT_EQ(schema.returns.size(), target->returns.size()) << schema.qualified_name();
    for (size_t i = 0; i < schema.returns.size(); ++i) EXPECT_EQ(schema.returns[i].type, target->returns[i].type);
    EXPECT_EQ(alias_target(*target), nullptr) << "an alias names the end of its chain";
  }
  EXPECT_GT(aliases, 40u);
}

TEST(OpSupportTable, AnAliasBecomesItsOp) {
  Sample s;
  Node* x = s.f32({2, 3});
  s.b.output({s.call("aten::arccos", {x}, Sample::meta({2, 3})),
              s.call("aten::true_divide.Scalar", {x, 2.0}, Sample::meta({2, 3}))});
  ExportedProgram program = std::move(s.b).build();
  program.set_dialect(kTrainingDialect);
  const ExportedProgram core = transform(program, {decompose_to_core_aten()});
  std::vector<std::string> targets;
  for (const Node* node : core.graph()) {
    if (node->is_call_function()) targets.push_back(node->target());
  }
  EXPECT_THAT(targets, ::testing::ElementsAre("aten::acos.default", "aten::div.Scalar"));
}

// Input values: small numbers of both signs for floats, 0 and 1 for ints and
// bools (valid indices and masks), zeros for complex.
HostTensor input_for(const TensorMeta& meta) {
  std::vector<int64_t> sizes;
  for (const SymExpr& size : meta.sizes) sizes.push_back(size.constant_value().value());
  if (meta.dtype == kF32) return testing::ramp(sizes);
  HostTensor tensor = HostTensor::zeros(meta.dtype, sizes);
  if (meta.dtype == kI64 || meta.dtype == kI32 || meta.dtype == kBool) {
    auto* bytes = static_cast<uint8_t*>(tensor.data());
    for (int64_t i = 0; i < tensor.numel(); i += 2) bytes[i * runtime::element_size(meta.dtype)] = 1;
  }
  if (meta.dtype == kF64) {
    for (int64_t i = 0; i < tensor.numel(); ++i) tensor.data<double>()[i] = 0.1 * static_cast<double>(i % 7) - 0.2;
  }
  return tensor;
}

class DecomposedOpTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DecomposedOpTest, BecomesOpsWithMetaRulesAndKernelsThatRun) {
  Sample sample;
  const std::vector<Node*> outputs = all_samples().at(GetParam())(sample);
  ASSERT_FALSE(::testing::Test::HasFailure());
  sample.b.output(outputs);
  ExportedProgram program = std::move(sample.b).build();
  program.set_dialect(kTrainingDialect);
  ASSERT_NO_THROW(transform(program, {decompose_to_core_aten()})) << program.to_string();
  ExportedProgram core = transform(program, {decompose_to_core_aten()});
  for (const Node* node : core.graph()) {
    EXPECT_NE(node->target(), GetParam()) << "the op is still there after decomposition";
  }
  EXPECT_NO_THROW(check_ops_supported(core, interpreter_has_kernel, "the portable kernels"));
  std::vector<PyTree> leaves;
  for (const Node* placeholder : core.graph().placeholders()) {
    leaves.push_back(PyTree::make_leaf(input_for(placeholder->meta.tensor())));
  }
  EXPECT_NO_THROW(call_program(core, PyTree::tuple(leaves))) << core.to_string();
}

INSTANTIATE_TEST_SUITE_P(Table, DecomposedOpTest, ::testing::ValuesIn([] {
                           std::vector<std::string> ops;
                           for (const auto& [name, builder] : all_samples()) ops.push_back(name);
                           return ops;
                         }()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(info.param.find("::") + 2);
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace kiln::aot
