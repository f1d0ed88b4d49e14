// Dispatch: the table of paths, indexed by Isa, and the one chosen at load.
#include "kernels/tuned/linear.h"

#include "kernels/tuned/paths.h"

namespace kiln::kernels::tuned {

namespace detail {

PanelsFn path_of(Isa isa) {
  static constexpr PanelsFn kPaths[kIsaCount] = {
      portable_panels,
#if defined(KILN_TUNED_HAVE_X86)
      avx2_panels, avx2_vnni_panels, avx512_panels, avx512_vnni_panels,
#else
      nullptr, nullptr, nullptr, nullptr,
#endif
#if defined(KILN_TUNED_HAVE_ARM)
      neon_panels, neon_dot_panels,
#else
      nullptr, nullptr,
#endif
  };
  const auto index = static_cast<int>(isa);
  return index >= 0 && index < kIsaCount ? kPaths[index] : nullptr;
}

}  // namespace detail

void compute_linear_on(Isa isa, const LinearArgs& args, int64_t panel_begin, int64_t panel_end) {
  detail::PanelsFn fn = detail::path_of(isa);
  if (fn == nullptr || !isa_supported(isa)) fn = detail::portable_panels;
  const detail::WeightLayout w = detail::weight_layout(*args.desc);
  const detail::Prepared x = detail::prepared_view(args, w);
  fn(args, w, x, panel_begin, panel_end);
}

void compute_linear(const LinearArgs& args, int64_t panel_begin, int64_t panel_end) {
  static const Isa isa = active_isa();
  compute_linear_on(isa, args, panel_begin, panel_end);
}

void split_panels(int64_t panels, int parts, int index, int64_t* begin, int64_t* end) {
  *begin = panels * index / parts;
  *end = panels * (index + 1) / parts;
}

}  // namespace kiln::kernels::tuned
