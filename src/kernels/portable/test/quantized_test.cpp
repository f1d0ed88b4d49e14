// The quantized_decomposed kernels: every argument they refuse, by the
// reason their message gives, and a few values worked out by hand (the
// golden cases hold PyTorch's on many more).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kernels/portable/test/kernel_test_util.h"

namespace kiln::kernels::portable::testing {
namespace {

constexpr const char* kQuantize = "quantized_decomposed::quantize_per_tensor.out";
constexpr const char* kQuantizeTensor = "quantized_decomposed::quantize_per_tensor.Tensor_out";
constexpr const char* kDequantize = "quantized_decomposed::dequantize_per_tensor.out";
constexpr const char* kQuantizeChannel = "quantized_decomposed::quantize_per_channel.out";
constexpr const char* kDequantizeChannel = "quantized_decomposed::dequantize_per_channel.out";
constexpr const char* kQuantizeToken = "quantized_decomposed::quantize_per_token.out";
constexpr const char* kDequantizeToken = "quantized_decomposed::dequantize_per_token.out";
constexpr const char* kChoose = "quantized_decomposed::choose_qparams.Tensor_out";
constexpr const char* kChooseToken = "quantized_decomposed::choose_qparams_per_token_asymmetric.out";
constexpr const char* kEmbeddingByte = "quantized_decomposed::embedding_byte.out";
constexpr const char* kEmbedding4bit = "quantized_decomposed::embedding_4bit.out";
constexpr const char* kEmbedding2bitDtype = "quantized_decomposed::embedding_2bit.dtype_out";
constexpr const char* kAdd = "quantized_decomposed::add.out";
constexpr const char* kMixedMm = "quantized_decomposed::mixed_mm.out";
constexpr const char* kMixedLinear = "quantized_decomposed::mixed_linear.out";

int64_t code(ScalarType t) { return static_cast<int64_t>(t); }

struct Range {
  int64_t min = -128, max = 127;
  ScalarType dtype = ScalarType::Char;
};

KernelRuntimeContext quantize(const TestTensor& x, double scale, int64_t zero_point, Range r, const TestTensor& out) {
  return KernelCall()
      .tensor(x)
      .scalar(scale)
      .scalar(zero_point)
      .scalar(r.min)
      .scalar(r.max)
      .scalar(code(r.dtype))
      .tensor(out)
      .run(kQuantize);
}

KernelRuntimeContext dequantize(const TestTensor& q, double scale, int64_t zero_point, Range r, const EValue& out_dtype,
                                const TestTensor& out) {
  return KernelCall()
      .tensor(q)
      .scalar(scale)
      .scalar(zero_point)
      .scalar(r.min)
      .scalar(r.max)
      .scalar(code(r.dtype))
      .value(out_dtype)
      .tensor(out)
      .run(kDequantize);
}

KernelRuntimeContext quantize_channel(const TestTensor& x, const TestTensor& scales, const TestTensor& zero_points,
                                      int64_t axis, Range r, const TestTensor& out) {
  return KernelCall()
      .tensor(x)
      .tensor(scales)
      .tensor(zero_points)
      .scalar(axis)
      .scalar(r.min)
      .scalar(r.max)
      .scalar(code(r.dtype))
      .tensor(out)
      .run(kQuantizeChannel);
}

KernelRuntimeContext quantize_token(const TestTensor& x, const TestTensor& scales, const TestTensor& zero_points,
                                    Range r, const TestTensor& out) {
  return KernelCall()
      .tensor(x)
      .tensor(scales)
      .tensor(zero_points)
      .scalar(r.min)
      .scalar(r.max)
      .scalar(code(r.dtype))
      .tensor(out)
      .run(kQuantizeToken);
}

KernelRuntimeContext choose(const TestTensor& x, Range r, double eps, const TestTensor& scale, const TestTensor& zp) {
  return KernelCall()
      .tensor(x)
      .scalar(r.min)
      .scalar(r.max)
      .scalar(eps)
      .scalar(code(r.dtype))
      .tensor(scale)
      .tensor(zp)
      .value(EValue())
      .run(kChoose, /*add_return_slot=*/false);
}

KernelRuntimeContext embedding(const char* op, const TestTensor& weight, const TestTensor& scales,
                               const TestTensor* zero_points, Range r, const TestTensor& indices,
                               const TestTensor& out) {
  KernelCall call;
  call.tensor(weight).tensor(scales);
  if (zero_points != nullptr) {
    call.tensor(*zero_points);
  } else {
    call.none();
  }
  return call.scalar(r.min).scalar(r.max).tensor(indices).tensor(out).run(op);
}

// ---- values worked out by hand ----

TEST(Quantized, QuantizePerTensorRoundsHalfToEvenThenAddsTheZeroPoint) {
  TestTensor x = make_tensor<float>({7}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 300.0f, -300.0f});
  TestTensor out = zeros<int8_t>({7});
  ASSERT_TRUE(ok(quantize(x, 1.0, 1, {-128, 127, ScalarType::Char}, out)));
  EXPECT_EQ(out.values<int8_t>(), (std::vector<int8_t>{1, 3, 3, 1, -1, 127, -128}));
}

TEST(Quantized, QuantizePerTokenAddsTheZeroPointBeforeRounding) {
  TestTensor x = make_tensor<float>({2, 2}, {0.5f, 1.5f, 0.25f, 0.75f});
  TestTensor scales = make_tensor<double>({2, 1}, {1.0, 0.5});
  TestTensor zero_points = longs({2, 1}, {1, 0});
  TestTensor out = zeros<int8_t>({2, 2});
  ASSERT_TRUE(ok(quantize_token(x, scales, zero_points, {}, out)));
  // round(0.5 + 1) = 2 (round(0.5) + 1 would be 1), round(2.5) = 2; 0.5 -> 0, 1.5 -> 2.
  EXPECT_EQ(out.values<int8_t>(), (std::vector<int8_t>{2, 2, 0, 2}));
}

TEST(Quantized, DequantizePerTensor) {
  TestTensor q = make_tensor<int8_t>({3}, {-128, 0, 127});
  TestTensor out = zeros<float>({3});
  ASSERT_TRUE(ok(dequantize(q, 0.5, -1, {}, EValue(), out)));
  EXPECT_EQ(out.values<float>(), (std::vector<float>{-63.5f, 0.5f, 64.0f}));
}

TEST(Quantized, ChooseQparamsOfAMixedRange) {
  // [-1, 3]: scale 4 / 255, zero point -128 - round(-1 / scale) = -128 + 64 = -64.
  TestTensor x = make_tensor<float>({3}, {-1.0f, 3.0f, 0.5f});
  TestTensor scale = zeros<double>({1}), zp = zeros<int64_t>({1});
  ASSERT_TRUE(ok(choose(x, {}, 1e-7, scale, zp)));
  EXPECT_EQ(scale.values<double>()[0], static_cast<double>(4.0f / 255.0f));
  EXPECT_EQ(zp.values<int64_t>()[0], -64);
}

TEST(Quantized, Embedding4bitUnpacksHighNibbleFirst) {
  TestTensor weight = make_tensor<uint8_t>({2, 1}, {0x3A, 0x81});
  TestTensor scales = make_tensor<float>({2}, {0.5f, 2.0f});
  TestTensor indices = longs({2}, {1, 0});
  TestTensor out = zeros<float>({2, 2});
  ASSERT_TRUE(ok(embedding(kEmbedding4bit, weight, scales, nullptr, {-8, 7}, indices, out)));
  // 0x81: 8 - 8 = 0, 1 - 8 = -7 (times 2); 0x3A: 3 - 8 = -5, 10 - 8 = 2 (times 0.5).
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0.0f, -14.0f, -2.5f, 1.0f}));
}

TEST(Quantized, AddDequantizesAddsAndRequantizes) {
  TestTensor a = make_tensor<uint8_t>({2}, {130, 0});
  TestTensor b = make_tensor<uint8_t>({2}, {10, 0});
  TestTensor out = zeros<uint8_t>({2});
  // (130 - 128) * 0.5 + 10 * 0.25 = 3.5 -> 7 at scale 0.5; (0 - 128) * 0.5 = -64 clamps to 0.
  ASSERT_TRUE(ok(KernelCall()
                     .tensor(a).scalar(0.5).scalar(int64_t{128}).scalar(int64_t{0}).scalar(int64_t{255})
                     .tensor(b).scalar(0.25).scalar(int64_t{0}).scalar(int64_t{0}).scalar(int64_t{255})
                     .scalar(0.5).scalar(int64_t{0}).scalar(int64_t{0}).scalar(int64_t{255})
                     .tensor(out)
                     .run(kAdd)));
  EXPECT_EQ(out.values<uint8_t>(), (std::vector<uint8_t>{7, 0}));
}

// ---- what the kernels refuse ----

TEST(QuantizedErrors, QuantRangeAndDtype) {
  TestTensor x = make_tensor<float>({2}, {1, 2});
  TestTensor out = zeros<int8_t>({2});
  EXPECT_TRUE(failed_with(quantize(x, 1.0, 0, {5, 3}, out), Error::InvalidArgument, kQuantize,
                          "'quant_min' 5 is greater than 'quant_max' 3"));
  EXPECT_TRUE(failed_with(quantize(x, 1.0, 0, {-129, 127}, out), Error::InvalidArgument, kQuantize,
                          "'quant_min' -129 is outside the values of Char [-128, 127]"));
  EXPECT_TRUE(failed_with(quantize(x, 1.0, 0, {0, 256, ScalarType::Byte}, zeros<uint8_t>({2})),
                          Error::InvalidArgument, kQuantize, "'quant_max' 256 is outside the values of Byte"));
  EXPECT_TRUE(failed_with(quantize(x, 1.0, 0, {0, 1, ScalarType::Float}, out), Error::InvalidArgument, kQuantize,
                          "'dtype' is Float; it must be Byte, Char, Short, UInt16 or Int"));
  EXPECT_TRUE(failed_with(quantize(x, 1.0, 0, {0, 255, ScalarType::Byte}, out), Error::InvalidArgument, kQuantize,
                          "'out' has dtype Char, expected Byte"));
  EXPECT_TRUE(failed_with(quantize(make_tensor<double>({2}, {1, 2}), 1.0, 0, {}, out), Error::InvalidArgument,
                          kQuantize, "'input' has dtype Double; it must be Float, Half or BFloat16"));
}

TEST(QuantizedErrors, ScaleAndZeroPoint) {
  TestTensor x = make_tensor<float>({2}, {1, 2});
  TestTensor out = zeros<int8_t>({2});
  for (double scale : {0.0, -0.5, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    EXPECT_TRUE(failed_with(quantize(x, scale, 0, {}, out), Error::InvalidArgument, kQuantize,
                            "a scale must be positive and finite"));
  }
  EXPECT_TRUE(failed_with(quantize(x, 1.0, 128, {}, out), Error::InvalidArgument, kQuantize,
                          "'zero_point' 128 is outside [quant_min, quant_max] = [-128, 127]"));
  EXPECT_TRUE(failed_with(dequantize(zeros<int8_t>({2}), 1.0, -100, {-50, 50}, EValue(), zeros<float>({2})),
                          Error::InvalidArgument, kDequantize, "'zero_point' -100 is outside"));
}

TEST(QuantizedErrors, TensorScaleAndZeroPoint) {
  TestTensor x = make_tensor<float>({2}, {1, 2});
  TestTensor out = zeros<int8_t>({2});
  auto run = [&](const TestTensor& scale, const TestTensor& zp) {
    return KernelCall()
        .tensor(x).tensor(scale).tensor(zp).scalar(int64_t{-128}).scalar(int64_t{127}).scalar(code(ScalarType::Char))
        .tensor(out)
        .run(kQuantizeTensor);
  };
  EXPECT_TRUE(failed_with(run(make_tensor<double>({2}, {1, 1}), longs({1}, {0})), Error::InvalidArgument,
                          kQuantizeTensor, "'scale' has 2 elements; it must hold one"));
  EXPECT_TRUE(failed_with(run(longs({1}, {1}), longs({1}, {0})), Error::InvalidArgument, kQuantizeTensor,
                          "'scale' has dtype Long; it must be Float or Double"));
  EXPECT_TRUE(failed_with(run(make_tensor<double>({1}, {1}), make_tensor<float>({1}, {0})), Error::InvalidArgument,
                          kQuantizeTensor, "'zero_point' has dtype Float; it must be an integer dtype"));
}

TEST(QuantizedErrors, DequantizeDtypes) {
  TestTensor q = zeros<uint8_t>({2});
  EXPECT_TRUE(failed_with(dequantize(q, 1.0, 0, {}, EValue(), zeros<float>({2})), Error::InvalidArgument, kDequantize,
                          "'input' has dtype Byte, expected Char"));
  EXPECT_TRUE(failed_with(dequantize(zeros<int8_t>({2}), 1.0, 0, {}, EValue(code(ScalarType::Int)), zeros<int32_t>({2})),
                          Error::InvalidArgument, kDequantize, "'out_dtype' is Int; it must be Float, Double, Half"));
  EXPECT_TRUE(failed_with(dequantize(zeros<int8_t>({2}), 1.0, 0, {}, EValue(code(ScalarType::Half)), zeros<float>({2})),
                          Error::InvalidArgument, kDequantize, "'out' has dtype Float, expected Half"));
}

TEST(QuantizedErrors, PerChannelParameters) {
  TestTensor x = zeros<float>({2, 3});
  TestTensor out = zeros<int8_t>({2, 3});
  TestTensor scales = make_tensor<double>({3}, {1, 1, 1});
  TestTensor zps = longs({3}, {0, 0, 0});
  EXPECT_TRUE(failed_with(quantize_channel(x, scales, zps, 0, {}, out), Error::InvalidArgument, kQuantizeChannel,
                          "'scales' must be 1-D with one element per index of axis 0 (2)"));
  EXPECT_TRUE(failed_with(quantize_channel(x, scales, zps, 2, {}, out), Error::InvalidArgument, kQuantizeChannel,
                          "'axis' 2 is out of range for 2 dims"));
  EXPECT_TRUE(failed_with(quantize_channel(x, make_tensor<double>({1, 3}, {1, 1, 1}), zps, 1, {}, out),
                          Error::InvalidArgument, kQuantizeChannel, "it has 2 dims"));
  EXPECT_TRUE(failed_with(quantize_channel(x, make_tensor<double>({3}, {1, 0, 1}), zps, -1, {}, out),
                          Error::InvalidArgument, kQuantizeChannel, "'scales'[1] is 0; a scale must be positive"));
  EXPECT_TRUE(failed_with(quantize_channel(x, scales, longs({3}, {0, 0, 200}), 1, {}, out), Error::InvalidArgument,
                          kQuantizeChannel, "'zero_points'[2] 200 is outside"));
  EXPECT_TRUE(failed_with(quantize_channel(x, scales, make_tensor<float>({3}, {0, 0, 0}), 1, {}, out),
                          Error::InvalidArgument, kQuantizeChannel, "'zero_points' has dtype Float"));
  EXPECT_TRUE(failed_with(quantize_channel(x, scales, zps, 1, {0, 9, ScalarType::UInt16}, zeros<uint16_t>({2, 3})),
                          Error::InvalidArgument, kQuantizeChannel, "it must be Byte, Char, Short or Int"));
  EXPECT_TRUE(failed_with(quantize_channel(make_tensor<float>({}, {1}), scales, zps, 0, {}, zeros<int8_t>({})),
                          Error::InvalidArgument, kQuantizeChannel, "'input' is 0-dim"));
}

TEST(QuantizedErrors, PerTokenParameters) {
  TestTensor x = zeros<float>({2, 3, 4});
  TestTensor out = zeros<int8_t>({2, 3, 4});
  EXPECT_TRUE(failed_with(quantize_token(x, make_tensor<double>({5, 1}, {1, 1, 1, 1, 1}), longs({6, 1}, iota<int64_t>(6)),
                                         {}, out),
                          Error::InvalidArgument, kQuantizeToken, "'scales' has 5 elements; it needs one per channel or token (6)"));
  TestTensor q = zeros<int8_t>({2, 4});
  auto dequantize_token = [&](const TestTensor& zps, int64_t output_dtype) {
    return KernelCall()
        .tensor(q).tensor(make_tensor<double>({2, 1}, {1, 1})).tensor(zps)
        .scalar(int64_t{-128}).scalar(int64_t{127}).scalar(code(ScalarType::Char)).scalar(output_dtype)
        .tensor(zeros<float>({2, 4}))
        .run(kDequantizeToken);
  };
  EXPECT_TRUE(failed_with(dequantize_token(longs({1, 1}, {0}), code(ScalarType::Float)), Error::InvalidArgument,
                          kDequantizeToken, "'zero_points' has 1 elements"));
  EXPECT_TRUE(failed_with(dequantize_token(longs({2, 1}, {0, 0}), code(ScalarType::Long)), Error::InvalidArgument,
                          kDequantizeToken, "'output_dtype' is Long"));
}

TEST(QuantizedErrors, ChooseQparams) {
  TestTensor scale = zeros<double>({1}), zp = zeros<int64_t>({1});
  TestTensor x = make_tensor<float>({2}, {-1, 1});
  EXPECT_TRUE(failed_with(choose(x, {1, 255, ScalarType::Byte}, 1e-7, scale, zp), Error::InvalidArgument, kChoose,
                          "[quant_min, quant_max] = [1, 255] must hold 0"));
  EXPECT_TRUE(failed_with(choose(x, {}, 0.0, scale, zp), Error::InvalidArgument, kChoose,
                          "'eps' is 0; it must be positive and finite"));
  EXPECT_TRUE(failed_with(choose(zeros<float>({0}), {}, 1e-7, scale, zp), Error::InvalidArgument, kChoose,
                          "'input' is empty"));
  EXPECT_TRUE(failed_with(choose(make_tensor<float>({2}, {1, kNaN}), {}, 1e-7, scale, zp), Error::InvalidArgument,
                          kChoose, "'input' holds NaN or an infinity"));
  EXPECT_TRUE(failed_with(choose(x, {}, 1e-7, zeros<float>({1}), zp), Error::InvalidArgument, kChoose,
                          "'scale_out' has dtype Float, expected Double"));
  TestTensor scales = zeros<double>({2, 1}), zps = zeros<int64_t>({2, 1});
  auto choose_token = [&](const TestTensor& input, ScalarType dtype) {
    return KernelCall()
        .tensor(input).scalar(code(dtype)).tensor(scales).tensor(zps).value(EValue())
        .run(kChooseToken, /*add_return_slot=*/false);
  };
  EXPECT_TRUE(failed_with(choose_token(zeros<float>({2, 3}), ScalarType::Byte), Error::InvalidArgument, kChooseToken,
                          "'dtype' is Byte; per-token asymmetric parameters are int8's"));
  EXPECT_TRUE(failed_with(choose_token(make_tensor<float>({2, 1}, {kInf, 0}), ScalarType::Char),
                          Error::InvalidArgument, kChooseToken, "holds NaN or an infinity"));
}

TEST(QuantizedErrors, Embeddings) {
  TestTensor weight = zeros<uint8_t>({3, 4});
  TestTensor scales = make_tensor<float>({3}, {1, 1, 1});
  TestTensor indices = longs({2}, {0, 2});
  TestTensor out = zeros<float>({2, 4});
  EXPECT_TRUE(failed_with(embedding(kEmbeddingByte, weight, make_tensor<float>({3, 3}, iota(9)), nullptr,
                                    {0, 255, ScalarType::Byte}, indices, out),
                          Error::InvalidArgument, kEmbeddingByte, "3 groups per row, which do not divide the 4 values"));
  EXPECT_TRUE(failed_with(embedding(kEmbeddingByte, weight, make_tensor<float>({2}, {1, 1}), nullptr,
                                    {0, 255, ScalarType::Byte}, indices, out),
                          Error::InvalidArgument, kEmbeddingByte, "one row per row of 'weight' (3)"));
  EXPECT_TRUE(failed_with(embedding(kEmbeddingByte, weight, make_tensor<double>({3}, {1, 1, 1}), nullptr,
                                    {0, 255, ScalarType::Byte}, indices, out),
                          Error::InvalidArgument, kEmbeddingByte, "'weight_scales' has dtype Double"));
  EXPECT_TRUE(failed_with(embedding(kEmbeddingByte, weight, scales, nullptr, {-1, 255, ScalarType::Byte}, indices, out),
                          Error::InvalidArgument, kEmbeddingByte, "'weight_quant_min' -1 is outside the values of Byte"));
  TestTensor zps = make_tensor<float>({3, 1}, {0, 0, 0});
  EXPECT_TRUE(failed_with(embedding(kEmbeddingByte, weight, scales, &zps, {0, 255, ScalarType::Byte}, indices, out),
                          Error::InvalidArgument, kEmbeddingByte, "must have the shape of 'weight_scales'"));
  EXPECT_TRUE(failed_with(embedding(kEmbeddingByte, weight, scales, nullptr, {0, 255, ScalarType::Byte},
                                    longs({1}, {3}), out),
                          Error::InvalidArgument, kEmbeddingByte, "'indices'"));
  EXPECT_TRUE(failed_with(embedding(kEmbedding4bit, zeros<int8_t>({3, 2}), scales, nullptr, {-8, 7}, indices, out),
                          Error::InvalidArgument, kEmbedding4bit, "'weight' has dtype Char; it must be Byte"));
  EXPECT_TRUE(failed_with(embedding(kEmbedding4bit, zeros<uint8_t>({3, 2}), scales, nullptr, {-8, 8}, indices, out),
                          Error::InvalidArgument, kEmbedding4bit, "4-bit values need [-8, 7]"));
  TestTensor wide = zeros<float>({2, 16});
  auto two_bit = [&](int64_t dtype, const TestTensor& o) {
    return KernelCall()
        .tensor(weight).tensor(scales).none().scalar(int64_t{-2}).scalar(int64_t{1}).tensor(indices).scalar(dtype)
        .tensor(o)
        .run(kEmbedding2bitDtype);
  };
  EXPECT_TRUE(ok(two_bit(code(ScalarType::Float), wide)));
  EXPECT_TRUE(failed_with(two_bit(code(ScalarType::Half), wide), Error::InvalidArgument, kEmbedding2bitDtype,
                          "'out' has dtype Float, expected Half"));
  EXPECT_TRUE(failed_with(two_bit(code(ScalarType::Char), wide), Error::InvalidArgument, kEmbedding2bitDtype,
                          "'dtype' is Char"));
}

TEST(QuantizedErrors, Add) {
  TestTensor a = zeros<uint8_t>({2}), out = zeros<uint8_t>({2});
  auto add = [&](const TestTensor& b, int64_t b_zero_point, const TestTensor& o) {
    return KernelCall()
        .tensor(a).scalar(0.5).scalar(int64_t{0}).scalar(int64_t{0}).scalar(int64_t{255})
        .tensor(b).scalar(0.5).scalar(b_zero_point).scalar(int64_t{0}).scalar(int64_t{255})
        .scalar(0.5).scalar(int64_t{0}).scalar(int64_t{0}).scalar(int64_t{255})
        .tensor(o)
        .run(kAdd);
  };
  EXPECT_TRUE(failed_with(add(zeros<uint8_t>({3}), 0, out), Error::InvalidArgument, kAdd,
                          "'b' must have the shape of 'a'"));
  EXPECT_TRUE(failed_with(add(zeros<int8_t>({2}), 0, out), Error::InvalidArgument, kAdd, "'b' has dtype Char"));
  EXPECT_TRUE(failed_with(add(zeros<uint8_t>({2}), 300, out), Error::InvalidArgument, kAdd,
                          "'b_zero_point' 300 is outside"));
  EXPECT_TRUE(failed_with(add(zeros<uint8_t>({2}), 0, zeros<int32_t>({2})), Error::InvalidArgument, kAdd,
                          "'out' has dtype Int"));
}

TEST(QuantizedErrors, MixedMatrixProducts) {
  TestTensor x = zeros<float>({2, 4});
  TestTensor w = zeros<int8_t>({3, 4});
  TestTensor out = zeros<float>({2, 3});
  auto linear = [&](const TestTensor& weight, const TestTensor& scales, const TestTensor* zps) {
    KernelCall call;
    call.tensor(x).tensor(weight).tensor(scales);
    if (zps != nullptr) {
      call.tensor(*zps);
    } else {
      call.none();
    }
    return call.none().tensor(out).run(kMixedLinear);
  };
  TestTensor scales = make_tensor<float>({3}, {1, 1, 1});
  EXPECT_TRUE(ok(linear(w, scales, nullptr)));
  EXPECT_TRUE(failed_with(linear(w, scales, &scales), Error::NotSupported, kMixedLinear, "'weight_zero_points'"));
  EXPECT_TRUE(failed_with(linear(w, make_tensor<float>({3, 3}, iota(9)), nullptr), Error::InvalidArgument, kMixedLinear,
                          "3 groups per row, which do not divide the 4 columns"));
  EXPECT_TRUE(failed_with(linear(zeros<uint8_t>({3, 4}), scales, nullptr), Error::InvalidArgument, kMixedLinear,
                          "'weight' has dtype Byte, expected Char"));
  EXPECT_TRUE(failed_with(linear(zeros<int8_t>({3, 5}), scales, nullptr), Error::InvalidArgument, kMixedLinear,
                          "'weight' has 5 columns; it needs 4"));
  EXPECT_TRUE(failed_with(KernelCall()
                              .tensor(x).tensor(zeros<int8_t>({4, 3})).tensor(make_tensor<double>({4}, {1, 1, 1, 1}))
                              .none().tensor(out)
                              .run(kMixedMm),
                          Error::InvalidArgument, kMixedMm, "'weight_scales' has dtype Double, expected Float"));
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
