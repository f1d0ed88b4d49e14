// Decompositions of the real FFTs, stft and hann_window on small built graphs:
// the core calls each becomes (signal lengths cut or zero-padded, norm as
// c10's fft_norm_mode), a numeric check where the answer is known, and errors
// naming the node.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "aot/passes/decompose.h"
#include "aot/passes/test/decompose_testing.h"

namespace kiln::aot {
namespace {

using ::testing::HasSubstr;
using testing::call_with_meta;
using testing::decomposed;
using testing::expect_error;
using testing::expect_decomposition_fails;
using testing::expect_values_near;
using testing::ints;
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

// The DFT of real x (rows x cols) over the dims `dims` (0, 1 or both), by
// its definition in double: real and imaginary parts, row-major.
std::pair<std::vector<double>, std::vector<double>> direct_dft(const std::vector<float>& x, int64_t rows, int64_t cols,
                                                               bool over_rows, bool over_cols) {
  std::vector<double> re(x.size()), im(x.size());
  for (int64_t k = 0; k < rows; ++k) {
    for (int64_t l = 0; l < cols; ++l) {
      for (int64_t m = 0; m < rows; ++m) {
        for (int64_t n = 0; n < cols; ++n) {
          if ((!over_rows && m != k) || (!over_cols && n != l)) continue;
          const double angle = 2 * M_PI * ((over_rows ? static_cast<double>(k * m) / static_cast<double>(rows) : 0.0) +
                                           (over_cols ? static_cast<double>(l * n) / static_cast<double>(cols) : 0.0));
          re[static_cast<size_t>(k * cols + l)] += x[static_cast<size_t>(m * cols + n)] * std::cos(angle);
          im[static_cast<size_t>(k * cols + l)] -= x[static_cast<size_t>(m * cols + n)] * std::sin(angle);
        }
      }
    }
  }
  return {re, im};
}

// FNet's token mixing, fftn(x, dim=(-1, -2)).real, and the imaginary part of
// a 1-D fft with the ortho norm: products with cos and sin matrices, no
// complex value left, each as the DFT's definition gives it.
TEST(DecomposeSpectralTest, ThePartsOfAComplexFftOfARealTensorAreRealProducts) {
  GraphBuilder b;
  Node* x = b.input("x", f32({2, 5, 6}));
  Node* both = call_with_meta(b, "aten::fft_fftn", {x, None{}, ints({-1, -2})}, c64({2, 5, 6}));
  Node* rows = call_with_meta(b, "aten::fft_fft", {x, None{}, 1, "ortho"}, c64({2, 5, 6}));
  b.output({call_with_meta(b, "aten::real", {both}, f32({2, 5, 6})), call_with_meta(b, "aten::imag", {rows}, f32({2, 5, 6}))});
  ExportedProgram program = decomposed(std::move(b));
  EXPECT_THAT(program.to_string(), ::testing::Not(HasSubstr("fft")));
  EXPECT_THAT(ops_without_kernels(program), ::testing::IsEmpty());
  std::vector<float> ramp(60);
  for (size_t i = 0; i < ramp.size(); ++i) ramp[i] = std::sin(0.7f * static_cast<float>(i)) + 0.1f * static_cast<float>(i % 7);
  const auto outputs = run(program, {HostTensor::from_vector<float>({2, 5, 6}, ramp)});
  std::vector<double> want_re, want_im;
  for (int64_t batch = 0; batch < 2; ++batch) {
    const std::vector<float> slice(ramp.begin() + batch * 30, ramp.begin() + (batch + 1) * 30);
    const auto re = direct_dft(slice, 5, 6, true, true).first;
    const auto im = direct_dft(slice, 5, 6, true, false).second;
    want_re.insert(want_re.end(), re.begin(), re.end());
    for (double v : im) want_im.push_back(v / std::sqrt(5.0));
  }
  expect_values_near(outputs.at(0), want_re, 2e-4);
  expect_values_near(outputs.at(1), want_im, 2e-5);
}

// Core ATen's spelling, view_as_real(_fft_c2c(x as complex)): both parts,
// stacked last; an FFT of a tensor that was complex already is refused.
TEST(DecomposeSpectralTest, CoreAtensRealViewOfAnFftOfARealTensorIsRealProducts) {
  GraphBuilder b;
  Node* x = b.input("x", f32({4, 3}));
  Node* complex = call_with_meta(b, "aten::_to_copy", {x}, c64({4, 3}), {{"dtype", ScalarType::ComplexFloat}});
  Node* fft = call_with_meta(b, "aten::_fft_c2c", {complex, ints({0}), int64_t{2}, true}, c64({4, 3}));
  b.output({call_with_meta(b, "aten::view_as_real", {fft}, f32({4, 3, 2}))});
  ExportedProgram program = std::move(b).build();
  EXPECT_TRUE(rewrite_ffts_of_real_tensors(program));
  EXPECT_THAT(program.to_string(), ::testing::Not(HasSubstr("fft")));
  const std::vector<float> values = {1, 2, 3, -1, 0.5f, 4, 2, -2, 1, 0, 3, 1};
  const auto outputs = run(program, {HostTensor::from_vector<float>({4, 3}, values)});
  const auto [re, im] = direct_dft(values, 4, 3, true, false);
  std::vector<double> want;
  for (size_t i = 0; i < re.size(); ++i) {
    want.push_back(re[i] / 4);
    want.push_back(im[i] / 4);
  }
  expect_values_near(outputs.at(0), want, 1e-5);
}

}  // namespace
}  // namespace kiln::aot
