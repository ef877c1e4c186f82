// SPDX-License-Identifier: MIT
// The frame pool hands out the frames released last first, wherever they were released, so
// the frames a stage copies into are the ones still in the caches; and reuse never grows it.

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <memory>
#include <set>
#include <thread>

#include "wire/frame.hpp"

namespace ndksim::wire {
namespace {

TEST(FramePool, TheFrameReleasedLastIsTakenFirst) {
    auto pool = frame_pool::create(8);
    frame* a = pool->take();
    frame* b = pool->take();
    ASSERT_EQ(8u, pool->allocated());
    frame_pool::release(a);
    // Six frames never used are free as well; the one just released goes out first.
    EXPECT_EQ(a, pool->take());
    frame_pool::release(b);
    frame_pool::release(a);
    EXPECT_EQ(a, pool->take());
    EXPECT_EQ(b, pool->take());
    EXPECT_EQ(2u, pool->outstanding());
    EXPECT_EQ(8u, pool->allocated()) << "reuse does not grow the pool";
    frame_pool::release(a);
    frame_pool::release(b);
    EXPECT_EQ(0u, pool->outstanding());
}

TEST(FramePool, ReleasedFramesComeBackBeforeTheOlderFreeOnes) {
    auto pool = frame_pool::create(4);
    std::array<frame*, 4> all{};
    for (frame*& f : all) {
        f = pool->take();
    }
    // Three go back and one is taken again; then a fourth goes back, and every frame is
    // taken: the one released last first, then the earlier ones, newest first.
    frame_pool::release(all[2]);
    frame_pool::release(all[0]);
    frame_pool::release(all[3]);
    frame* first = pool->take();
    EXPECT_EQ(all[3], first);
    frame_pool::release(all[1]);
    EXPECT_EQ(all[1], pool->take());
    EXPECT_EQ(all[0], pool->take());
    EXPECT_EQ(all[2], pool->take());
    EXPECT_EQ(4u, pool->allocated());
    // Every frame is out; the next take grows the pool by a block.
    frame* extra = pool->take();
    EXPECT_EQ(8u, pool->allocated());
    std::set<frame*> distinct(all.begin(), all.end());
    EXPECT_FALSE(distinct.contains(extra));
    for (frame* f : all) {
        frame_pool::release(f);
    }
    frame_pool::release(extra);
    EXPECT_EQ(0u, pool->outstanding());
}

TEST(FramePool, AFrameReleasedOnAnotherThreadIsTakenFirst) {
    auto pool = frame_pool::create(8);
    frame* a = pool->take();
    frame* b = pool->take();
    std::thread other([a, b] {
        frame_pool::release(b);
        frame_pool::release(a);
    });
    other.join();
    EXPECT_EQ(a, pool->take());
    EXPECT_EQ(b, pool->take());
    EXPECT_EQ(8u, pool->allocated());
    frame_pool::release(a);
    frame_pool::release(b);
}

TEST(FramePoolDeathTest, AFrameReleasedTwiceStopsTheProcessWithAMessage) {
    // A frame released twice links the free list to itself: take() names the fault and stops
    // instead of walking the loop for ever.
    EXPECT_DEATH(
        {
            auto pool = frame_pool::create(4);
            frame* a = pool->take();
            frame_pool::release(a);
            frame_pool::release(a);
            static_cast<void>(pool->take());
        },
        "released twice");
}

}  // namespace
}  // namespace ndksim::wire
