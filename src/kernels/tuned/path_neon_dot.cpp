// The neon_dot path: simd_linear.h over VecNeon<true>, built with this path's
// target flags (sources.cmake).
#include "kernels/tuned/paths.h"
#include "kernels/tuned/simd_linear.h"
#include "kernels/tuned/vec_neon.h"

namespace kiln::kernels::tuned::detail {

void neon_dot_panels(const LinearArgs& a, const WeightLayout& w, const Prepared& x, int64_t p0, int64_t p1) {
  SimdLinear<VecNeon<true>>::run(a, w, x, p0, p1);
}

}  // namespace kiln::kernels::tuned::detail
