// SPDX-License-Identifier: MIT
// SRQ machinery: posting, the notify threshold (ddi/nc-ndkpi-ndk_fn_modify_srq.md), depth
// changes and the notification's lifetime, on a deterministic device.

#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "core/pd.hpp"
#include "core/srq.hpp"
#include "core_test_env.hpp"

namespace ndksim::core {
namespace {

using test::ctx;
using test::env;
using test::notify_recorder;
using test::num;

// A PD and an SRQ on it; both closed at scope end.
class srq_under_test {
  public:
    srq_under_test(env& e, notify_recorder* rec, std::uint32_t depth, std::uint32_t max_sge,
                   std::uint32_t threshold)
        : env_(e) {
        ref<pd> owner;
        EXPECT_EQ(pd::create(e.handle(), owner), status::success);
        pd_ = owner.detach();
        srq_ = srq::create(*pd_, depth, max_sge, threshold,
                           rec != nullptr ? rec->bound() : notify_fn())
                   .detach();
    }
    ~srq_under_test() {
        if (!closed_) {
            env_.close(*srq_);
        }
        env_.close(*pd_);
    }
    srq_under_test(const srq_under_test&) = delete;
    srq_under_test& operator=(const srq_under_test&) = delete;

    srq* operator->() { return srq_; }
    srq& operator*() { return *srq_; }
    void closed() { closed_ = true; }

    /// Posts `n` one-SGE receives numbered from `first`.
    void post(std::uintptr_t first, std::uint32_t n) {
        const sge s{0x1000, 256, 5};
        for (std::uintptr_t i = first; i < first + n; ++i) {
            ASSERT_EQ(srq_->post(ctx(i), &s, 1), status::success);
        }
    }

    /// Takes one receive as the engine does and completes it at once.
    std::uintptr_t take() {
        received r{};
        if (!srq_->take(r)) {
            return 0;
        }
        srq_->release_receive(r.slot);
        return num(r.context);
    }

  private:
    env& env_;
    pd* pd_ = nullptr;
    srq* srq_ = nullptr;
    bool closed_ = false;
};

TEST(SrqPost, MoreSgesThanTheSrqMaxIsInvalidParameter) {
    env e;
    srq_under_test q(e, nullptr, 4, 2, 0);
    const std::array<sge, 3> s{};
    EXPECT_EQ(q->post(ctx(1), s.data(), 3), status::invalid_parameter);
    EXPECT_EQ(q->post(ctx(1), s.data(), 2), status::success);
    EXPECT_EQ(q->queued(), 1U);
}

TEST(SrqPost, PostingBeyondTheDepthIsInsufficientResources) {
    env e;
    srq_under_test q(e, nullptr, 2, 1, 0);
    q.post(1, 2);
    const sge s{0x1000, 256, 5};
    EXPECT_EQ(q->post(ctx(3), &s, 1), status::insufficient_resources);
}

TEST(SrqPost, EveryPosterSharesOneFifo) {
    env e;
    srq_under_test q(e, nullptr, 8, 1, 0);
    q.post(1, 5);
    std::vector<std::uintptr_t> got;
    for (std::uintptr_t n = q.take(); n != 0; n = q.take()) {
        got.push_back(n);
    }
    EXPECT_EQ(got, (std::vector<std::uintptr_t>{1, 2, 3, 4, 5}));
}

TEST(SrqThreshold, FiresOnceWhenATakeLeavesFewerQueuedThanTheThreshold) {
    env e;
    notify_recorder rec;
    srq_under_test q(e, &rec, 8, 1, 3);
    q.post(1, 5);
    q.take();  // 4 left
    q.take();  // 3 left: not below 3
    e.run();
    EXPECT_EQ(rec.calls.load(), 0);
    q.take();  // 2 left
    EXPECT_EQ(rec.calls.load(), 0) << "delivered from a task, not from inside take";
    e.run();
    EXPECT_EQ(rec.calls.load(), 1);
    EXPECT_EQ(rec.statuses, (std::vector<std::int32_t>{0}));
    EXPECT_FALSE(q->notify_armed());
    q.take();  // 1 left: disarmed, no second notification
    e.run();
    EXPECT_EQ(rec.calls.load(), 1);
}

TEST(SrqThreshold, CreateArmsWithoutFiringOnTheEmptyQueue) {
    env e;
    notify_recorder rec;
    srq_under_test q(e, &rec, 8, 1, 2);
    e.run();
    EXPECT_EQ(rec.calls.load(), 0);
    EXPECT_TRUE(q->notify_armed());
    q.post(1, 2);
    q.take();
    e.run();
    EXPECT_EQ(rec.calls.load(), 1);
}

TEST(SrqThreshold, ModifyFiresAtOnceFromATaskWhenAlreadyBelow) {
    env e;
    notify_recorder rec;
    srq_under_test q(e, &rec, 8, 1, 0);
    q.post(1, 2);
    ASSERT_EQ(q->check_modify(0), status::success);
    ASSERT_EQ(q->apply_modify(0, 5), status::success);
    EXPECT_EQ(rec.calls.load(), 0) << "never called from inside NdkModifySrq";
    e.run();
    EXPECT_EQ(rec.calls.load(), 1);
    EXPECT_EQ(q->notify_threshold(), 5U);
    EXPECT_FALSE(q->notify_armed());
}

TEST(SrqThreshold, ModifyWithThresholdZeroKeepsThresholdAndArmState) {
    env e;
    notify_recorder rec;
    srq_under_test q(e, &rec, 8, 1, 2);
    q.post(1, 4);
    ASSERT_EQ(q->apply_modify(0, 0), status::success);
    EXPECT_TRUE(q->notify_armed());
    EXPECT_EQ(q->notify_threshold(), 2U);
    q.take();
    q.take();
    q.take();  // 1 left: fires
    e.run();
    EXPECT_EQ(rec.calls.load(), 1);
    ASSERT_EQ(q->apply_modify(0, 0), status::success);
    EXPECT_FALSE(q->notify_armed());
    e.run();
    EXPECT_EQ(rec.calls.load(), 1);
}

TEST(SrqThreshold, ModifyWithANonZeroThresholdReArmsAfterFiring) {
    env e;
    notify_recorder rec;
    srq_under_test q(e, &rec, 8, 1, 2);
    q.post(1, 4);
    q.take();
    q.take();
    q.take();
    e.run();
    ASSERT_EQ(rec.calls.load(), 1);
    q.post(10, 3);  // 4 queued
    ASSERT_EQ(q->apply_modify(0, 2), status::success);
    e.run();
    EXPECT_EQ(rec.calls.load(), 1) << "4 queued is not below 2";
    q.take();
    q.take();
    q.take();  // 1 left
    e.run();
    EXPECT_EQ(rec.calls.load(), 2);
}

TEST(SrqThreshold, ReArmFromInsideTheCallbackIsDeliveredAfterItReturned) {
    env e;
    notify_recorder rec;
    srq_under_test q(e, &rec, 8, 1, 2);
    srq* raw = &*q;
    rec.on_call = [raw](notify_recorder& r, std::int32_t) {
        if (r.calls.load() == 0) {
            EXPECT_EQ(raw->apply_modify(0, 4), status::success);  // still below: fires again
            r.event("re-armed");
        }
    };
    q.post(1, 2);
    q.take();
    e.run();
    EXPECT_EQ(rec.calls.load(), 2);
    EXPECT_EQ(rec.max_running.load(), 1);
    EXPECT_EQ(rec.events, (std::vector<std::string>{"enter", "re-armed", "exit", "enter", "exit"}));
}

TEST(SrqThreshold, ANullCallbackIsNeverCalledButTheArmIsConsumed) {
    env e;
    srq_under_test q(e, nullptr, 8, 1, 2);
    q.post(1, 2);
    q.take();
    e.run();
    EXPECT_FALSE(q->notify_armed());
}

TEST(SrqModify, DepthChangesKeepPostedReceivesInOrder) {
    env e;
    srq_under_test q(e, nullptr, 4, 1, 0);
    q.post(1, 4);
    ASSERT_EQ(q->check_modify(16), status::success);
    ASSERT_EQ(q->apply_modify(16, 0), status::success);
    EXPECT_EQ(q->depth(), 16U);
    q.post(5, 12);
    std::vector<std::uintptr_t> got;
    q->drain([&got](const received& r) { got.push_back(num(r.context)); });
    ASSERT_EQ(got.size(), 16U);
    for (std::uintptr_t i = 0; i < 16; ++i) {
        EXPECT_EQ(got[i], i + 1);
    }
}

TEST(SrqModify, DepthBelowTheOutstandingReceivesOrAboveMaxIsInvalidParameter) {
    env e;
    srq_under_test q(e, nullptr, 8, 1, 0);
    q.post(1, 5);
    EXPECT_EQ(q->check_modify(4), status::invalid_parameter);
    EXPECT_EQ(q->apply_modify(4, 0), status::invalid_parameter);
    EXPECT_EQ(q->check_modify(e.dev().limits().max_srq_depth + 1), status::invalid_parameter);
    EXPECT_EQ(q->depth(), 8U);
    EXPECT_EQ(q->check_modify(5), status::success);
    EXPECT_EQ(q->apply_modify(5, 0), status::success);
    EXPECT_EQ(q->queued(), 5U);
}

TEST(SrqModify, AFailedDepthChangeLeavesTheThresholdAlone) {
    env e;
    notify_recorder rec;
    srq_under_test q(e, &rec, 8, 1, 0);
    q.post(1, 5);
    EXPECT_EQ(q->apply_modify(4, 7), status::invalid_parameter);
    e.run();
    EXPECT_EQ(rec.calls.load(), 0);
    EXPECT_FALSE(q->notify_armed());
}

TEST(SrqClose, CloseFromInsideTheNotificationCompletesAfterTheCallbackReturned) {
    env e;
    notify_recorder rec;
    srq_under_test q(e, &rec, 8, 1, 2);
    srq* raw = &*q;
    status returned = status::unsuccessful;
    rec.on_call = [raw, &returned](notify_recorder& r, std::int32_t) {
        returned = raw->close([rp = &r] { rp->event("close completion"); });
        r.event("close called");
    };
    q.post(1, 1);
    q.take();
    e.run();
    q.closed();
    EXPECT_EQ(returned, status::pending);
    EXPECT_EQ(rec.events,
              (std::vector<std::string>{"enter", "close called", "exit", "close completion"}));
}

}  // namespace
}  // namespace ndksim::core
