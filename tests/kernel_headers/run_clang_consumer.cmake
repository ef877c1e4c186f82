# SPDX-License-Identifier: MIT
# Configures clang/ with Clang against the library of this build tree, builds it and runs it.
# Inputs: CLANG, CLANGXX, SOURCE_DIR, WORK_DIR, GENERATOR, NDKSIM_LIBRARY, NDKSIM_INCLUDE_DIR,
# NDKSIM_CMAKE_DIR.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK_DIR}" -G "${GENERATOR}"
    -DCMAKE_C_COMPILER=${CLANG} -DCMAKE_CXX_COMPILER=${CLANGXX} -DCMAKE_BUILD_TYPE=Debug
    -DNDKSIM_LIBRARY=${NDKSIM_LIBRARY} -DNDKSIM_INCLUDE_DIR=${NDKSIM_INCLUDE_DIR}
    -DNDKSIM_CMAKE_DIR=${NDKSIM_CMAKE_DIR})
run(${CMAKE_COMMAND} --build "${WORK_DIR}")
run("${WORK_DIR}/kernel_headers_clang")
