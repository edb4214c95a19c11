# Install the build tree into a scratch prefix and check that it holds exactly a runnable
# bin/rfdb (the ctest `build.install`).
# Usage: cmake -DBUILD_DIR=<build> -DPREFIX=<scratch dir> -DVERSION=<x.y.z> -P check-install.cmake
foreach(var BUILD_DIR PREFIX VERSION)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check-install.cmake: -D${var}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX}
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BUILD_DIR} failed (${rc})")
endif()

file(GLOB_RECURSE installed RELATIVE ${PREFIX} ${PREFIX}/*)
if(NOT installed STREQUAL "bin/rfdb")
  message(FATAL_ERROR "expected only bin/rfdb under ${PREFIX}, found: ${installed}")
endif()

execute_process(COMMAND ${PREFIX}/bin/rfdb --version RESULT_VARIABLE rc OUTPUT_VARIABLE out
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0 OR NOT out MATCHES "rfdb ${VERSION}")
  message(FATAL_ERROR "installed bin/rfdb --version: exit ${rc}, output '${out}'")
endif()
file(REMOVE_RECURSE ${PREFIX})
message(STATUS "installed bin/rfdb runs: ${out}")
