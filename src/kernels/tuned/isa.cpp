#include "kernels/tuned/isa.h"

#include <cstdlib>
#include <cstring>

#include "runtime/core/log.h"

#if defined(__x86_64__)
#include <cpuid.h>
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

namespace kiln::kernels::tuned {

namespace {

constexpr const char* kNames[kIsaCount] = {"portable", "avx2", "avx2_vnni", "avx512", "avx512_vnni", "neon",
                                           "neon_dot"};

bool is_x86(Isa isa) { return isa >= Isa::kAvx2 && isa <= Isa::kAvx512Vnni; }
bool is_arm(Isa isa) { return isa == Isa::kNeon || isa == Isa::kNeonDot; }

#if defined(__x86_64__) && defined(KILN_TUNED_HAVE_X86)

struct X86Features {
  bool avx2 = false, avx_vnni = false, avx512 = false, avx512_vnni = false;
};

uint64_t xgetbv0() {
  uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (uint64_t{hi} << 32) | lo;
}

bool bit(uint32_t word, int index) { return (word >> index) & 1u; }

X86Features detect_x86() {
  X86Features f;
  uint32_t a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
  const bool fma = bit(c, 12), osxsave = bit(c, 27), avx = bit(c, 28);
  if (!osxsave || !avx || __get_cpuid_max(0, nullptr) < 7) return f;
  const uint64_t xcr0 = xgetbv0();
  // The OS saves the YMM state (bits 1, 2) and, for AVX-512, the opmask and
  // ZMM states (bits 5, 6, 7).
  const bool os_ymm = (xcr0 & 0x6) == 0x6, os_zmm = (xcr0 & 0xE6) == 0xE6;
  uint32_t a7 = 0, b7 = 0, c7 = 0, d7 = 0;
  __cpuid_count(7, 0, a7, b7, c7, d7);
  uint32_t a71 = 0, b71 = 0, c71 = 0, d71 = 0;
  if (a7 >= 1) __cpuid_count(7, 1, a71, b71, c71, d71);
  f.avx2 = os_ymm && fma && bit(b7, 5);
  f.avx_vnni = f.avx2 && bit(a71, 4);
  f.avx512 = f.avx2 && os_zmm && bit(b7, 16) && bit(b7, 17) && bit(b7, 30) && bit(b7, 31);
  f.avx512_vnni = f.avx512 && bit(c7, 11);
  return f;
}

bool cpu_has(Isa isa) {
  static const X86Features f = detect_x86();
  switch (isa) {
    case Isa::kAvx2: return f.avx2;
    case Isa::kAvx2Vnni: return f.avx_vnni;
    case Isa::kAvx512: return f.avx512;
    case Isa::kAvx512Vnni: return f.avx512_vnni;
    default: return false;
  }
}

#elif defined(__aarch64__) && defined(KILN_TUNED_HAVE_ARM)

bool cpu_has(Isa isa) {
#if defined(__linux__)
  static const unsigned long hwcap = getauxval(AT_HWCAP);
  // HWCAP_ASIMDDP: the ARMv8.2 dot product instructions.
  constexpr unsigned long kAsimdDp = 1ul << 20;
  if (isa == Isa::kNeonDot) return (hwcap & kAsimdDp) != 0;
#else
  if (isa == Isa::kNeonDot) return false;
#endif
  return isa == Isa::kNeon;  // Advanced SIMD is part of every aarch64 CPU.
}

#else

bool cpu_has(Isa) { return false; }

#endif

Isa detect_active() {
  Isa cap = Isa::kNeonDot;
#if defined(__x86_64__)
  cap = Isa::kAvx512Vnni;
#endif
  if (const char* name = std::getenv("KILN_TUNED_ISA"); name != nullptr && *name != '\0') {
    if (!parse_isa(name, &cap)) {
      KILN_LOG(Error, "KILN_TUNED_ISA=%s names no path of the tuned kernels (portable, avx2, avx2_vnni, avx512, "
                      "avx512_vnni, neon, neon_dot); ignored", name);
#if defined(__x86_64__)
      cap = Isa::kAvx512Vnni;
#else
      cap = Isa::kNeonDot;
#endif
    }
  }
  return best_isa_up_to(cap);
}

}  // namespace

const char* isa_name(Isa isa) {
  const auto index = static_cast<int>(isa);
  return index >= 0 && index < kIsaCount ? kNames[index] : "unknown";
}

bool parse_isa(const char* name, Isa* isa) {
  for (int i = 0; i < kIsaCount; ++i) {
    if (std::strcmp(name, kNames[i]) == 0) {
      *isa = static_cast<Isa>(i);
      return true;
    }
  }
  return false;
}

bool isa_supported(Isa isa) { return isa == Isa::kPortable || cpu_has(isa); }

Isa best_isa_up_to(Isa cap) {
  for (int i = static_cast<int>(cap); i > 0; --i) {
    const auto isa = static_cast<Isa>(i);
    const bool same_arch = (is_x86(isa) && is_x86(cap)) || (is_arm(isa) && is_arm(cap));
    if (same_arch && isa_supported(isa)) return isa;
  }
  return Isa::kPortable;
}

Isa active_isa() {
  static const Isa isa = detect_active();
  return isa;
}

}  // namespace kiln::kernels::tuned
