# Helpers that give every Kiln target the same shape.
#
# kiln_runtime_library(NAME SOURCES... DEPS ...): C++17, no exceptions, no RTTI.
# kiln_aot_library(NAME [UNTRUSTED_INPUT] SOURCES... DEPS ...): C++20,
#   exceptions on. UNTRUSTED_INPUT: it reads files a user hands over, so the
#   sanitizer build instruments it (see KILN_SANITIZE below).
# kiln_host_library(NAME [UNTRUSTED_INPUT] SOURCES... DEPS ...): the same, for
#   host code that builds without the compiler too (KILN_BUILD_AOT=OFF).
# kiln_test_support(NAME [INSTRUMENTED] SOURCES... DEPS ...): test helpers compiled
#   once for the tests that link NAME, linked whole (a helper that registers a
#   test backend at start-up is kept).
# kiln_test(NAME [INSTRUMENTED] SOURCES... DEPS ... [SHARDS N]): a GoogleTest
#   binary registered with CTest as N tests (gtest's own sharding), each
#   writing its results to ${CMAKE_BINARY_DIR}/test-results for
#   scripts/count-tests.sh; KILN_SOURCE_DIR names the repository root for
#   the tests that read fixtures. INSTRUMENTED: the sanitizer build
#   instruments the test's own code too (see KILN_SANITIZE below).
# kiln_fuzz_target(NAME [RUNTIME] SOURCES... DEPS ... SEEDS globs...): a libFuzzer entry
#   point. With KILN_FUZZ, a fuzzer binary; with tests on, the same entry
#   point linked to a driver that replays every file of SEEDS as a test.

# Kiln's CMake package (`cmake --install`, `find_package(Kiln CONFIG)`; the
# export set is written by the top-level CMakeLists.txt):
# kiln_install(TARGETS... [AS NAME] [HEADERS]): the targets go into the
# export set KilnTargets as kiln::<name without kiln_>, or with AS (one
# target) as kiln::NAME, which the tree can also link by that name. HEADERS
# installs the calling folder's headers (not those of test/, fuzz/ or aot/)
# under include/ at their path below src/, so `#include "runtime/..."` reads
# the same outside the tree.
# kiln_link_whole(NAME LIBRARY): the INTERFACE library NAME links the static
# LIBRARY whole (its static initializers kept), in the tree and installed.
include(GNUInstallDirs)

function(kiln_export_name_ target out)
  get_target_property(name ${target} EXPORT_NAME)
  if(NOT name)
    string(REGEX REPLACE "^kiln_" "" name ${target})
  endif()
  set(${out} ${name} PARENT_SCOPE)
endfunction()

function(kiln_install)
  cmake_parse_arguments(ARG "HEADERS" "AS" "TARGETS" ${ARGN})
  if(ARG_AS)
    set_target_properties(${ARG_TARGETS} PROPERTIES EXPORT_NAME ${ARG_AS})
    add_library(kiln::${ARG_AS} ALIAS ${ARG_TARGETS})
  endif()
  foreach(target IN LISTS ARG_TARGETS)
    kiln_export_name_(${target} name)
    set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  endforeach()
  install(TARGETS ${ARG_TARGETS} EXPORT KilnTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  if(ARG_HEADERS)
    file(RELATIVE_PATH folder ${PROJECT_SOURCE_DIR}/src ${CMAKE_CURRENT_SOURCE_DIR})
    install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${folder}
            FILES_MATCHING PATTERN "*.h" PATTERN test EXCLUDE PATTERN fuzz EXCLUDE PATTERN aot EXCLUDE)
  endif()
endfunction()

# CMake 3.25 exports a target named inside $<LINK_LIBRARY:...> without its
# namespace, so the installed form names kiln::<library> itself.
function(kiln_link_whole name library)
  kiln_export_name_(${library} export_name)
  target_link_libraries(${name} INTERFACE "$<BUILD_INTERFACE:$<LINK_LIBRARY:WHOLE_ARCHIVE,${library}>>"
                        "$<INSTALL_INTERFACE:$<LINK_LIBRARY:WHOLE_ARCHIVE,kiln::${export_name}>>")
endfunction()

# Test code is built without optimization in every configuration: the code
# under test is built as configured, and the tests' own code (gtest's macros
# expanded thousands of times) compiles three to six times faster at -O0.
set(KILN_TEST_COMPILE_OPTIONS -O0 CACHE STRING "Compile options of the tests' own sources")

# The sanitizer build (KILN_SANITIZE, CI's sanitize phase) instruments the
# code that meets what a user hands over: the runtime, the kernels and the
# backends' runtime halves (every kiln_runtime_library), the compiler-side
# readers of untrusted files (kiln_aot_library UNTRUSTED_INPUT: .pt2, zip,
# .npz, debug records and traces), the fuzz entry points, and the tests whose
# subject lives in headers they compile themselves (INSTRUMENTED: the
# runtime's own tests, on its core types). Everything else, the rest of the
# compiler and the other tests' own code, is compiled exactly as in an
# ordinary build of the same compiler and flags, so that ccache gives its
# objects from `make test`'s build; every test still runs on the
# instrumented libraries and the sanitizers' allocator (leaks, bad frees
# anywhere). Instrumented code at -O0: with GCC's UBSan, -O1 took four times
# as long to compile as -O2 without it (the portable kernels' reduce.cpp: 82
# s against 21 s), -O0 about as long (the kernels: 81 s against 90 s); the
# checks are the same, and the suite runs fast enough. Line tables (-g1) are
# all a report needs. No vptr check: the runtime is built without RTTI, so a
# test (with RTTI) calling a member of a runtime class such as Program would
# need type info that does not exist.
set(KILN_SANITIZE_OPTIONS -O0 -g1 -fsanitize=address,undefined -fno-sanitize=vptr -fno-sanitize-recover=all
    -fno-omit-frame-pointer)

# Instruments target NAME in the sanitizer build.
function(kiln_sanitize_ name)
  if(KILN_SANITIZE)
    target_compile_options(${name} PRIVATE ${KILN_SANITIZE_OPTIONS})
  endif()
endfunction()

# Each target's files are compiled in batches of eight (unity builds): the
# headers they share (the standard library, the IR, gtest) are parsed, and
# their templates instantiated, once per batch; on two cores this halves the
# compiler libraries' build. A file with its own compile options (an ISA's
# kernel path) is compiled alone. Off, every file is its own translation unit
# (quicker to rebuild one file). Names private to a file (anonymous
# namespace) must not collide with another file's of the same target.
option(KILN_UNITY "Compile each target's files in batches (unity builds)" ON)

function(kiln_unity name)
  if(KILN_UNITY)
    set_target_properties(${name} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  endif()
endfunction()

function(kiln_library_ name std)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  kiln_unity(${name})
  # Installed, the headers keep their paths below src/ under include/.
  target_include_directories(${name} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/src>
                                            $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  set_target_properties(${name} PROPERTIES CXX_STANDARD ${std} CXX_STANDARD_REQUIRED ON)
endfunction()

function(kiln_runtime_library name)
  kiln_library_(${name} 17 ${ARGN})
  kiln_sanitize_(${name})
  target_compile_options(${name} PRIVATE -fno-exceptions -fno-rtti)
  # An app's code reads the headers as C++17 at least (clang 14 defaults to C++14).
  target_compile_features(${name} PUBLIC cxx_std_17)
endfunction()

# A host library that builds in every tree, the runtime-only one included
# (src/llm: the device's kiln links it): C++20 with exceptions as the
# compiler's libraries, without their precompiled header (which reads the IR).
# UNTRUSTED_INPUT as for kiln_aot_library.
function(kiln_host_library name)
  cmake_parse_arguments(ARG "UNTRUSTED_INPUT" "" "" ${ARGN})
  kiln_library_(${name} 20 ${ARG_UNPARSED_ARGUMENTS})
  if(ARG_UNTRUSTED_INPUT)
    kiln_sanitize_(${name})
  endif()
endfunction()

# The AOT libraries share one precompiled header (src/aot/aot_pch.h): the
# standard library and the IR headers every compiler file reads.
option(KILN_AOT_PCH "Precompile the compiler's common headers once" ON)

function(kiln_aot_pch_target)
  add_library(kiln_aot_pch OBJECT ${PROJECT_SOURCE_DIR}/src/aot/aot_pch.cpp)
  target_include_directories(kiln_aot_pch PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(kiln_aot_pch PRIVATE kiln_runtime_core)
  set_target_properties(kiln_aot_pch PROPERTIES CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON)
  target_precompile_headers(kiln_aot_pch PRIVATE ${PROJECT_SOURCE_DIR}/src/aot/aot_pch.h)
endfunction()

function(kiln_aot_library name)
  cmake_parse_arguments(ARG "UNTRUSTED_INPUT" "" "" ${ARGN})
  kiln_library_(${name} 20 ${ARG_UNPARSED_ARGUMENTS})
  if(ARG_UNTRUSTED_INPUT AND KILN_SANITIZE)
    kiln_sanitize_(${name})
  elseif(KILN_AOT_PCH)
    # (An instrumented library cannot read the header precompiled without.)
    target_precompile_headers(${name} REUSE_FROM kiln_aot_pch)
  endif()
endfunction()

# Tests share one precompiled header (tests/support/test_pch.h): gtest, gmock,
# the standard library and, with the compiler, the AOT headers most tests
# read; parsing them was most of a test file's compile time.
option(KILN_TEST_PCH "Precompile the tests' common headers once" ON)

# What every test translation unit gets: C++20, the tests' compile options.
function(kiln_test_flags_ name)
  set_target_properties(${name} PROPERTIES CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON)
  target_compile_options(${name} PRIVATE ${KILN_TEST_COMPILE_OPTIONS})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR})
  target_compile_definitions(${name} PRIVATE KILN_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endfunction()

# The target that compiles the tests' precompiled header (tests/support).
function(kiln_test_pch_target)
  add_library(kiln_test_pch OBJECT ${PROJECT_SOURCE_DIR}/tests/support/test_pch.cpp)
  kiln_test_flags_(kiln_test_pch)
  target_link_libraries(kiln_test_pch PRIVATE GTest::gtest GTest::gmock kiln_runtime_core)
  if(KILN_BUILD_AOT)
    target_link_libraries(kiln_test_pch PRIVATE kiln_aot_emit kiln_aot_import kiln_aot_interpreter)
    target_compile_definitions(kiln_test_pch PRIVATE KILN_TEST_PCH_AOT=1)
  endif()
  target_precompile_headers(kiln_test_pch PRIVATE ${PROJECT_SOURCE_DIR}/tests/support/test_pch.h)
endfunction()

function(kiln_test_target_ name instrumented)
  kiln_test_flags_(${name})
  kiln_unity(${name})
  if(instrumented AND KILN_SANITIZE)
    kiln_sanitize_(${name})
  elseif(KILN_TEST_PCH)
    # (An instrumented test cannot read the header precompiled without.)
    target_precompile_headers(${name} REUSE_FROM kiln_test_pch)
    if(KILN_BUILD_AOT)
      target_compile_definitions(${name} PRIVATE KILN_TEST_PCH_AOT=1)
    endif()
  endif()
endfunction()

function(kiln_test_support name)
  if(NOT KILN_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "INSTRUMENTED" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name}_lib STATIC ${ARG_SOURCES})
  target_link_libraries(${name}_lib PUBLIC ${ARG_DEPS} GTest::gtest)
  kiln_test_target_(${name}_lib ${ARG_INSTRUMENTED})
  add_library(${name} INTERFACE)
  target_link_libraries(${name} INTERFACE "$<LINK_LIBRARY:WHOLE_ARCHIVE,${name}_lib>")
endfunction()

# Registers `command...` as SHARDS CTest tests named NAME (one shard) or
# NAME/0, NAME/1, ... Each writes gtest's XML report under test-results/.
# A command that starts with an executable target's name runs that target's
# file, under CMAKE_CROSSCOMPILING_EMULATOR in a cross build.
function(kiln_add_gtest_shards name shards)
  set(results ${CMAKE_BINARY_DIR}/test-results)
  foreach(index RANGE 1 ${shards})
    math(EXPR shard "${index} - 1")
    set(test_name ${name})
    if(shards GREATER 1)
      set(test_name ${name}/${shard})
    endif()
    add_test(NAME ${test_name} COMMAND ${ARGN} --gtest_output=xml:${results}/${name}.${shard}.xml
             WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
    set_tests_properties(${test_name} PROPERTIES LABELS gtest
                         ENVIRONMENT "GTEST_TOTAL_SHARDS=${shards};GTEST_SHARD_INDEX=${shard}")
    if(CMAKE_CROSSCOMPILING_EMULATOR)
      # Under the emulator each step of a long sweep costs ten to a hundred
      # times more: a sample of each (tests/support/sweep.h).
      set_property(TEST ${test_name} APPEND PROPERTY ENVIRONMENT KILN_SAMPLE_SWEEPS=1)
    endif()
  endforeach()
endfunction()

function(kiln_test name)
  if(NOT KILN_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "INSTRUMENTED" "SHARDS" "SOURCES;DEPS" ${ARGN})
  if(NOT ARG_SHARDS)
    set(ARG_SHARDS 1)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  kiln_test_target_(${name} ${ARG_INSTRUMENTED})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  kiln_add_gtest_shards(${name} ${ARG_SHARDS} ${name})
endfunction()

function(kiln_fuzz_target name)
  cmake_parse_arguments(ARG "RUNTIME" "" "SOURCES;DEPS;SEEDS" ${ARGN})
  set(std 20)
  if(ARG_RUNTIME)
    set(std 17)
  endif()
  if(KILN_FUZZ)
    add_executable(${name} ${ARG_SOURCES})
    target_link_libraries(${name} PRIVATE ${ARG_DEPS})
    set_target_properties(${name} PROPERTIES CXX_STANDARD ${std} CXX_STANDARD_REQUIRED ON)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  elseif(KILN_BUILD_TESTS)
    # The entry point replayed on its seeds and on what the fuzzers found:
    # each input must be handled (accepted or refused) without a crash,
    # which the sanitizer build checks.
    add_executable(${name}_replay ${ARG_SOURCES} ${PROJECT_SOURCE_DIR}/tests/support/fuzz_replay_main.cpp)
    target_link_libraries(${name}_replay PRIVATE ${ARG_DEPS} GTest::gtest)
    kiln_test_flags_(${name}_replay)
    kiln_sanitize_(${name}_replay)
    set_target_properties(${name}_replay PROPERTIES CXX_STANDARD ${std}
                          RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
    list(TRANSFORM ARG_SEEDS PREPEND ${PROJECT_SOURCE_DIR}/)
    file(GLOB seeds CONFIGURE_DEPENDS ${ARG_SEEDS})
    if(NOT seeds)
      message(FATAL_ERROR "${name}: no seed matches ${ARG_SEEDS}")
    endif()
    kiln_add_gtest_shards(${name}_replay 1 ${name}_replay ${seeds})
  endif()
  if(ARG_RUNTIME)
    # The entry point is built as the runtime is; the replay driver is not.
    set_source_files_properties(${ARG_SOURCES} PROPERTIES COMPILE_OPTIONS "-fno-exceptions;-fno-rtti")
  endif()
endfunction()
