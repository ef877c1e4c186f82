// SPDX-License-Identifier: MIT
// Without DBG (a free build) ASSERT and NT_ASSERT compile to nothing, as in the WDK, and do not
// evaluate their expression; NT_VERIFY still does, and reports nothing.
#include <gtest/gtest.h>

#include "kernel_test.hpp"
#include "wdm.h"

namespace ndksim::kernel::test {
namespace {

using AssertFree = KernelTest;

TEST_F(AssertFree, AssertionsAreNotEvaluatedWithoutDbg) {
    int evaluated = 0;
    EXPECT_EQ(violations_of([&] {
                  ASSERT(++evaluated == 5);
                  NT_ASSERT(++evaluated == 5);
                  EXPECT_FALSE(NT_VERIFY(++evaluated == 5));
              }),
              0U);
    EXPECT_EQ(evaluated, 1) << "only NT_VERIFY evaluates";
}

}  // namespace
}  // namespace ndksim::kernel::test
