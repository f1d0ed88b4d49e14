// The paths' entry points (each defined in its own translation unit, built
// with its own target flags) and the table that picks one.
#pragma once

#include "kernels/tuned/layout.h"

namespace kiln::kernels::tuned::detail {

void portable_panels(const LinearArgs& a, const WeightLayout& w, const Prepared& x, int64_t p0, int64_t p1);
#if defined(KILN_TUNED_HAVE_X86)
void avx2_panels(const LinearArgs& a, const WeightLayout& w, const Prepared& x, int64_t p0, int64_t p1);
void avx2_vnni_panels(const LinearArgs& a, const WeightLayout& w, const Prepared& x, int64_t p0, int64_t p1);
void avx512_panels(const LinearArgs& a, const WeightLayout& w, const Prepared& x, int64_t p0, int64_t p1);
void avx512_vnni_panels(const LinearArgs& a, const WeightLayout& w, const Prepared& x, int64_t p0, int64_t p1);
#endif
#if defined(KILN_TUNED_HAVE_ARM)
void neon_panels(const LinearArgs& a, const WeightLayout& w, const Prepared& x, int64_t p0, int64_t p1);
void neon_dot_panels(const LinearArgs& a, const WeightLayout& w, const Prepared& x, int64_t p0, int64_t p1);
#endif

/// The entry point of each Isa this build has (null where it has none).
PanelsFn path_of(Isa isa);

}  // namespace kiln::kernels::tuned::detail
