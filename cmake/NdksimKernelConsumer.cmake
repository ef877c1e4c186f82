# SPDX-License-Identifier: MIT
# Building Windows kernel driver sources (NDK consumers) against ndksim's WDK headers.
#
#   ndksim_add_kernel_consumer(<target> [STATIC|SHARED|MODULE|OBJECT|EXECUTABLE]
#                              SOURCES <file>... [LINK_LIBRARIES <item>...])
#     Creates <target> (a static library by default) from driver sources and applies
#     ndksim_kernel_consumer_options to it.
#
#   ndksim_kernel_consumer_options(<target>)
#     Gives an existing target what driver sources need:
#       - ndksim::ndksim (the library and the include path with <wdm.h>, <ntddk.h>, <ndis.h>,
#         <ntstrsafe.h>, <wdmsec.h>, <ndkpi.h>), linked PUBLIC;
#       - -fshort-wchar, so that L"..." literals are arrays of 16-bit WCHAR as on Windows (the
#         library's C ABI takes 16-bit units; code built without it uses u"..." instead);
#       - -Wno-multichar (and Clang's -Wno-four-char-constants) for pool tags written 'gaTx',
#         whose value GCC and Clang compute as MSVC does;
#       - -Wno-unknown-pragmas for #pragma alloc_text / code_seg / data_seg / warning / prefast;
#         with Clang the header also silences it, because a later -Wall would re-enable it;
#       - -fno-strict-aliasing: MSVC does no type-based alias analysis, and driver code casts
#         between SOCKADDR types and CONTAINING_RECORD views freely;
#       - C11 and C++17 at least, and DBG=1 in Debug builds as the WDK's Debug configuration
#         sets (KdPrint, ASSERT and PAGED_ASSERT are active only then);
#       - NDKSIM_KERNEL_CONSUMER=1.
#     No _WIN32/_WIN64/_AMD64_ or NTDDI_VERSION definitions: the headers do not use them, and
#     defining _WIN32 would steer portable code towards <windows.h>.
include_guard(GLOBAL)

function(ndksim_kernel_consumer_options target)
  target_link_libraries(${target} PUBLIC ndksim::ndksim)
  target_compile_features(${target} PRIVATE c_std_11 cxx_std_17)
  target_compile_definitions(${target} PRIVATE NDKSIM_KERNEL_CONSUMER=1 $<$<CONFIG:Debug>:DBG=1>)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:C,CXX>:-fshort-wchar -Wno-multichar -Wno-unknown-pragmas
                                -fno-strict-aliasing>
    $<$<COMPILE_LANG_AND_ID:C,Clang,AppleClang>:-Wno-four-char-constants>
    $<$<COMPILE_LANG_AND_ID:CXX,Clang,AppleClang>:-Wno-four-char-constants>)
endfunction()

function(ndksim_add_kernel_consumer target)
  cmake_parse_arguments(K "STATIC;SHARED;MODULE;OBJECT;EXECUTABLE" "" "SOURCES;LINK_LIBRARIES"
                        ${ARGN})
  if(NOT K_SOURCES)
    message(FATAL_ERROR "ndksim_add_kernel_consumer(${target}): no SOURCES given")
  endif()
  if(K_EXECUTABLE)
    add_executable(${target} ${K_SOURCES})
  elseif(K_SHARED)
    add_library(${target} SHARED ${K_SOURCES})
  elseif(K_MODULE)
    add_library(${target} MODULE ${K_SOURCES})
  elseif(K_OBJECT)
    add_library(${target} OBJECT ${K_SOURCES})
  else()
    add_library(${target} STATIC ${K_SOURCES})
  endif()
  ndksim_kernel_consumer_options(${target})
  if(K_LINK_LIBRARIES)
    target_link_libraries(${target} PUBLIC ${K_LINK_LIBRARIES})
  endif()
endfunction()
