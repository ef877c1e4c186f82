// SPDX-License-Identifier: MIT
// Shared receive queues, CQ notifications seen from a consumer, CQ overrun and read limits, in
// deterministic mode (REFERENCE.md rules 14, 15; core/cq.hpp, core/srq.hpp).

#include <vector>

#include <ndksim/testkit/rc_pair.hpp>

namespace ndksim::testkit {
namespace {

/// A CQ notification callback's record: every call's status, and whether a call ever nested.
struct notifications {
    NDK_CQ* cq = nullptr;
    std::vector<NTSTATUS> statuses;
    bool inside = false;
    bool nested = false;
    // Drain-and-rearm mode: the callback empties the CQ and arms it again.
    bool drain_and_rearm = false;
    std::vector<NDK_RESULT> drained;

    static void on_notify(PVOID c, NTSTATUS s) {
        auto* self = static_cast<notifications*>(c);
        if (self->inside) {
            self->nested = true;
        }
        self->inside = true;
        self->statuses.push_back(s);
        if (self->drain_and_rearm) {
            NDK_RESULT r[4];
            ULONG n = 0;
            while ((n = self->cq->Dispatch->NdkGetCqResults(self->cq, r, 4)) > 0) {
                self->drained.insert(self->drained.end(), r, r + n);
            }
            self->cq->Dispatch->NdkArmCq(self->cq, NDK_CQ_NOTIFY_ANY);
        }
        self->inside = false;
    }
};

struct srq_notifications {
    std::vector<NTSTATUS> statuses;
    static void on_notify(PVOID c, NTSTATUS s) {
        static_cast<srq_notifications*>(c)->statuses.push_back(s);
    }
};

class RcQueues : public RcPair {
  protected:
    /// A QP pair whose b side completes to a CQ of `depth` with a recording callback.
    struct watched {
        notifications n;
        NDK_QP* aqp = nullptr;
        NDK_QP* bqp = nullptr;
    };

    void make_watched(watched& w, ULONG depth) {
        w.n.cq = make_cq(b_, depth, notifications::on_notify, &w.n);
        w.aqp = make_qp(a_, a_.cq);
        w.bqp = make_qp(b_, w.n.cq);
        connect_qps(w.aqp, w.bqp);
    }

    /// One send of `length` bytes from a over `aqp` into a receive posted on `bqp`.
    void send_one(NDK_QP* aqp, NDK_QP* bqp, ULONG flags = 0, ULONG length = 64) {
        NDK_SGE r = b_.buf.sge(0, 4096);
        ASSERT_NT_SUCCESS(bqp->Dispatch->NdkReceive(bqp, nullptr, &r, 1));
        NDK_SGE s = a_.buf.sge(0, length);
        ASSERT_NT_SUCCESS(aqp->Dispatch->NdkSend(aqp, nullptr, &s, 1, flags));
        EXPECT_NT_SUCCESS(next(a_.cq).Status);
    }
};

// ---- shared receive queues ---------------------------------------------------------------------

TEST_F(RcQueues, SrqReceivesAreConsumedBySendsOnEitherConnection) {
    NDK_SRQ* srq = nullptr;
    slot created;
    ASSERT_NT_SUCCESS(b_.pd->Dispatch->NdkCreateSrq(b_.pd, 16, 4, 0, nullptr, nullptr, nullptr,
                                                    slot::on_create, &created, &srq));
    track(&srq->Header);
    int ctx1 = 1;
    int ctx2 = 2;
    NDK_QP* b1 = make_qp(b_, b_.cq, srq, &ctx1);
    NDK_QP* b2 = make_qp(b_, b_.cq, srq, &ctx2);
    NDK_QP* a1 = make_qp(a_, a_.cq);
    NDK_QP* a2 = make_qp(a_, a_.cq);
    connect_qps(a1, b1);
    connect_qps(a2, b2);
    // A QP with an SRQ has no receive queue of its own.
    NDK_SGE r0 = b_.buf.sge(0, 16);
    EXPECT_NT_STATUS(STATUS_INVALID_DEVICE_REQUEST, b1->Dispatch->NdkReceive(b1, nullptr, &r0, 1));
    for (std::uintptr_t i = 0; i < 4; ++i) {
        NDK_SGE r = b_.buf.sge(i * 4096, 4096);
        ASSERT_NT_SUCCESS(srq->Dispatch->NdkSrqReceive(srq, reinterpret_cast<PVOID>(i), &r, 1));
    }
    // Messages alternate between the connections; receives are taken in posting order.
    NDK_QP* senders[4] = {a1, a2, a2, a1};
    int* contexts[4] = {&ctx1, &ctx2, &ctx2, &ctx1};
    for (std::uintptr_t i = 0; i < 4; ++i) {
        std::memset(a_.buf.bytes + i * 4096, static_cast<int>(0x10 + i), 100 + i);
        NDK_SGE s = a_.buf.sge(i * 4096, static_cast<ULONG>(100 + i));
        ASSERT_NT_SUCCESS(senders[i]->Dispatch->NdkSend(senders[i], nullptr, &s, 1, 0));
        EXPECT_NT_SUCCESS(next(a_.cq).Status);
        const NDK_RESULT_EX r = next(b_.cq);
        EXPECT_NT_SUCCESS(r.Status);
        EXPECT_EQ(NdkOperationTypeReceive, r.Type);
        EXPECT_EQ(reinterpret_cast<PVOID>(i), r.RequestContext);
        EXPECT_EQ(contexts[i], r.QPContext);
        EXPECT_EQ(100 + i, r.BytesTransferred);
        EXPECT_EQ(0, std::memcmp(a_.buf.bytes + i * 4096, b_.buf.bytes + i * 4096, 100 + i));
    }
    EXPECT_TRUE(cq_empty(b_.cq));
}

TEST_F(RcQueues, SrqNotifyThresholdFiresOnceWhenTheQueueFallsBelowIt) {
    srq_notifications fired;
    NDK_SRQ* srq = nullptr;
    slot created;
    ASSERT_NT_SUCCESS(b_.pd->Dispatch->NdkCreateSrq(b_.pd, 16, 4, 3, srq_notifications::on_notify,
                                                    &fired, nullptr, slot::on_create, &created,
                                                    &srq));
    track(&srq->Header);
    NDK_QP* b1 = make_qp(b_, b_.cq, srq);
    NDK_QP* b2 = make_qp(b_, b_.cq, srq);
    NDK_QP* a1 = make_qp(a_, a_.cq);
    NDK_QP* a2 = make_qp(a_, a_.cq);
    connect_qps(a1, b1);
    connect_qps(a2, b2);
    for (int i = 0; i < 5; ++i) {
        NDK_SGE r = b_.buf.sge(0, 4096);
        ASSERT_NT_SUCCESS(srq->Dispatch->NdkSrqReceive(srq, nullptr, &r, 1));
    }
    settle();
    EXPECT_TRUE(fired.statuses.empty()) << "fired while 5 receives were queued (threshold 3)";
    NDK_SGE s = a_.buf.sge(0, 64);
    const std::size_t expected[5] = {0, 0, 1, 1, 1};  // queued after: 4, 3, 2, 1, 0
    for (int i = 0; i < 5; ++i) {
        NDK_QP* q = i % 2 == 0 ? a1 : a2;
        ASSERT_NT_SUCCESS(q->Dispatch->NdkSend(q, nullptr, &s, 1, 0));
        EXPECT_NT_SUCCESS(next(b_.cq).Status);
        EXPECT_NT_SUCCESS(next(a_.cq).Status);
        settle();
        EXPECT_EQ(expected[i], fired.statuses.size()) << "after message " << i;
    }
    ASSERT_EQ(1U, fired.statuses.size());
    EXPECT_NT_SUCCESS(fired.statuses[0]);
    // Re-arming with the queue already below the threshold fires at once, from the engine.
    slot modified;
    const NTSTATUS m = srq->Dispatch->NdkModifySrq(srq, 0, 2, slot::on_request, &modified);
    if (m == STATUS_PENDING) {
        ASSERT_TRUE(wait(modified, "NdkModifySrq's completion"));
    } else {
        EXPECT_NT_SUCCESS(m);
    }
    settle();
    EXPECT_EQ(2U, fired.statuses.size());
}

// ---- CQ notifications --------------------------------------------------------------------------

TEST_F(RcQueues, ArmAnyThenASendGivesExactlyOneNotification) {
    watched w;
    make_watched(w, 64);
    w.n.cq->Dispatch->NdkArmCq(w.n.cq, NDK_CQ_NOTIFY_ANY);
    settle();
    EXPECT_TRUE(w.n.statuses.empty()) << "notified with an empty CQ";
    send_one(w.aqp, w.bqp);
    settle();
    ASSERT_EQ(1U, w.n.statuses.size());
    EXPECT_NT_SUCCESS(w.n.statuses[0]);
    // No re-arm: more completions notify nobody.
    send_one(w.aqp, w.bqp);
    send_one(w.aqp, w.bqp);
    settle();
    EXPECT_EQ(1U, w.n.statuses.size());
    EXPECT_EQ(3U,
              w.n.cq->Dispatch->NdkGetCqResultsEx(w.n.cq, std::vector<NDK_RESULT_EX>(8).data(), 8));
}

TEST_F(RcQueues, ArmingWithANewerCompletionQueuedNotifiesAtOnce) {
    watched w;
    make_watched(w, 64);
    send_one(w.aqp, w.bqp);
    settle();
    EXPECT_TRUE(w.n.statuses.empty()) << "notified without an arm";
    w.n.cq->Dispatch->NdkArmCq(w.n.cq, NDK_CQ_NOTIFY_ANY);
    EXPECT_TRUE(w.n.statuses.empty()) << "notified from inside NdkArmCq";
    settle();
    EXPECT_EQ(1U, w.n.statuses.size());
}

TEST_F(RcQueues, CallbackDrainsAndRearmsFromInsideItself) {
    watched w;
    make_watched(w, 64);
    w.n.drain_and_rearm = true;
    w.n.cq->Dispatch->NdkArmCq(w.n.cq, NDK_CQ_NOTIFY_ANY);
    for (int i = 0; i < 3; ++i) {
        send_one(w.aqp, w.bqp);
        settle();
        EXPECT_EQ(static_cast<std::size_t>(i + 1), w.n.statuses.size());
        EXPECT_EQ(static_cast<std::size_t>(i + 1), w.n.drained.size());
    }
    // Two completions close together: every completion is drained, by one callback or two.
    NDK_SGE r = b_.buf.sge(0, 4096);
    ASSERT_NT_SUCCESS(w.bqp->Dispatch->NdkReceive(w.bqp, nullptr, &r, 1));
    ASSERT_NT_SUCCESS(w.bqp->Dispatch->NdkReceive(w.bqp, nullptr, &r, 1));
    NDK_SGE s = a_.buf.sge(0, 64);
    ASSERT_NT_SUCCESS(w.aqp->Dispatch->NdkSend(w.aqp, nullptr, &s, 1, 0));
    ASSERT_NT_SUCCESS(w.aqp->Dispatch->NdkSend(w.aqp, nullptr, &s, 1, 0));
    settle();
    EXPECT_EQ(5U, w.n.drained.size());
    EXPECT_LE(w.n.statuses.size(), 5U);
    EXPECT_GE(w.n.statuses.size(), 4U);
    EXPECT_FALSE(w.n.nested) << "the notification callback was re-entered";
    for (const NDK_RESULT& d : w.n.drained) {
        EXPECT_NT_SUCCESS(d.Status);
    }
    w.n.drain_and_rearm = false;
}

TEST_F(RcQueues, NotifySolicitedIsSatisfiedOnlyByASolicitedSend) {
    watched w;
    make_watched(w, 64);
    w.n.cq->Dispatch->NdkArmCq(w.n.cq, NDK_CQ_NOTIFY_SOLICITED);
    send_one(w.aqp, w.bqp);
    settle();
    EXPECT_TRUE(w.n.statuses.empty()) << "an unsolicited send satisfied a SOLICITED arm";
    send_one(w.aqp, w.bqp, NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT);
    settle();
    ASSERT_EQ(1U, w.n.statuses.size());
    EXPECT_NT_SUCCESS(w.n.statuses[0]);
}

TEST_F(RcQueues, NotifyErrorsIgnoresSuccessfulCompletions) {
    watched w;
    make_watched(w, 64);
    w.n.cq->Dispatch->NdkArmCq(w.n.cq, NDK_CQ_NOTIFY_ERRORS);
    send_one(w.aqp, w.bqp, NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT);
    settle();
    EXPECT_TRUE(w.n.statuses.empty());
    // A flushed receive is an error completion.
    NDK_SGE r = b_.buf.sge(0, 4096);
    ASSERT_NT_SUCCESS(w.bqp->Dispatch->NdkReceive(w.bqp, nullptr, &r, 1));
    w.bqp->Dispatch->NdkFlush(w.bqp);
    settle();
    EXPECT_EQ(1U, w.n.statuses.size());
}

TEST_F(RcQueues, CqOverrunNotifiesBufferOverflowAndStopsTheQp) {
    watched w;
    make_watched(w, 2);
    for (int i = 0; i < 3; ++i) {
        NDK_SGE r = b_.buf.sge(static_cast<std::size_t>(i) * 4096, 4096);
        ASSERT_NT_SUCCESS(w.bqp->Dispatch->NdkReceive(w.bqp, nullptr, &r, 1));
    }
    NDK_SGE s = a_.buf.sge(0, 64);
    for (int i = 0; i < 3; ++i) {
        ASSERT_NT_SUCCESS(w.aqp->Dispatch->NdkSend(w.aqp, nullptr, &s, 1, 0));
    }
    settle();
    // Not armed, yet told: an overrun is fatal (rule 15).
    ASSERT_EQ(1U, w.n.statuses.size());
    EXPECT_NT_STATUS(STATUS_BUFFER_OVERFLOW, w.n.statuses[0]);
    // The QP using the CQ is stopped.
    NDK_SGE bs = b_.buf.sge(0, 16);
    EXPECT_NT_STATUS(STATUS_CONNECTION_INVALID,
                     w.bqp->Dispatch->NdkSend(w.bqp, nullptr, &bs, 1, 0));
    // What was queued before the overrun is still there; nothing after it.
    NDK_RESULT_EX r[4];
    EXPECT_EQ(2U, w.n.cq->Dispatch->NdkGetCqResultsEx(w.n.cq, r, 4));
    w.n.cq->Dispatch->NdkArmCq(w.n.cq, NDK_CQ_NOTIFY_ANY);
    settle();
    EXPECT_EQ(1U, w.n.statuses.size());
    EXPECT_EQ(0U, w.n.cq->Dispatch->NdkGetCqResultsEx(w.n.cq, r, 4));
}

// ---- read limits -------------------------------------------------------------------------------

TEST_F(RcQueues, WithOrdOneTwoOutstandingReadsBothCompleteInOrder) {
    NDK_QP* aqp = make_qp(a_, a_.cq);
    NDK_QP* bqp = make_qp(b_, b_.cq);
    connect_qps(aqp, bqp, 8, 1, 8, 8);
    for (std::size_t i = 0; i < 2 * 16384; ++i) {
        b_.buf.bytes[i] = static_cast<std::byte>(i * 7 + 1);
    }
    NDK_SGE s1 = a_.buf.sge(65536, 16384);
    NDK_SGE s2 = a_.buf.sge(65536 + 16384, 16384);
    ASSERT_NT_SUCCESS(aqp->Dispatch->NdkRead(aqp, reinterpret_cast<PVOID>(1), &s1, 1,
                                             b_.buf.address(), b_.buf.remote_token, 0));
    ASSERT_NT_SUCCESS(aqp->Dispatch->NdkRead(aqp, reinterpret_cast<PVOID>(2), &s2, 1,
                                             b_.buf.address() + 16384, b_.buf.remote_token, 0));
    for (std::uintptr_t i = 1; i <= 2; ++i) {
        const NDK_RESULT_EX r = next(a_.cq);
        EXPECT_NT_SUCCESS(r.Status);
        EXPECT_EQ(reinterpret_cast<PVOID>(i), r.RequestContext);
        EXPECT_EQ(NdkOperationTypeRead, r.Type);
    }
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes + 65536, b_.buf.bytes, 2 * 16384));
}

TEST_F(RcQueues, APeerInboundReadLimitOfOneStillCompletesManyReadsInOrder) {
    NDK_QP* aqp = make_qp(a_, a_.cq);
    NDK_QP* bqp = make_qp(b_, b_.cq);
    connect_qps(aqp, bqp, 8, 8, 1, 8);
    for (std::size_t i = 0; i < 4 * 8192; ++i) {
        b_.buf.bytes[i] = static_cast<std::byte>(i * 5 + 3);
    }
    for (std::uintptr_t i = 0; i < 4; ++i) {
        NDK_SGE s = a_.buf.sge(65536 + i * 8192, 8192);
        ASSERT_NT_SUCCESS(aqp->Dispatch->NdkRead(aqp, reinterpret_cast<PVOID>(i), &s, 1,
                                                 b_.buf.address() + i * 8192, b_.buf.remote_token,
                                                 0));
    }
    // A write behind the reads completes after them.
    NDK_SGE ws = a_.buf.sge(0, 64);
    ASSERT_NT_SUCCESS(aqp->Dispatch->NdkWrite(aqp, reinterpret_cast<PVOID>(4), &ws, 1,
                                              b_.buf.address() + 131072, b_.buf.remote_token, 0));
    for (std::uintptr_t i = 0; i < 5; ++i) {
        const NDK_RESULT_EX r = next(a_.cq);
        EXPECT_NT_SUCCESS(r.Status);
        EXPECT_EQ(reinterpret_cast<PVOID>(i), r.RequestContext);
    }
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes + 65536, b_.buf.bytes, 4 * 8192));
}

TEST_F(RcQueues, CqOverrunStopsEveryQpUsingTheCq) {
    notifications n;
    n.cq = make_cq(b_, 2, notifications::on_notify, &n);
    NDK_QP* a1 = make_qp(a_, a_.cq);
    NDK_QP* a2 = make_qp(a_, a_.cq);
    NDK_QP* b1 = make_qp(b_, n.cq);
    NDK_QP* b2 = make_qp(b_, n.cq);
    connect_qps(a1, b1);
    connect_qps(a2, b2);
    for (int i = 0; i < 3; ++i) {
        NDK_SGE r = b_.buf.sge(0, 4096);
        ASSERT_NT_SUCCESS(b1->Dispatch->NdkReceive(b1, nullptr, &r, 1));
    }
    NDK_SGE s = a_.buf.sge(0, 64);
    for (int i = 0; i < 3; ++i) {
        ASSERT_NT_SUCCESS(a1->Dispatch->NdkSend(a1, nullptr, &s, 1, 0));
    }
    settle();
    ASSERT_EQ(1U, n.statuses.size());
    EXPECT_NT_STATUS(STATUS_BUFFER_OVERFLOW, n.statuses[0]);
    // b2 never overran anything itself, but its CQ is dead: it is unusable too (rule 15).
    NDK_SGE bs = b_.buf.sge(0, 16);
    EXPECT_NT_STATUS(STATUS_CONNECTION_INVALID, b2->Dispatch->NdkSend(b2, nullptr, &bs, 1, 0));
    EXPECT_NT_STATUS(
        STATUS_CONNECTION_INVALID,
        b2->Dispatch->NdkWrite(b2, nullptr, &bs, 1, a_.buf.address(), a_.buf.remote_token, 0));
    settle();
    EXPECT_EQ(1U, n.statuses.size());
}

}  // namespace
}  // namespace ndksim::testkit
