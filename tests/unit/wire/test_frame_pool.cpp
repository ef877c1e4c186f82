// SPDX-License-Identifier: MIT
// The frame pool reuses released frames before it grows, wherever they were released, and
// counts the frames out. A pool that names its scheduler takes a frame released on that
// scheduler's owning thread straight back, and is still freed by its last frame.

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "timing/scheduler.hpp"
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

timing::scheduler::options deterministic() {
    return {timing::run_mode::deterministic, timing::poll_policy::block, "pool"};
}

// Runs `fn` as a task of `s`, on the thread that owns it while the task runs.
template <class F>
void in_task(timing::scheduler& s, F fn) {
    s.post(std::move(fn));
    ASSERT_EQ(1u, s.run_until_idle());
}

TEST(FramePool, AFrameReleasedOnTheOwningThreadIsTheNextOneTaken) {
    timing::scheduler s(deterministic());
    auto pool = frame_pool::create(8, SIZE_MAX, &s);
    frame* a = nullptr;
    frame* b = nullptr;
    in_task(s, [&] {
        a = pool->take();
        b = pool->take();
    });
    EXPECT_EQ(2u, pool->outstanding());
    // Outside the scheduler's tasks the frame goes onto the shared list, which is read only
    // once the taker's own list is empty; in a task it is the taker's next frame.
    frame_pool::release(a);
    EXPECT_EQ(1u, pool->outstanding());
    frame* next = nullptr;
    in_task(s, [&] {
        frame_pool::release(b);
        EXPECT_EQ(0u, pool->outstanding());
        next = pool->take();
    });
    EXPECT_EQ(b, next);
    EXPECT_EQ(1u, pool->outstanding());
    in_task(s, [&] { frame_pool::release(next); });
    EXPECT_EQ(0u, pool->outstanding());
    EXPECT_EQ(8u, pool->allocated());
}

TEST(FramePool, CountsEveryFrameOutAcrossItsCountingSteps) {
    // The count moves in steps of 64 frames; whatever mix of threads brings them back, the
    // frames out are exact.
    timing::scheduler s(deterministic());
    auto pool = frame_pool::create(16, SIZE_MAX, &s);
    std::vector<frame*> taken;
    in_task(s, [&] {
        for (int i = 0; i < 150; ++i) {
            taken.push_back(pool->take());
        }
    });
    EXPECT_EQ(150u, pool->outstanding());
    std::thread other([&] {
        for (std::size_t i = 0; i < 70; ++i) {
            frame_pool::release(taken[i]);
        }
    });
    other.join();
    EXPECT_EQ(80u, pool->outstanding());
    in_task(s, [&] {
        for (std::size_t i = 70; i < taken.size(); ++i) {
            frame_pool::release(taken[i]);
        }
    });
    EXPECT_EQ(0u, pool->outstanding());
    // Every frame is reused before the pool grows again.
    in_task(s, [&] {
        taken.clear();
        for (int i = 0; i < 160; ++i) {
            taken.push_back(pool->take());
        }
    });
    EXPECT_EQ(160u, pool->allocated());
    in_task(s, [&] {
        for (frame* f : taken) {
            frame_pool::release(f);
        }
    });
    EXPECT_EQ(0u, pool->outstanding());
}

TEST(FramePool, ARetiredPoolIsFreedByItsLastFrameOnTheOwningThreadToo) {
    // The owner lets go while two frames are out; one comes back from another thread, the
    // last in a task of the owner's scheduler. The pool is freed then (the sanitizer builds
    // report it otherwise, as a leak).
    timing::scheduler s(deterministic());
    auto pool = frame_pool::create(4, SIZE_MAX, &s);
    frame* a = nullptr;
    frame* b = nullptr;
    in_task(s, [&] {
        a = pool->take();
        b = pool->take();
    });
    // Retiring takes the taker's reserve of counted frames out of the count: two are out.
    frame_pool* const raw = pool.get();
    pool.reset();
    EXPECT_EQ(2u, raw->outstanding());
    std::thread other([a] { frame_pool::release(a); });
    other.join();
    EXPECT_EQ(1u, raw->outstanding());
    in_task(s, [b] { frame_pool::release(b); });
}

TEST(FramePool, ARetiredPoolWithNothingOutIsFreedAtOnce) {
    // The frames came back, some into the taker's reserve: nothing is out, and the pool goes
    // with its owner's reference (the sanitizer builds report a leak otherwise).
    timing::scheduler s(deterministic());
    auto pool = frame_pool::create(4, SIZE_MAX, &s);
    in_task(s, [&] {
        frame* f = pool->take();
        frame* g = pool->take();
        frame_pool::release(f);
        frame_pool::release(g);
    });
    EXPECT_EQ(0u, pool->outstanding());
    pool.reset();
}

}  // namespace
}  // namespace ndksim::wire
