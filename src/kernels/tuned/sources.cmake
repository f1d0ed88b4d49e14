# The tuned kernels' sources, test sources and per-path flags, for x86 and
# for Arm (the aarch64 cross build of make test-aarch64).
set(kiln_tuned_dir ${CMAKE_CURRENT_LIST_DIR})
set(kiln_tuned_sources ${kiln_tuned_dir}/isa.cpp ${kiln_tuned_dir}/linear.cpp ${kiln_tuned_dir}/pack.cpp
    ${kiln_tuned_dir}/prepare.cpp ${kiln_tuned_dir}/portable.cpp ${kiln_tuned_dir}/rows.cpp)
set(kiln_tuned_test_sources ${kiln_tuned_dir}/test/tuned_test_util.cpp ${kiln_tuned_dir}/test/isa_test.cpp ${kiln_tuned_dir}/test/pack_test.cpp
    ${kiln_tuned_dir}/test/linear_test.cpp ${kiln_tuned_dir}/test/activation_test.cpp)

if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(kiln_tuned_arch x86)
  set(kiln_tuned_paths avx2 avx2_vnni avx512 avx512_vnni)
  set(kiln_tuned_flags_avx2 -mavx2 -mfma)
  set(kiln_tuned_flags_avx2_vnni -mavx2 -mfma -mavxvnni)
  set(kiln_tuned_flags_avx512 -mavx2 -mfma -mavx512f -mavx512bw -mavx512vl -mavx512dq)
  set(kiln_tuned_flags_avx512_vnni ${kiln_tuned_flags_avx512} -mavx512vnni)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64|ARM64)$")
  set(kiln_tuned_arch arm)
  set(kiln_tuned_paths neon neon_dot)
  set(kiln_tuned_flags_neon -march=armv8-a)
  set(kiln_tuned_flags_neon_dot -march=armv8.2-a+dotprod)
else()
  set(kiln_tuned_arch none)
  set(kiln_tuned_paths)
endif()
foreach(path IN LISTS kiln_tuned_paths)
  list(APPEND kiln_tuned_sources ${kiln_tuned_dir}/path_${path}.cpp)
  set(flags ${kiln_tuned_flags_${path}})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND kiln_tuned_arch STREQUAL "x86")
    # GCC 12's AVX-512 intrinsics start from _mm512_undefined_*, which its
    # own -W(maybe-)uninitialized then reports in every caller.
    list(APPEND flags -Wno-uninitialized -Wno-maybe-uninitialized)
  endif()
  if(KILN_SANITIZE)
    # AddressSanitizer only: UBSan's checks on the intrinsics' code more than
    # doubled these files' instrumented build (38 s against 16 s for the
    # AVX-512 path at -O0), and every path is tested against the portable one,
    # which keeps them.
    list(APPEND flags -fno-sanitize=undefined)
  endif()
  set_source_files_properties(${kiln_tuned_dir}/path_${path}.cpp PROPERTIES COMPILE_OPTIONS "${flags}")
endforeach()

# The activations' quantization (prepare.cpp) is loops of float selects and
# conversions: GCC vectorizes them only when it may evaluate both sides of a
# select (no trapping math: nothing here reads the floating-point exception
# flags) under a cost model that accepts the loop's tail; otherwise they stay
# scalar, 5% of an 8da4w decode step. The arithmetic and its rounding are
# unchanged.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set_source_files_properties(${kiln_tuned_dir}/prepare.cpp PROPERTIES COMPILE_OPTIONS
                              "-fno-trapping-math;-fvect-cost-model=dynamic")
endif()

# What every build of the library adds to its target.
function(kiln_tuned_configure target)
  if(kiln_tuned_arch STREQUAL "x86")
    target_compile_definitions(${target} PRIVATE KILN_TUNED_HAVE_X86=1)
  elseif(kiln_tuned_arch STREQUAL "arm")
    target_compile_definitions(${target} PRIVATE KILN_TUNED_HAVE_ARM=1)
  endif()
  # The float steps round as written (the activations' quantization is
  # torchao's float32 arithmetic; fused steps are written as fused).
  target_compile_options(${target} PRIVATE -ffp-contract=off -fno-math-errno)
endfunction()
