#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ndksim::timing
