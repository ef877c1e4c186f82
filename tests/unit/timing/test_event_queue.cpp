// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "timing/event_queue.hpp"

namespace ndksim::timing {
namespace {

TEST(EventQueue, PopsInTimeOrder) {
    event_queue q;
    std::vector<int> order;
    q.push(nanoseconds(30), [&] { order.push_back(3); });
    q.push(nanoseconds(10), [&] { order.push_back(1); });
    q.push(nanoseconds(20), [&] { order.push_back(2); });
    sim_time when = 0;
    std::vector<sim_time> times;
    while (!q.empty()) {
        task t = q.pop(when);
        times.push_back(when);
        t();
    }
    EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(times, (std::vector<sim_time>{10'000, 20'000, 30'000}));
}

TEST(EventQueue, SameTimeEventsRunInScheduleOrder) {
    event_queue q;
    std::vector<int> order;
    for (int i = 0; i < 100; ++i) {
        q.push(microseconds(1), [&order, i] { order.push_back(i); });
    }
    sim_time when = 0;
    while (!q.empty()) {
        q.pop(when)();
    }
    ASSERT_EQ(order.size(), 100U);
    for (int i = 0; i < 100; ++i) {
        EXPECT_EQ(order[static_cast<std::size_t>(i)], i);
    }
}

// Tasks wait in reused slots: pushes between pops keep the (time, sequence) order, and a task
// popped leaves nothing of its captures behind in the queue.
TEST(EventQueue, InterleavedPushesAndPopsKeepTheOrderAndReleaseTheTasks) {
    event_queue q(2);
    std::vector<int> order;
    auto token = std::make_shared<int>(0);
    sim_time when = 0;
    int next = 0;
    for (int round = 0; round < 50; ++round) {
        // Three events per round at times that interleave with those still queued.
        for (int k = 0; k < 3; ++k) {
            const int id = next++;
            q.push(nanoseconds(static_cast<std::uint64_t>(round * 2 + k)),
                   [&order, id, token] { order.push_back(id); });
        }
        q.pop(when)();
        q.pop(when)();
    }
    while (!q.empty()) {
        q.pop(when)();
    }
    EXPECT_EQ(token.use_count(), 1) << "every popped task was destroyed";
    ASSERT_EQ(order.size(), 150U);
    // Expected: a reference run of the same pushes and pops with a sorted list.
    std::vector<std::pair<std::uint64_t, int>> pending;
    std::vector<int> expected;
    next = 0;
    for (int round = 0; round < 50; ++round) {
        for (int k = 0; k < 3; ++k) {
            pending.emplace_back(static_cast<std::uint64_t>(round * 2 + k), next++);
        }
        for (int n = 0; n < 2; ++n) {
            auto first = std::min_element(pending.begin(), pending.end());
            expected.push_back(first->second);
            pending.erase(first);
        }
    }
    std::sort(pending.begin(), pending.end());
    for (const auto& p : pending) {
        expected.push_back(p.second);
    }
    EXPECT_EQ(order, expected);
}

// Timers wait in a heap of their own; events and timers still come out in one (time, sequence)
// order, the order a single queue gives: checked against a sorted model over random pushes
// (either kind, times that collide often) interleaved with pops.
TEST(EventQueue, TimersAndEventsComeOutInOneTimeAndScheduleOrder) {
    event_queue q(4);
    std::mt19937 rng(7);
    std::vector<int> order;
    std::vector<sim_time> times;
    // The model: (time, push number), sorted.
    std::vector<std::tuple<sim_time, int>> pending;
    std::vector<int> expected;
    std::vector<sim_time> expected_times;
    int next = 0;
    sim_time now = 0;
    for (int step = 0; step < 20'000; ++step) {
        if (pending.empty() || rng() % 3 != 0) {
            const sim_time when = now + rng() % 8;  // many ties
            const int id = next++;
            if (rng() % 2 == 0) {
                q.push_timer(when, [&order, id] { order.push_back(id); });
            } else {
                q.push(when, [&order, id] { order.push_back(id); });
            }
            pending.emplace_back(when, id);
        } else {
            sim_time when = 0;
            q.pop(when)();
            times.push_back(when);
            now = when;
            auto first = std::min_element(pending.begin(), pending.end());
            expected.push_back(std::get<1>(*first));
            expected_times.push_back(std::get<0>(*first));
            pending.erase(first);
        }
        ASSERT_EQ(q.size(), pending.size());
        if (!pending.empty()) {
            ASSERT_EQ(q.next_time(),
                      std::get<0>(*std::min_element(pending.begin(), pending.end())));
        }
    }
    EXPECT_EQ(order, expected);
    EXPECT_EQ(times, expected_times);
}

// Events pushed with a sequence number reserved earlier (reserve_seq) take the place in the
// order that number gives them among events of the same time. Streams that each push at
// non-decreasing times, events pushed anywhere from now on and events with reserved numbers,
// interleaved with pops, come out in (time, sequence) order: checked against a sorted model,
// with the queue's size and next time after every step.
TEST(EventQueue, ReservedSequenceNumbersKeepTheirPlaceInTheOrder) {
    event_queue q(4);
    std::mt19937 rng(23);
    std::vector<int> order;
    std::set<std::tuple<sim_time, std::uint64_t, int>> pending;  // time, sequence, number
    std::vector<int> expected;
    std::vector<std::uint64_t> reserved;
    std::uint64_t seq = 0;  // the queue's sequence counter, mirrored
    std::vector<sim_time> stream_at(5, 0);
    int next = 0;
    sim_time now = 0;
    for (int step = 0; step < 40'000; ++step) {
        const unsigned pick = rng() % 16;
        const int id = next++;
        auto run = [&order, id] { order.push_back(id); };
        if (pick < 9) {  // a stream's next event, no earlier than its last one
            sim_time& at = stream_at[rng() % stream_at.size()];
            at = std::max(at, now) + rng() % 3;
            q.push(at, run);
            pending.emplace(at, seq++, id);
        } else if (pick < 11) {  // anywhere from now on
            const sim_time when = now + rng() % 64;
            q.push(when, run);
            pending.emplace(when, seq++, id);
        } else if (pick == 11) {
            reserved.push_back(q.reserve_seq());
            ++seq;
            --next;
        } else if (pick == 12 && !reserved.empty()) {
            const std::uint64_t s = reserved.front();
            reserved.erase(reserved.begin());
            const sim_time when = now + rng() % 4;
            q.push(when, s, run);
            pending.emplace(when, s, id);
        } else if (!pending.empty()) {
            --next;
            sim_time when = 0;
            q.pop(when)();
            now = when;
            auto first = pending.begin();
            ASSERT_EQ(when, std::get<0>(*first));
            expected.push_back(std::get<2>(*first));
            pending.erase(first);
        } else {
            --next;
        }
        ASSERT_EQ(q.size(), pending.size());
        if (!pending.empty()) {
            ASSERT_EQ(q.next_time(), std::get<0>(*pending.begin()));
        }
    }
    while (!q.empty()) {
        sim_time when = 0;
        q.pop(when)();
        auto first = pending.begin();
        ASSERT_EQ(when, std::get<0>(*first));
        expected.push_back(std::get<2>(*first));
        pending.erase(first);
    }
    EXPECT_EQ(order, expected);
}

// Cancelled timers leave the order at once, from anywhere in the timer heap: random pushes of
// both kinds, pops and cancels of random queued timers, against a sorted model; the events and
// timers that were not cancelled come out in the single-queue order, and nothing cancelled runs.
TEST(EventQueue, CancelledTimersLeaveTheOrderAndNeverRun) {
    event_queue q(4);
    std::mt19937 rng(11);
    std::vector<int> order;
    std::vector<std::tuple<sim_time, int>> pending;
    std::vector<std::tuple<timer_id, sim_time, int>> timers;  // queued timers: id, time, number
    std::vector<int> expected;
    std::vector<bool> cancelled;
    int next = 0;
    sim_time now = 0;
    for (int step = 0; step < 20'000; ++step) {
        const unsigned pick = rng() % 6;
        if (pending.empty() || pick < 3) {
            const sim_time when = now + rng() % 16;
            const int id = next++;
            cancelled.push_back(false);
            if (rng() % 2 == 0) {
                const timer_id t = q.push_timer(when, [&order, id] { order.push_back(id); });
                ASSERT_TRUE(q.timer_queued(t));
                timers.emplace_back(t, when, id);
            } else {
                q.push(when, [&order, id] { order.push_back(id); });
            }
            pending.emplace_back(when, id);
        } else if (pick == 3 && !timers.empty()) {
            const std::size_t k = rng() % timers.size();
            const auto [t, when, id] = timers[k];
            ASSERT_TRUE(q.cancel_timer(t));
            ASSERT_FALSE(q.timer_queued(t));
            ASSERT_FALSE(q.cancel_timer(t));  // a second cancel changes nothing
            cancelled[static_cast<std::size_t>(id)] = true;
            timers.erase(timers.begin() + static_cast<std::ptrdiff_t>(k));
            pending.erase(std::find(pending.begin(), pending.end(), std::make_tuple(when, id)));
        } else {
            sim_time when = 0;
            q.pop(when)();
            now = when;
            auto first = std::min_element(pending.begin(), pending.end());
            expected.push_back(std::get<1>(*first));
            ASSERT_EQ(when, std::get<0>(*first));
            const int id = std::get<1>(*first);
            pending.erase(first);
            std::erase_if(timers, [id](const auto& t) { return std::get<2>(t) == id; });
        }
        ASSERT_EQ(q.size(), pending.size());
        if (!pending.empty()) {
            ASSERT_EQ(q.next_time(),
                      std::get<0>(*std::min_element(pending.begin(), pending.end())));
        }
    }
    EXPECT_EQ(order, expected);
    for (const int id : order) {
        EXPECT_FALSE(cancelled[static_cast<std::size_t>(id)]) << "cancelled timer " << id << " ran";
    }
}

// A cancelled timer's task is destroyed at the cancel (what it holds is let go then), and its
// slot is handed out again; a plain event's slot is no timer and cannot be cancelled.
TEST(EventQueue, CancelDestroysTheTaskAndFreesItsSlot) {
    event_queue q(4);
    auto held = std::make_shared<int>(1);
    const timer_id t = q.push_timer(microseconds(5), [held] { ++*held; });
    EXPECT_EQ(held.use_count(), 2);
    q.push(microseconds(1), [] {});
    EXPECT_FALSE(q.timer_queued(k_no_timer));
    EXPECT_FALSE(q.cancel_timer(k_no_timer));
    EXPECT_TRUE(q.cancel_timer(t));
    EXPECT_EQ(held.use_count(), 1);
    EXPECT_EQ(q.size(), 1U);
    EXPECT_EQ(q.next_time(), microseconds(1));
    const timer_id again = q.push_timer(microseconds(2), [] {});
    EXPECT_EQ(again, t);  // the freed slot is the first handed out again
    sim_time when = 0;
    q.pop(when)();
    EXPECT_EQ(when, microseconds(1));
    q.pop(when)();
    EXPECT_EQ(when, microseconds(2));
    EXPECT_TRUE(q.empty());
    EXPECT_EQ(*held, 1);
}

}  // namespace
}  // namespace ndksim::timing
