# SPDX-License-Identifier: MIT
# The package test: puts an installed ndksim into a scratch directory, either with
# `cmake --install` (MODE install) or by building the Debian package with CPack and extracting
# it with dpkg-deb (MODE deb, no root needed), then uses it only from there, as a consumer would:
#   - tests/package/consumer through find_package(ndksim CONFIG REQUIRED): C and C++ with
#     <ndkpi.h>, a driver source through ndksim_add_kernel_consumer, a test-kit test;
#   - tests/package/testkit_consumer through find_package(ndksim COMPONENTS testkit), and a
#     search for a component that does not exist, which must fail naming it;
#   - examples/ built on their own and run by their ctest;
#   - the consumer's sources compiled by hand with the flags of `pkg-config ndksim`;
#   - the installed tools run from bin/ with no LD_LIBRARY_PATH (their RUNPATH finds the
#     library), and the licence, change log and man pages in place.
# Inputs: MODE, BUILD_DIR, SOURCE_DIR (the project), WORK_DIR, GENERATOR, C_COMPILER,
# CXX_COMPILER, LAUNCHER (a compiler launcher such as ccache, or empty), CPACK, VERSION,
# TOOLS (ON when the tools were built), MAN (ON when their man pages were).
file(REMOVE_RECURSE "${WORK_DIR}")
set(root "${WORK_DIR}/root")
set(prefix "${root}/usr")
set(package "${SOURCE_DIR}/tests/package")

# Runs a command; fails the test with its output unless it exits 0. Leaves its stdout and
# stderr in `last_output`.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}${err}" PARENT_SCOPE)
endfunction()

function(expect_match text regex what)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "${what}: no match for '${regex}' in:\n${text}")
  endif()
endfunction()

# --- the installed tree -------------------------------------------------------------------
if(MODE STREQUAL "install")
  run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
else()
  run(${CPACK} -G DEB --config "${BUILD_DIR}/CPackConfig.cmake" -B "${WORK_DIR}/cpack")
  file(GLOB deb "${WORK_DIR}/cpack/*.deb")
  list(LENGTH deb debs)
  if(NOT debs EQUAL 1)
    message(FATAL_ERROR "CPack made ${debs} .deb files: ${deb}")
  endif()
  run(dpkg-deb -f "${deb}" Package Version Maintainer Depends Section)
  message(STATUS "${deb}:\n${last_output}")
  expect_match("${last_output}" "Package: ndksim\n" "package name")
  expect_match("${last_output}" "Version: ${VERSION}\n" "package version")
  expect_match("${last_output}" "Maintainer: [^\n]+" "maintainer")
  # dpkg-shlibdeps found the runtime libraries the binaries link.
  expect_match("${last_output}" "Depends:[^\n]*libc6" "runtime dependencies")
  expect_match("${last_output}" "Depends:[^\n]*libstdc\\+\\+6" "runtime dependencies")
  expect_match("${last_output}" "Depends:[^\n]*libspdlog" "runtime dependencies")
  run(dpkg-deb -x "${deb}" "${root}")
endif()
# lib, or lib/<multiarch> when the build was configured for /usr.
file(GLOB_RECURSE pc_file "${prefix}/lib*/ndksim.pc")
get_filename_component(pc_dir "${pc_file}" DIRECTORY)
get_filename_component(libdir "${pc_dir}" DIRECTORY)
if(NOT EXISTS "${libdir}/libndksim.so.0")
  message(FATAL_ERROR "no libndksim.so.0 under ${prefix}")
endif()
foreach(doc LICENSE CHANGELOG.md)
  if(NOT EXISTS "${prefix}/share/doc/ndksim/${doc}")
    message(FATAL_ERROR "share/doc/ndksim/${doc} was not installed")
  endif()
endforeach()

# --- CMake consumers --------------------------------------------------------------------
# Same relative paths in both modes, so a compiler cache serves the second from the first.
set(ENV{CCACHE_BASEDIR} "${WORK_DIR}")
set(configure_args -G "${GENERATOR}" "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_BUILD_TYPE=Release
                   "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
set(compile)
if(LAUNCHER)
  list(APPEND configure_args "-DCMAKE_C_COMPILER_LAUNCHER=${LAUNCHER}"
                             "-DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER}")
  set(compile "${LAUNCHER}")
endif()

function(build_project name source)
  run(${CMAKE_COMMAND} -S "${source}" -B "${WORK_DIR}/${name}" ${configure_args})
  run(${CMAKE_COMMAND} --build "${WORK_DIR}/${name}" -j 2)
endfunction()

build_project(consumer "${package}/consumer")
foreach(program consumer kernel_consumer consumer_test)
  run("${WORK_DIR}/consumer/${program}")
endforeach()

build_project(testkit_consumer "${package}/testkit_consumer")
run("${WORK_DIR}/testkit_consumer/negative_tests")

file(WRITE "${WORK_DIR}/no_such_component/CMakeLists.txt"
     "cmake_minimum_required(VERSION 3.25)\nproject(p NONE)\n"
     "find_package(ndksim CONFIG REQUIRED COMPONENTS no_such_component)\n")
execute_process(COMMAND ${CMAKE_COMMAND} -S "${WORK_DIR}/no_such_component"
                        -B "${WORK_DIR}/no_such_component/build" "-DCMAKE_PREFIX_PATH=${prefix}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "find_package(ndksim COMPONENTS no_such_component) succeeded")
endif()
expect_match("${out}${err}" "no component 'no_such_component'" "unknown component")

build_project(examples "${SOURCE_DIR}/examples")
run(${CMAKE_CTEST_COMMAND} --test-dir "${WORK_DIR}/examples" --output-on-failure -j 2)

# --- pkg-config ---------------------------------------------------------------------------
set(ENV{PKG_CONFIG_PATH} "${pc_dir}")
run(pkg-config --modversion ndksim)
expect_match("${last_output}" "^${VERSION}" "pkg-config --modversion")
run(pkg-config --cflags ndksim)
separate_arguments(cflags UNIX_COMMAND "${last_output}")
run(pkg-config --libs ndksim)
separate_arguments(libs UNIX_COMMAND "${last_output}")
set(pc "${WORK_DIR}/pkg-config")
file(MAKE_DIRECTORY "${pc}")
run(${compile} "${C_COMPILER}" -std=c11 -Wall -Wextra -Werror ${cflags}
    -c "${package}/consumer/consumer_c.c" -o "${pc}/consumer_c.o")
run(${compile} "${CXX_COMPILER}" -std=c++20 -Wall -Wextra -Werror ${cflags}
    -c "${package}/consumer/consumer_main.cpp" -o "${pc}/consumer_main.o")
run("${CXX_COMPILER}" "${pc}/consumer_main.o" "${pc}/consumer_c.o" ${libs} -o "${pc}/consumer")
run(${CMAKE_COMMAND} -E env "LD_LIBRARY_PATH=${libdir}" "${pc}/consumer")
expect_match("${last_output}" "MaxCqDepth [1-9]" "pkg-config consumer")

# --- the tools, from bin/ -------------------------------------------------------------------
if(TOOLS)
  set(bare ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH)
  foreach(tool ndksim-perf ndksim-loopback)
    run(readelf -d "${prefix}/bin/${tool}")
    expect_match("${last_output}" "RUNPATH\\)[^\n]*\\[\\$ORIGIN/\\.\\./lib" "${tool} RUNPATH")
    run(${bare} "${prefix}/bin/${tool}" --help)
    expect_match("${last_output}" "${tool}" "${tool} --help")
    if(MAN AND NOT EXISTS "${prefix}/share/man/man1/${tool}.1")
      message(FATAL_ERROR "share/man/man1/${tool}.1 was not installed")
    endif()
  endforeach()
  run(${bare} "${prefix}/bin/ndksim-perf" --sizes 64 --iterations 10)
  expect_match("${last_output}" "\n +64 +10 " "ndksim-perf's result row")
  # A profile by name comes from this tree's share/ndksim/profiles, wherever the tree lies.
  run(${bare} "${prefix}/bin/ndksim-perf" --profile roce-25g --sizes 64 --iterations 10)
  execute_process(COMMAND ${bare} "${prefix}/bin/ndksim-perf" --profile no-such-nic --sizes 64
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  expect_match("${rc}|${out}${err}" "^[1-9][0-9]*|.*searched: [^)]*${prefix}/share/ndksim/profiles"
               "an unknown profile's search path")
  run(${bare} "${prefix}/bin/ndksim-loopback" --role both --wire inproc --timeout-ms 60000)
  expect_match("${last_output}" "all checks passed" "ndksim-loopback")
endif()
message(STATUS "the ${MODE} tree passed: ${prefix}")
