/* SPDX-License-Identifier: MIT */
/* The entry points of the two driver-style translation units; each returns its failure count. */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

int driver_c_selftest(void);
int driver_cpp_selftest(void);

#ifdef __cplusplus
}
#endif
