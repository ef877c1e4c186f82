// SPDX-License-Identifier: MIT
// poll_policy::consumer: a consumer thread runs the engine in progress() and in its waits; the
// engine thread keeps out while a consumer calls progress(), and runs what no consumer drives.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "timing/scheduler.hpp"
#include "unit/eventually.hpp"

namespace ndksim::timing {
namespace {

using ndksim::test::eventually;

scheduler::options consumer_driven(std::chrono::nanoseconds hold) {
    scheduler::options o{run_mode::threaded, poll_policy::consumer, "consumer"};
    o.consumer_hold = hold;
    return o;
}

// Where a task ran, relative to the thread that posted it.
enum class ran_on { nowhere, caller, elsewhere };

// Posts a task and waits until it has run (10 s at most), calling progress() meanwhile when
// `drive` says so; returns where it ran.
ran_on post_and_wait(scheduler& s, bool drive) {
    const auto caller = std::this_thread::get_id();
    std::atomic<ran_on> where{ran_on::nowhere};
    s.post([&] {
        where.store(std::this_thread::get_id() == caller ? ran_on::caller : ran_on::elsewhere,
                    std::memory_order_release);
    });
    const bool ran = eventually([&] {
        if (where.load(std::memory_order_acquire) == ran_on::nowhere && drive) {
            s.progress();
        }
        return where.load(std::memory_order_acquire) != ran_on::nowhere;
    });
    EXPECT_TRUE(ran) << "a posted task did not run within 10 s";
    return where.load(std::memory_order_acquire);
}

ran_on post_and_progress(scheduler& s) {
    return post_and_wait(s, true);
}

// The engine thread may run the first tasks (it ran the engine before any consumer called);
// once a task ran inside progress(), the engine thread hands over for good (the hold is an hour
// long), so every later task runs on the calling thread, in order.
TEST(ConsumerPolicy, OnceHandedOverEveryTaskRunsInsideProgressOnTheCallingThread) {
    scheduler s(consumer_driven(std::chrono::hours(1)));
    ASSERT_TRUE(eventually([&] { return post_and_progress(s) == ran_on::caller; }))
        << "no task ran on the thread calling progress() within 10 s";
    for (int i = 0; i < 200; ++i) {
        ASSERT_EQ(ran_on::caller, post_and_progress(s)) << "task " << i;
    }
    std::vector<int> order;  // written by the tasks, on this thread
    for (int i = 0; i < 50; ++i) {
        s.post([&order, i] { order.push_back(i); });
    }
    ASSERT_TRUE(eventually([&] {
        s.progress();
        return order.size() == 50;
    }));
    for (int i = 0; i < 50; ++i) {
        EXPECT_EQ(i, order[static_cast<std::size_t>(i)]);
    }
}

TEST(ConsumerPolicy, TheEngineThreadRunsWhatNoConsumerDrives) {
    scheduler s(consumer_driven(std::chrono::milliseconds(1)));
    EXPECT_EQ(ran_on::elsewhere, post_and_wait(s, false));
}

// A consumer that stops calling progress() still sees its engine run: the engine thread steps
// back in once the hold has passed.
TEST(ConsumerPolicy, TheEngineThreadStepsBackInWhenTheConsumerStopsPolling) {
    scheduler s(consumer_driven(std::chrono::milliseconds(1)));
    ASSERT_TRUE(eventually([&] { return post_and_progress(s) == ran_on::caller; }));
    EXPECT_EQ(ran_on::elsewhere, post_and_wait(s, false))
        << "the engine thread did not step back in";
}

// Waiting is driving: wait_until runs the engine on the waiting thread, timers included.
TEST(ConsumerPolicy, WaitUntilRunsTheEngineAndItsTimersOnTheWaitingThread) {
    scheduler s(consumer_driven(std::chrono::hours(1)));
    ASSERT_TRUE(eventually([&] { return post_and_progress(s) == ran_on::caller; }));
    const auto caller = std::this_thread::get_id();
    std::atomic<int> ran{0};
    std::atomic<bool> on_caller{true};
    for (int i = 1; i <= 3; ++i) {
        s.post_after(milliseconds(static_cast<std::uint64_t>(i)), [&] {
            if (std::this_thread::get_id() != caller) {
                on_caller.store(false, std::memory_order_relaxed);
            }
            ran.fetch_add(1, std::memory_order_release);
        });
    }
    ASSERT_TRUE(s.wait_until([&] { return ran.load(std::memory_order_acquire) == 3; },
                             std::chrono::seconds(10)))
        << "wait_until ran " << ran.load() << " of 3 timed tasks within 10 s";
    EXPECT_TRUE(on_caller.load(std::memory_order_relaxed));
    EXPECT_FALSE(s.wait_until([&] { return ran.load() == 4; }, std::chrono::milliseconds(5)));
}

// A task that calls progress() (a completion callback that polls) is the engine already: the
// call does nothing rather than running the io_context inside itself (where it would wait for
// the lock its own thread holds).
TEST(ConsumerPolicy, ProgressInsideATaskDoesNothing) {
    scheduler s(consumer_driven(std::chrono::hours(1)));
    ASSERT_TRUE(eventually([&] { return post_and_progress(s) == ran_on::caller; }));
    const auto caller = std::this_thread::get_id();
    std::atomic<std::size_t> inner{99};
    std::atomic<bool> on_caller{false};
    std::atomic<bool> done{false};
    s.post([&] {
        on_caller.store(std::this_thread::get_id() == caller, std::memory_order_relaxed);
        inner.store(s.progress(), std::memory_order_relaxed);
        done.store(true, std::memory_order_release);
    });
    ASSERT_TRUE(eventually([&] {
        s.progress();
        return done.load(std::memory_order_acquire);
    }));
    EXPECT_TRUE(on_caller.load(std::memory_order_relaxed));
    EXPECT_EQ(0U, inner.load(std::memory_order_relaxed));
}

// One call runs a bounded number of handlers, so a consumer gets back to what it polls even
// while the engine always has more to do: here a task that posts itself again forever.
TEST(ConsumerPolicy, OneCallRunsABoundedPass) {
    scheduler s(consumer_driven(std::chrono::hours(1)));
    ASSERT_TRUE(eventually([&] { return post_and_progress(s) == ran_on::caller; }));
    std::atomic<bool> stop{false};
    std::atomic<std::uint64_t> runs{0};
    std::function<void()> again = [&] {
        runs.fetch_add(1, std::memory_order_relaxed);
        if (!stop.load(std::memory_order_relaxed)) {
            s.post(again);
        }
    };
    s.post(again);
    for (int i = 0; i < 100; ++i) {
        s.progress();  // returns although a task is always due
    }
    EXPECT_GT(runs.load(std::memory_order_relaxed), 0U);
    stop.store(true, std::memory_order_relaxed);
    ASSERT_TRUE(eventually([&] { return s.progress() == 0 && s.idle(); }));
}

TEST(ConsumerPolicy, ProgressDoesNothingUnderTheOtherPoliciesAndModes) {
    for (const poll_policy p :
         {poll_policy::block, poll_policy::spin, poll_policy::spin_then_block}) {
        scheduler s({run_mode::threaded, p, "other"});
        std::atomic<bool> done{false};
        s.post([&] { done.store(true, std::memory_order_release); });
        EXPECT_EQ(0U, s.progress()) << static_cast<int>(p);
        ASSERT_TRUE(eventually([&] { return done.load(std::memory_order_acquire); }));
    }
    scheduler d({run_mode::deterministic, poll_policy::consumer, "loop"});
    bool ran = false;
    d.post([&] { ran = true; });
    EXPECT_EQ(0U, d.progress());
    EXPECT_FALSE(ran);
    EXPECT_TRUE(d.run_one());
    EXPECT_TRUE(ran);
}

TEST(ConsumerPolicy, ProgressAfterStopDoesNothing) {
    scheduler s(consumer_driven(std::chrono::hours(1)));
    s.stop();
    bool ran = false;
    s.post([&] { ran = true; });
    EXPECT_EQ(0U, s.progress());
    EXPECT_FALSE(ran);
}

}  // namespace
}  // namespace ndksim::timing
