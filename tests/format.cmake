# SPDX-License-Identifier: MIT
# Fails when a source file differs from what clang-format makes of it (.clang-format at the
# root), and when clang-format is missing: the check is part of every test run, not optional.
# The headers that mirror Microsoft's NDKPI headers keep their hand-aligned tables.
if(NOT CLANG_FORMAT OR NOT EXISTS "${CLANG_FORMAT}")
  message(FATAL_ERROR "clang-format not found, so formatting cannot be checked: install the "
                      "Debian package clang-format (scripts/deps.sh, ndksim_test_packages) and "
                      "configure again")
endif()
file(GLOB_RECURSE files
  "${ROOT}/src/*.cpp" "${ROOT}/src/*.hpp" "${ROOT}/include/*.h" "${ROOT}/include/*.hpp"
  "${ROOT}/tests/*.cpp" "${ROOT}/tests/*.hpp" "${ROOT}/examples/*.c" "${ROOT}/examples/*.h"
  "${ROOT}/sim/*.cpp" "${ROOT}/sim/*.hpp" "${ROOT}/bench/*.cpp" "${ROOT}/bench/*.hpp"
  "${ROOT}/fuzz/*.cpp")
list(FILTER files EXCLUDE REGEX "include/ndksim/(ndkpi|wdm|ndkinfo|ndisndk|sal)\\.h$")
execute_process(COMMAND ${CLANG_FORMAT} --dry-run -Werror ${files}
                RESULT_VARIABLE result ERROR_VARIABLE report)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "not clang-formatted (run clang-format -i on these):\n${report}")
endif()
