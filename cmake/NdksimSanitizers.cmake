# SPDX-License-Identifier: MIT
# Sanitizer builds apply to every target of the tree, libraries and tests alike.
if(NDKSIM_SANITIZE STREQUAL "address")
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
elseif(NDKSIM_SANITIZE STREQUAL "thread")
  # GCC warns that TSan does not model std::atomic_thread_fence, which Boost.Asio uses
  # internally; the warning concerns that library code, not ours.
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer
                      $<$<CXX_COMPILER_ID:GNU>:-Wno-tsan>)
  add_link_options(-fsanitize=thread)
elseif(NOT NDKSIM_SANITIZE STREQUAL "")
  message(FATAL_ERROR "NDKSIM_SANITIZE must be '', 'address' or 'thread', not '${NDKSIM_SANITIZE}'")
endif()
