// SPDX-License-Identifier: MIT
// CQ machinery: ring order, result fields, arming and notification (REFERENCE.md rules
// 13-17), overrun, resize and interrupt moderation, on a deterministic device unless a test
// says threaded.

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "core/cq.hpp"
#include "core_test_env.hpp"

namespace ndksim::core {
namespace {

using test::contexts;
using test::env;
using test::make_completion;
using test::notify_recorder;
using test::poll;

constexpr std::int32_t k_success = static_cast<std::int32_t>(status::success);
constexpr std::int32_t k_overflow = static_cast<std::int32_t>(status::buffer_overflow);
constexpr std::uint32_t k_maxulong = 0xFFFFFFFFu;

// A CQ on `e` whose notifications go to `rec`; closed (and checked) at scope end.
class cq_under_test {
  public:
    cq_under_test(env& e, notify_recorder& rec, std::uint32_t depth = 16)
        : env_(e), cq_(cq::create(e.handle(), depth, rec.bound()).detach()) {}
    ~cq_under_test() {
        if (!closed_) {
            env_.close(*cq_);
        }
    }
    cq_under_test(const cq_under_test&) = delete;
    cq_under_test& operator=(const cq_under_test&) = delete;

    cq& operator*() { return *cq_; }
    cq* operator->() { return cq_; }
    void closed() { closed_ = true; }

  private:
    env& env_;
    cq* cq_;
    bool closed_ = false;
};

TEST(CqRing, CompletionsComeOutInTheOrderTheyWereQueued) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec, 4);
    for (std::uintptr_t n = 1; n <= 4; ++n) {
        ASSERT_EQ(e.post(*q, make_completion(n)), status::success);
    }
    EXPECT_EQ(contexts(poll(*q, 3)), (std::vector<std::uintptr_t>{1, 2, 3}));
    // The ring wraps: two more after three were removed.
    ASSERT_EQ(e.post(*q, make_completion(5)), status::success);
    ASSERT_EQ(e.post(*q, make_completion(6)), status::success);
    EXPECT_EQ(q->queued(), 3U);
    EXPECT_EQ(contexts(poll(*q)), (std::vector<std::uintptr_t>{4, 5, 6}));
    EXPECT_TRUE(poll(*q).empty());
}

TEST(CqRing, PollHandsOverEveryFieldOfTheEntryIncludingReceiveAndInvalidate) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec);
    completion c = make_completion(7, status::success, true, op_type::receive_and_invalidate);
    c.bytes_transferred = 4096;
    c.type_specific = 0xABCD1234;
    ASSERT_EQ(e.post(*q, c), status::success);
    completion bad = make_completion(8, status::cancelled, false, op_type::write);
    bad.provider_error = 0x55;
    ASSERT_EQ(e.post(*q, bad), status::success);
    const auto got = poll(*q);
    ASSERT_EQ(got.size(), 2U);
    EXPECT_EQ(got[0].status, k_success);
    EXPECT_EQ(got[0].bytes_transferred, 4096U);
    EXPECT_EQ(got[0].qp_context, c.qp_context);
    EXPECT_EQ(got[0].request_context, c.request_context);
    EXPECT_EQ(got[0].type, op_type::receive_and_invalidate);
    EXPECT_EQ(got[0].type_specific, 0xABCD1234U);
    EXPECT_EQ(got[1].status, static_cast<std::int32_t>(status::cancelled));
    EXPECT_EQ(got[1].type, op_type::write);
    EXPECT_EQ(got[1].provider_error, 0x55U);
}

TEST(CqRing, PollOfZeroEntriesRemovesNothing) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec);
    ASSERT_EQ(e.post(*q, make_completion(1)), status::success);
    EXPECT_TRUE(poll(*q, 0).empty());
    EXPECT_EQ(q->queued(), 1U);
    poll(*q);
}

TEST(CqArm, NoNotificationWithoutAnArm) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec);
    for (std::uintptr_t n = 1; n <= 3; ++n) {
        ASSERT_EQ(e.post(*q, make_completion(n, status::cancelled, true)), status::success);
    }
    e.run();
    EXPECT_EQ(rec.calls.load(), 0);
    poll(*q);
}

TEST(CqArm, OneNotificationPerArm) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec);
    q->arm(notify_type::any);
    ASSERT_EQ(e.post(*q, make_completion(1)), status::success);
    ASSERT_EQ(e.post(*q, make_completion(2)), status::success);
    e.run();
    EXPECT_EQ(rec.calls.load(), 1);
    ASSERT_EQ(e.post(*q, make_completion(3)), status::success);
    e.run();
    EXPECT_EQ(rec.calls.load(), 1);
    poll(*q);
    q->arm(notify_type::any);
    e.run();
    EXPECT_EQ(rec.calls.load(), 1) << "an emptied CQ has nothing newer to notify about";
    ASSERT_EQ(e.post(*q, make_completion(4)), status::success);
    e.run();
    EXPECT_EQ(rec.calls.load(), 2);
    EXPECT_EQ(rec.statuses, (std::vector<std::int32_t>{k_success, k_success}));
    poll(*q);
}

TEST(CqArm, MergeTableIsTheDocumentedOne) {
    using t = notify_type;
    // concepts/ndkpi-completion-handling-requirements.md, rows = first arm, columns = second.
    static_assert(merge_arm(t::any, t::any) == t::any);
    static_assert(merge_arm(t::any, t::errors) == t::any);
    static_assert(merge_arm(t::any, t::solicited) == t::any);
    static_assert(merge_arm(t::errors, t::any) == t::any);
    static_assert(merge_arm(t::errors, t::errors) == t::errors);
    static_assert(merge_arm(t::errors, t::solicited) == t::solicited);
    static_assert(merge_arm(t::solicited, t::any) == t::any);
    static_assert(merge_arm(t::solicited, t::errors) == t::solicited);
    static_assert(merge_arm(t::solicited, t::solicited) == t::solicited);
    SUCCEED();
}

struct merge_case {
    notify_type first;
    notify_type second;
    notify_type merged;
};

class CqArmMerge : public ::testing::TestWithParam<merge_case> {};

// The merged arm is observed through behaviour: a plain completion fires only ANY, a solicited
// one fires ANY or SOLICITED, an error fires every arm.
TEST_P(CqArmMerge, TwoArmsBeforeSatisfactionBehaveAsTheMergedArm) {
    const merge_case m = GetParam();
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec);
    q->arm(m.first);
    q->arm(m.second);
    ASSERT_EQ(e.post(*q, make_completion(1)), status::success);
    e.run();
    EXPECT_EQ(rec.calls.load(), m.merged == notify_type::any ? 1 : 0);
    if (rec.calls.load() == 0) {
        ASSERT_EQ(e.post(*q, make_completion(2, status::success, true)), status::success);
        e.run();
        EXPECT_EQ(rec.calls.load(), m.merged == notify_type::solicited ? 1 : 0);
    }
    if (rec.calls.load() == 0) {
        ASSERT_EQ(e.post(*q, make_completion(3, status::cancelled)), status::success);
        e.run();
        EXPECT_EQ(rec.calls.load(), 1);
    }
    EXPECT_EQ(rec.calls.load(), 1);
    poll(*q);
}

INSTANTIATE_TEST_SUITE_P(
    Table, CqArmMerge,
    ::testing::Values(
        merge_case{notify_type::any, notify_type::any, notify_type::any},
        merge_case{notify_type::any, notify_type::errors, notify_type::any},
        merge_case{notify_type::any, notify_type::solicited, notify_type::any},
        merge_case{notify_type::errors, notify_type::any, notify_type::any},
        merge_case{notify_type::errors, notify_type::errors, notify_type::errors},
        merge_case{notify_type::errors, notify_type::solicited, notify_type::solicited},
        merge_case{notify_type::solicited, notify_type::any, notify_type::any},
        merge_case{notify_type::solicited, notify_type::errors, notify_type::solicited},
        merge_case{notify_type::solicited, notify_type::solicited, notify_type::solicited}));

TEST(CqArm, SolicitedArmIsSatisfiedByAnErrorCompletion) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec);
    q->arm(notify_type::solicited);
    ASSERT_EQ(e.post(*q, make_completion(1, status::success, false)), status::success);
    e.run();
    EXPECT_EQ(rec.calls.load(), 0);
    ASSERT_EQ(e.post(*q, make_completion(2, status::cancelled, false)), status::success);
    e.run();
    EXPECT_EQ(rec.calls.load(), 1);
    poll(*q);
}

TEST(CqArm, ErrorsArmIgnoresSolicitedSuccesses) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec);
    q->arm(notify_type::errors);
    ASSERT_EQ(e.post(*q, make_completion(1, status::success, true)), status::success);
    e.run();
    EXPECT_EQ(rec.calls.load(), 0);
    ASSERT_EQ(e.post(*q, make_completion(2, status::connection_aborted)), status::success);
    e.run();
    EXPECT_EQ(rec.calls.load(), 1);
    poll(*q);
}

TEST(CqArm, ArmWithNewerCompletionsQueuedNotifiesFromATaskNotFromInsideArm) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec);
    ASSERT_EQ(e.post(*q, make_completion(1)), status::success);
    bool inside_arm = true;
    rec.on_call = [&inside_arm](notify_recorder& r, std::int32_t) {
        r.event(inside_arm ? "called inside arm" : "called from a task");
    };
    q->arm(notify_type::any);
    inside_arm = false;
    EXPECT_EQ(rec.calls.load(), 0);
    e.run();
    EXPECT_EQ(rec.calls.load(), 1);
    EXPECT_EQ(rec.events, (std::vector<std::string>{"enter", "called from a task", "exit"}));
    poll(*q);
}

TEST(CqArm, ArmWithOnlyAlreadyNotifiedCompletionsQueuedWaitsForANewOne) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec);
    q->arm(notify_type::any);
    ASSERT_EQ(e.post(*q, make_completion(1)), status::success);
    e.run();
    ASSERT_EQ(rec.calls.load(), 1);
    q->arm(notify_type::any);  // entry 1 is still queued but was there at the last notification
    e.run();
    EXPECT_EQ(rec.calls.load(), 1);
    ASSERT_EQ(e.post(*q, make_completion(2)), status::success);
    e.run();
    EXPECT_EQ(rec.calls.load(), 2);
    poll(*q);
}

TEST(CqArm, ArmAtTimeOfQueuedCompletionsHonoursTheArmType) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec);
    ASSERT_EQ(e.post(*q, make_completion(1)), status::success);  // plain, newer
    q->arm(notify_type::solicited);
    e.run();
    EXPECT_EQ(rec.calls.load(), 0);
    q->arm(notify_type::any);  // merged to ANY: the queued plain completion satisfies it now
    e.run();
    EXPECT_EQ(rec.calls.load(), 1);
    poll(*q);
}

TEST(CqArm, RearmFromInsideTheCallbackFiresAgainOnlyAfterTheCallbackReturned) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec);
    cq* raw = &*q;
    rec.on_call = [raw](notify_recorder& r, std::int32_t) {
        if (r.calls.load() == 0) {
            // The engine queues another completion while the callback runs; the consumer
            // re-arms without draining: the arm is satisfied at once, but the second call
            // must wait for this one to return.
            EXPECT_EQ(raw->post(make_completion(99)), status::success);
            raw->arm(notify_type::any);
            r.event("re-armed");
        }
    };
    q->arm(notify_type::any);
    ASSERT_EQ(e.post(*q, make_completion(1)), status::success);
    e.run();
    EXPECT_EQ(rec.calls.load(), 2);
    EXPECT_EQ(rec.max_running.load(), 1);
    EXPECT_EQ(rec.events, (std::vector<std::string>{"enter", "re-armed", "exit", "enter", "exit"}));
    poll(*q);
}

TEST(CqOverrun, OverrunNotifiesOnceWithBufferOverflowAndQueuesNothingMore) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec, 2);
    ASSERT_EQ(e.post(*q, make_completion(1)), status::success);
    ASSERT_EQ(e.post(*q, make_completion(2)), status::success);
    EXPECT_FALSE(q->overrun());
    EXPECT_EQ(e.post(*q, make_completion(3)), status::buffer_overflow);
    EXPECT_TRUE(q->overrun());
    e.run();
    EXPECT_EQ(rec.statuses, (std::vector<std::int32_t>{k_overflow}))
        << "notified although not armed";
    EXPECT_EQ(e.post(*q, make_completion(4)), status::buffer_overflow);
    q->arm(notify_type::any);
    e.run();
    EXPECT_EQ(rec.calls.load(), 1);
    EXPECT_EQ(contexts(poll(*q)), (std::vector<std::uintptr_t>{1, 2}))
        << "entries queued before the overrun stay retrievable";
    EXPECT_EQ(e.post(*q, make_completion(5)), status::buffer_overflow);
    EXPECT_TRUE(poll(*q).empty());
}

TEST(CqOverrun, OverrunSupersedesANotYetDeliveredNotificationOfTheSameArm) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec, 1);
    q->arm(notify_type::any);
    cq* raw = &*q;
    std::array<status, 2> posted{};
    // One engine task: the first completion satisfies the arm, the second overruns the CQ
    // before the notification task has run.
    e.sched().post([raw, &posted] {
        posted[0] = raw->post(make_completion(1));
        posted[1] = raw->post(make_completion(2));
    });
    e.run();
    EXPECT_EQ(posted[0], status::success);
    EXPECT_EQ(posted[1], status::buffer_overflow);
    EXPECT_EQ(rec.statuses, (std::vector<std::int32_t>{k_overflow}));
    poll(*q);
}

TEST(CqOverrun, OverrunDuringACallbackIsReportedAfterItReturned) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec, 1);
    cq* raw = &*q;
    rec.on_call = [raw](notify_recorder& r, std::int32_t) {
        if (r.calls.load() == 0) {
            EXPECT_EQ(raw->post(make_completion(9)), status::buffer_overflow);
        }
    };
    q->arm(notify_type::any);
    ASSERT_EQ(e.post(*q, make_completion(1)), status::success);
    e.run();
    EXPECT_EQ(rec.statuses, (std::vector<std::int32_t>{k_success, k_overflow}));
    EXPECT_EQ(rec.max_running.load(), 1);
    poll(*q);
}

TEST(CqResize, ResizeKeepsQueuedEntriesInOrder) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec, 4);
    for (std::uintptr_t n = 1; n <= 3; ++n) {
        ASSERT_EQ(e.post(*q, make_completion(n)), status::success);
    }
    poll(*q, 2);
    for (std::uintptr_t n = 4; n <= 6; ++n) {  // wraps around the end of the ring
        ASSERT_EQ(e.post(*q, make_completion(n)), status::success);
    }
    ASSERT_EQ(q->check_resize(8), status::success);
    ASSERT_EQ(q->apply_resize(8), status::success);
    EXPECT_EQ(q->depth(), 8U);
    for (std::uintptr_t n = 7; n <= 10; ++n) {
        ASSERT_EQ(e.post(*q, make_completion(n)), status::success);
    }
    EXPECT_EQ(contexts(poll(*q)), (std::vector<std::uintptr_t>{3, 4, 5, 6, 7, 8, 9, 10}));
}

TEST(CqResize, ShrinkingBelowTheQueuedCountIsInvalidParameterAndChangesNothing) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec, 8);
    for (std::uintptr_t n = 1; n <= 5; ++n) {
        ASSERT_EQ(e.post(*q, make_completion(n)), status::success);
    }
    EXPECT_EQ(q->check_resize(4), status::invalid_parameter);
    EXPECT_EQ(q->apply_resize(4), status::invalid_parameter);
    EXPECT_EQ(q->depth(), 8U);
    EXPECT_EQ(q->check_resize(5), status::success);
    ASSERT_EQ(q->apply_resize(5), status::success);
    EXPECT_EQ(e.post(*q, make_completion(6)), status::buffer_overflow);
    EXPECT_EQ(contexts(poll(*q)), (std::vector<std::uintptr_t>{1, 2, 3, 4, 5}));
}

TEST(CqResize, DepthZeroOrAboveMaxCqDepthIsInvalidParameter) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec, 8);
    EXPECT_EQ(q->check_resize(0), status::invalid_parameter);
    EXPECT_EQ(q->check_resize(e.dev().limits().max_cq_depth + 1), status::invalid_parameter);
}

TEST(CqResize, ResizeOfAnOverrunCqIsInvalidDeviceState) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec, 1);
    ASSERT_EQ(e.post(*q, make_completion(1)), status::success);
    ASSERT_EQ(e.post(*q, make_completion(2)), status::buffer_overflow);
    EXPECT_EQ(q->check_resize(8), status::invalid_device_state);
    EXPECT_EQ(q->apply_resize(8), status::invalid_device_state);
    e.run();
    poll(*q);
}

TEST(CqResize, NewerThanLastNotificationSurvivesAResize) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec, 2);
    ASSERT_EQ(e.post(*q, make_completion(1)), status::success);
    ASSERT_EQ(q->apply_resize(4), status::success);
    q->arm(notify_type::any);
    e.run();
    EXPECT_EQ(rec.calls.load(), 1);
    poll(*q);
}

TEST(CqModeration, ModerationIsOffByDefault) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec);
    EXPECT_EQ(q->moderation_interval_us(), 0U);
    EXPECT_EQ(q->moderation_count(), 0U);
    q->arm(notify_type::any);
    ASSERT_EQ(e.post(*q, make_completion(1)), status::success);
    e.run_for(timing::nanoseconds(1));
    EXPECT_EQ(rec.calls.load(), 1);
    poll(*q);
}

TEST(CqModeration, CountOfOneOrIntervalOfZeroMeansNoModeration) {
    for (const auto& [interval, count] :
         {std::pair<std::uint32_t, std::uint32_t>{0, 8}, {100, 1}, {100, 0}}) {
        env e;
        notify_recorder rec;
        cq_under_test q(e, rec);
        ASSERT_EQ(q->check_moderation(interval, count), status::success);
        q->apply_moderation(interval, count);
        q->arm(notify_type::any);
        ASSERT_EQ(e.post(*q, make_completion(1)), status::success);
        e.run_for(timing::nanoseconds(1));
        EXPECT_EQ(rec.calls.load(), 1) << "interval " << interval << " count " << count;
        poll(*q);
    }
}

TEST(CqModeration, NotificationWaitsForCountCompletionsSinceTheArmWasSatisfied) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec);
    q->apply_moderation(1000, 3);
    q->arm(notify_type::any);
    ASSERT_EQ(e.post(*q, make_completion(1)), status::success);
    e.run_for(timing::microseconds(1));
    ASSERT_EQ(e.post(*q, make_completion(2)), status::success);
    e.run_for(timing::microseconds(1));
    EXPECT_EQ(rec.calls.load(), 0);
    ASSERT_EQ(e.post(*q, make_completion(3)), status::success);
    e.run_for(timing::nanoseconds(1));
    EXPECT_EQ(rec.calls.load(), 1);
    EXPECT_LT(e.sched().now(), timing::microseconds(1000));
    e.run();
    EXPECT_EQ(rec.calls.load(), 1) << "the window's timer is void once the count closed it";
    poll(*q);
}

// The simulated time of the latest notification call of `rec`, for tests that time delivery.
class call_clock {
  public:
    call_clock(env& e, notify_recorder& rec) {
        timing::scheduler* s = &e.sched();
        rec.on_call = [s, this](notify_recorder&, std::int32_t) { at_ = s->now(); };
    }
    timing::sim_time load() const { return at_.load(); }

  private:
    std::atomic<timing::sim_time> at_{0};
};

TEST(CqModeration, NotificationWaitsAtMostTheIntervalInSimulatedTime) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec);
    q->apply_moderation(10, 100);
    const call_clock called_at(e, rec);
    q->arm(notify_type::any);
    const timing::sim_time t0 = e.sched().now();
    ASSERT_EQ(e.post(*q, make_completion(1)), status::success);
    e.run_for(timing::microseconds(9));
    EXPECT_EQ(rec.calls.load(), 0);
    e.run_for(timing::microseconds(2));
    EXPECT_EQ(rec.calls.load(), 1);
    EXPECT_EQ(called_at.load() - t0, timing::microseconds(10));
    poll(*q);
}

TEST(CqInterrupt, NotificationArrivesOneInterruptAfterTheSatisfyingCompletion) {
    env e(false, timing::nanoseconds(2'000));
    notify_recorder rec;
    cq_under_test q(e, rec);
    const call_clock called_at(e, rec);
    q->arm(notify_type::any);
    const timing::sim_time t0 = e.sched().now();
    ASSERT_EQ(e.post(*q, make_completion(1)), status::success);
    e.run_for(timing::nanoseconds(1'999));
    EXPECT_EQ(rec.calls.load(), 0) << "the interrupt has not reached the consumer yet";
    e.run();
    EXPECT_EQ(rec.calls.load(), 1);
    EXPECT_EQ(called_at.load() - t0, timing::nanoseconds(2'000));
    // Polling pays no interrupt: the entry was in the ring as soon as it was queued.
    EXPECT_EQ(poll(*q).size(), 1U);
}

TEST(CqInterrupt, ArmWithCompletionsQueuedNotifiesOneInterruptLater) {
    env e(false, timing::nanoseconds(2'000));
    notify_recorder rec;
    cq_under_test q(e, rec);
    const call_clock called_at(e, rec);
    ASSERT_EQ(e.post(*q, make_completion(1)), status::success);
    const timing::sim_time t0 = e.sched().now();
    q->arm(notify_type::any);
    e.run();
    EXPECT_EQ(rec.calls.load(), 1);
    EXPECT_EQ(called_at.load() - t0, timing::nanoseconds(2'000));
    poll(*q);
}

TEST(CqInterrupt, ModeratedNotificationPaysTheInterruptAfterTheWindow) {
    env e(false, timing::nanoseconds(2'000));
    notify_recorder rec;
    cq_under_test q(e, rec);
    q->apply_moderation(10, 100);
    const call_clock called_at(e, rec);
    q->arm(notify_type::any);
    const timing::sim_time t0 = e.sched().now();
    ASSERT_EQ(e.post(*q, make_completion(1)), status::success);
    e.run();
    EXPECT_EQ(rec.calls.load(), 1);
    EXPECT_EQ(called_at.load() - t0, timing::microseconds(10) + timing::nanoseconds(2'000));
    poll(*q);
}

TEST(CqModeration, IntervalMaxulongLeavesOnlyTheCountBound) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec);
    ASSERT_EQ(q->check_moderation(k_maxulong, 2), status::success);
    q->apply_moderation(k_maxulong, 2);
    q->arm(notify_type::any);
    ASSERT_EQ(e.post(*q, make_completion(1)), status::success);
    e.run();
    EXPECT_EQ(rec.calls.load(), 0);
    ASSERT_EQ(e.post(*q, make_completion(2)), status::success);
    e.run();
    EXPECT_EQ(rec.calls.load(), 1);
    poll(*q);
}

TEST(CqModeration, CountAboveDepthLeavesOnlyTheIntervalBound) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec, 4);
    q->apply_moderation(5, 100);
    q->arm(notify_type::any);
    for (std::uintptr_t n = 1; n <= 4; ++n) {
        ASSERT_EQ(e.post(*q, make_completion(n)), status::success);
    }
    e.run_for(timing::microseconds(4));
    EXPECT_EQ(rec.calls.load(), 0);
    e.run_for(timing::microseconds(2));
    EXPECT_EQ(rec.calls.load(), 1);
    poll(*q);
}

TEST(CqModeration, InvalidCombinationsAreInvalidParameterMix) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec, 4);
    EXPECT_EQ(q->check_moderation(k_maxulong, k_maxulong), status::invalid_parameter_mix);
    EXPECT_EQ(q->check_moderation(k_maxulong, 5), status::invalid_parameter_mix);
    EXPECT_EQ(q->check_moderation(k_maxulong, 4), status::success);
}

TEST(CqModeration, OverrunEndsTheModerationWindowAtOnce) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec, 2);
    q->apply_moderation(1000, 10);  // count above the depth: the interval bound only
    q->arm(notify_type::any);
    ASSERT_EQ(e.post(*q, make_completion(1)), status::success);
    ASSERT_EQ(e.post(*q, make_completion(2)), status::success);
    EXPECT_EQ(e.post(*q, make_completion(3)), status::buffer_overflow);
    e.run_for(timing::nanoseconds(1));
    EXPECT_EQ(rec.statuses, (std::vector<std::int32_t>{k_overflow}));
    e.run();
    EXPECT_EQ(rec.calls.load(), 1);
    poll(*q);
}

TEST(CqClose, CloseFromInsideTheNotificationCompletesAfterTheCallbackReturned) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec);
    cq* raw = &*q;
    struct close_probe {
        notify_recorder* rec;
        status returned = status::unsuccessful;
    } probe{&rec};
    rec.on_call = [raw, &probe](notify_recorder& r, std::int32_t) {
        poll(*raw);
        probe.returned = raw->close([rp = &r] { rp->event("close completion"); });
        r.event("close called");
    };
    q->arm(notify_type::any);
    ASSERT_EQ(e.post(*q, make_completion(1)), status::success);
    e.run();
    q.closed();
    EXPECT_EQ(probe.returned, status::pending);
    EXPECT_EQ(rec.events,
              (std::vector<std::string>{"enter", "close called", "exit", "close completion"}));
}

TEST(CqClose, ANotificationOwedAtCloseIsNotDeliveredAfterIt) {
    env e;
    notify_recorder rec;
    cq_under_test q(e, rec);
    q->arm(notify_type::any);
    ASSERT_EQ(e.post(*q, make_completion(1)), status::success);  // delivery task queued
    bool closed = false;
    EXPECT_EQ(q->close([&closed] { closed = true; }), status::pending)
        << "the queued delivery holds the close";
    q.closed();
    e.run();
    EXPECT_TRUE(closed);
    EXPECT_EQ(rec.calls.load(), 0);
}

TEST(CqClose, CloseWaitsForANotificationInProgressOnTheEngineThread) {
    env e(true);
    notify_recorder rec;
    cq_under_test q(e, rec);
    std::mutex m;
    std::condition_variable cv;
    bool entered = false;
    bool release_callback = false;
    rec.on_call = [&](notify_recorder&, std::int32_t) {
        std::unique_lock lock(m);
        entered = true;
        cv.notify_all();
        cv.wait(lock, [&] { return release_callback; });
    };
    q->arm(notify_type::any);
    ASSERT_EQ(e.post(*q, make_completion(1)), status::success);
    {
        std::unique_lock lock(m);
        ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return entered; }));
    }
    std::atomic<bool> closed{false};
    EXPECT_EQ(q->close([&closed] { closed = true; }), status::pending);
    q.closed();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(closed.load()) << "close completed while the notification was running";
    {
        std::lock_guard lock(m);
        release_callback = true;
    }
    cv.notify_all();
    EXPECT_TRUE(e.sched().wait_until([&closed] { return closed.load(); },
                                     std::chrono::milliseconds(30'000)));
    EXPECT_EQ(rec.calls.load(), 1);
}

// Threaded mode: the engine queues completions in its own tasks while a consumer thread polls,
// arms and waits for notifications, as a real NDK consumer does.
TEST(CqThreaded, ConsumerThreadPollingAndArmingSeesEveryCompletionInOrder) {
    env e(true);
    static constexpr std::uint32_t k_total = 20'000;
    static constexpr std::uint32_t k_batch = 50;
    notify_recorder rec;
    std::mutex m;
    std::condition_variable cv;
    int signalled = 0;
    rec.on_call = [&](notify_recorder&, std::int32_t) {
        std::lock_guard lock(m);
        ++signalled;
        cv.notify_all();
    };
    cq_under_test q(e, rec, k_total);
    cq* raw = &*q;
    std::atomic<bool> post_failed{false};
    std::atomic<std::uint32_t> consumed{0};
    // The producer thread hands batches to the engine and, every few batches, lets the
    // consumer catch up, so the consumer finds the CQ empty now and then and has to arm and
    // wait for a notification.
    std::thread producer([&] {
        for (std::uint32_t b = 0; b < k_total / k_batch; ++b) {
            if (b % 4 == 0) {
                const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
                while (consumed.load() < b * k_batch && std::chrono::steady_clock::now() < until) {
                    std::this_thread::yield();
                }
            }
            e.sched().post([raw, b, &post_failed] {
                for (std::uint32_t i = 0; i < k_batch; ++i) {
                    const std::uintptr_t n = std::uintptr_t{b} * k_batch + i + 1;
                    if (raw->post(make_completion(n, status::success, n % 7 == 0)) !=
                        status::success) {
                        post_failed = true;
                    }
                }
            });
        }
    });
    std::vector<std::uintptr_t> seen;
    std::thread consumer([&] {
        int waited_for = 0;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (seen.size() < k_total && std::chrono::steady_clock::now() < deadline) {
            const auto got = poll(*raw, 64);
            for (std::uintptr_t c : contexts(got)) {
                seen.push_back(c);
            }
            consumed.store(static_cast<std::uint32_t>(seen.size()));
            if (!got.empty()) {
                continue;
            }
            raw->arm(seen.size() % 2 == 0 ? notify_type::any : notify_type::solicited);
            const auto again = poll(*raw, 64);  // close the race between poll and arm
            for (std::uintptr_t c : contexts(again)) {
                seen.push_back(c);
            }
            consumed.store(static_cast<std::uint32_t>(seen.size()));
            std::unique_lock lock(m);
            cv.wait_for(lock, std::chrono::milliseconds(20),
                        [&] { return signalled != waited_for; });
            waited_for = signalled;
        }
    });
    consumer.join();
    producer.join();
    EXPECT_FALSE(post_failed.load());
    ASSERT_EQ(seen.size(), k_total);
    for (std::uint32_t i = 0; i < k_total; ++i) {
        ASSERT_EQ(seen[i], i + 1U) << "out of order at " << i;
    }
    EXPECT_GT(rec.calls.load(), 0);
    EXPECT_EQ(rec.max_running.load(), 1);
}

}  // namespace
}  // namespace ndksim::core
