# Kiln's CMake package, as an app outside the tree uses it (CTest's
# embed_example_installed_package, examples/embed/CMakeLists.txt):
#   1. `cmake --install BUILD_DIR` into BUILD_DIR/install-test, emptied first
#      so that a file the install rules no longer write is missing;
#   2. a project that includes each installed header in a file of its own,
#      linking every kiln:: target: each header compiles from the package alone;
#   3. this example configured on its own (find_package(Kiln CONFIG REQUIRED)
#      from that prefix), built, and run on add.pte;
#   4. with oneDNN, and the kiln tool installed with the compiler (not the
#      runtime-only build's, which cannot lower), a program the installed kiln
#      lowers to OneDnnBackend, run by the installed example: the package's
#      kiln::onednn_backend registers the backend and finds oneDNN.
# Everything is written under BUILD_DIR.
#
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DGENERATOR=... -DMAKE_PROGRAM=...
#         -DCXX_COMPILER=... [-DBUILD_TYPE=...] [-DCCACHE=...] [-DWERROR=ON]
#         [-DSANITIZE=ON] [-DWITH_ONEDNN=ON] [-DWITH_COMPILER=ON] -P test_installed.cmake
set(prefix ${BUILD_DIR}/install-test)
set(work ${BUILD_DIR}/install-test-apps)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT code EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "${command}\nexit code ${code}:\n${out}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

# Step 1.
file(REMOVE_RECURSE ${prefix})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# An app's configuration: this build's compiler and generator, the prefix
# alone to find Kiln in (no package registry), warnings on.
set(flags "-Wall -Wextra")
if(WERROR)
  string(APPEND flags " -Werror")
endif()
if(SANITIZE)
  # The installed libraries are instrumented: the app links the sanitizers' runtimes.
  string(APPEND flags " -fsanitize=address,undefined")
endif()
set(configure_args -G ${GENERATOR} -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    -DCMAKE_BUILD_TYPE=${BUILD_TYPE} "-DCMAKE_CXX_FLAGS=${flags}" -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
if(CCACHE)
  # Paths relative to the build directory: another build directory's run
  # (CI's other configurations) reuses the objects.
  list(APPEND configure_args -DCMAKE_CXX_COMPILER_LAUNCHER=${CCACHE})
  set(ENV{CCACHE_BASEDIR} ${BUILD_DIR})
  set(ENV{CCACHE_NOHASHDIR} 1)
endif()

# Configures and builds the project SOURCE in BINARY from scratch; fails
# unless it found Kiln in the prefix.
function(build_app source binary)
  run(${CMAKE_COMMAND} --fresh -S ${source} -B ${binary} ${configure_args})
  file(STRINGS ${binary}/CMakeCache.txt kiln_dir REGEX "^Kiln_DIR:")
  if(NOT kiln_dir MATCHES "=${prefix}/")
    message(FATAL_ERROR "${source} found Kiln elsewhere than ${prefix}: ${kiln_dir}")
  endif()
  run(${CMAKE_COMMAND} --build ${binary})
endfunction()

# Step 2: one source file per header, linking the targets the package's
# export file defines.
file(GLOB_RECURSE headers RELATIVE ${prefix}/include ${prefix}/include/*.h)
if(NOT headers)
  message(FATAL_ERROR "no headers installed under ${prefix}/include")
endif()
set(sources "")
foreach(header IN LISTS headers)
  string(MAKE_C_IDENTIFIER ${header} source)
  file(CONFIGURE OUTPUT ${work}/headers/${source}.cpp CONTENT "#include \"${header}\"\n")
  list(APPEND sources ${source}.cpp)
endforeach()
file(GLOB targets_file ${prefix}/lib*/cmake/Kiln/KilnTargets.cmake)
file(STRINGS ${targets_file} target_lines REGEX "^add_library\\(kiln::")
string(REGEX REPLACE "add_library\\((kiln::[a-z_]+)[^;]*" "\\1" targets "${target_lines}")
file(CONFIGURE OUTPUT ${work}/headers/CMakeLists.txt CONTENT "cmake_minimum_required(VERSION 3.25)
project(kiln_installed_headers LANGUAGES CXX)
find_package(Kiln CONFIG REQUIRED)
add_library(headers OBJECT ${sources})
target_link_libraries(headers PRIVATE ${targets})
")
build_app(${work}/headers ${work}/headers-build)
list(LENGTH headers header_count)
message("each of the ${header_count} installed headers compiles alone; targets: ${targets}")

# Step 3.
build_app(${SOURCE_DIR}/examples/embed ${work}/embed-build)
set(example ${work}/embed-build/bin/kiln_embed_example)
run(${example} ${SOURCE_DIR}/tests/fixtures/pte/add.pte 1.5)
if(NOT out MATCHES "output 0: Float \\[2, 3\\] 3 3 3 3 3 3\n")
  message(FATAL_ERROR "the installed example on add.pte printed:\n${out}")
endif()
message("the installed example on add.pte: ${out}")

# Step 4.
if(WITH_ONEDNN AND WITH_COMPILER AND EXISTS ${prefix}/bin/kiln)
  run(${prefix}/bin/kiln lower ${SOURCE_DIR}/tests/fixtures/mlp/model.pt2 --backend OneDnnBackend
      -o ${work}/mlp.onednn.pte)
  if(NOT out MATCHES "OneDnnBackend")
    message(FATAL_ERROR "kiln lower left nothing to OneDnnBackend:\n${out}")
  endif()
  run(${example} ${work}/mlp.onednn.pte 0.5)
  if(NOT out MATCHES "output 0: Float \\[")
    message(FATAL_ERROR "the installed example on mlp.onednn.pte printed:\n${out}")
  endif()
  message("the installed example on mlp lowered to OneDnnBackend: ${out}")
endif()
