// SPDX-License-Identifier: MIT
// Identity of the installed library.

#include "ndksim.h"

extern "C" NDKSIM_API const char* ndksim_version(void) {
    return NDKSIM_VERSION_STRING;
}
