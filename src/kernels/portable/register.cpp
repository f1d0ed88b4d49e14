#include "kernels/portable/register.h"

#include "kernels/portable/kernels.h"

namespace kiln::kernels::portable {

namespace {

using runtime::ScalarType;

constexpr DtypeSet kFloating = dtype_set({ScalarType::Float, ScalarType::Double});
constexpr DtypeSet kHalfs = dtype_set({ScalarType::Half, ScalarType::BFloat16});
constexpr DtypeSet kIntegral = dtype_set({ScalarType::Int, ScalarType::Long});
constexpr DtypeSet kBool = dtype_set({ScalarType::Bool});
constexpr DtypeSet kReal = kFloating | kIntegral;
constexpr DtypeSet kRealOrBool = kReal | kBool;
/// What PyTorch's padding and max pools take: no bool and no unsigned
/// integer wider than a byte.
constexpr DtypeSet kRealHalfsAndSmallInts =
    kReal | kHalfs | dtype_set({ScalarType::Byte, ScalarType::Char, ScalarType::Short});
constexpr DtypeSet kComplex = dtype_set({ScalarType::ComplexFloat, ScalarType::ComplexDouble});
/// Kernels that only move bytes take every dtype with arithmetic or storage.
constexpr DtypeSet kAll = kRealOrBool | kHalfs |
                          dtype_set({ScalarType::Byte, ScalarType::Char, ScalarType::Short, ScalarType::UInt16,
                                     ScalarType::UInt32, ScalarType::UInt64});
/// Views, copies and cat move whole elements: complex ones too.
constexpr DtypeSet kMoves = kAll | kComplex;

/// The quantized kernels: what torch.ao quantizes (Float, and the 16-bit
/// floats it converts), the integer dtypes holding quantized values (UInt16
/// per tensor only), and the two byte dtypes of quantized tables.
constexpr DtypeSet kQuantizeInputs = dtype_set({ScalarType::Float, ScalarType::Half, ScalarType::BFloat16});
constexpr DtypeSet kQuantizedCommon =
    dtype_set({ScalarType::Byte, ScalarType::Char, ScalarType::Short, ScalarType::Int});
constexpr DtypeSet kQuantized = kQuantizedCommon | dtype_set({ScalarType::UInt16});
constexpr DtypeSet kBytes = dtype_set({ScalarType::Byte, ScalarType::Char});

// One section per kernel family; keep entries within their section.
const PortableKernel kPortableKernels[] = {
    {{"aten::convolution.out", convolution_out}, kFloating},
    {{"aten::add.out", add_out}, kRealOrBool | kHalfs},
    {{"aten::sub.out", sub_out}, kReal | kHalfs},
    {{"aten::mul.out", mul_out}, kRealOrBool | kHalfs | kComplex},
    {{"aten::div.out", div_out}, kRealOrBool | kHalfs},
    {{"aten::mm.out", mm_out}, kReal},
    {{"aten::addmm.out", addmm_out}, kReal},
    {{"aten::view_copy.out", view_copy_out}, kMoves},
    {{"aten::permute_copy.out", permute_copy_out}, kMoves},
    {{"aten::clone.out", clone_out}, kMoves},
    {{"aten::bmm.out", bmm_out}, kReal},
    {{"aten::_native_batch_norm_legit_no_training.out", native_batch_norm_legit_no_training_out}, kFloating},
    {{"aten::native_layer_norm.out", native_layer_norm_out}, kFloating},
    {{"aten::_softmax.out", softmax_out}, kFloating | kHalfs},
    {{"aten::max_pool2d_with_indices.out", max_pool2d_with_indices_out}, kRealHalfsAndSmallInts},
    {{"aten::max_pool3d_with_indices.out", max_pool3d_with_indices_out}, kRealHalfsAndSmallInts},
    {{"aten::mean.out", mean_out}, kFloating | kHalfs},
    {{"aten::any.out", any_out}, kRealOrBool | kHalfs},
    {{"aten::add.Scalar_out", add_scalar_out}, kRealOrBool | kHalfs},
    {{"aten::sub.Scalar_out", sub_scalar_out}, kReal | kHalfs},
    {{"aten::mul.Scalar_out", mul_scalar_out}, kRealOrBool | kHalfs},
    {{"aten::div.Scalar_out", div_scalar_out}, kRealOrBool | kHalfs},
    {{"aten::logical_not.out", logical_not_out}, kRealOrBool | kHalfs},
    {{"aten::isnan.out", isnan_out}, kRealOrBool | kHalfs},
    {{"aten::isinf.out", isinf_out}, kRealOrBool | kHalfs},
    {{"aten::eq.Scalar_out", eq_scalar_out}, kRealOrBool | kHalfs},
    {{"aten::where.self_out", where_self_out}, kRealOrBool | kHalfs},
    {{"aten::full_like.out", full_like_out}, kRealOrBool | kHalfs},
    {{"aten::expand_copy.out", expand_copy_out}, kMoves},
    {{"aten::select_copy.int_out", select_copy_int_out}, kMoves},
    {{"aten::squeeze_copy.dims_out", squeeze_copy_dims_out}, kMoves},
    {{"aten::unsqueeze_copy.out", unsqueeze_copy_out}, kMoves},
    {{"aten::transpose_copy.int_out", transpose_copy_int_out}, kMoves},
    {{"aten::slice_copy.Tensor_out", slice_copy_tensor_out}, kMoves},
    // ---- unary math and activations (unary.cpp, activation.cpp) ----
    {{"aten::neg.out", neg_out}, kReal | kHalfs},
    {{"aten::abs.out", abs_out}, kReal | kHalfs | kComplex},
    {{"aten::floor.out", floor_out}, kReal | kHalfs},
    {{"aten::ceil.out", ceil_out}, kReal | kHalfs},
    {{"aten::round.out", round_out}, kReal | kHalfs},
    {{"aten::relu.out", relu_out}, kReal | kHalfs},
    {{"aten::sign.out", sign_out}, kRealOrBool | kHalfs},
    {{"aten::exp.out", exp_out}, kRealOrBool | kHalfs},
    {{"aten::log.out", log_out}, kRealOrBool | kHalfs},
    {{"aten::log1p.out", log1p_out}, kRealOrBool | kHalfs},
    {{"aten::sqrt.out", sqrt_out}, kRealOrBool | kHalfs},
    {{"aten::rsqrt.out", rsqrt_out}, kRealOrBool | kHalfs},
    {{"aten::reciprocal.out", reciprocal_out}, kRealOrBool | kHalfs},
    {{"aten::erf.out", erf_out}, kRealOrBool | kHalfs},
    {{"aten::erfc.out", erfc_out}, kRealOrBool | kHalfs},
    {{"aten::lgamma.out", lgamma_out}, kRealOrBool | kHalfs},
    {{"aten::sigmoid.out", sigmoid_out}, kRealOrBool | kHalfs},
    {{"aten::tanh.out", tanh_out}, kRealOrBool | kHalfs},
    {{"aten::sin.out", sin_out}, kRealOrBool | kHalfs},
    {{"aten::cos.out", cos_out}, kRealOrBool | kHalfs},
    {{"aten::tan.out", tan_out}, kRealOrBool | kHalfs},
    {{"aten::asin.out", asin_out}, kRealOrBool | kHalfs},
    {{"aten::acos.out", acos_out}, kRealOrBool | kHalfs},
    {{"aten::atan.out", atan_out}, kRealOrBool | kHalfs},
    {{"aten::sinh.out", sinh_out}, kRealOrBool | kHalfs},
    {{"aten::cosh.out", cosh_out}, kRealOrBool | kHalfs},
    {{"aten::asinh.out", asinh_out}, kRealOrBool | kHalfs},
    {{"aten::acosh.out", acosh_out}, kRealOrBool | kHalfs},
    {{"aten::atanh.out", atanh_out}, kRealOrBool | kHalfs},
    {{"aten::expm1.out", expm1_out}, kRealOrBool | kHalfs},
    {{"aten::log2.out", log2_out}, kRealOrBool | kHalfs},
    {{"aten::log10.out", log10_out}, kRealOrBool | kHalfs},
    {{"aten::trunc.out", trunc_out}, kReal | kHalfs},
    {{"aten::silu.out", silu_out}, kFloating | kHalfs},
    {{"aten::hardswish.out", hardswish_out}, kFloating | kHalfs},
    {{"aten::hardsigmoid.out", hardsigmoid_out}, kFloating | kHalfs},
    {{"aten::leaky_relu.out", leaky_relu_out}, kFloating | kHalfs},
    {{"aten::elu.out", elu_out}, kFloating | kHalfs},
    {{"aten::gelu.out", gelu_out}, kFloating | kHalfs},
    {{"aten::hardtanh.out", hardtanh_out}, kReal | kHalfs},
    // ---- binary, comparison, logical, clamp, pow (binary.cpp, pointwise.cpp, compare.cpp) ----
    {{"aten::pow.Tensor_Tensor_out", pow_tensor_tensor_out}, kReal | kHalfs},
    {{"aten::pow.Tensor_Scalar_out", pow_tensor_scalar_out}, kRealOrBool | kHalfs},
    {{"aten::pow.Scalar_out", pow_scalar_out}, kRealOrBool | kHalfs},
    {{"aten::div.out_mode", div_out_mode}, kReal | kHalfs},
    {{"aten::div.Scalar_mode_out", div_scalar_mode_out}, kReal | kHalfs},
    {{"aten::minimum.out", minimum_out}, kRealOrBool | kHalfs},
    {{"aten::maximum.out", maximum_out}, kRealOrBool | kHalfs},
    {{"aten::fmod.Tensor_out", fmod_tensor_out}, kReal | kHalfs},
    {{"aten::fmod.Scalar_out", fmod_scalar_out}, kReal | kHalfs},
    {{"aten::remainder.Tensor_out", remainder_tensor_out}, kReal | kHalfs},
    {{"aten::remainder.Scalar_out", remainder_scalar_out}, kReal | kHalfs},
    {{"aten::atan2.out", atan2_out}, kRealOrBool | kHalfs},
    {{"aten::clamp.out", clamp_out}, kReal | kHalfs},
    {{"aten::clamp.Tensor_out", clamp_tensor_out}, kReal | kHalfs},
    {{"aten::eq.Tensor_out", eq_tensor_out}, kRealOrBool | kHalfs},
    {{"aten::ne.Tensor_out", ne_tensor_out}, kRealOrBool | kHalfs},
    {{"aten::lt.Tensor_out", lt_tensor_out}, kRealOrBool | kHalfs},
    {{"aten::le.Tensor_out", le_tensor_out}, kRealOrBool | kHalfs},
    {{"aten::gt.Tensor_out", gt_tensor_out}, kRealOrBool | kHalfs},
    {{"aten::ge.Tensor_out", ge_tensor_out}, kRealOrBool | kHalfs},
    {{"aten::ne.Scalar_out", ne_scalar_out}, kRealOrBool | kHalfs},
    {{"aten::lt.Scalar_out", lt_scalar_out}, kRealOrBool | kHalfs},
    {{"aten::le.Scalar_out", le_scalar_out}, kRealOrBool | kHalfs},
    {{"aten::gt.Scalar_out", gt_scalar_out}, kRealOrBool | kHalfs},
    {{"aten::ge.Scalar_out", ge_scalar_out}, kRealOrBool | kHalfs},
    {{"aten::logical_and.out", logical_and_out}, kRealOrBool | kHalfs},
    {{"aten::logical_or.out", logical_or_out}, kRealOrBool | kHalfs},
    {{"aten::logical_xor.out", logical_xor_out}, kRealOrBool | kHalfs},
    {{"aten::bitwise_not.out", bitwise_not_out}, kIntegral | kBool},
    {{"aten::bitwise_and.Tensor_out", bitwise_and_tensor_out}, kIntegral | kBool},
    {{"aten::bitwise_or.Tensor_out", bitwise_or_tensor_out}, kIntegral | kBool},
    {{"aten::bitwise_xor.Tensor_out", bitwise_xor_tensor_out}, kIntegral | kBool},
    {{"aten::bitwise_and.Scalar_out", bitwise_and_scalar_out}, kIntegral | kBool},
    {{"aten::bitwise_or.Scalar_out", bitwise_or_scalar_out}, kIntegral | kBool},
    {{"aten::bitwise_xor.Scalar_out", bitwise_xor_scalar_out}, kIntegral | kBool},
    {{"aten::masked_fill.Scalar_out", masked_fill_scalar_out}, kRealOrBool | kHalfs},
    // ---- reductions, scans, sort, softmax (reduce.cpp, sort.cpp, norm.cpp) ----
    {{"aten::sum.IntList_out", sum_intlist_out}, kRealOrBool | kHalfs},
    {{"aten::sum.out", sum_out}, kRealOrBool | kHalfs},
    {{"aten::prod.out", prod_out}, kRealOrBool | kHalfs},
    {{"aten::prod.int_out", prod_int_out}, kRealOrBool | kHalfs},
    {{"aten::amax.out", amax_out}, kRealOrBool | kHalfs},
    {{"aten::amin.out", amin_out}, kRealOrBool | kHalfs},
    {{"aten::argmax.out", argmax_out}, kReal | kHalfs},
    {{"aten::argmin.out", argmin_out}, kReal | kHalfs},
    {{"aten::max.dim_max", max_dim_max}, kRealOrBool | kHalfs},
    {{"aten::min.dim_min", min_dim_min}, kRealOrBool | kHalfs},
    {{"aten::var.correction_out", var_correction_out}, kFloating | kHalfs},
    {{"aten::any.all_out", any_all_out}, kRealOrBool | kHalfs},
    {{"aten::any.dims_out", any_dims_out}, kRealOrBool | kHalfs},
    {{"aten::all.all_out", all_all_out}, kRealOrBool | kHalfs},
    {{"aten::all.out", all_out}, kRealOrBool | kHalfs},
    {{"aten::all.dims_out", all_dims_out}, kRealOrBool | kHalfs},
    {{"aten::cumsum.out", cumsum_out}, kRealOrBool | kHalfs},
    {{"aten::_log_softmax.out", log_softmax_out}, kFloating | kHalfs},
    {{"aten::topk.values", topk_values}, kReal | kHalfs},
    {{"aten::sort.values", sort_values}, kRealOrBool | kHalfs},
    // ---- convolution, normalization, pooling, resizing (conv.cpp, group_norm.cpp, pool.cpp, upsample.cpp) ----
    {{"aten::native_group_norm.out", native_group_norm_out}, kFloating},
    {{"aten::avg_pool2d.out", avg_pool2d_out}, kFloating | kHalfs | dtype_set({ScalarType::Long})},
    {{"aten::avg_pool3d.out", avg_pool3d_out}, kFloating | dtype_set({ScalarType::Long})},  // PyTorch: no 16-bit floats
    {{"aten::_adaptive_avg_pool2d.out", adaptive_avg_pool2d_out}, kFloating | kHalfs},
    {{"aten::_adaptive_avg_pool3d.out", adaptive_avg_pool3d_out}, kFloating | kHalfs},
    {{"aten::col2im.out", col2im_out}, kFloating | kHalfs | kBool},
    {{"aten::upsample_nearest2d.vec_out", upsample_nearest2d_vec_out}, kFloating | kHalfs},
    {{"aten::upsample_bilinear2d.vec_out", upsample_bilinear2d_vec_out}, kFloating | kHalfs},
    {{"aten::grid_sampler_2d.out", grid_sampler_2d_out}, kFloating | kHalfs},
    {{"aten::_cdist_forward.out", cdist_forward_out}, kFloating},
    {{"aten::_pdist_forward.out", pdist_forward_out}, kFloating},
    // ---- data movement and factories (shape.cpp, copy_views.cpp, index.cpp, factory.cpp) ----
    {{"aten::cat.out", cat_out}, kMoves},
    {{"aten::split_with_sizes_copy.out", split_with_sizes_copy_out}, kMoves},
    {{"aten::constant_pad_nd.out", constant_pad_nd_out},
     kRealOrBool | kHalfs | dtype_set({ScalarType::Byte, ScalarType::Char, ScalarType::Short})},
    {{"aten::repeat.out", repeat_out}, kMoves},
    {{"aten::flip.out", flip_out}, kMoves},
    {{"aten::reflection_pad1d.out", reflection_pad1d_out}, kRealHalfsAndSmallInts},
    {{"aten::reflection_pad2d.out", reflection_pad2d_out}, kRealHalfsAndSmallInts},
    {{"aten::reflection_pad3d.out", reflection_pad3d_out}, kRealHalfsAndSmallInts},
    {{"aten::replication_pad1d.out", replication_pad1d_out}, kRealHalfsAndSmallInts},
    {{"aten::replication_pad2d.out", replication_pad2d_out}, kRealHalfsAndSmallInts},
    {{"aten::replication_pad3d.out", replication_pad3d_out}, kRealHalfsAndSmallInts},
    {{"aten::diagonal_copy.out", diagonal_copy_out}, kMoves},
    {{"aten::alias_copy.out", alias_copy_out}, kMoves},
    {{"aten::unfold_copy.out", unfold_copy_out}, kMoves},
    {{"aten::view_as_real_copy.out", view_as_real_copy_out}, kComplex},
    {{"aten::view_as_complex_copy.out", view_as_complex_copy_out}, kFloating},
    {{"aten::_fft_r2c.out", fft_r2c_out}, kFloating, /*allocates=*/true},
    {{"aten::_fft_c2r.out", fft_c2r_out}, kComplex, /*allocates=*/true},
    {{"aten::as_strided_copy.out", as_strided_copy_out}, kMoves},
    {{"aten::slice_scatter.out", slice_scatter_out}, kMoves},
    {{"aten::select_scatter.out", select_scatter_out}, kMoves},
    {{"aten::_to_copy.out", to_copy_out},
     kRealOrBool | kHalfs | dtype_set({ScalarType::Byte, ScalarType::Char, ScalarType::Short})},
    {{"aten::index.Tensor_out", index_tensor_out}, kAll},
    {{"aten::index_select.out", index_select_out}, kAll},
    {{"aten::gather.out", gather_out}, kAll},
    {{"aten::embedding.out", embedding_out}, kAll},
    {{"aten::scatter.src_out", scatter_src_out}, kAll},
    {{"aten::scatter.value_out", scatter_value_out}, kAll},
    {{"aten::scatter_add.out", scatter_add_out}, kAll},
    {{"aten::scatter_reduce.two_out", scatter_reduce_two_out}, kAll},
    {{"aten::index_put.out", index_put_out}, kRealHalfsAndSmallInts | kBool},
    {{"aten::masked_scatter.out", masked_scatter_out}, kRealHalfsAndSmallInts | kBool},
    {{"aten::nonzero.out", nonzero_out}, kRealHalfsAndSmallInts | kBool},
    {{"aten::_embedding_bag.out", embedding_bag_out}, kFloating | kHalfs},
    {{"aten::full.out", full_out},
     kRealOrBool | kHalfs | dtype_set({ScalarType::Byte, ScalarType::Char, ScalarType::Short})},
    {{"aten::zeros.out", zeros_out},
     kRealOrBool | kHalfs | dtype_set({ScalarType::Byte, ScalarType::Char, ScalarType::Short})},
    {{"aten::ones.out", ones_out},
     kRealOrBool | kHalfs | dtype_set({ScalarType::Byte, ScalarType::Char, ScalarType::Short})},
    {{"aten::scalar_tensor.out", scalar_tensor_out},
     kRealOrBool | kHalfs | dtype_set({ScalarType::Byte, ScalarType::Char, ScalarType::Short})},
    {{"aten::arange.start_out", arange_start_out},
     kReal | kHalfs | dtype_set({ScalarType::Byte, ScalarType::Char, ScalarType::Short})},
    // ---- quantized_decomposed (quantize.cpp, choose_qparams.cpp, quantized_embedding.cpp, quantized_mixed.cpp) ----
    {{"quantized_decomposed::quantize_per_tensor.out", quantize_per_tensor_out}, kQuantizeInputs},
    {{"quantized_decomposed::quantize_per_tensor.Tensor_out", quantize_per_tensor_tensor_out}, kQuantizeInputs},
    {{"quantized_decomposed::dequantize_per_tensor.out", dequantize_per_tensor_out}, kQuantized},
    {{"quantized_decomposed::dequantize_per_tensor.Tensor_out", dequantize_per_tensor_tensor_out}, kQuantized},
    {{"quantized_decomposed::quantize_per_channel.out", quantize_per_channel_out}, kQuantizeInputs},
    {{"quantized_decomposed::dequantize_per_channel.out", dequantize_per_channel_out}, kQuantizedCommon},
    {{"quantized_decomposed::quantize_per_token.out", quantize_per_token_out}, kFloating | kHalfs},
    {{"quantized_decomposed::dequantize_per_token.out", dequantize_per_token_out}, kQuantizedCommon},
    {{"quantized_decomposed::choose_qparams.Tensor_out", choose_qparams_tensor_out}, kQuantizeInputs},
    {{"quantized_decomposed::choose_qparams_per_token_asymmetric.out", choose_qparams_per_token_asymmetric_out},
     kFloating | kHalfs},
    {{"quantized_decomposed::embedding_byte.out", quantized_embedding_byte_out}, kBytes},
    {{"quantized_decomposed::embedding_byte.dtype_out", quantized_embedding_byte_dtype_out}, kBytes},
    {{"quantized_decomposed::embedding_2bit.out", quantized_embedding_2bit_out}, dtype_set({ScalarType::Byte})},
    {{"quantized_decomposed::embedding_2bit.dtype_out", quantized_embedding_2bit_dtype_out},
     dtype_set({ScalarType::Byte})},
    {{"quantized_decomposed::embedding_4bit.out", quantized_embedding_4bit_out}, dtype_set({ScalarType::Byte})},
    {{"quantized_decomposed::embedding_4bit.dtype_out", quantized_embedding_4bit_dtype_out},
     dtype_set({ScalarType::Byte})},
    {{"quantized_decomposed::add.out", quantized_add_out}, kQuantizedCommon},
    {{"quantized_decomposed::mixed_mm.out", quantized_mixed_mm_out}, dtype_set({ScalarType::Float, ScalarType::Half})},
    {{"quantized_decomposed::mixed_linear.out", quantized_mixed_linear_out},
     dtype_set({ScalarType::Float, ScalarType::Half})},
    // ---- torchao (affine_quantize.cpp) ----
    {{"torchao::quantize_affine.out", quantize_affine_out}, kQuantizeInputs},
    {{"torchao::dequantize_affine.out", dequantize_affine_out}, kQuantizedCommon},
    {{"torchao::choose_qparams_affine.out", choose_qparams_affine_out}, kFloating | kHalfs},

    // ---- Kiln's own ops (kiln_ops.def; llm_ops.cpp) ----
    {{"kiln::sdpa.out", kiln_sdpa_out}, dtype_set({ScalarType::Float})},
    {{"kiln::rms_norm.out", kiln_rms_norm_out}, dtype_set({ScalarType::Float})},
    {{"kiln::rotary_embedding.out", kiln_rotary_embedding_out}, dtype_set({ScalarType::Float})},
    {{"kiln::linear.out", kiln_linear_out}, dtype_set({ScalarType::Float})},
    {{"kiln::gated_activation.out", kiln_gated_activation_out}, dtype_set({ScalarType::Float})},
};

}  // namespace

runtime::Span<const PortableKernel> portable_kernels() { return kPortableKernels; }

runtime::Error register_portable_kernels() {
  // Not thread-safe, like the registry itself: registration happens once at
  // start-up. A failed attempt is not remembered, so it can be retried.
  static bool registered = false;
  if (registered) return runtime::Error::Ok;
  runtime::Kernel kernels[sizeof(kPortableKernels) / sizeof(kPortableKernels[0])];
  for (size_t i = 0; i < portable_kernels().size(); ++i) kernels[i] = kPortableKernels[i].kernel;
  const runtime::Error error = runtime::register_kernels(kernels);
  if (error == runtime::Error::Ok) registered = true;
  return error;
}

}  // namespace kiln::kernels::portable
