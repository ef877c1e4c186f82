/* SPDX-License-Identifier: MIT */
/*
 * ndksim_faults.h - scripted fault injection and the error-path coverage record
 * (docs/fault-injection.md).
 *
 * A fault script (ndksim_adapter_config::fault_script, or the file named by NDKSIM_FAULTS)
 * makes chosen consumer-visible failures happen, seeded and repeatable; the coverage record
 * counts every status the consumer saw, per NDK function (returned inline, or through its
 * callback) and per request type (in a completion), and how many of each the script injected.
 */
#pragma once

#include "ndkpi.h"
#include "ndksim_export.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ndksim_adapter;

/** The forms of the coverage record. */
typedef enum ndksim_coverage_format {
    NDKSIM_COVERAGE_JSON = 0, /**< one JSON document, for CI (schema in docs/fault-injection.md) */
    NDKSIM_COVERAGE_TABLE = 1 /**< a table for people, one line per function or request type */
} ndksim_coverage_format;

/**
 * Writes the adapter's coverage record, NUL-terminated, into buffer. *length holds the
 * buffer's size on entry and the size needed (NUL included) on return. Returns
 * STATUS_SUCCESS, STATUS_BUFFER_TOO_SMALL (call again with *length bytes),
 * STATUS_INVALID_PARAMETER (NULL adapter or length, or an unknown format) or
 * STATUS_INVALID_DEVICE_STATE (the adapter keeps no record: neither a fault script nor
 * coverage was asked for when it was created).
 */
NDKSIM_API NTSTATUS ndksim_adapter_coverage(const struct ndksim_adapter* adapter,
                                            ndksim_coverage_format format, char* buffer,
                                            SIZE_T* length);

/**
 * The coverage records of every adapter of this process destroyed so far, added up, in the
 * same form and with the same returns as ndksim_adapter_coverage (STATUS_INVALID_DEVICE_STATE
 * excepted: with no such adapter the record is empty). What a test binary prints at its end.
 */
NDKSIM_API NTSTATUS ndksim_process_coverage(ndksim_coverage_format format, char* buffer,
                                            SIZE_T* length);

/** Faults of the adapter's script that fired so far; 0 without a script. */
NDKSIM_API ULONG64 ndksim_adapter_faults_fired(const struct ndksim_adapter* adapter);

#ifdef __cplusplus
}
#endif
