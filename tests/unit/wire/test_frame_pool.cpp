// SPDX-License-Identifier: MIT
// The frame pool reuses released frames before it grows, wherever they were released, and
// counts the frames out.

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <memory>
#include <set>
#include <thread>

#include "wire/frame.hpp"

namespace ndksim::wire {
namespace {

TEST(FramePool, ReleasedFramesAreTakenAgainBeforeThePoolGrows) {
    auto pool = frame_pool::create(4);
    std::array<frame*, 4> first{};
    for (frame*& f : first) {
        f = pool->take();
    }
    EXPECT_EQ(4u, pool->allocated());
    EXPECT_EQ(4u, pool->outstanding());
    for (frame* f : first) {
        frame_pool::release(f);
    }
    EXPECT_EQ(0u, pool->outstanding());
    // The same four frames come back, and the pool does not grow.
    std::set<frame*> again;
    for (std::size_t i = 0; i < first.size(); ++i) {
        again.insert(pool->take());
    }
    EXPECT_EQ(std::set<frame*>(first.begin(), first.end()), again);
    EXPECT_EQ(4u, pool->allocated());
    // Every frame is out: the next take grows the pool by a block.
    frame* extra = pool->take();
    EXPECT_FALSE(again.contains(extra));
    EXPECT_EQ(8u, pool->allocated());
    for (frame* f : again) {
        frame_pool::release(f);
    }
    frame_pool::release(extra);
    EXPECT_EQ(0u, pool->outstanding());
}

TEST(FramePool, FramesReleasedOnAnotherThreadAreTakenAgain) {
    auto pool = frame_pool::create(2);
    frame* a = pool->take();
    frame* b = pool->take();
    std::thread other([a, b] {
        frame_pool::release(b);
        frame_pool::release(a);
    });
    other.join();
    const std::set<frame*> taken{pool->take(), pool->take()};
    EXPECT_EQ((std::set<frame*>{a, b}), taken);
    EXPECT_EQ(2u, pool->allocated());
    frame_pool::release(a);
    frame_pool::release(b);
    EXPECT_EQ(0u, pool->outstanding());
}

}  // namespace
}  // namespace ndksim::wire
