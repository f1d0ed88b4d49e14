# Selective build: a runtime whose kernel registration holds only the kernels
# a list of operators names, so that the linker leaves the other kernel
# functions out (ExecuTorch calls it selective build).
#
# The list: one operator per line ("aten::add.out"); blank lines and text
# after '#' are ignored. `kiln ops --used MODEL.pte... -o ops.txt` writes the
# list a set of programs calls. Every listed operator must have a portable or
# prim kernel: one that none provides stops the configuration, named with its
# line.
#
# The registration tables are X-macro files (src/kernels/portable/
# portable_kernels.def, src/kernels/prim/prim_kernels.def, one entry a line).
# Selection writes a copy of each that keeps the listed entries and turns every
# other into KILN_LEFT_OUT_KERNEL(name); register.cpp compiled from the copy
# references only the kept kernel functions, and tells the registry the names
# it left out, so a program calling one of them is refused naming the op as
# left out of this build.
#
# kiln_selected_kernels(NAME OPS FILE): the library NAME, linked as
#   kiln_kernels_registered is (whole: its static initializer registers the
#   selected portable and prim kernels), beside the full kernels of the same
#   build: for an app or a test.
# -DKILN_SELECTED_OPS=FILE (CMakeLists.txt): the tree's own registration
#   (kiln_kernels_portable, kiln_kernels_prim, and so kiln_kernels_registered,
#   kiln::portable_kernels) is the selected one.
# Script mode, to check a list alone:
#   cmake -DOPS=FILE -DOUT_DIR=DIR -P cmake/KilnSelectiveBuild.cmake

if(CMAKE_SCRIPT_MODE_FILE)
  cmake_minimum_required(VERSION 3.25)
endif()

set(KILN_KERNELS_SOURCE_DIR_ ${CMAKE_CURRENT_LIST_DIR}/../src/kernels)
get_filename_component(KILN_KERNELS_SOURCE_DIR_ ${KILN_KERNELS_SOURCE_DIR_} ABSOLUTE)
# table name -> its .def file
set(KILN_KERNEL_TABLES_ portable prim)
set(KILN_KERNEL_TABLE_portable_ ${KILN_KERNELS_SOURCE_DIR_}/portable/portable_kernels.def)
set(KILN_KERNEL_TABLE_prim_ ${KILN_KERNELS_SOURCE_DIR_}/prim/prim_kernels.def)

# The operators of list `ops_file`, each once, in `names_var`, and the line
# of each in `lines_var`; stops on a line that is not an operator name.
function(kiln_read_op_list_ ops_file names_var lines_var)
  if(NOT EXISTS "${ops_file}" OR IS_DIRECTORY "${ops_file}")
    message(FATAL_ERROR "selective build: cannot read the op list '${ops_file}': no such file")
  endif()
  file(READ "${ops_file}" text)
  string(FIND "${text}" ";" semicolon)
  string(FIND "${text}" "[" open)
  string(FIND "${text}" "]" close)
  if(text MATCHES "[^\t\r\n -~]" OR NOT semicolon EQUAL -1 OR NOT open EQUAL -1 OR NOT close EQUAL -1)
    message(FATAL_ERROR "selective build: '${ops_file}' is not an op list (a text file with one operator a line, "
                        "such as aten::add.out, as `kiln ops --used MODEL.pte` writes)")
  endif()
  string(REPLACE "\r" "" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(names)
  set(numbers)
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    string(REGEX REPLACE "#.*" "" line "${line}")
    string(STRIP "${line}" line)
    if(line STREQUAL "" OR line IN_LIST names)
      continue()
    endif()
    if(NOT line MATCHES "^[A-Za-z_][A-Za-z0-9_]*::[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z0-9_]+)?$")
      string(SUBSTRING "${line}" 0 80 shown)
      message(FATAL_ERROR "selective build: ${ops_file}:${number}: '${shown}' is not an operator name (one a line, "
                          "such as aten::add.out)")
    endif()
    list(APPEND names ${line})
    list(APPEND numbers ${number})
  endforeach()
  set(${names_var} ${names} PARENT_SCOPE)
  set(${lines_var} ${numbers} PARENT_SCOPE)
endfunction()

# The names of the entries of table file `def_file`, in `names_var`.
function(kiln_kernel_table_names_ def_file names_var)
  file(STRINGS ${def_file} entries REGEX "^KILN_")
  set(names)
  foreach(entry IN LISTS entries)
    if(NOT entry MATCHES "^KILN_[A-Z_]+\\(\"([^\"]+)\", [A-Za-z0-9_]+(, .+)?\\)(  //.*)?$")
      message(FATAL_ERROR "${def_file}: an entry must be one line, KILN_..._KERNEL(\"name\", function[, dtypes]): "
                          "${entry}")
    endif()
    list(APPEND names ${CMAKE_MATCH_1})
  endforeach()
  set(${names_var} ${names} PARENT_SCOPE)
endfunction()

# Checks list OPS against the kernel tables and writes into OUT_DIR the copy of
# each table that keeps the listed kernels (portable_kernels.def,
# prim_kernels.def). Files whose content is unchanged are left alone.
function(kiln_select_kernels)
  cmake_parse_arguments(ARG "" "OPS;OUT_DIR" "" ${ARGN})
  if(NOT ARG_OPS OR NOT ARG_OUT_DIR)
    message(FATAL_ERROR "kiln_select_kernels: OPS FILE and OUT_DIR DIR are both required")
  endif()
  kiln_read_op_list_("${ARG_OPS}" selected selected_lines)

  set(provided)
  foreach(table IN LISTS KILN_KERNEL_TABLES_)
    kiln_kernel_table_names_(${KILN_KERNEL_TABLE_${table}_} names_${table})
    list(APPEND provided ${names_${table}})
  endforeach()
  set(unknown)
  foreach(name line IN ZIP_LISTS selected selected_lines)
    if(NOT name IN_LIST provided)
      list(APPEND unknown "  ${name} (line ${line})")
    endif()
  endforeach()
  if(unknown)
    list(JOIN unknown "\n" unknown)
    message(FATAL_ERROR "selective build: no kernel of this build provides these operators of the op list "
                        "'${ARG_OPS}':\n${unknown}\nThe kernels there are: the entries of "
                        "src/kernels/portable/portable_kernels.def and src/kernels/prim/prim_kernels.def.")
  endif()

  foreach(table IN LISTS KILN_KERNEL_TABLES_)
    set(def_file ${KILN_KERNEL_TABLE_${table}_})
    file(STRINGS ${def_file} lines)
    set(content "// Generated by cmake/KilnSelectiveBuild.cmake from ${def_file}\n// and the op list ${ARG_OPS}: do not edit.\n")
    foreach(line IN LISTS lines)
      if(line MATCHES "^KILN_[A-Z_]+\\(\"([^\"]+)\"" AND NOT CMAKE_MATCH_1 IN_LIST selected)
        set(line "KILN_LEFT_OUT_KERNEL(\"${CMAKE_MATCH_1}\")")
      endif()
      string(APPEND content "${line}\n")
    endforeach()
    set(out ${ARG_OUT_DIR}/${table}_kernels.def)
    set(old "")
    if(EXISTS ${out})
      file(READ ${out} old)
    endif()
    if(NOT old STREQUAL content)
      file(WRITE ${out} "${content}")
    endif()
  endforeach()
  if(NOT CMAKE_SCRIPT_MODE_FILE)
    set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ARG_OPS}
                 ${KILN_KERNEL_TABLE_portable_} ${KILN_KERNEL_TABLE_prim_})
  endif()
endfunction()

# A registration library of the kernels list OPS names: see the top of this file.
function(kiln_selected_kernels name)
  cmake_parse_arguments(ARG "" "OPS" "" ${ARGN})
  if(NOT ARG_OPS)
    message(FATAL_ERROR "kiln_selected_kernels(${name}): OPS FILE is required")
  endif()
  get_filename_component(ops "${ARG_OPS}" ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${name}.selected)
  kiln_select_kernels(OPS ${ops} OUT_DIR ${dir})
  # One source per table, so that the archive's members have distinct names.
  foreach(table IN LISTS KILN_KERNEL_TABLES_)
    string(TOUPPER ${table} upper)
    string(CONCAT content "#define KILN_${upper}_KERNELS_DEF \"${dir}/${table}_kernels.def\"\n"
                          "#include \"kernels/${table}/register.cpp\"\n")
    set(source ${dir}/register_${table}.cpp)
    set(old "")
    if(EXISTS ${source})
      file(READ ${source} old)
    endif()
    if(NOT old STREQUAL content)
      file(WRITE ${source} "${content}")
    endif()
  endforeach()
  kiln_runtime_library(${name}_init
    SOURCES ${dir}/register_portable.cpp ${dir}/register_prim.cpp ${KILN_KERNELS_SOURCE_DIR_}/prim/auto_register.cpp
    DEPS kiln_kernels_portable_functions kiln_kernels_prim_functions)
  add_library(${name} INTERFACE)
  kiln_link_whole(${name} ${name}_init)
endfunction()

# With -DKILN_SELECTED_OPS, compiles `target`'s register.cpp of `table` from
# the selected copy of the table.
function(kiln_selected_kernels_table_ target table)
  if(KILN_SELECTED_OPS)
    string(TOUPPER ${table} upper)
    target_compile_definitions(${target} PRIVATE
                               KILN_${upper}_KERNELS_DEF="${CMAKE_BINARY_DIR}/selected_kernels/${table}_kernels.def")
  endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  kiln_select_kernels(OPS "${OPS}" OUT_DIR "${OUT_DIR}")
  message("selective build: the op list '${OPS}' is valid; the selected tables are in ${OUT_DIR}")
endif()
