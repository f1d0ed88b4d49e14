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

/// The factories, constant padding and casts: no unsigned integer wider than
/// a byte.
constexpr DtypeSet kRealBoolHalfsAndSmallInts = kRealHalfsAndSmallInts | kBool;
constexpr DtypeSet kFloat = dtype_set({ScalarType::Float});
constexpr DtypeSet kFloatAndHalf = dtype_set({ScalarType::Float, ScalarType::Half});
constexpr DtypeSet kLong = dtype_set({ScalarType::Long});
constexpr DtypeSet kUInt8 = dtype_set({ScalarType::Byte});

// The table's entries: portable_kernels.def, or in a selective build the copy
// that keeps only the listed kernels (cmake/KilnSelectiveBuild.cmake).
#ifndef KILN_PORTABLE_KERNELS_DEF
#define KILN_PORTABLE_KERNELS_DEF "kernels/portable/portable_kernels.def"
#endif

// The last entry only ends the list, so that a selective build keeping none
// of the kernels (a program run by delegates alone) still compiles.
const PortableKernel kPortableKernels[] = {
#define KILN_PORTABLE_KERNEL(name, function, dtypes) {{name, function}, dtypes},
#define KILN_PORTABLE_KERNEL_ALLOCATING(name, function, dtypes) {{name, function}, dtypes, /*allocates=*/true},
#define KILN_LEFT_OUT_KERNEL(name)
#include KILN_PORTABLE_KERNELS_DEF
#undef KILN_PORTABLE_KERNEL
#undef KILN_PORTABLE_KERNEL_ALLOCATING
#undef KILN_LEFT_OUT_KERNEL
    {{nullptr, nullptr}, 0},
};
constexpr size_t kNumPortableKernels = sizeof(kPortableKernels) / sizeof(kPortableKernels[0]) - 1;

// The kernels selective build left out, named to the registry so that a
// program calling one is told why it has no kernel.
const char* const kLeftOutKernels[] = {
#define KILN_PORTABLE_KERNEL(name, function, dtypes)
#define KILN_PORTABLE_KERNEL_ALLOCATING(name, function, dtypes)
#define KILN_LEFT_OUT_KERNEL(name) name,
#include KILN_PORTABLE_KERNELS_DEF
#undef KILN_PORTABLE_KERNEL
#undef KILN_PORTABLE_KERNEL_ALLOCATING
#undef KILN_LEFT_OUT_KERNEL
    nullptr,
};
constexpr size_t kNumLeftOutKernels = sizeof(kLeftOutKernels) / sizeof(kLeftOutKernels[0]) - 1;

}  // namespace

runtime::Span<const PortableKernel> portable_kernels() { return {kPortableKernels, kNumPortableKernels}; }

runtime::Error register_portable_kernels() {
  // Not thread-safe, like the registry itself: registration happens once at
  // start-up. A failed attempt is not remembered, so it can be retried.
  static bool registered = false;
  if (registered) return runtime::Error::Ok;
  runtime::Kernel kernels[kNumPortableKernels + 1];
  for (size_t i = 0; i < kNumPortableKernels; ++i) kernels[i] = kPortableKernels[i].kernel;
  if (kNumLeftOutKernels > 0) {
    const runtime::Error noted = runtime::note_left_out_kernels({kLeftOutKernels, kNumLeftOutKernels});
    if (noted != runtime::Error::Ok) return noted;
  }
  const runtime::Error error = runtime::register_kernels({kernels, kNumPortableKernels});
  if (error == runtime::Error::Ok) registered = true;
  return error;
}

}  // namespace kiln::kernels::portable
