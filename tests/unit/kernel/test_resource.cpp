// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <thread>

#include "kernel_test.hpp"
#include "wdm.h"

namespace ndksim::kernel::test {
namespace {

// Every test enters a critical region, as callers of the resource routines must.
class Resource : public KernelTest {
  protected:
    void SetUp() override {
        KernelTest::SetUp();
        ASSERT_EQ(ExInitializeResourceLite(&resource_), STATUS_SUCCESS);
        KeEnterCriticalRegion();
    }
    void TearDown() override {
        KeLeaveCriticalRegion();
        EXPECT_EQ(ExDeleteResourceLite(&resource_), STATUS_SUCCESS);
        KernelTest::TearDown();
    }
    ERESOURCE resource_;
};

// Runs `body` on another thread inside a critical region and returns its result.
template <typename Body>
BOOLEAN elsewhere(Body body) {
    BOOLEAN result = FALSE;
    std::thread([&] {
        KeEnterCriticalRegion();
        result = body();
        KeLeaveCriticalRegion();
    }).join();
    return result;
}

TEST_F(Resource, ExclusiveOwnerMayAcquireAgainInEitherMode) {
    EXPECT_TRUE(ExAcquireResourceExclusiveLite(&resource_, TRUE));
    EXPECT_TRUE(ExIsResourceAcquiredExclusiveLite(&resource_));
    EXPECT_TRUE(ExAcquireResourceExclusiveLite(&resource_, TRUE));
    EXPECT_TRUE(ExAcquireResourceSharedLite(&resource_, TRUE));
    EXPECT_EQ(ExIsResourceAcquiredSharedLite(&resource_), 3U);
    EXPECT_FALSE(elsewhere([&] { return ExAcquireResourceSharedLite(&resource_, FALSE); }));
    ExReleaseResourceLite(&resource_);
    ExReleaseResourceLite(&resource_);
    ExReleaseResourceLite(&resource_);
    EXPECT_FALSE(ExIsResourceAcquiredExclusiveLite(&resource_));
    EXPECT_EQ(ExIsResourceAcquiredSharedLite(&resource_), 0U);
}

TEST_F(Resource, SharedOwnersCoexistAndKeepWritersOut) {
    EXPECT_TRUE(ExAcquireResourceSharedLite(&resource_, TRUE));
    EXPECT_FALSE(ExIsResourceAcquiredExclusiveLite(&resource_));
    EXPECT_TRUE(elsewhere([&] {
        const BOOLEAN got = ExAcquireResourceSharedLite(&resource_, FALSE);
        ExReleaseResourceLite(&resource_);
        return got;
    }));
    EXPECT_FALSE(elsewhere([&] { return ExAcquireResourceExclusiveLite(&resource_, FALSE); }));
    Tally got;
    std::thread writer([&] {
        KeEnterCriticalRegion();
        ExAcquireResourceExclusiveLite(&resource_, TRUE);
        got.bump();
        ExReleaseResourceLite(&resource_);
        KeLeaveCriticalRegion();
    });
    EXPECT_EQ(got.count(), 0);
    ExReleaseResourceLite(&resource_);
    EXPECT_TRUE(got.reaches(1)) << "the waiting writer gets in after the last reader";
    writer.join();
}

TEST_F(Resource, ReleaseForThreadReleasesTheNamedOwner) {
    ASSERT_TRUE(ExAcquireResourceExclusiveLite(&resource_, TRUE));
    ExReleaseResourceForThreadLite(&resource_, ExGetCurrentResourceThread());
    EXPECT_FALSE(ExIsResourceAcquiredExclusiveLite(&resource_));
}

TEST_F(Resource, SharedOwnerAskingForExclusiveIsAViolation) {
    ASSERT_TRUE(ExAcquireResourceSharedLite(&resource_, TRUE));
    BOOLEAN got = TRUE;
    EXPECT_EQ(violations_of([&] { got = ExAcquireResourceExclusiveLite(&resource_, TRUE); }), 1U);
    EXPECT_FALSE(got);
    ExReleaseResourceLite(&resource_);
}

TEST_F(Resource, ReleasingAResourceNotOwnedIsAViolation) {
    EXPECT_EQ(violations_of([&] { ExReleaseResourceLite(&resource_); }), 1U);
}

TEST_F(Resource, AcquiringOutsideACriticalRegionIsAViolation) {
    KeLeaveCriticalRegion();
    EXPECT_EQ(violations_of([&] { ExAcquireResourceSharedLite(&resource_, TRUE); }), 1U);
    ExReleaseResourceLite(&resource_);
    KeEnterCriticalRegion();
}

TEST_F(Resource, DeletingAnOwnedOrUnknownResourceIsAViolation) {
    ERESOURCE other;
    ASSERT_EQ(ExInitializeResourceLite(&other), STATUS_SUCCESS);
    EXPECT_EQ(violations_of([&] { ExInitializeResourceLite(&other); }), 1U) << "initialized twice";
    ExAcquireResourceExclusiveLite(&other, TRUE);
    EXPECT_EQ(violations_of([&] { ExDeleteResourceLite(&other); }), 1U);
    EXPECT_EQ(violations_of([&] { ExDeleteResourceLite(&other); }), 1U) << "already deleted";
    EXPECT_EQ(violations_of([&] { ExAcquireResourceExclusiveLite(&other, TRUE); }), 1U);
}

TEST_F(Resource, FreeingPoolThatHoldsALiveResourceIsAViolation) {
    const ULONG tag = 0x63736552;  // 'Resc'
    auto* other =
        static_cast<PERESOURCE>(ExAllocatePool2(POOL_FLAG_NON_PAGED, sizeof(ERESOURCE), tag));
    ExInitializeResourceLite(other);
    EXPECT_EQ(ndksim_kernel_resources_live(), 2U);
    EXPECT_EQ(violations_of([&] { ExFreePoolWithTag(other, tag); }), 1U);
    EXPECT_EQ(ndksim_kernel_resources_live(), 1U) << "forgotten with its memory";
}

}  // namespace
}  // namespace ndksim::kernel::test
