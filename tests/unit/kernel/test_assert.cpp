// SPDX-License-Identifier: MIT
// ASSERT and NT_ASSERT check only in debug builds (DBG nonzero), as in the WDK; this file is one.
#define DBG 1

#include <gtest/gtest.h>

#include "kernel_test.hpp"
#include "wdm.h"

namespace ndksim::kernel::test {
namespace {

using Assert = KernelTest;

TEST_F(Assert, AFailedAssertionIsReportedInADebugBuild) {
    int evaluated = 0;
    EXPECT_EQ(violations_of([&] { ASSERT(++evaluated == 1); }), 0U);
    EXPECT_EQ(violations_of([&] { NT_ASSERT(evaluated == 2); }), 1U);
    EXPECT_EQ(violations_of([&] { EXPECT_FALSE(NT_VERIFY(evaluated == 3)); }), 1U);
    EXPECT_EQ(evaluated, 1);
}

}  // namespace
}  // namespace ndksim::kernel::test
