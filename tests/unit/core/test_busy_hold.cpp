// SPDX-License-Identifier: MIT
// busy_hold and held_task: a task posted under a hold keeps its object's close waiting until it
// has run (REFERENCE.md rule 4), ends the hold exactly once, and a task that a scheduler drops
// unrun abandons its hold rather than ending it (held_task.hpp says why).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/busy_hold.hpp"
#include "core/held_task.hpp"
#include "core/pd.hpp"
#include "core_test_env.hpp"

namespace ndksim::core {
namespace {

using test::env;

pd* make_pd(env& e) {
    ref<pd> owner;
    EXPECT_EQ(pd::create(e.handle(), owner), status::success);
    return owner.detach();
}

TEST(BusyHold, CloseWaitsForAHeldTaskAndCompletesAfterIt) {
    env e;
    pd* p = make_pd(e);
    std::vector<std::string> order;
    post_held(*p, timing::microseconds(5), [&order] { order.emplace_back("task"); });
    // The task is queued and holds the PD busy: the close must pend even under the inline policy.
    EXPECT_EQ(p->close([&order] { order.emplace_back("close"); }), status::pending);
    e.run();
    EXPECT_EQ((std::vector<std::string>{"task", "close"}), order);
}

TEST(BusyHold, AMovedHoldEndsOnce) {
    env e;
    pd* p = make_pd(e);
    {
        busy_hold first(*p);
        const busy_hold second = std::move(first);
        EXPECT_FALSE(first.holds());  // NOLINT(bugprone-use-after-move): the point of the test
        EXPECT_TRUE(second.holds());
    }
    // One begin and one end: nothing is busy, so the close finishes inline (a second end would
    // have left the busy count wrapped and the close pending).
    EXPECT_EQ(p->close([] { ADD_FAILURE() << "an inline close has no completion"; }),
              status::success);
}

TEST(HeldTask, ADroppedTaskAbandonsItsHold) {
    env e;
    pd* p = make_pd(e);
    bool ran = false;
    {
        // A scheduler destroyed with the task still queued drops it unrun.
        timing::scheduler doomed(timing::scheduler::options{timing::run_mode::deterministic,
                                                            timing::poll_policy::block, "doomed"});
        doomed.post(held_task(*p, [&ran] { ran = true; }));
    }
    EXPECT_FALSE(ran);
    // The abandoned hold still counts: the PD stays allocated and its close pends for good.
    bool closed = false;
    EXPECT_EQ(p->close([&closed] { closed = true; }), status::pending);
    e.run();
    EXPECT_FALSE(closed);
    // Ending by hand what the dropped task abandoned lets the close finish, and the env's
    // teardown finds nothing leaked.
    p->end_busy();
    p->release();
    e.run();
    EXPECT_TRUE(closed);
}

}  // namespace
}  // namespace ndksim::core
