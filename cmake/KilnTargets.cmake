# Helpers that give every Kiln target the same shape.
#
# kiln_runtime_library(NAME SOURCES... DEPS ...): C++17, no exceptions, no RTTI.
# kiln_aot_library(NAME SOURCES... DEPS ...): C++20, exceptions on.
# kiln_test(NAME SOURCES... DEPS ...): a GoogleTest binary registered with CTest.

function(kiln_library_ name std)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  set_target_properties(${name} PROPERTIES CXX_STANDARD ${std} CXX_STANDARD_REQUIRED ON)
endfunction()

function(kiln_runtime_library name)
  kiln_library_(${name} 17 ${ARGN})
  target_compile_options(${name} PRIVATE -fno-exceptions -fno-rtti)
endfunction()

function(kiln_aot_library name)
  kiln_library_(${name} 20 ${ARGN})
endfunction()

function(kiln_test name)
  if(NOT KILN_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  set_target_properties(${name} PROPERTIES CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON
                        RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  gtest_discover_tests(${name} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} DISCOVERY_TIMEOUT 60)
endfunction()
