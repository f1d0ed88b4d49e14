// torchao's affine quantization kernels: blocks over several dims worked out
// by hand, and every argument they refuse, by the reason their message gives
// (the golden cases hold torchao's values on many more).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

constexpr const char* kQuantizeAffine = "torchao::quantize_affine.out";
constexpr const char* kDequantizeAffine = "torchao::dequantize_affine.out";
constexpr const char* kChooseAffine = "torchao::choose_qparams_affine.out";

int64_t dtype_code(ScalarType t) { return static_cast<int64_t>(t); }

EValue text(const char* s) { return EValue(s, std::strlen(s)); }

KernelRuntimeContext quantize_affine(const TestTensor& x, const std::vector<int64_t>& block, const TestTensor& scale,
                              const TestTensor* zero_point, ScalarType dtype, const TestTensor& out) {
  KernelCall call;
  call.tensor(x).int_list(block).tensor(scale);
  if (zero_point != nullptr) call.tensor(*zero_point);
  else call.none();
  return call.scalar(dtype_code(dtype)).none().none().tensor(out).run(kQuantizeAffine);
}

KernelRuntimeContext dequantize_affine(const TestTensor& q, const std::vector<int64_t>& block, const TestTensor& scale,
                                ScalarType input_dtype, ScalarType output_dtype, const TestTensor& out) {
  return KernelCall()
      .tensor(q).int_list(block).tensor(scale).none().scalar(dtype_code(input_dtype)).none().none()
      .scalar(dtype_code(output_dtype)).tensor(out)
      .run(kDequantizeAffine);
}

KernelRuntimeContext choose_affine(const TestTensor& x, const char* mapping, const std::vector<int64_t>& block,
                            int64_t quant_min, int64_t quant_max, bool keepdim, const TestTensor& scale,
                            const TestTensor& zero_point) {
  return KernelCall()
      .tensor(x).value(text(mapping)).int_list(block).scalar(dtype_code(ScalarType::Char)).scalar(quant_min)
      .scalar(quant_max).none().none().scalar(dtype_code(ScalarType::Char)).scalar(keepdim).tensor(scale).tensor(zero_point)
      .value(EValue())
      .run(kChooseAffine, /*add_return_slot=*/false);
}

// ---- values worked out by hand ----

// Blocks of [2, 2] over a [2, 4] input: two blocks side by side, in row-major
// order of the blocks, each spanning both rows.
TEST(AffineQuantize, BlocksSpanSeveralDims) {
  TestTensor x = make_tensor<float>({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  TestTensor out = zeros<int8_t>({2, 4});
  TestTensor scale = make_tensor<float>({2}, {0.5f, 2.0f});
  TestTensor zero_point = make_tensor<int8_t>({2}, {1, -1});
  ASSERT_TRUE(ok(quantize_affine(x, {2, 2}, scale, &zero_point, ScalarType::Char, out)));
  // Block 0 (columns 0-1): x / 0.5 + 1; block 1 (columns 2-3): x / 2 - 1, 2.5 and 3.5 to even.
  EXPECT_EQ(out.values<int8_t>(), (std::vector<int8_t>{3, 5, 1, 1, 11, 13, 3, 3}));
}

TEST(AffineQuantize, ChooseQparamsOfInt4Groups) {
  TestTensor x = make_tensor<float>({2, 4}, {-1.5f, 0.75f, 0.0f, 0.5f, 3.0f, 0.0f, 0.0f, 0.0f});
  TestTensor scale = zeros<float>({2, 2}), zero_point = zeros<int8_t>({2, 2});
  ASSERT_TRUE(ok(choose_affine(x, "SYMMETRIC", {1, 2}, -8, 7, false, scale, zero_point)));
  // max |x| of each pair over (7 - -8) / 2 = 7.5; an all-zero pair takes the eps floor.
  EXPECT_EQ(scale.values<float>(), (std::vector<float>{0.2f, 0.5f / 7.5f, 0.4f, 1.17549435e-38f}));
  EXPECT_EQ(zero_point.values<int8_t>(), (std::vector<int8_t>{0, 0, 0, 0}));
}

// ---- errors ----

TEST(AffineQuantizeErrors, BlockSize) {
  TestTensor x = zeros<float>({2, 4});
  TestTensor scale = make_tensor<float>({2}, {1, 1});
  TestTensor out = zeros<int8_t>({2, 4});
  EXPECT_TRUE(failed_with(quantize_affine(x, {4}, scale, nullptr, ScalarType::Char, out), Error::InvalidArgument, kQuantizeAffine,
                          "'block_size' has 1 entries; the input has 2 dims"));
  EXPECT_TRUE(failed_with(quantize_affine(x, {1, 3}, scale, nullptr, ScalarType::Char, out), Error::InvalidArgument, kQuantizeAffine,
                          "'block_size'[1] = 3 must be at least 1 and divide dim 1 of size 4"));
  EXPECT_TRUE(failed_with(quantize_affine(x, {0, 4}, scale, nullptr, ScalarType::Char, out), Error::InvalidArgument, kQuantizeAffine,
                          "'block_size'[0] = 0 must be at least 1"));
  EXPECT_TRUE(failed_with(quantize_affine(x, {1, 2}, scale, nullptr, ScalarType::Char, out), Error::InvalidArgument, kQuantizeAffine,
                          "'scale' has 2 elements; the input has 4 blocks"));
}

TEST(AffineQuantizeErrors, DtypesAndParameters) {
  TestTensor x = zeros<float>({2, 4});
  TestTensor scale = make_tensor<float>({2}, {1, 1});
  TestTensor out = zeros<int8_t>({2, 4});
  TestTensor wrong_zero_point = make_tensor<int8_t>({3}, {0, 0, 0});
  EXPECT_TRUE(failed_with(quantize_affine(x, {1, 4}, scale, &wrong_zero_point, ScalarType::Char, out), Error::InvalidArgument,
                          kQuantizeAffine, "'zero_point' has 3 elements; the input has 2 blocks"));
  TestTensor bool_zero_point = zeros<bool>({2});
  EXPECT_TRUE(failed_with(quantize_affine(x, {1, 4}, scale, &bool_zero_point, ScalarType::Char, out), Error::InvalidArgument,
                          kQuantizeAffine, "'zero_point' has dtype Bool; it must be an integer or floating dtype"));
  EXPECT_TRUE(failed_with(quantize_affine(x, {1, 4}, longs({2}, {1, 1}), nullptr, ScalarType::Char, out),
                          Error::InvalidArgument, kQuantizeAffine, "'scale' is Long; it must be Float, Double, Half"));
  EXPECT_TRUE(failed_with(quantize_affine(x, {1, 4}, scale, nullptr, ScalarType::UInt16, zeros<uint16_t>({2, 4})),
                          Error::InvalidArgument, kQuantizeAffine, "'output_dtype' is UInt16; it must be Byte, Char, Short or Int"));
  EXPECT_TRUE(failed_with(quantize_affine(x, {1, 4}, scale, nullptr, ScalarType::Byte, out), Error::InvalidArgument, kQuantizeAffine,
                          "'out' has dtype Char, expected Byte"));
  EXPECT_TRUE(failed_with(quantize_affine(zeros<double>({2, 4}), {1, 4}, scale, nullptr, ScalarType::Char, out),
                          Error::InvalidArgument, kQuantizeAffine, "'input' has dtype Double; it must be Float, Half or BFloat16"));
  EXPECT_TRUE(failed_with(dequantize_affine(zeros<uint8_t>({2, 4}), {1, 4}, scale, ScalarType::Char, ScalarType::Float,
                                     zeros<float>({2, 4})),
                          Error::InvalidArgument, kDequantizeAffine, "'input' has dtype Byte, expected Char"));
  EXPECT_TRUE(failed_with(dequantize_affine(zeros<int8_t>({2, 4}), {1, 4}, scale, ScalarType::Char, ScalarType::Int,
                                     zeros<int32_t>({2, 4})),
                          Error::InvalidArgument, kDequantizeAffine, "'output_dtype' is Int; it must be Float, Half or BFloat16"));
}

TEST(AffineQuantizeErrors, ChooseQparams) {
  TestTensor x = zeros<float>({2, 4});
  TestTensor scale = zeros<float>({2}), zero_point = zeros<int8_t>({2});
  EXPECT_TRUE(failed_with(choose_affine(x, "AFFINE", {1, 4}, -8, 7, false, scale, zero_point), Error::InvalidArgument, kChooseAffine,
                          "'mapping_type' is 'AFFINE'; it must be SYMMETRIC, SYMMETRIC_NO_CLIPPING_ERR or ASYMMETRIC"));
  EXPECT_TRUE(failed_with(choose_affine(x, "SYMMETRIC", {1, 4}, -129, 7, false, scale, zero_point), Error::InvalidArgument,
                          kChooseAffine, "'quant_min' -129 is outside the values of Char"));
  EXPECT_TRUE(failed_with(choose_affine(x, "SYMMETRIC", {1, 4}, -8, 7, true, scale, zero_point), Error::InvalidArgument,
                          kChooseAffine, "'out0'"));
  EXPECT_TRUE(failed_with(choose_affine(x, "SYMMETRIC", {1, 4}, -8, 7, false, zeros<double>({2}), zero_point),
                          Error::InvalidArgument, kChooseAffine, "'out0' has dtype Double, expected Float"));
  EXPECT_TRUE(failed_with(choose_affine(zeros<int32_t>({2, 4}), "SYMMETRIC", {1, 4}, -8, 7, false, scale, zero_point),
                          Error::InvalidArgument, kChooseAffine, "'input' has dtype Int; it must be Float, Double, Half or BFloat16"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
