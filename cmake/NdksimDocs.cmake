# SPDX-License-Identifier: MIT
# `docs`: the API reference of include/ with Doxygen (build/docs/api/html/index.html), warnings
# as errors, and a check that every public function is documented. ctest builds it when
# Doxygen is installed (scripts/deps.sh installs it), so CI fails on a new warning or an
# undocumented function.
find_package(Doxygen QUIET)
if(NOT DOXYGEN_FOUND)
  message(STATUS "Doxygen not found: no `docs` target")
  return()
endif()
set(NDKSIM_DOCS_DIR ${PROJECT_BINARY_DIR}/docs/api)
configure_file(${PROJECT_SOURCE_DIR}/docs/Doxyfile.in ${PROJECT_BINARY_DIR}/Doxyfile @ONLY)
add_custom_target(docs
  COMMAND ${CMAKE_COMMAND} -E remove_directory ${NDKSIM_DOCS_DIR}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${NDKSIM_DOCS_DIR}
  COMMAND Doxygen::doxygen ${PROJECT_BINARY_DIR}/Doxyfile
  COMMAND ${CMAKE_COMMAND} -DXML_DIR=${NDKSIM_DOCS_DIR}/xml
          -P ${PROJECT_SOURCE_DIR}/docs/check_documented.cmake
  WORKING_DIRECTORY ${PROJECT_BINARY_DIR}
  COMMENT "Doxygen: the API reference of include/ (${NDKSIM_DOCS_DIR}/html)"
  VERBATIM)
if(NDKSIM_BUILD_TESTS AND NDKSIM_SANITIZE STREQUAL "")
  add_test(NAME docs COMMAND ${CMAKE_COMMAND} --build ${PROJECT_BINARY_DIR} --target docs)
  set_tests_properties(docs PROPERTIES TIMEOUT 300)
endif()
