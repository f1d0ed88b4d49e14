// The prim kernels, called through the registry with boxed arguments as the
// executor passes them: Python's rules for the scalar ops, sizes, et_view's
// shared bytes and inferred size, copy_ and copy.out with broadcasting and
// casting, _to_dim_order_copy and _clone_dim_order into out's dim order.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/portable/test/kernel_test_util.h"
#include "kernels/prim/register.h"
#include "runtime/core/evalue.h"
#include "runtime/kernel/operator_registry.h"

namespace kiln::kernels::prim {
namespace {

using portable::testing::failed_with;
using portable::testing::make_tensor;
using portable::testing::TestTensor;
using portable::testing::zeros;
using runtime::Error;
using runtime::EValue;
using runtime::KernelRuntimeContext;
using runtime::Span;
using runtime::TensorShapeDynamism;

// Calls `op` from the registry on `values` (which include the return slot).
KernelRuntimeContext call(const char* op, std::vector<EValue>& values) {
  EXPECT_EQ(register_prim_kernels(), Error::Ok);
  std::vector<EValue*> args;
  for (EValue& value : values) args.push_back(&value);
  KernelRuntimeContext ctx;
  auto kernel = runtime::get_op_function_from_registry(op);
  EXPECT_TRUE(kernel.ok()) << op;
  if (kernel.ok()) kernel.get()(ctx, Span<EValue*>(args.data(), args.size()));
  return ctx;
}

EValue binary(const char* op, EValue a, EValue b) {
  std::vector<EValue> values = {a, b, EValue()};
  const KernelRuntimeContext ctx = call(op, values);
  EXPECT_EQ(ctx.failure_state(), Error::Ok) << op << ": " << ctx.failure_message();
  return values[2];
}

int64_t int_result(const char* op, int64_t a, int64_t b) {
  const EValue result = binary(op, EValue(a), EValue(b));
  EXPECT_TRUE(result.isInt()) << op;
  return result.isInt() ? result.toInt() : 0;
}

// An IntList argument: boxed Int values and the unwrapped copy it fills.
struct IntListArg {
  explicit IntListArg(std::vector<int64_t> items) : values(items.size()), unwrapped(items.size()) {
    for (size_t i = 0; i < items.size(); ++i) {
      values[i] = EValue(items[i]);
      pointers.push_back(&values[i]);
    }
    list = runtime::BoxedEvalueList<int64_t>(pointers.data(), unwrapped.data(), items.size());
  }
  EValue value() { return EValue(&list); }
  std::vector<EValue> values;
  std::vector<EValue*> pointers;
  std::vector<int64_t> unwrapped;
  runtime::BoxedEvalueList<int64_t> list;
};

TEST(PrimKernels, RegisterUnderExecutorchNamesAndAreIdempotent) {
  ASSERT_EQ(register_prim_kernels(), Error::Ok);
  EXPECT_EQ(register_prim_kernels(), Error::Ok);
  for (const char* name : {"executorch_prim::add.Scalar", "executorch_prim::floordiv.Scalar",
                           "executorch_prim::truediv.Scalar", "executorch_prim::neg.Scalar", "aten::sym_size.int",
                           "aten::sym_numel", "executorch_prim::et_view.default", "aten::copy_", "aten::copy.out",
                           "dim_order_ops::_to_dim_order_copy.out", "dim_order_ops::_clone_dim_order.out"}) {
    EXPECT_TRUE(runtime::registry_has_op_function(name)) << name;
  }
  EXPECT_EQ(runtime::get_num_registered_kernels(), prim_kernels().size());
}

TEST(PrimKernels, IntArithmeticStaysIntAndFollowsPython) {
  EXPECT_EQ(int_result("executorch_prim::add.Scalar", 3, 4), 7);
  EXPECT_EQ(int_result("executorch_prim::sub.Scalar", 3, 4), -1);
  EXPECT_EQ(int_result("executorch_prim::mul.Scalar", -3, 4), -12);
  EXPECT_EQ(int_result("executorch_prim::floordiv.Scalar", 7, 2), 3);
  EXPECT_EQ(int_result("executorch_prim::floordiv.Scalar", -7, 2), -4);  // toward -inf, not zero
  EXPECT_EQ(int_result("executorch_prim::mod.Scalar", -7, 3), 2);        // the divisor's sign
  EXPECT_EQ(int_result("executorch_prim::mod.Scalar", 7, -3), -2);
  EXPECT_EQ(int_result("executorch_prim::floordiv.Scalar", INT64_MIN, -1), INT64_MIN);  // wraps, no trap
}

TEST(PrimKernels, AFloatOperandGivesAFloat) {
  const EValue sum = binary("executorch_prim::add.Scalar", EValue(int64_t{1}), EValue(0.5));
  ASSERT_TRUE(sum.isDouble());
  EXPECT_EQ(sum.toDouble(), 1.5);
  const EValue quotient = binary("executorch_prim::truediv.Scalar", EValue(int64_t{7}), EValue(int64_t{2}));
  ASSERT_TRUE(quotient.isDouble());  // true division of ints is a float
  EXPECT_EQ(quotient.toDouble(), 3.5);
  const EValue floored = binary("executorch_prim::floordiv.Scalar", EValue(-7.0), EValue(2.0));
  ASSERT_TRUE(floored.isDouble());
  EXPECT_EQ(floored.toDouble(), -4.0);
  const EValue mod = binary("executorch_prim::mod.Scalar", EValue(-7.5), EValue(2.0));
  ASSERT_TRUE(mod.isDouble());
  EXPECT_EQ(mod.toDouble(), 0.5);
}

TEST(PrimKernels, ComparisonsGiveBools) {
  const auto compare = [](const char* op, EValue a, EValue b) {
    const EValue result = binary(op, a, b);
    EXPECT_TRUE(result.isBool()) << op;
    return result.isBool() && result.toBool();
  };
  EXPECT_TRUE(compare("executorch_prim::eq.Scalar", EValue(int64_t{2}), EValue(2.0)));
  EXPECT_FALSE(compare("executorch_prim::gt.Scalar", EValue(int64_t{2}), EValue(int64_t{2})));
  EXPECT_TRUE(compare("executorch_prim::ge.Scalar", EValue(int64_t{2}), EValue(int64_t{2})));
  EXPECT_TRUE(compare("executorch_prim::lt.Scalar", EValue(1.5), EValue(int64_t{2})));
  EXPECT_FALSE(compare("executorch_prim::le.Scalar", EValue(int64_t{3}), EValue(int64_t{2})));
  // Ints near 2^63 compare exactly, not through doubles.
  EXPECT_FALSE(compare("executorch_prim::eq.Scalar", EValue(INT64_MAX), EValue(INT64_MAX - 1)));
}

TEST(PrimKernels, NegKeepsTheKind) {
  std::vector<EValue> ints = {EValue(int64_t{5}), EValue()};
  EXPECT_EQ(call("executorch_prim::neg.Scalar", ints).failure_state(), Error::Ok);
  ASSERT_TRUE(ints[1].isInt());
  EXPECT_EQ(ints[1].toInt(), -5);
  std::vector<EValue> doubles = {EValue(2.5), EValue()};
  EXPECT_EQ(call("executorch_prim::neg.Scalar", doubles).failure_state(), Error::Ok);
  ASSERT_TRUE(doubles[1].isDouble());
  EXPECT_EQ(doubles[1].toDouble(), -2.5);
}

TEST(PrimKernels, RoundingToIntsAndTheOtherSymOps) {
  const auto unary = [](const char* op, EValue a) {
    std::vector<EValue> values = {a, EValue()};
    const KernelRuntimeContext ctx = call(op, values);
    EXPECT_EQ(ctx.failure_state(), Error::Ok) << op << ": " << ctx.failure_message();
    return values[1];
  };
  EXPECT_EQ(unary("executorch_prim::ceil.Scalar", EValue(2.1)).toInt(), 3);
  EXPECT_EQ(unary("executorch_prim::ceil.Scalar", EValue(int64_t{4})).toInt(), 4);
  EXPECT_EQ(unary("executorch_prim::round.Scalar", EValue(2.5)).toInt(), 2);  // half to even, as Python
  EXPECT_EQ(unary("executorch_prim::round.Scalar", EValue(3.5)).toInt(), 4);
  EXPECT_EQ(unary("executorch_prim::trunc.Scalar", EValue(-2.7)).toInt(), -2);
  EXPECT_EQ(unary("executorch_prim::sym_int.Scalar", EValue(7.9)).toInt(), 7);
  EXPECT_EQ(unary("executorch_prim::sym_float.Scalar", EValue(int64_t{3})).toDouble(), 3.0);
  EXPECT_EQ(unary("executorch_prim::sym_not.Scalar", EValue(true)).toBool(), false);
  EXPECT_EQ(int_result("executorch_prim::sym_max.Scalar", 3, 9), 9);
  EXPECT_EQ(int_result("executorch_prim::sym_min.Scalar", 3, 9), 3);
  EXPECT_EQ(int_result("executorch_prim::floordiv.int", -9, 4), -3);
  EXPECT_EQ(int_result("executorch_prim::mod.int", -9, 4), 3);
  std::vector<EValue> ite = {EValue(false), EValue(int64_t{1}), EValue(int64_t{2}), EValue()};
  EXPECT_EQ(call("executorch_prim::sym_ite.Scalar", ite).failure_state(), Error::Ok);
  EXPECT_EQ(ite[3].toInt(), 2);
  std::vector<EValue> huge = {EValue(1e30), EValue()};
  EXPECT_EQ(call("executorch_prim::ceil.Scalar", huge).failure_state(), Error::InvalidArgument);
}

TEST(PrimKernels, LocalScalarDenseReadsTheOneElement) {
  TestTensor f = make_tensor<float>({1}, {2.5f});
  std::vector<EValue> values = {EValue(f.tensor()), EValue()};
  ASSERT_EQ(call("aten::_local_scalar_dense", values).failure_state(), Error::Ok);
  EXPECT_EQ(values[1].toDouble(), 2.5);
  TestTensor i = make_tensor<int32_t>({}, {-7});
  values = {EValue(i.tensor()), EValue()};
  ASSERT_EQ(call("aten::_local_scalar_dense", values).failure_state(), Error::Ok);
  EXPECT_EQ(values[1].toInt(), -7);
  TestTensor two = zeros<float>({2});
  values = {EValue(two.tensor()), EValue()};
  EXPECT_EQ(call("aten::_local_scalar_dense", values).failure_state(), Error::InvalidArgument);
}

TEST(PrimKernels, BadOperandsFailNamingTheOp) {
  std::vector<EValue> by_zero = {EValue(int64_t{1}), EValue(int64_t{0}), EValue()};
  KernelRuntimeContext ctx = call("executorch_prim::floordiv.Scalar", by_zero);
  EXPECT_EQ(ctx.failure_state(), Error::InvalidArgument);
  EXPECT_NE(std::string(ctx.failure_message()).find("floordiv.Scalar: division by zero"), std::string::npos);

  TestTensor t = zeros<float>({2});
  std::vector<EValue> tensor_operand = {EValue(t.tensor()), EValue(int64_t{1}), EValue()};
  ctx = call("executorch_prim::add.Scalar", tensor_operand);
  EXPECT_EQ(ctx.failure_state(), Error::InvalidArgument);
  EXPECT_NE(std::string(ctx.failure_message()).find("'a' must be an Int, Double or Bool, got Tensor"),
            std::string::npos);

  std::vector<EValue> too_few = {EValue(int64_t{1}), EValue()};
  EXPECT_EQ(call("executorch_prim::add.Scalar", too_few).failure_state(), Error::InvalidArgument);
}

TEST(PrimKernels, SymSizeAndNumelReadTheCurrentShape) {
  TestTensor t = zeros<float>({8, 3}, TensorShapeDynamism::DynamicBound);
  const runtime::SizesType smaller[] = {2, 3};
  ASSERT_EQ(runtime::resize_tensor(t.tensor(), smaller), Error::Ok);
  std::vector<EValue> size = {EValue(t.tensor()), EValue(int64_t{-2}), EValue(int64_t{0})};
  EXPECT_EQ(call("aten::sym_size.int", size).failure_state(), Error::Ok);
  EXPECT_EQ(size[2].toInt(), 2);
  std::vector<EValue> numel = {EValue(t.tensor()), EValue(int64_t{0})};
  EXPECT_EQ(call("aten::sym_numel", numel).failure_state(), Error::Ok);
  EXPECT_EQ(numel[1].toInt(), 6);

  std::vector<EValue> bad_dim = {EValue(t.tensor()), EValue(int64_t{2}), EValue(int64_t{0})};
  EXPECT_EQ(call("aten::sym_size.int", bad_dim).failure_state(), Error::InvalidArgument);
}

TEST(PrimKernels, EtViewSharesTheBytesAndInfersMinusOne) {
  TestTensor base = make_tensor<float>({2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  // The view was planned at an upper bound [8, 6] and starts without data of its own.
  runtime::SizesType sizes[] = {8, 6};
  runtime::DimOrderType dim_order[] = {0, 1};
  runtime::StridesType strides[] = {6, 1};
  runtime::TensorImpl view(runtime::ScalarType::Float, 2, sizes, nullptr, dim_order, strides,
                           TensorShapeDynamism::DynamicBound);
  IntListArg size({2, -1});
  std::vector<EValue> values = {EValue(base.tensor()), size.value(), EValue(runtime::Tensor(&view))};
  const KernelRuntimeContext ctx = call("executorch_prim::et_view.default", values);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(view.data(), base.tensor().const_data_ptr());
  EXPECT_EQ(view.sizes()[0], 2);
  EXPECT_EQ(view.sizes()[1], 6);
  EXPECT_EQ(view.strides()[0], 6);

  IntListArg wrong({5, -1});  // 12 elements are not a multiple of 5
  std::vector<EValue> bad = {EValue(base.tensor()), wrong.value(), EValue(runtime::Tensor(&view))};
  EXPECT_EQ(call("executorch_prim::et_view.default", bad).failure_state(), Error::InvalidArgument);
}

TEST(PrimKernels, CopyWritesSrcIntoSelf) {
  TestTensor self = zeros<float>({2, 3});
  TestTensor src = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  std::vector<EValue> values = {EValue(self.tensor()), EValue(src.tensor()), EValue(false), EValue(self.tensor())};
  const KernelRuntimeContext ctx = call("aten::copy_", values);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(self.values<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(values[3].toTensor().const_data_ptr(), self.tensor().const_data_ptr());
}

TEST(PrimKernels, CopyBroadcastsAndCasts) {
  TestTensor self = zeros<float>({2, 3});
  TestTensor row = make_tensor<int64_t>({3}, {7, 8, 9});
  std::vector<EValue> values = {EValue(self.tensor()), EValue(row.tensor()), EValue(false), EValue(self.tensor())};
  ASSERT_EQ(call("aten::copy_", values).failure_state(), Error::Ok);
  EXPECT_EQ(self.values<float>(), (std::vector<float>{7, 8, 9, 7, 8, 9}));

  TestTensor column = make_tensor<float>({2, 1}, {-1, 1});
  values[1] = EValue(column.tensor());
  ASSERT_EQ(call("aten::copy_", values).failure_state(), Error::Ok);
  EXPECT_EQ(self.values<float>(), (std::vector<float>{-1, -1, -1, 1, 1, 1}));

  TestTensor scalar = make_tensor<float>({}, {0.5f});
  values[1] = EValue(scalar.tensor());
  ASSERT_EQ(call("aten::copy_", values).failure_state(), Error::Ok);
  EXPECT_EQ(self.values<float>(), (std::vector<float>(6, 0.5f)));
}

TEST(PrimKernels, CopyRefusesASrcThatDoesNotBroadcast) {
  TestTensor self = zeros<float>({2, 3});
  TestTensor src = zeros<float>({3, 2});
  std::vector<EValue> values = {EValue(self.tensor()), EValue(src.tensor()), EValue(false), EValue(self.tensor())};
  const KernelRuntimeContext ctx = call("aten::copy_", values);
  EXPECT_EQ(ctx.failure_state(), Error::InvalidArgument);
  EXPECT_NE(std::string(ctx.failure_message()).find("'src' of shape [3, 2] does not broadcast to 'self' of shape [2, 3]"),
            std::string::npos)
      << ctx.failure_message();
}

TEST(PrimKernels, ToDimOrderCopyCastsIntoOut) {
  TestTensor self = make_tensor<int64_t>({}, {3});
  TestTensor out = zeros<float>({});
  IntListArg no_dims({});
  std::vector<EValue> values = {EValue(self.tensor()), EValue(false), no_dims.value(), EValue(out.tensor()),
                                EValue(out.tensor())};
  const KernelRuntimeContext ctx = call("dim_order_ops::_to_dim_order_copy.out", values);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{3.0f}));

  // Into a channels-last out: the elements land in out's order.
  TestTensor nchw = make_tensor<float>({1, 2, 1, 2}, {1, 2, 3, 4});
  TestTensor nhwc(runtime::ScalarType::Float, {1, 2, 1, 2}, TensorShapeDynamism::Static, {0, 2, 3, 1});
  IntListArg channels_last({0, 2, 3, 1});
  std::vector<EValue> permuted = {EValue(nchw.tensor()), EValue(false), channels_last.value(), EValue(nhwc.tensor()),
                                  EValue(nhwc.tensor())};
  ASSERT_EQ(call("dim_order_ops::_to_dim_order_copy.out", permuted).failure_state(), Error::Ok);
  EXPECT_EQ(nhwc.values<float>(), (std::vector<float>{1, 3, 2, 4}));

  IntListArg contiguous({0, 1, 2, 3});  // out is channels-last: the program disagrees with itself
  permuted[2] = contiguous.value();
  EXPECT_TRUE(failed_with(call("dim_order_ops::_to_dim_order_copy.out", permuted), Error::InvalidArgument,
                          "dim_order_ops::_to_dim_order_copy.out",
                          "'dim_order' [0, 1, 2, 3] differs from the dim order of 'out' [0, 2, 3, 1]"));
  permuted[2] = EValue();  // None keeps self's (contiguous) dim order, which out does not have
  EXPECT_TRUE(failed_with(call("dim_order_ops::_to_dim_order_copy.out", permuted), Error::InvalidArgument,
                          "dim_order_ops::_to_dim_order_copy.out", "'dim_order' is None"));
}

// ---- aten::copy.out ----

// [self, src, non_blocking, out, return slot]
std::vector<EValue> copy_out_args(const TestTensor& self, const TestTensor& src, const TestTensor& out) {
  return {EValue(self.tensor()), EValue(src.tensor()), EValue(false), EValue(out.tensor()), EValue(out.tensor())};
}

TEST(PrimCopyOut, TakesSelfsShapeAndDtypeAndSrcsValues) {
  TestTensor self = make_tensor<float>({2, 3}, {-1, -1, -1, -1, -1, -1});
  TestTensor src = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  TestTensor out = zeros<float>({2, 3});
  std::vector<EValue> values = copy_out_args(self, src, out);
  const KernelRuntimeContext ctx = call("aten::copy.out", values);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(self.values<float>(), std::vector<float>(6, -1.0f)) << "self is only read";
  EXPECT_EQ(values[4].toTensor().const_data_ptr(), out.tensor().const_data_ptr());
}

TEST(PrimCopyOut, BroadcastsSrcToSelfsShape) {
  TestTensor self = zeros<float>({2, 3});
  TestTensor out = zeros<float>({2, 3});
  TestTensor row = make_tensor<float>({3}, {7, 8, 9});
  std::vector<EValue> values = copy_out_args(self, row, out);
  ASSERT_EQ(call("aten::copy.out", values).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{7, 8, 9, 7, 8, 9}));

  TestTensor column = make_tensor<float>({1, 2, 1}, {-1, 1});  // a leading size-1 dim broadcasts too
  TestTensor self3 = zeros<float>({1, 2, 3});
  TestTensor out3 = zeros<float>({1, 2, 3});
  values = copy_out_args(self3, column, out3);
  ASSERT_EQ(call("aten::copy.out", values).failure_state(), Error::Ok);
  EXPECT_EQ(out3.values<float>(), (std::vector<float>{-1, -1, -1, 1, 1, 1}));

  values = copy_out_args(self, row, out);
  TestTensor scalar = make_tensor<float>({}, {0.5f});
  values[1] = EValue(scalar.tensor());
  ASSERT_EQ(call("aten::copy.out", values).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), std::vector<float>(6, 0.5f));
}

TEST(PrimCopyOut, CastsSrcToSelfsDtypeAsTorchDoes) {
  TestTensor self = zeros<float>({4});
  TestTensor out = zeros<float>({4});
  TestTensor ints = make_tensor<int32_t>({4}, {-3, 0, 7, 1 << 24});
  std::vector<EValue> values = copy_out_args(self, ints, out);
  ASSERT_EQ(call("aten::copy.out", values).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{-3, 0, 7, 16777216}));

  // Float to int truncates toward zero; to bool is `!= 0`.
  TestTensor int_self = zeros<int64_t>({4});
  TestTensor int_out = zeros<int64_t>({4});
  TestTensor floats = make_tensor<float>({4}, {-1.7f, -0.2f, 0.9f, 2.5f});
  values = copy_out_args(int_self, floats, int_out);
  ASSERT_EQ(call("aten::copy.out", values).failure_state(), Error::Ok);
  EXPECT_EQ(int_out.values<int64_t>(), (std::vector<int64_t>{-1, 0, 0, 2}));

  TestTensor bool_self = zeros<bool>({4});
  TestTensor bool_out = zeros<bool>({4});
  values = copy_out_args(bool_self, floats, bool_out);
  ASSERT_EQ(call("aten::copy.out", values).failure_state(), Error::Ok);
  EXPECT_EQ(bool_out.values<bool>(), (std::vector<bool>{true, true, true, true}));
}

TEST(PrimCopyOut, WritesIntoOutsDimOrderAndResizesADynamicOut) {
  TestTensor self = zeros<float>({1, 2, 1, 2});
  TestTensor src = make_tensor<float>({1, 2, 1, 2}, {1, 2, 3, 4});
  TestTensor nhwc(runtime::ScalarType::Float, {1, 2, 1, 2}, TensorShapeDynamism::Static, {0, 2, 3, 1});
  std::vector<EValue> values = copy_out_args(self, src, nhwc);
  ASSERT_EQ(call("aten::copy.out", values).failure_state(), Error::Ok);
  EXPECT_EQ(nhwc.values<float>(), (std::vector<float>{1, 3, 2, 4}));
  EXPECT_EQ(nhwc.logical_values<float>(), (std::vector<float>{1, 2, 3, 4}));

  TestTensor small_self = zeros<float>({2, 2});
  TestTensor bounded(runtime::ScalarType::Float, {4, 4}, TensorShapeDynamism::DynamicBound);
  TestTensor row = make_tensor<float>({2}, {5, 6});
  values = copy_out_args(small_self, row, bounded);
  const KernelRuntimeContext ctx = call("aten::copy.out", values);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(bounded.sizes(), (std::vector<runtime::SizesType>{2, 2}));
  EXPECT_EQ(bounded.logical_values<float>(), (std::vector<float>{5, 6, 5, 6}));
}

TEST(PrimCopyOut, RefusesBadArgumentsNamingThem) {
  TestTensor self = zeros<float>({2, 3});
  TestTensor out = zeros<float>({2, 3});
  TestTensor wide = zeros<float>({3, 2});
  std::vector<EValue> values = copy_out_args(self, wide, out);
  EXPECT_TRUE(failed_with(call("aten::copy.out", values), Error::InvalidArgument, "aten::copy.out",
                          "'src' of shape [3, 2] does not broadcast to 'self' of shape [2, 3]"));

  TestTensor longer = zeros<float>({4, 2, 3});  // src may not have more dims than self
  values = copy_out_args(self, longer, out);
  EXPECT_TRUE(failed_with(call("aten::copy.out", values), Error::InvalidArgument, "aten::copy.out", "'src'"));

  TestTensor int_out = zeros<int32_t>({2, 3});
  TestTensor src = zeros<float>({2, 3});
  values = copy_out_args(self, src, int_out);
  EXPECT_TRUE(failed_with(call("aten::copy.out", values), Error::InvalidArgument, "aten::copy.out",
                          "'out' has dtype Int, expected Float"));

  TestTensor static_out = zeros<float>({3, 2});  // a static out of another shape
  values = copy_out_args(self, src, static_out);
  EXPECT_TRUE(failed_with(call("aten::copy.out", values), Error::InvalidArgument, "aten::copy.out",
                          "'out' has shape [3, 2] and cannot be resized to the expected [2, 3]"));

  values = copy_out_args(self, src, out);
  values[2] = EValue(int64_t{0});  // non_blocking must be a Bool
  EXPECT_TRUE(failed_with(call("aten::copy.out", values), Error::InvalidArgument, "aten::copy.out", "'non_blocking'"));

  values = copy_out_args(self, src, out);
  values.pop_back();
  EXPECT_TRUE(failed_with(call("aten::copy.out", values), Error::InvalidArgument, "aten::copy.out", "'args'"));
}

// ---- dim_order_ops::_clone_dim_order.out ----

// [self, non_blocking, dim_order, out, return slot]
std::vector<EValue> clone_args(const TestTensor& self, EValue dim_order, const TestTensor& out) {
  return {EValue(self.tensor()), EValue(false), dim_order, EValue(out.tensor()), EValue(out.tensor())};
}

TEST(PrimCloneDimOrder, CopiesIntoChannelsLastAndBack) {
  TestTensor nchw = make_tensor<float>({1, 3, 1, 2}, {1, 2, 3, 4, 5, 6});
  TestTensor nhwc(runtime::ScalarType::Float, {1, 3, 1, 2}, TensorShapeDynamism::Static, {0, 2, 3, 1});
  IntListArg channels_last({0, 2, 3, 1});
  std::vector<EValue> values = clone_args(nchw, channels_last.value(), nhwc);
  const KernelRuntimeContext ctx = call("dim_order_ops::_clone_dim_order.out", values);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(nhwc.values<float>(), (std::vector<float>{1, 3, 5, 2, 4, 6})) << "channels innermost";
  EXPECT_EQ(values[4].toTensor().const_data_ptr(), nhwc.tensor().const_data_ptr());

  TestTensor back = zeros<float>({1, 3, 1, 2});
  IntListArg contiguous({0, 1, 2, 3});
  values = clone_args(nhwc, contiguous.value(), back);
  ASSERT_EQ(call("dim_order_ops::_clone_dim_order.out", values).failure_state(), Error::Ok);
  EXPECT_EQ(back.values<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(PrimCloneDimOrder, NoneKeepsSelfsDimOrderForAnyDtype) {
  TestTensor self(runtime::ScalarType::Long, {1, 2, 1, 2}, TensorShapeDynamism::Static, {0, 2, 3, 1});
  self.set<int64_t>({10, 20, 30, 40});
  TestTensor out(runtime::ScalarType::Long, {1, 2, 1, 2}, TensorShapeDynamism::Static, {0, 2, 3, 1});
  std::vector<EValue> values = clone_args(self, EValue(), out);
  ASSERT_EQ(call("dim_order_ops::_clone_dim_order.out", values).failure_state(), Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{10, 20, 30, 40}));

  TestTensor flags = make_tensor<bool>({3}, {true, false, true});
  TestTensor flags_out = zeros<bool>({3});
  values = clone_args(flags, EValue(), flags_out);
  ASSERT_EQ(call("dim_order_ops::_clone_dim_order.out", values).failure_state(), Error::Ok);
  EXPECT_EQ(flags_out.values<bool>(), (std::vector<bool>{true, false, true}));

  TestTensor halves = make_tensor<uint16_t>({2}, {0x3c00, 0xc000});  // UInt16: bytes move unchanged
  TestTensor halves_out = zeros<uint16_t>({2});
  values = clone_args(halves, EValue(), halves_out);
  ASSERT_EQ(call("dim_order_ops::_clone_dim_order.out", values).failure_state(), Error::Ok);
  EXPECT_EQ(halves_out.values<uint16_t>(), (std::vector<uint16_t>{0x3c00, 0xc000}));
}

TEST(PrimCloneDimOrder, RefusesADimOrderThatIsNotOuts) {
  TestTensor self = make_tensor<float>({1, 2, 1, 2}, {1, 2, 3, 4});
  TestTensor nhwc(runtime::ScalarType::Float, {1, 2, 1, 2}, TensorShapeDynamism::Static, {0, 2, 3, 1});
  const char* op = "dim_order_ops::_clone_dim_order.out";
  IntListArg contiguous({0, 1, 2, 3});
  std::vector<EValue> values = clone_args(self, contiguous.value(), nhwc);
  EXPECT_TRUE(failed_with(call(op, values), Error::InvalidArgument, op,
                          "'dim_order' [0, 1, 2, 3] differs from the dim order of 'out' [0, 2, 3, 1]"));

  IntListArg short_list({0, 2, 1});
  values = clone_args(self, short_list.value(), nhwc);
  EXPECT_TRUE(failed_with(call(op, values), Error::InvalidArgument, op, "'dim_order' [0, 2, 1] differs"));

  IntListArg repeated({0, 2, 2, 1});
  values = clone_args(self, repeated.value(), nhwc);
  EXPECT_TRUE(failed_with(call(op, values), Error::InvalidArgument, op, "'dim_order' [0, 2, 2, 1] differs"));

  values = clone_args(self, EValue(), nhwc);  // None: out must be laid out as self is
  EXPECT_TRUE(failed_with(call(op, values), Error::InvalidArgument, op,
                          "'dim_order' is None, so 'out' must keep the dim order [0, 1, 2, 3] of 'self', but has "
                          "[0, 2, 3, 1]"));

  values = clone_args(self, EValue(int64_t{3}), nhwc);
  EXPECT_TRUE(failed_with(call(op, values), Error::InvalidArgument, op, "'dim_order' must be"));
  EXPECT_EQ(nhwc.values<float>(), std::vector<float>(4, 0.0f)) << "nothing written on failure";
}

TEST(PrimCloneDimOrder, RefusesAnotherDtypeOrShape) {
  const char* op = "dim_order_ops::_clone_dim_order.out";
  TestTensor self = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  TestTensor doubles = zeros<double>({2, 3});  // a clone never converts
  std::vector<EValue> values = clone_args(self, EValue(), doubles);
  EXPECT_TRUE(failed_with(call(op, values), Error::InvalidArgument, op, "'out' has dtype Double, expected Float"));

  TestTensor wrong_shape = zeros<float>({3, 2});
  values = clone_args(self, EValue(), wrong_shape);
  EXPECT_TRUE(failed_with(call(op, values), Error::InvalidArgument, op,
                          "'out' has shape [3, 2] and cannot be resized to the expected [2, 3]"));

  TestTensor wrong_rank = zeros<float>({6});
  IntListArg two_dims({0, 1});
  values = clone_args(self, two_dims.value(), wrong_rank);
  EXPECT_TRUE(failed_with(call(op, values), Error::InvalidArgument, op, "'dim_order' [0, 1] differs"));

  TestTensor bounded(runtime::ScalarType::Float, {4, 4}, TensorShapeDynamism::DynamicBound);
  values = clone_args(self, EValue(), bounded);
  const KernelRuntimeContext ctx = call(op, values);
  ASSERT_EQ(ctx.failure_state(), Error::Ok) << ctx.failure_message();
  EXPECT_EQ(bounded.sizes(), (std::vector<runtime::SizesType>{2, 3}));
  EXPECT_EQ(bounded.logical_values<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

}  // namespace
}  // namespace kiln::kernels::prim
