/* SPDX-License-Identifier: MIT */
/* Runs the driver-style self tests at PASSIVE_LEVEL; the exit status is the failure count. */
#include <stdio.h>

#include "selftest.h"

int main(void) {
    const int failures = driver_c_selftest() + driver_cpp_selftest();
    printf("kernel headers self test: %d failure(s)\n", failures);
    return failures == 0 ? 0 : 1;
}
