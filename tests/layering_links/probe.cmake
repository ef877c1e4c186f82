# SPDX-License-Identifier: MIT
# Builds each probe target of tests/layering_links; each must fail because its header is not
# on the include path of the module it was compiled for.
set(bad "")
foreach(target header IN ZIP_LISTS TARGETS HEADERS)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${target}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REPLACE "." "\\." pattern "${header}")
  if(rc EQUAL 0)
    list(APPEND bad "${target}: ${header} is visible to this module (it compiled)")
  elseif(NOT "${out}${err}" MATCHES "${pattern}: No such file")
    list(APPEND bad "${target}: failed for another reason than a missing ${header}:\n${out}${err}")
  else()
    message(STATUS "${target}: ${header} not visible, as the layering requires")
  endif()
endforeach()
if(bad)
  string(REPLACE ";" "\n  " msg "${bad}")
  message(FATAL_ERROR "the target links do not enforce the layering:\n  ${msg}")
endif()
