# SPDX-License-Identifier: MIT
# Fails when a module includes a header of a module it may not depend on (docs/architecture.md:
# util <- timing <- wire; util <- mem <- core <- nic; api -> core, nic; only api includes the C
# ABI headers; kernel, the user-mode Windows kernel runtime, may include everything below it and
# the C ABI headers, and no module includes kernel). nic sees the wire through the transport
# interface and the packet format (the headers it builds frames with), never through a concrete
# transport: api chooses that. nic must never see kernel: the engine is not consumer code.
set(allowed_util "util")
set(allowed_timing "util;timing")
set(allowed_wire "util;timing;wire")
set(allowed_mem "util;mem")
set(allowed_core "util;timing;mem;core")
set(allowed_nic "util;timing;mem;core;nic;wire/transport.hpp;wire/frame.hpp;wire/lent_frames.hpp;wire/proto.hpp;wire/codec.hpp;wire/opcode_table.hpp;wire/icrc.hpp;wire/cm_proto.hpp")
set(allowed_api "util;timing;mem;core;nic;wire;api")
set(allowed_kernel "util;timing;mem;core;nic;wire;api;kernel")
set(violations "")
foreach(module util timing wire mem core nic api kernel)
  file(GLOB_RECURSE files "${SRC}/${module}/*.hpp" "${SRC}/${module}/*.cpp")
  foreach(f ${files})
    file(STRINGS "${f}" lines REGEX "^#include \"")
    foreach(line ${lines})
      string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" inc "${line}")
      if(inc MATCHES "^(ndkpi|wdm|ndisndk|ndkinfo|ndksim|ndksim_kernel|ndksim_verifier|ndksim_faults|ndksim_export|sal|ntddk|ntstrsafe|wdmsec|Wdmsec|ndis|wsk|wskndk|netioapi|ifdef)\\.h$")
        if(NOT module STREQUAL "api" AND NOT module STREQUAL "kernel")
          list(APPEND violations "${f}: ${inc} (only api/ and kernel/ see the C ABI)")
        endif()
        continue()
      endif()
      string(REGEX MATCH "^[a-z_]+" target_module "${inc}")
      set(ok FALSE)
      foreach(a ${allowed_${module}})
        if(inc STREQUAL a OR target_module STREQUAL a)
          set(ok TRUE)
        endif()
      endforeach()
      if(NOT ok)
        list(APPEND violations "${f}: ${inc}")
      endif()
    endforeach()
  endforeach()
endforeach()
# Inside nic, the protocol stages decide what happens and ask the hardware model when
# (nic/hw_model.hpp): no stage file includes a timing header. Only the hardware model and the
# engine (which owns the tasks and the link) may; the connection manager's handshake timers are
# its own.
set(protocol_stages requester.cpp responder.cpp completer.cpp retransmit.cpp local_ops.cpp
                    post.cpp post.hpp packets.hpp pipeline.hpp qp_context.hpp read_slots.hpp
                    responder_faults.hpp nak_outcomes.hpp)
foreach(stage ${protocol_stages})
  set(f "${SRC}/nic/${stage}")
  if(NOT EXISTS "${f}")
    list(APPEND violations "${f}: a protocol stage the layering check names is missing")
    continue()
  endif()
  file(STRINGS "${f}" lines REGEX "^#include \"timing/")
  foreach(line ${lines})
    list(APPEND violations "${f}: ${line} (a protocol stage asks nic/hw_model.hpp for time)")
  endforeach()
  # Nor does it read the cost model: not through the engine's configuration (config().costs),
  # nor by naming it (timing::cost_model, a profile's costs). Comments may talk about costs.
  file(STRINGS "${f}" lines REGEX "config\\(\\)\\.costs|cost_model|nic_profile|(\\.|->)costs\\.")
  foreach(line ${lines})
    if(NOT line MATCHES "^[ \t]*//")
      list(APPEND violations "${f}: ${line} (the cost model is the hardware model's to read)")
    endif()
  endforeach()
endforeach()
if(violations)
  string(REPLACE ";" "\n  " msg "${violations}")
  message(FATAL_ERROR "layering violations:\n  ${msg}")
endif()
message(STATUS "layering: every #include follows the dependency rule")
