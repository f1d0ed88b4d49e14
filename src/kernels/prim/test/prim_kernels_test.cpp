// The prim kernels, called through the registry with boxed arguments as the
// executor passes them: Python's rules for the scalar ops, sizes, et_view's
// shared bytes and inferred size, copy_ with broadcasting and casting,
// _to_dim_order_copy.
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
                           "aten::sym_numel", "executorch_prim::et_view.default", "aten::copy_",
                           "dim_order_ops::_to_dim_order_copy.out"}) {
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
  EXPECT_EQ(call("dim_order_ops::_to_dim_order_copy.out", permuted).failure_state(), Error::NotSupported);
}

}  // namespace
}  // namespace kiln::kernels::prim
