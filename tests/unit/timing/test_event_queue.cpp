// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
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

}  // namespace
}  // namespace ndksim::timing
