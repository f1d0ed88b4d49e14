// Decompositions of the real FFTs, stft and hann_window on small built graphs:
// the core calls each becomes (signal lengths cut or zero-padded, norm as
// c10's fft_norm_mode), a numeric check where the answer is known, and errors
// naming the node.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "aot/passes/test/decompose_testing.h"

namespace kiln::aot {
namespace {

using ::testing::HasSubstr;
using testing::call_with_meta;
using testing::decomposed;
using testing::expect_error;
using testing::expect_decomposition_fails;
using testing::expect_values_near;
using testing::ops_without_kernels;
using testing::run;

TensorMeta c64(const std::vector<int64_t>& sizes) { return TensorMeta(ScalarType::ComplexFloat, sizes); }

TEST(DecomposeSpectralTest, RfftZeroPadsOrCutsTheSignalAndMapsNorm) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 6}));
  Node* padded = call_with_meta(b, "aten::fft_rfft", {x, 8, -1, "ortho"}, c64({2, 5}));
  Node* cut = call_with_meta(b, "aten::fft_rfft", {x, 4, 1, "forward"}, c64({2, 3}));
  Node* plain = call_with_meta(b, "aten::fft_rfft", {x}, c64({2, 4}));
  b.output({b.call("aten::abs", {padded}), cut, plain});
  ExportedProgram program = decomposed(std::move(b));
  const std::string text = program.to_string();
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.constant_pad_nd.default(x, [0, 2], 0.0)"));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten._fft_r2c.default(constant_pad_nd, [1], 1, True)"));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.slice.Tensor(x, 1, 0, 4)"));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten._fft_r2c.default(slice, [1], 2, True)"));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten._fft_r2c.default(x, [1], 0, True)"));
  EXPECT_THAT(ops_without_kernels(program), ::testing::IsEmpty());
  // An impulse has a flat spectrum: every bin 1 / sqrt(8) with the ortho norm.
  const auto outputs = run(program, {HostTensor::from_vector<float>({2, 6}, {1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0})});
  const double bin = 1 / std::sqrt(8.0);
  expect_values_near(outputs.at(0), {bin, bin, bin, bin, bin, 2 * bin, 2 * bin, 2 * bin, 2 * bin, 2 * bin});
}

TEST(DecomposeSpectralTest, IrfftTakesTheBinsItsLengthNeeds) {
  GraphBuilder b;
  Node* spectrum = b.input("spectrum", c64({2, 5}));
  Node* full = call_with_meta(b, "aten::fft_irfft", {spectrum}, f32({2, 8}));
  Node* shorter = call_with_meta(b, "aten::fft_irfft", {spectrum, 5, 1, "ortho"}, f32({2, 5}));
  b.output({full, shorter});
  const std::string text = decomposed(std::move(b)).to_string();
  EXPECT_THAT(text, HasSubstr("torch.ops.aten._fft_c2r.default(spectrum, [1], 2, 8)"));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.slice.Tensor(spectrum, 1, 0, 3)"));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten._fft_c2r.default(slice, [1], 1, 5)"));
}

TEST(DecomposeSpectralTest, TwoAndNDimensionalFormsTransformTheirDims) {
  GraphBuilder b;
  Node* x = b.input("x", f32({3, 4, 6}));
  Node* planes = call_with_meta(b, "aten::fft_rfft2", {x}, c64({3, 4, 4}));
  Node* all = call_with_meta(b, "aten::fft_rfftn", {x}, c64({3, 4, 4}));
  Node* back = call_with_meta(b, "aten::fft_irfftn", {planes, ArgumentList{4, 6}, ArgumentList{1, 2}}, f32({3, 4, 6}));
  b.output({all, back});
  ExportedProgram program = decomposed(std::move(b));
  const std::string text = program.to_string();
  EXPECT_THAT(text, HasSubstr("torch.ops.aten._fft_r2c.default(x, [1, 2], 0, True)"));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten._fft_r2c.default(x, [0, 1, 2], 0, True)"));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten._fft_c2r.default(_fft_r2c, [1, 2], 2, 6)"));
  // irfftn(rfft2(x)) is x.
  std::vector<float> ramp(72);
  for (size_t i = 0; i < ramp.size(); ++i) ramp[i] = static_cast<float>(i % 7) - 3.0f;
  const auto outputs = run(program, {HostTensor::from_vector<float>({3, 4, 6}, ramp)});
  expect_values_near(outputs.at(1), std::vector<double>(ramp.begin(), ramp.end()));
}

TEST(DecomposeSpectralTest, ABadNormOrAComplexZeroPadIsAnErrorNamingTheNode) {
  GraphBuilder bad_norm;
  Node* x = bad_norm.input("x", f32({8}));
  bad_norm.output({call_with_meta(bad_norm, "aten::fft_rfft", {x, None{}, -1, "unitary"}, c64({5}))});
  expect_decomposition_fails(std::move(bad_norm), "node 'fft_rfft' (aten::fft_rfft.default): norm must be");
  GraphBuilder padded;
  Node* spectrum = padded.input("spectrum", c64({3}));
  padded.output({call_with_meta(padded, "aten::fft_irfft", {spectrum, 10}, f32({10}))});
  expect_decomposition_fails(std::move(padded), "zero-padding the complex c64[3] to 6 bins along dim 0 is not supported");
}

TEST(DecomposeSpectralTest, StftIsWindowedFramesThroughOneR2c) {
  GraphBuilder b;
  Node* x = b.input("x", f32({32}));
  Node* window = call_with_meta(b, "aten::hann_window", {8}, f32({8}));
  Node* stft = call_with_meta(b, "aten::stft", {x, 8, 4, None{}, window, false, None{}, true}, c64({5, 7}));
  b.output({b.call("aten::abs", {stft}), window});
  ExportedProgram program = decomposed(std::move(b));
  const std::string text = program.to_string();
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.arange.start_step(0, 8, dtype = torch.float32)"));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.cos.default"));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.unfold.default(unsqueeze, -1, 8, 4)"));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten._fft_r2c.default(mul_2, [2], 0, True)"));
  EXPECT_THAT(text, HasSubstr("torch.ops.aten.permute.default(_fft_r2c, [0, 2, 1])"));
  EXPECT_THAT(ops_without_kernels(program), ::testing::IsEmpty());
  const auto outputs = run(program, {HostTensor::from_vector<float>({32}, std::vector<float>(32, 1.0f))});
  // A periodic Hann window of 8: 0.5 - 0.5 cos(2 pi k / 8).
  std::vector<double> hann;
  for (int k = 0; k < 8; ++k) hann.push_back(0.5 - 0.5 * std::cos(2 * M_PI * k / 8));
  expect_values_near(outputs.at(1), hann);
  // A constant signal: each frame's spectrum is the window's, 4 at bin 0
  // (its sum), 2 at bin 1, 0 above; the output is [bins, frames].
  std::vector<double> magnitudes(35, 0.0);
  for (size_t frame = 0; frame < 7; ++frame) {
    magnitudes[frame] = 4.0;
    magnitudes[7 + frame] = 2.0;
  }
  expect_values_near(outputs.at(0), magnitudes);
}

}  // namespace
}  // namespace kiln::aot
