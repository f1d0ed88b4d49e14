// The avx512_vnni path: simd_linear.h over VecAvx512<true>, built with this path's
// target flags (CMakeLists.txt).
#include "kernels/tuned/vec_avx512.h"
#include "kernels/tuned/paths.h"
#include "kernels/tuned/simd_linear.h"

namespace kiln::kernels::tuned::detail {

void avx512_vnni_panels(const LinearArgs& a, const WeightLayout& w, const Prepared& x, int64_t p0, int64_t p1) {
  SimdLinear<VecAvx512<true>>::run(a, w, x, p0, p1);
}

}  // namespace kiln::kernels::tuned::detail
