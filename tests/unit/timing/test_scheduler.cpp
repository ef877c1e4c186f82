// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "timing/scheduler.hpp"

namespace ndksim::timing {
namespace {

scheduler::options deterministic() {
    return {run_mode::deterministic, poll_policy::block, "t"};
}

TEST(DeterministicScheduler, RunOneAdvancesTheClockToTheEvent) {
    scheduler s(deterministic());
    bool ran = false;
    s.post_after(microseconds(5), [&] { ran = true; });
    EXPECT_EQ(s.now(), 0U);
    EXPECT_TRUE(s.run_one());
    EXPECT_TRUE(ran);
    EXPECT_EQ(s.now(), microseconds(5));
    EXPECT_FALSE(s.run_one());
}

TEST(DeterministicScheduler, RunForStopsAtTheHorizonAndSetsTheClock) {
    scheduler s(deterministic());
    std::vector<int> ran;
    s.post_after(nanoseconds(100), [&] { ran.push_back(1); });
    s.post_after(nanoseconds(300), [&] { ran.push_back(2); });
    EXPECT_EQ(s.run_for(nanoseconds(200)), 1U);
    EXPECT_EQ(ran, (std::vector<int>{1}));
    EXPECT_EQ(s.now(), nanoseconds(200));
    EXPECT_EQ(s.run_for(nanoseconds(200)), 1U);
    EXPECT_EQ(ran, (std::vector<int>{1, 2}));
    EXPECT_EQ(s.now(), nanoseconds(400));
}

TEST(DeterministicScheduler, TasksMayPostTasksAndTheyRunInOrder) {
    scheduler s(deterministic());
    std::vector<int> ran;
    s.post([&] {
        ran.push_back(1);
        s.post([&] { ran.push_back(3); });
    });
    s.post([&] { ran.push_back(2); });
    EXPECT_EQ(s.run_until_idle(), 3U);
    EXPECT_EQ(ran, (std::vector<int>{1, 2, 3}));
    EXPECT_TRUE(s.idle());
}

TEST(DeterministicScheduler, PastTimesRunAtNowNotInThePast) {
    scheduler s(deterministic());
    s.run_for(microseconds(10));
    sim_time seen = 0;
    s.post_at(microseconds(1), [&] { seen = s.now(); });
    s.run_until_idle();
    EXPECT_EQ(seen, microseconds(10));
}

TEST(DeterministicScheduler, InTaskIsTrueOnlyInsideATask) {
    scheduler s(deterministic());
    bool inside = false;
    s.post([&] { inside = s.in_task(); });
    EXPECT_FALSE(s.in_task());
    s.run_until_idle();
    EXPECT_TRUE(inside);
}

TEST(DeterministicScheduler, WaitUntilDrivesEventsUntilThePredicateHolds) {
    scheduler s(deterministic());
    std::atomic<int> count{0};
    for (int i = 0; i < 5; ++i) {
        s.post_after(microseconds(static_cast<std::uint64_t>(i)), [&] { ++count; });
    }
    EXPECT_TRUE(s.wait_until([&] { return count.load() == 3; }, std::chrono::seconds(1)));
    EXPECT_EQ(count.load(), 3);
    EXPECT_FALSE(s.wait_until([&] { return count.load() == 99; }, std::chrono::seconds(1)));
    EXPECT_EQ(count.load(), 5);
}

class ThreadedScheduler : public ::testing::TestWithParam<poll_policy> {};

TEST_P(ThreadedScheduler, RunsPostedTasksOnTheEngineThreadInOrder) {
    scheduler s({run_mode::threaded, GetParam(), "engine"});
    std::vector<int> ran;  // written on the engine thread only, read after the wait
    std::atomic<bool> engine_thread{true};
    std::atomic<int> done{0};
    const auto caller = std::this_thread::get_id();
    // Absolute times from one base: in threaded mode now() follows the wall clock, so relative
    // delays posted one after another would not share an instant. The base is an hour ahead, so
    // no host is slow enough for the posting to reach it (a time in the past would run at
    // "now", in post order); drain() then lets the tasks run without waiting for the wall clock.
    s.post([&] {
        const sim_time base = s.now() + seconds(3600);
        for (int i = 0; i < 1000; ++i) {
            s.post_at(base + nanoseconds(static_cast<std::uint64_t>(i % 7)), [&, i] {
                if (std::this_thread::get_id() == caller) {
                    engine_thread = false;
                }
                ran.push_back(i);
                done.fetch_add(1, std::memory_order_release);
            });
        }
        s.drain();
    });
    ASSERT_TRUE(s.wait_until([&] { return done.load(std::memory_order_acquire) == 1000; },
                             std::chrono::seconds(10)))
        << "engine ran " << done.load() << " of 1000 tasks within 10 s";
    EXPECT_TRUE(engine_thread.load());
    // Time order first, then post order within one instant.
    for (std::size_t k = 1; k < ran.size(); ++k) {
        const int a = ran[k - 1];
        const int b = ran[k];
        EXPECT_TRUE(a % 7 < b % 7 || (a % 7 == b % 7 && a < b)) << a << " before " << b;
    }
}

TEST(ThreadedSchedulerClock, NeverFallsBehindTheWallClock) {
    scheduler s({run_mode::threaded, poll_policy::block, "clock"});
    const auto start = std::chrono::steady_clock::now();
    std::atomic<bool> ran{false};
    // 20 ms ahead: far beyond the 1 ms slack, so it waits for the wall clock.
    s.post_after(milliseconds(20), [&] { ran = true; });
    ASSERT_TRUE(s.wait_until([&] { return ran.load(); }, std::chrono::seconds(10)));
    const auto waited = std::chrono::steady_clock::now() - start;
    EXPECT_GE(waited, std::chrono::milliseconds(18));
    EXPECT_GE(s.now(), milliseconds(20));
}

TEST(ThreadedSchedulerClock, PacedHoldsEachEventUntilTheScaledWallTime) {
    scheduler::options o{run_mode::threaded, poll_policy::block, "paced"};
    o.wall_slack = 0;
    o.pace_factor = 1000.0;  // a simulated microsecond lasts a wall millisecond
    scheduler s(o);
    const auto start = std::chrono::steady_clock::now();
    const sim_time created = s.now();
    std::atomic<bool> ran{false};
    s.post_after(microseconds(5), [&] { ran = true; });
    ASSERT_TRUE(s.wait_until([&] { return ran.load(); }, std::chrono::seconds(10)));
    // The event may not run before 5 us x 1000 of wall time (a lower bound only: a busy host
    // runs it later, never earlier).
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(5));
    // The clock follows the wall divided by the factor: it moved far less than a millisecond.
    EXPECT_LT(s.now() - created, milliseconds(5));
}

// Threaded schedulers count their wall tie from one epoch, the process's first one's start, so
// a scheduler made later does not run behind: an event posted from the first for its own now
// would otherwise land in the second's future by the gap between them, and wait that long.
TEST(ThreadedSchedulerClock, SchedulersMadeApartShareOneClock) {
    scheduler first({run_mode::threaded, poll_policy::block, "first"});
    // A gap between the two schedulers, not a wait for an event.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    scheduler second({run_mode::threaded, poll_policy::block, "second"});
    // Read in this order, a preemption between the reads only moves the second clock on.
    const sim_time first_now = first.now();
    const sim_time second_now = second.now();
    EXPECT_GT(second_now + milliseconds(100), first_now)
        << "the second scheduler's clock runs behind the first's by the gap between them";
}

TEST(ThreadedSchedulerClock, DrainRunsWhatIsLeftWithoutWaitingForTheWallClock) {
    scheduler s({run_mode::threaded, poll_policy::block, "drain"});
    std::atomic<bool> ran{false};
    // An hour ahead: without drain() this waits for the wall clock.
    s.post_after(seconds(3600), [&] { ran = true; });
    s.drain();
    ASSERT_TRUE(s.wait_until([&] { return ran.load(); }, std::chrono::seconds(30)))
        << "drain() left the event waiting for the wall clock";
    EXPECT_GE(s.now(), seconds(3600));
}

// Spins until the steady clock has moved on by `d` (a task may not block its engine thread).
void spin_for(std::chrono::microseconds d) {
    const auto until = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < until) {
    }
}

// A task is one instant: the wall clock is read once when it begins, so now() does not move
// while the task runs, and the next task sees the time the first one took.
TEST(ThreadedSchedulerClock, ATaskSeesOneInstantAndTheNextTaskALaterOne) {
    scheduler s({run_mode::threaded, poll_policy::block, "hold"});
    std::atomic<sim_time> first{0};
    std::atomic<sim_time> after_spin{0};
    std::atomic<sim_time> behind_wall{0};
    std::atomic<sim_time> advanced{0};
    std::atomic<sim_time> next{0};
    std::atomic<bool> done{false};
    s.post([&] {
        first = s.now();
        spin_for(std::chrono::microseconds(2000));
        after_spin = s.now();
        // A peer's time the wall clock has already passed (but the held clock has not) moves
        // the held clock too.
        s.advance_to(first + milliseconds(1));
        behind_wall = s.now();
        // A frame from a peer whose clock is ahead still moves a held clock forward.
        s.advance_to(first + milliseconds(500));
        advanced = s.now();
        s.post([&] {
            next = s.now();
            done = true;
        });
    });
    ASSERT_TRUE(s.wait_until([&] { return done.load(); }, std::chrono::seconds(10)));
    EXPECT_EQ(first.load(), after_spin.load());
    EXPECT_GE(behind_wall.load(), first.load() + milliseconds(1));
    EXPECT_GE(advanced.load(), first.load() + milliseconds(500));
    EXPECT_GE(next.load(), advanced.load());
    // Outside the engine thread the clock is read at each call.
    const sim_time a = s.now();
    spin_for(std::chrono::microseconds(2000));
    EXPECT_GE(s.now(), a + milliseconds(2));
}

// A hold on a thread that does not own the queue does nothing: a consumer's now() follows the
// wall clock.
TEST(ThreadedSchedulerClock, AHoldOffTheEngineThreadDoesNothing) {
    scheduler s({run_mode::threaded, poll_policy::block, "hold"});
    const scheduler::clock_hold hold(s);
    const sim_time a = s.now();
    spin_for(std::chrono::microseconds(2000));
    EXPECT_GE(s.now(), a + milliseconds(2));
}

INSTANTIATE_TEST_SUITE_P(PollPolicies, ThreadedScheduler,
                         ::testing::Values(poll_policy::block, poll_policy::spin,
                                           poll_policy::spin_then_block));

// A timer cancelled before it is due never runs, leaves the clock where it was and leaves the
// scheduler idle; only the owner (a task) cancels, and a timer posted from outside a task
// cannot be cancelled: it gets no id and runs.
TEST(DeterministicScheduler, ACancelledTimerNeverRunsAndLeavesTheClock) {
    scheduler s(deterministic());
    bool fired = false;
    timer_id id = k_no_timer;
    s.post([&] { id = s.post_timer_after(microseconds(50), [&] { fired = true; }); });
    EXPECT_TRUE(s.run_one());
    ASSERT_NE(id, k_no_timer);
    EXPECT_FALSE(s.idle());
    EXPECT_FALSE(s.cancel_timer(id));  // not the owner here
    bool cancelled = false;
    bool again = true;
    s.post([&] {
        cancelled = s.cancel_timer(id);
        again = s.cancel_timer(id);
    });
    EXPECT_TRUE(s.run_one());
    EXPECT_TRUE(cancelled);
    EXPECT_FALSE(again);
    EXPECT_FALSE(s.run_one());
    EXPECT_FALSE(fired);
    EXPECT_EQ(s.now(), 0U);
    EXPECT_TRUE(s.idle());
    EXPECT_EQ(s.post_timer_after(microseconds(1), [&] { fired = true; }), k_no_timer);
    EXPECT_TRUE(s.run_one());
    EXPECT_TRUE(fired);
    EXPECT_EQ(s.now(), microseconds(1));
}

}  // namespace
}  // namespace ndksim::timing
