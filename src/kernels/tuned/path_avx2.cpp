// The avx2 path: simd_linear.h over VecAvx2<false>, built with this path's
// target flags (CMakeLists.txt).
#include "kernels/tuned/vec_avx2.h"
#include "kernels/tuned/paths.h"
#include "kernels/tuned/simd_linear.h"

namespace kiln::kernels::tuned::detail {

void avx2_panels(const LinearArgs& a, const WeightLayout& w, const Prepared& x, int64_t p0, int64_t p1) {
  SimdLinear<VecAvx2<false>>::run(a, w, x, p0, p1);
}

}  // namespace kiln::kernels::tuned::detail
