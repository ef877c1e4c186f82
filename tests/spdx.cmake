# SPDX-License-Identifier: MIT
# Fails when a source file does not say its licence with an SPDX identifier near its top
# (LICENSE: MIT), so that a file copied out of the tree still carries it.
file(GLOB_RECURSE files
  "${ROOT}/src/*.cpp" "${ROOT}/src/*.hpp" "${ROOT}/include/*.h" "${ROOT}/include/*.hpp"
  "${ROOT}/tests/*.cpp" "${ROOT}/tests/*.hpp" "${ROOT}/tests/*.c" "${ROOT}/tests/*.sh"
  "${ROOT}/tests/*.cmake" "${ROOT}/examples/*.c" "${ROOT}/examples/*.h" "${ROOT}/sim/*.cpp"
  "${ROOT}/sim/*.hpp" "${ROOT}/bench/*.cpp" "${ROOT}/bench/*.hpp" "${ROOT}/bench/*.sh"
  "${ROOT}/fuzz/*.cpp" "${ROOT}/scripts/*.sh" "${ROOT}/cmake/*.cmake")
set(missing "")
foreach(f ${files})
  file(READ "${f}" head LIMIT 300)
  string(FIND "${head}" "SPDX-License-Identifier: MIT" at)
  if(at EQUAL -1)
    list(APPEND missing "${f}")
  endif()
endforeach()
if(missing)
  string(REPLACE ";" "\n  " msg "${missing}")
  message(FATAL_ERROR "no SPDX-License-Identifier line near the top of:\n  ${msg}")
endif()
