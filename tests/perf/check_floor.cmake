# SPDX-License-Identifier: MIT
# Runs bench_roce_floor (bench/wire) once: FLOOR, MODE, ARGS (a ;-list). It passes when the tool
# exits 0 having printed one positive figure, and fails with the tool's words otherwise. The
# tool binds the port it is given and the next one; when either is taken, another pair is tried.
# With REFUSED set (a regular expression), the run must instead exit 1 saying so.
foreach(attempt RANGE 1 20)
  string(RANDOM LENGTH 4 ALPHABET 0123456789 r)
  math(EXPR port "30000 + ${r} * 2")
  execute_process(COMMAND ${FLOOR} ${MODE} -p ${port} ${ARGS}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
  if(DEFINED REFUSED)
    if(NOT rc EQUAL 1 OR NOT err MATCHES "${REFUSED}")
      message(FATAL_ERROR "bench_roce_floor ${MODE} ${ARGS} was to exit 1 with '${REFUSED}'; "
                          "it exited ${rc}: ${err}")
    endif()
    return()
  endif()
  if(rc EQUAL 0)
    string(STRIP "${out}" figure)
    if(NOT figure MATCHES "^[0-9]+(\\.[0-9]+)?$" OR figure STREQUAL "0" OR figure MATCHES "^0\\.0+$")
      message(FATAL_ERROR "bench_roce_floor ${MODE} printed '${out}', not one positive figure")
    endif()
    message(STATUS "bench_roce_floor ${MODE} ${ARGS}: ${figure}")
    return()
  endif()
  if(err MATCHES "Address already in use")
    continue()
  endif()
  message(FATAL_ERROR "bench_roce_floor ${MODE} -p ${port} ${ARGS} exited ${rc}: ${err}")
endforeach()
message(FATAL_ERROR "bench_roce_floor: no free pair of ports in 20 attempts")
