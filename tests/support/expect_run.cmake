# Runs a command and checks both its exit code and its output (CTest's
# PASS_REGULAR_EXPRESSION alone ignores the exit code, so a crash or a
# sanitizer report after the expected line would pass).
#
#   cmake -DEXPECT_EXIT=0 "-DEXPECT_OUTPUT=regex" [-DEMULATOR="qemu ARGS"] -P expect_run.cmake -- COMMAND ARGS...
#
# EMULATOR (a cross build's, one string) runs COMMAND; given as a variable,
# since cmake would take its options (-L, -E) after -P as its own.
separate_arguments(command UNIX_COMMAND "${EMULATOR}")
set(after_dashes FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE 1 ${last})
  if(after_dashes)
    list(APPEND command "${CMAKE_ARGV${i}}")
  elseif("${CMAKE_ARGV${i}}" STREQUAL "--")
    set(after_dashes TRUE)
  endif()
endforeach()
execute_process(COMMAND ${command} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT "${code}" STREQUAL "${EXPECT_EXIT}")
  message(FATAL_ERROR "exit code ${code}, expected ${EXPECT_EXIT}")
endif()
if(DEFINED EXPECT_OUTPUT AND NOT "${out}${err}" MATCHES "${EXPECT_OUTPUT}")
  message(FATAL_ERROR "the output does not match '${EXPECT_OUTPUT}'")
endif()
