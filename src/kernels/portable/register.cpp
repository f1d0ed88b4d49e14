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
/// Kernels that only move bytes take every dtype with an element size.
constexpr DtypeSet kAll = kRealOrBool | kHalfs |
                          dtype_set({ScalarType::Byte, ScalarType::Char, ScalarType::Short, ScalarType::UInt16,
                                     ScalarType::UInt32, ScalarType::UInt64});

// One section per kernel family; keep entries within their section.
const PortableKernel kPortableKernels[] = {
    {{"aten::convolution.out", convolution_out}, kFloating},
    {{"aten::relu.out", relu_out}, kReal},
    {{"aten::sin.out", sin_out}, kRealOrBool},
    {{"aten::cos.out", cos_out}, kRealOrBool},
    {{"aten::tan.out", tan_out}, kRealOrBool},
    {{"aten::add.out", add_out}, kRealOrBool},
    {{"aten::sub.out", sub_out}, kReal},
    {{"aten::mul.out", mul_out}, kRealOrBool},
    {{"aten::div.out", div_out}, kRealOrBool},
    {{"aten::mm.out", mm_out}, kReal},
    {{"aten::addmm.out", addmm_out}, kReal},
    {{"aten::view_copy.out", view_copy_out}, kAll},
    {{"aten::permute_copy.out", permute_copy_out}, kAll},
    {{"aten::clone.out", clone_out}, kAll},
    {{"aten::bmm.out", bmm_out}, kReal},
    {{"aten::_native_batch_norm_legit_no_training.out", native_batch_norm_legit_no_training_out}, kFloating},
    {{"aten::native_layer_norm.out", native_layer_norm_out}, kFloating},
    {{"aten::_softmax.out", softmax_out}, kFloating},
    {{"aten::max_pool2d_with_indices.out", max_pool2d_with_indices_out}, kReal},
    {{"aten::mean.out", mean_out}, kFloating},
    {{"aten::any.out", any_out}, kRealOrBool},
    {{"aten::add.Scalar_out", add_scalar_out}, kRealOrBool},
    {{"aten::sub.Scalar_out", sub_scalar_out}, kReal},
    {{"aten::mul.Scalar_out", mul_scalar_out}, kRealOrBool},
    {{"aten::div.Scalar_out", div_scalar_out}, kRealOrBool},
    {{"aten::gelu.out", gelu_out}, kFloating},
    {{"aten::logical_not.out", logical_not_out}, kRealOrBool},
    {{"aten::eq.Scalar_out", eq_scalar_out}, kRealOrBool},
    {{"aten::where.self_out", where_self_out}, kRealOrBool},
    {{"aten::full_like.out", full_like_out}, kRealOrBool},
    {{"aten::expand_copy.out", expand_copy_out}, kAll},
    {{"aten::select_copy.int_out", select_copy_int_out}, kAll},
    {{"aten::squeeze_copy.dims_out", squeeze_copy_dims_out}, kAll},
    {{"aten::unsqueeze_copy.out", unsqueeze_copy_out}, kAll},
    {{"aten::transpose_copy.int_out", transpose_copy_int_out}, kAll},
    {{"aten::slice_copy.Tensor_out", slice_copy_tensor_out}, kAll},
    // ---- unary math and activations (unary.cpp, activation.cpp) ----
    // ---- binary, comparison, logical, clamp, pow (binary.cpp, pointwise.cpp, compare.cpp) ----
    // ---- reductions, scans, sort, softmax (reduce.cpp, sort.cpp, norm.cpp) ----
    // ---- convolution, normalization, pooling, resizing (conv.cpp, group_norm.cpp, pool.cpp, upsample.cpp) ----
    // ---- data movement and factories (shape.cpp, copy_views.cpp, index.cpp, factory.cpp) ----
    {{"aten::cat.out", cat_out}, kAll},
    {{"aten::split_with_sizes_copy.out", split_with_sizes_copy_out}, kAll},
    {{"aten::constant_pad_nd.out", constant_pad_nd_out},
     kRealOrBool | kHalfs | dtype_set({ScalarType::Byte, ScalarType::Char, ScalarType::Short})},
    {{"aten::repeat.out", repeat_out}, kAll},
    {{"aten::alias_copy.out", alias_copy_out}, kAll},
    {{"aten::_to_copy.out", to_copy_out},
     kRealOrBool | kHalfs | dtype_set({ScalarType::Byte, ScalarType::Char, ScalarType::Short})},
    {{"aten::index.Tensor_out", index_tensor_out}, kAll},
    {{"aten::index_select.out", index_select_out}, kAll},
    {{"aten::gather.out", gather_out}, kAll},
    {{"aten::embedding.out", embedding_out}, kAll},
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
