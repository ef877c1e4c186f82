// SPDX-License-Identifier: MIT
#pragma once
// The test kit's NTSTATUS assertions: one family, used by every fixture, test and guide.
//
//   EXPECT_NT_SUCCESS(actual)            actual is exactly STATUS_SUCCESS
//   ASSERT_NT_SUCCESS(actual)
//   EXPECT_NT_STATUS(expected, actual)   actual is exactly expected
//   ASSERT_NT_STATUS(expected, actual)
//
// The expected status comes first, as in EXPECT_EQ. A failure prints both statuses by name and
// value ("STATUS_ACCESS_VIOLATION (0xC0000005)") and the last call the library refused on this
// thread, with its reason (ndksim_thread_last_refusal). Like every gtest assertion, each takes
// a streamed message: `EXPECT_NT_SUCCESS(s) << "creating the PD";`.
//
// EXPECT_NT_SUCCESS is stricter than the kernel's NT_SUCCESS() macro, which also admits
// STATUS_PENDING and the other informational codes: a test states which of the two paths of a
// pending-capable call it expects (REFERENCE.md rule 1), so "success" means STATUS_SUCCESS
// itself.
//
// Header-only: it needs GoogleTest and the ndksim library, not the ndksim::testkit library.

#include <cstdio>
#include <string>

#include <gtest/gtest.h>
#include <ndkpi.h>
#include <ndksim/ndksim.h>

namespace ndksim::testkit {

/// The name of `s` ("STATUS_ACCESS_VIOLATION"), for messages and traces.
inline std::string status_string(NTSTATUS s) {
    return ndksim_status_name(s);
}

/// The name and value of `s` ("STATUS_PENDING (0x00000103)"), for failure messages.
inline std::string status_text(NTSTATUS s) {
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%08X", static_cast<unsigned>(s));
    return status_string(s) + " (" + hex + ")";
}

/// Predicate-formatter behind EXPECT_NT_STATUS / ASSERT_NT_STATUS: success when `actual`
/// equals `expected`; otherwise a failure naming both expressions and both statuses, and the
/// last refusal on this thread when there is one.
inline testing::AssertionResult status_eq(const char* expected_expr, const char* actual_expr,
                                          NTSTATUS expected, NTSTATUS actual) {
    if (expected == actual) {
        return testing::AssertionSuccess();
    }
    testing::AssertionResult failure =
        testing::AssertionFailure() << actual_expr << " is " << status_text(actual) << ", expected "
                                    << expected_expr << " = " << status_text(expected);
    if (const char* why = ndksim_thread_last_refusal(); why[0] != '\0') {
        failure << "\n  last refusal on this thread: " << why;
    }
    return failure;
}

/// Predicate-formatter behind EXPECT_NT_SUCCESS / ASSERT_NT_SUCCESS: status_eq() with
/// STATUS_SUCCESS expected.
inline testing::AssertionResult status_success(const char* actual_expr, NTSTATUS actual) {
    return status_eq("STATUS_SUCCESS", actual_expr, STATUS_SUCCESS, actual);
}

}  // namespace ndksim::testkit

/// Non-fatal: `actual` is exactly STATUS_SUCCESS.
#define EXPECT_NT_SUCCESS(actual) EXPECT_PRED_FORMAT1(::ndksim::testkit::status_success, actual)
/// Fatal: `actual` is exactly STATUS_SUCCESS.
#define ASSERT_NT_SUCCESS(actual) ASSERT_PRED_FORMAT1(::ndksim::testkit::status_success, actual)
/// Non-fatal: `actual` is exactly the status `expected`.
#define EXPECT_NT_STATUS(expected, actual) \
    EXPECT_PRED_FORMAT2(::ndksim::testkit::status_eq, expected, actual)
/// Fatal: `actual` is exactly the status `expected`.
#define ASSERT_NT_STATUS(expected, actual) \
    ASSERT_PRED_FORMAT2(::ndksim::testkit::status_eq, expected, actual)
