// The instruction-set paths of the tuned kernels and the one this CPU runs.
//
// Every path computes the same thing; the paths differ only in the
// instructions they use. The CPU is asked once, at the first call: on x86-64
// with cpuid and xgetbv (the OS must save the vector registers the path
// uses), on aarch64 Linux with getauxval. The environment variable
// KILN_TUNED_ISA (a name of `isa_name`) caps the choice at that path or the
// best one below it that the CPU has, so that tests and benchmarks can run
// every path the machine offers.
#pragma once

#include <cstdint>

namespace kiln::kernels::tuned {

/// Ordered by preference within each architecture (a later path is faster
/// where the CPU has it).
enum class Isa : uint8_t {
  /// Plain C++: every machine; the reference the other paths are tested against.
  kPortable = 0,
  /// AVX2 and FMA (Haswell, Zen 1).
  kAvx2,
  /// AVX2 with AVX-VNNI: 256-bit vpdpbusd (Alder Lake, Zen 5).
  kAvx2Vnni,
  /// AVX-512 F, BW, VL and DQ (Skylake-X, Zen 4).
  kAvx512,
  /// AVX-512 with VNNI (Cascade Lake, Zen 4).
  kAvx512Vnni,
  /// aarch64 Advanced SIMD.
  kNeon,
  /// aarch64 with the ARMv8.2 dot product (sdot).
  kNeonDot,
};

inline constexpr int kIsaCount = 7;

/// The path's name: "portable", "avx2", "avx2_vnni", "avx512", "avx512_vnni",
/// "neon", "neon_dot".
const char* isa_name(Isa isa);

/// The path named `name` (as isa_name spells it); false for another name.
bool parse_isa(const char* name, Isa* isa);

/// Whether this build has the path and this CPU can run it.
bool isa_supported(Isa isa);

/// The best path this CPU runs, capped by KILN_TUNED_ISA when it is set (an
/// unknown name is ignored with a log line). Decided at the first call.
Isa active_isa();

/// The best supported path at or below `cap` (portable at worst): within
/// cap's architecture, the highest that `isa_supported` allows.
Isa best_isa_up_to(Isa cap);

}  // namespace kiln::kernels::tuned
