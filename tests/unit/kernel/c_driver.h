/* SPDX-License-Identifier: MIT */
/* The C driver of c_driver.c, seen from the C++ tests. */
#pragma once

#include <wdm.h>

#ifdef __cplusplus
extern "C" {
#endif

/* DriverEntry. */
NTSTATUS c_driver_entry(PDRIVER_OBJECT driver, PUNICODE_STRING registry_path);

/* Nonzero: DriverUnload returns without tearing anything down. */
void c_driver_set_leaky(int leaky);

/* Timer DPCs so far, or -1 when the driver holds no state. */
LONG c_driver_timer_ticks(void);

/* 1 if the system thread ever got past PsTerminateSystemThread (it must not). */
LONG c_driver_thread_exit_reached(void);

/* The IRQL the work item ran at (-1 before it ran or without state). */
LONG c_driver_work_irql(void);

/* Tears down what a leaky unload left behind. */
void c_driver_clean_up_leaks(void);

#ifdef __cplusplus
}
#endif
