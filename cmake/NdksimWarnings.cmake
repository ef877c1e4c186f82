# SPDX-License-Identifier: MIT
# Warning set for every ndksim target; NDKSIM_WERROR (on in CI) turns them into errors.
add_library(ndksim_warnings INTERFACE)
target_compile_options(ndksim_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
    -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough>
  $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra -Wpedantic>
  $<$<BOOL:${NDKSIM_WERROR}>:-Werror>)
