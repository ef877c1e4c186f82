// SPDX-License-Identifier: MIT
// The socket transports' send queue: first in, first out, linked through frame::next without
// allocating, and a queue given up releases and counts every frame it held.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>

#include "wire/frame_queue.hpp"

namespace ndksim::wire {
namespace {

TEST(FrameQueue, HandsFramesOutInTheOrderTheyCame) {
    auto pool = frame_pool::create(4);
    frame_queue q;
    EXPECT_TRUE(q.empty());
    EXPECT_EQ(nullptr, q.pop());
    frame* a = pool->take();
    frame* b = pool->take();
    frame* c = pool->take();
    q.push(a);
    q.push(b);
    EXPECT_EQ(a, q.pop());
    EXPECT_EQ(nullptr, a->next) << "a frame handed out is unlinked";
    q.push(c);
    EXPECT_EQ(b, q.pop());
    EXPECT_EQ(c, q.pop());
    EXPECT_TRUE(q.empty());
    EXPECT_EQ(nullptr, q.pop());
    // Empty again, the queue starts over at its head.
    q.push(a);
    EXPECT_EQ(a, q.pop());
    for (frame* f : {a, b, c}) {
        frame_pool::release(f);
    }
}

TEST(FrameQueue, DropAllReleasesAndCountsEveryFrame) {
    auto pool = frame_pool::create(4);
    frame_queue q;
    for (int i = 0; i < 3; ++i) {
        q.push(pool->take());
    }
    std::atomic<std::uint64_t> dropped{5};
    q.drop_all(dropped);
    EXPECT_EQ(8U, dropped.load());
    EXPECT_TRUE(q.empty());
    // The frames went back to the pool: taking as many again grows nothing.
    const std::size_t allocated = pool->allocated();
    for (int i = 0; i < 3; ++i) {
        q.push(pool->take());
    }
    EXPECT_EQ(allocated, pool->allocated());
    q.drop_all(dropped);
    EXPECT_EQ(11U, dropped.load());
}

}  // namespace
}  // namespace ndksim::wire
