// SPDX-License-Identifier: MIT
// The NDK verifier (docs/verifier.md): one consumer per rule that breaks it, in report mode
// (the run goes on, the adapter's and the process's counters rise, the registered callback
// gets the report naming the rule, the object and the call) and, for one rule, in break mode
// (the process aborts with the report). The memory-window and fast-register rules are in
// test_rc_memory.cpp beside the helpers they use.

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include <wdm.h>
#include <ndksim/testkit/rc_pair.hpp>

namespace ndksim::testkit {
namespace {

class Verifier : public RcPair {
  protected:
    Verifier() { verifier_ = NDKSIM_VERIFIER_REPORT; }

    /// Checks that exactly one report arrived since `before`, of `rule`, on call `call`, with
    /// the call's `status`, and that both counters rose by one. Returns the report.
    verifier_record expect_one(std::size_t before, ULONG rule, const char* call, NTSTATUS status,
                               const ndksim_adapter* nic) {
        EXPECT_EQ(before + 1, log_.size());
        const std::vector<verifier_record> all = log_.records();
        if (all.size() != before + 1) {
            return {};
        }
        const verifier_record& r = all.back();
        EXPECT_EQ(rule, r.rule) << r.text;
        EXPECT_STREQ(ndksim_verifier_rule_key(rule), r.key.c_str());
        EXPECT_EQ(call, r.call) << r.text;
        EXPECT_NT_STATUS(status, r.status);
        EXPECT_NE(std::string::npos, r.text.find("source: REFERENCE.md")) << r.text;
        EXPECT_FALSE(r.backtrace.empty()) << "the consumer's call site";
        EXPECT_EQ(reports_before_ + log_.size(), ndksim_verifier_reports());
        if (nic != nullptr) {
            EXPECT_LE(1U, ndksim_adapter_verifier_reports(nic));
        }
        return r;
    }

    /// An unconnected QP on side a over a_.cq (depths 64/64, 4 SGEs, 128 inline bytes).
    NDK_QP* spare_qp() { return make_qp(a_, a_.cq); }

    verifier_log log_;
    ULONG64 reports_before_ = ndksim_verifier_reports();
};

TEST_F(Verifier, SgeCountAboveTheQpsMaximumIsReportedAndRefused) {
    NDK_SGE s[8];
    for (ULONG i = 0; i < 8; ++i) {
        s[i] = a_.buf.sge(i, 1);
    }
    const std::size_t before = log_.size();
    ASSERT_NT_STATUS(
        STATUS_INVALID_PARAMETER,
        a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, s, 8, b_.buf.address(), b_.buf.remote_token, 0));
    const verifier_record r =
        expect_one(before, NDKSIM_RULE_SGE_COUNT, "NdkWrite", STATUS_INVALID_PARAMETER, a_.nic);
    EXPECT_NE(std::string::npos, r.object.find("/qp#")) << r.object;
    EXPECT_NE(std::string::npos, r.detail.find("MaxInitiatorRequestSge")) << r.detail;
    // Report mode goes on: the next correct call works as without the verifier.
    NDK_SGE one = a_.buf.sge(0, 16);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &one, 1, b_.buf.address(),
                                                b_.buf.remote_token, 0));
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    EXPECT_EQ(before + 1, log_.size());
}

TEST_F(Verifier, MoreReceivesThanTheQueueDepthAreReported) {
    NDK_QP* qp = spare_qp();
    for (int i = 0; i < 64; ++i) {
        ASSERT_NT_SUCCESS(qp->Dispatch->NdkReceive(qp, nullptr, nullptr, 0));
    }
    const std::size_t before = log_.size();
    ASSERT_NT_STATUS(STATUS_INSUFFICIENT_RESOURCES,
                     qp->Dispatch->NdkReceive(qp, nullptr, nullptr, 0));
    expect_one(before, NDKSIM_RULE_QUEUE_DEPTH, "NdkReceive", STATUS_INSUFFICIENT_RESOURCES,
               a_.nic);
}

TEST_F(Verifier, ATransferAboveMaxTransferLengthIsReported) {
    NDK_ADAPTER_INFO info{};
    ULONG size = sizeof info;
    ASSERT_NT_SUCCESS(a_.adapter->Dispatch->NdkQueryAdapterInfo(a_.adapter, &info, &size));
    // Refused before any byte is read: the SGE's length alone decides.
    NDK_SGE s = a_.buf.sge(0, info.MaxTransferLength + 1);
    const std::size_t before = log_.size();
    ASSERT_NT_STATUS(STATUS_INVALID_PARAMETER, a_.qp->Dispatch->NdkSend(a_.qp, nullptr, &s, 1, 0));
    expect_one(before, NDKSIM_RULE_TRANSFER_LENGTH, "NdkSend", STATUS_INVALID_PARAMETER, a_.nic);
}

TEST_F(Verifier, InlineDataAboveTheQpsInlineSizeIsReported) {
    NDK_SGE s = a_.buf.sge(0, 4096);
    const std::size_t before = log_.size();
    ASSERT_NT_STATUS(STATUS_INVALID_PARAMETER,
                     a_.qp->Dispatch->NdkSend(a_.qp, nullptr, &s, 1, NDK_OP_FLAG_INLINE));
    expect_one(before, NDKSIM_RULE_INLINE_SIZE, "NdkSend", STATUS_INVALID_PARAMETER, a_.nic);
}

// Two threads racing on one queue: the overlap is a matter of scheduling, so each thread
// repeats its call until the verifier has seen one overlap, failing loudly after a bound.
template <class Call>
bool race_until_reported(const verifier_log& log, ULONG rule, Call call) {
    std::atomic<bool> stop{false};
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    auto body = [&] {
        while (!stop.load(std::memory_order_relaxed)) {
            call();
            if (log.count(rule) != 0 || std::chrono::steady_clock::now() > deadline) {
                stop.store(true);
            }
        }
    };
    std::thread other(body);
    body();
    other.join();
    return log.count(rule) != 0;
}

TEST_F(Verifier, UnserializedPostsOnOneQueueAreReported) {
    // Sends on an unconnected QP are refused inline (rule 10) and change nothing, so both
    // threads can repeat them for as long as the race takes.
    NDK_QP* qp = spare_qp();
    ASSERT_TRUE(race_until_reported(log_, NDKSIM_RULE_CONCURRENT_POST, [qp] {
        (void)qp->Dispatch->NdkSend(qp, nullptr, nullptr, 0, 0);
    })) << "no overlap seen in 60 s";
    const verifier_record r = log_.records().front();
    EXPECT_EQ("NdkSend", r.call);
    EXPECT_NT_SUCCESS(r.status) << "the call goes on";
}

TEST_F(Verifier, UnserializedPollsOfOneCqAreReported) {
    NDK_CQ* cq = a_.cq;
    ASSERT_TRUE(race_until_reported(log_, NDKSIM_RULE_CONCURRENT_POLL, [cq] {
        NDK_RESULT r[4];
        (void)cq->Dispatch->NdkGetCqResults(cq, r, 4);
    })) << "no overlap seen in 60 s";
    EXPECT_EQ("NdkGetCqResults", log_.records().front().call);
}

TEST_F(Verifier, SerializedPostsFromTwoThreadsAreNotReported) {
    NDK_QP* qp = spare_qp();
    std::mutex serialize;
    auto body = [&] {
        for (int i = 0; i < 2000; ++i) {
            std::lock_guard lock(serialize);
            (void)qp->Dispatch->NdkSend(qp, nullptr, nullptr, 0, 0);
        }
    };
    std::thread other(body);
    body();
    other.join();
    EXPECT_EQ(0U, log_.size());
}

// A PD with one MR under it: closing the PD pends until the MR closes (rule 6).
struct pd_with_mr {
    NDK_PD* pd = nullptr;
    NDK_MR* mr = nullptr;
};

TEST_F(Verifier, ACallOnAnObjectWhoseCloseWasRequestedIsReported) {
    slot created;
    pd_with_mr o;
    ASSERT_NT_SUCCESS(
        a_.adapter->Dispatch->NdkCreatePd(a_.adapter, slot::on_create, &created, &o.pd));
    ASSERT_NT_SUCCESS(o.pd->Dispatch->NdkCreateMr(o.pd, TRUE, slot::on_create, &created, &o.mr));
    slot closed;
    ASSERT_NT_STATUS(STATUS_PENDING,
                     o.pd->Dispatch->NdkClosePd(&o.pd->Header, slot::on_close, &closed));
    const std::size_t before = log_.size();
    UINT32 token = 0;
    o.pd->Dispatch->NdkGetPrivilegedMemoryRegionToken(o.pd, &token);
    const verifier_record r =
        expect_one(before, NDKSIM_RULE_USE_AFTER_CLOSE, "NdkGetPrivilegedMemoryRegionToken",
                   STATUS_SUCCESS, a_.nic);
    EXPECT_NE(std::string::npos, r.object.find("/pd#")) << r.object;
    close(&o.mr->Header);
    ASSERT_TRUE(wait(closed, "the PD's close completion"));
    EXPECT_EQ(before + 1, log_.size()) << "closing the children first is correct";
}

TEST_F(Verifier, ASecondCloseIsReported) {
    slot created;
    pd_with_mr o;
    ASSERT_NT_SUCCESS(
        a_.adapter->Dispatch->NdkCreatePd(a_.adapter, slot::on_create, &created, &o.pd));
    ASSERT_NT_SUCCESS(o.pd->Dispatch->NdkCreateMr(o.pd, TRUE, slot::on_create, &created, &o.mr));
    slot closed;
    slot closed_again;
    ASSERT_NT_STATUS(STATUS_PENDING,
                     o.pd->Dispatch->NdkClosePd(&o.pd->Header, slot::on_close, &closed));
    const std::size_t before = log_.size();
    ASSERT_NT_SUCCESS(o.pd->Dispatch->NdkClosePd(&o.pd->Header, slot::on_close, &closed_again));
    expect_one(before, NDKSIM_RULE_DOUBLE_CLOSE, "NdkClosePd", STATUS_SUCCESS, a_.nic);
    close(&o.mr->Header);
    ASSERT_TRUE(wait(closed, "the PD's close completion"));
    EXPECT_EQ(0, closed_again.calls) << "the second close is ignored";
}

TEST_F(Verifier, ClosingAParentWithLiveChildrenIsReportedOnlyWhenAskedFor) {
    slot created;
    pd_with_mr o;
    ASSERT_NT_SUCCESS(
        a_.adapter->Dispatch->NdkCreatePd(a_.adapter, slot::on_create, &created, &o.pd));
    ASSERT_NT_SUCCESS(o.pd->Dispatch->NdkCreateMr(o.pd, TRUE, slot::on_create, &created, &o.mr));
    ASSERT_NT_SUCCESS(ndksim_verifier_enable_rule(NDKSIM_RULE_CLOSE_WITH_CHILDREN, TRUE));
    slot closed;
    const std::size_t before = log_.size();
    ASSERT_NT_STATUS(STATUS_PENDING,
                     o.pd->Dispatch->NdkClosePd(&o.pd->Header, slot::on_close, &closed));
    ASSERT_NT_SUCCESS(ndksim_verifier_enable_rule(NDKSIM_RULE_CLOSE_WITH_CHILDREN, FALSE));
    const verifier_record r =
        expect_one(before, NDKSIM_RULE_CLOSE_WITH_CHILDREN, "NdkClosePd", STATUS_SUCCESS, a_.nic);
    EXPECT_NE(std::string::npos, r.detail.find("/mr#")) << "names the live child: " << r.detail;
    close(&o.mr->Header);
    ASSERT_TRUE(wait(closed, "the PD's close completion"));
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, ndksim_verifier_enable_rule(0, TRUE));
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER,
                     ndksim_verifier_enable_rule(NDKSIM_RULE_COUNT, TRUE));
}

// A CQ of its own with a notification callback that can run code inside it.
struct notified_cq {
    NDK_CQ* cq = nullptr;
    int notifications = 0;
    std::function<void()> inside;
    static void callback(PVOID context, NTSTATUS) {
        auto* self = static_cast<notified_cq*>(context);
        ++self->notifications;
        if (self->inside) {
            self->inside();
        }
    }
};

class VerifierCq : public Verifier {
  protected:
    // A connected pair of QPs whose side-a QP uses n_.cq, with `sends` sends from a to b
    // completed into it (b posts the receives).
    void complete_sends(int sends) {
        n_.cq = make_cq(a_, 64, &notified_cq::callback, &n_);
        aqp_ = make_qp(a_, n_.cq);
        NDK_QP* bqp = make_qp(b_, b_.cq);
        link_ = &connect_qps(aqp_, bqp);
        for (int i = 0; i < sends; ++i) {
            ASSERT_NT_SUCCESS(bqp->Dispatch->NdkReceive(bqp, nullptr, nullptr, 0));
            ASSERT_NT_SUCCESS(aqp_->Dispatch->NdkSend(aqp_, nullptr, nullptr, 0, 0));
        }
        settle();
    }

    notified_cq n_;
    NDK_QP* aqp_ = nullptr;
    link* link_ = nullptr;
};

TEST_F(VerifierCq, RearmingInsideTheNotificationBeforeDrainingIsReported) {
    n_.inside = [this] { n_.cq->Dispatch->NdkArmCq(n_.cq, NDK_CQ_NOTIFY_ANY); };
    complete_sends(1);
    const std::size_t before = log_.size();
    n_.cq->Dispatch->NdkArmCq(n_.cq, NDK_CQ_NOTIFY_ANY);
    settle();
    ASSERT_EQ(1, n_.notifications);
    expect_one(before, NDKSIM_RULE_REARM_BEFORE_DRAIN, "NdkArmCq", STATUS_SUCCESS, a_.nic);
    // Draining first, then re-arming, is the correct order: no report.
    n_.inside = [this] {
        NDK_RESULT r[4];
        while (n_.cq->Dispatch->NdkGetCqResults(n_.cq, r, 4) != 0) {
        }
        n_.cq->Dispatch->NdkArmCq(n_.cq, NDK_CQ_NOTIFY_ANY);
    };
    NDK_RESULT r[4];
    while (n_.cq->Dispatch->NdkGetCqResults(n_.cq, r, 4) != 0) {
    }
    EXPECT_EQ(before + 1, log_.size());
}

TEST_F(VerifierCq, AnEmptyPollInsideTheNotificationCountsAsDrainingBeforeTheRearm) {
    // The completion is retrieved before its notification runs, so the callback's poll finds
    // the CQ empty; arming after that poll is the correct order, and an empty poll is still a
    // poll to the verifier.
    std::uint32_t inside_polled = 99;
    n_.inside = [this, &inside_polled] {
        NDK_RESULT r[4];
        inside_polled = n_.cq->Dispatch->NdkGetCqResults(n_.cq, r, 4);
        n_.cq->Dispatch->NdkArmCq(n_.cq, NDK_CQ_NOTIFY_ANY);
    };
    complete_sends(1);
    n_.cq->Dispatch->NdkArmCq(n_.cq, NDK_CQ_NOTIFY_ANY);
    NDK_RESULT r[4];
    ASSERT_EQ(1u, n_.cq->Dispatch->NdkGetCqResults(n_.cq, r, 4));
    const std::size_t before = log_.size();
    settle();
    ASSERT_EQ(1, n_.notifications);
    EXPECT_EQ(0u, inside_polled);
    EXPECT_EQ(before, log_.size());
}

TEST_F(VerifierCq, ClosingACqArmedOverStaleCompletionsIsReported) {
    complete_sends(2);
    n_.cq->Dispatch->NdkArmCq(n_.cq, NDK_CQ_NOTIFY_ANY);
    settle();
    ASSERT_EQ(1, n_.notifications) << "the first arm fires for the two queued completions";
    // Armed again without retrieving them: this arm waits for a third completion.
    n_.cq->Dispatch->NdkArmCq(n_.cq, NDK_CQ_NOTIFY_ANY);
    settle();
    EXPECT_EQ(1, n_.notifications);
    // Its successors first (the active connector, then the QP), so the CQ's close is its own.
    close_tracked(&link_->active->Header);
    close_tracked(&aqp_->Header);
    const std::size_t before = log_.size();
    close_tracked(&n_.cq->Header);
    const verifier_record r = expect_one(before, NDKSIM_RULE_ARMED_WITH_STALE_COMPLETIONS,
                                         "NdkCloseCq", STATUS_SUCCESS, a_.nic);
    EXPECT_NE(std::string::npos, r.detail.find("armed with 2 completions")) << r.detail;
}

TEST_F(Verifier, ResultExFieldsUndefinedForTheTypeArePoisoned) {
    NDK_SGE s = a_.buf.sge(0, 64);
    ASSERT_NT_SUCCESS(
        a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &s, 1, b_.buf.address(), b_.buf.remote_token, 0));
    const NDK_RESULT_EX r = next(a_.cq);
    ASSERT_NT_SUCCESS(r.Status);
    EXPECT_EQ(NdkOperationTypeWrite, r.Type);
    EXPECT_EQ(NDKSIM_VERIFIER_POISON, r.BytesTransferred) << "defined for receives only";
    EXPECT_EQ(NDKSIM_VERIFIER_POISON, r.TypeSpecificCompletionOutput)
        << "defined for ReceiveAndInvalidate only";
}

TEST_F(Verifier, AnSgeWithAnotherPdsPrivilegedTokenIsReported) {
    slot created;
    NDK_PD* other = nullptr;
    ASSERT_NT_SUCCESS(
        a_.adapter->Dispatch->NdkCreatePd(a_.adapter, slot::on_create, &created, &other));
    track(&other->Header);
    UINT32 foreign = 0;
    other->Dispatch->NdkGetPrivilegedMemoryRegionToken(other, &foreign);
    NDK_QP* qp = spare_qp();
    NDK_SGE s{};
    s.LogicalAddress.QuadPart = 0x1000;
    s.Length = 64;
    s.MemoryRegionToken = foreign;
    const std::size_t before = log_.size();
    ASSERT_NT_SUCCESS(qp->Dispatch->NdkReceive(qp, nullptr, &s, 1));
    const verifier_record r = expect_one(before, NDKSIM_RULE_PRIVILEGED_TOKEN_FOREIGN_PD,
                                         "NdkReceive", STATUS_SUCCESS, a_.nic);
    EXPECT_NE(std::string::npos, r.detail.find("SGE 0")) << r.detail;
    // Its own PD's privileged token is correct.
    UINT32 own = 0;
    a_.pd->Dispatch->NdkGetPrivilegedMemoryRegionToken(a_.pd, &own);
    s.MemoryRegionToken = own;
    ASSERT_NT_SUCCESS(qp->Dispatch->NdkReceive(qp, nullptr, &s, 1));
    EXPECT_EQ(before + 1, log_.size());
}

TEST_F(Verifier, AnNdkCallAboveItsIrqlIsReported) {
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(DISPATCH_LEVEL, &old);
    NDK_ADAPTER_INFO info{};
    ULONG size = sizeof info;
    const std::size_t before = log_.size();
    const NTSTATUS queried = a_.adapter->Dispatch->NdkQueryAdapterInfo(a_.adapter, &info, &size);
    KeLowerIrql(old);
    EXPECT_NT_SUCCESS(queried) << "report mode lets the call go on";
    const verifier_record r = expect_one(before, NDKSIM_RULE_IRQL_OF_CALL, "NdkQueryAdapterInfo",
                                         STATUS_SUCCESS, nullptr);
    EXPECT_NE(std::string::npos, r.detail.find("DISPATCH_LEVEL")) << r.detail;
}

TEST_F(VerifierCq, BlockingInsideACallbackIsReported) {
    n_.inside = [] {
        LARGE_INTEGER zero{};
        (void)KeDelayExecutionThread(KernelMode, FALSE, &zero);
    };
    complete_sends(1);
    const std::size_t before = log_.size();
    n_.cq->Dispatch->NdkArmCq(n_.cq, NDK_CQ_NOTIFY_ANY);
    settle();
    ASSERT_EQ(1, n_.notifications);
    const verifier_record r = expect_one(before, NDKSIM_RULE_KERNEL_RULE_IN_CALLBACK,
                                         "KeDelayExecutionThread", STATUS_SUCCESS, nullptr);
    EXPECT_NE(std::string::npos, r.detail.find("inside an NDK callback")) << r.detail;
}

TEST_F(Verifier, ALamNeverReleasedIsReportedWhenTheLastHandleCloses) {
    ndksim_adapter_config c;
    ndksim_adapter_config_init(&c);
    c.loop = loop_;
    c.address = "10.0.0.3";
    c.verifier = NDKSIM_VERIFIER_REPORT;
    ndksim_adapter* nic = nullptr;
    ASSERT_NT_SUCCESS(ndksim_adapter_create(&c, &nic));
    NDIS_OPEN_NDK_ADAPTER_PARAMETERS p{};
    p.Version = ndksim_highest_version();
    NDK_ADAPTER* adapter = nullptr;
    ASSERT_NT_SUCCESS(ndksim_open_ndk_adapter(nic, &p, &adapter));
    alignas(4096) static std::byte page[4096];
    MDL* mdl = IoAllocateMdl(page, sizeof page, FALSE, FALSE, nullptr);
    ASSERT_NE(nullptr, mdl);
    MmBuildMdlForNonPagedPool(mdl);
    alignas(8) std::byte lam_bytes[64] = {};
    auto* lam = reinterpret_cast<NDK_LOGICAL_ADDRESS_MAPPING*>(lam_bytes);
    ULONG lam_size = sizeof lam_bytes;
    ULONG fbo = 0;
    slot built;
    const NTSTATUS r = adapter->Dispatch->NdkBuildLAM(adapter, mdl, sizeof page, slot::on_request,
                                                      &built, lam, &lam_size, &fbo);
    if (r == STATUS_PENDING) {
        ASSERT_TRUE(wait(built, "NdkBuildLAM's completion"));
    } else {
        ASSERT_NT_SUCCESS(r);
    }
    const std::size_t before = log_.size();
    ndksim_close_ndk_adapter(nic, adapter);
    const verifier_record rep = expect_one(before, NDKSIM_RULE_LAM_NOT_RELEASED,
                                           "ndksim_close_ndk_adapter", STATUS_SUCCESS, nic);
    EXPECT_NE(std::string::npos, rep.detail.find("1 LAM")) << rep.detail;
    ndksim_adapter_destroy(nic);
    IoFreeMdl(mdl);
}

// Turns an opt-in rule on for a scope: the switch is process-wide, so it must not outlive the
// test.
struct rule_on {
    explicit rule_on(ULONG r) : rule(r) {
        EXPECT_NT_SUCCESS(ndksim_verifier_enable_rule(rule, TRUE));
    }
    ~rule_on() { (void)ndksim_verifier_enable_rule(rule, FALSE); }
    rule_on(const rule_on&) = delete;
    rule_on& operator=(const rule_on&) = delete;
    ULONG rule;
};

/// A 64-byte RDMA write on `qp` from a's buffer to b's carrying `context`.
NTSTATUS write_with(side& a, side& b, NDK_QP* qp, PVOID context, ULONG flags) {
    NDK_SGE s = a.buf.sge(0, 64);
    return qp->Dispatch->NdkWrite(qp, context, &s, 1, b.buf.address(), b.buf.remote_token, flags);
}

/// The text the verifier's detail gives for a context value.
std::string pointer_text(const void* p) {
    char text[32];
    std::snprintf(text, sizeof text, "%p", p);
    return text;
}

TEST_F(Verifier, ContextReuseIsNotReportedUnlessAskedFor) {
    int tag = 0;
    const std::size_t before = log_.size();
    ASSERT_NT_SUCCESS(write_with(a_, b_, a_.qp, &tag, 0));
    ASSERT_NT_SUCCESS(write_with(a_, b_, a_.qp, &tag, 0));
    EXPECT_EQ(&tag, next(a_.cq).RequestContext);
    EXPECT_EQ(&tag, next(a_.cq).RequestContext);
    EXPECT_EQ(before, log_.size()) << "context-reuse is opt-in";
    EXPECT_EQ(0U, ndksim_adapter_verifier_rule_reports(a_.nic, NDKSIM_RULE_CONTEXT_REUSE));
}

// Rule 17 (context-reuse) switched on for each test.
class VerifierContextReuse : public Verifier {
  protected:
    NTSTATUS write(PVOID context, ULONG flags = 0) {
        return write_with(a_, b_, a_.qp, context, flags);
    }
    ULONG64 reuse_reports() const {
        return ndksim_adapter_verifier_rule_reports(a_.nic, NDKSIM_RULE_CONTEXT_REUSE);
    }
    /// The next completion of a_.cq, expected successful; returns its context.
    PVOID retrieve() {
        const NDK_RESULT_EX r = next(a_.cq);
        EXPECT_NT_SUCCESS(r.Status);
        return r.RequestContext;
    }

    rule_on rule_{NDKSIM_RULE_CONTEXT_REUSE};
};

TEST_F(VerifierContextReuse, AContextReusedWhileItsRequestIsOutstandingIsReported) {
    int tag = 0;
    ASSERT_NT_SUCCESS(write(&tag));
    const std::size_t before = log_.size();
    ASSERT_NT_SUCCESS(write(&tag)) << "report mode: the post goes on";
    const verifier_record r =
        expect_one(before, NDKSIM_RULE_CONTEXT_REUSE, "NdkWrite", STATUS_SUCCESS, a_.nic);
    EXPECT_NE(std::string::npos, r.object.find("/qp#")) << r.object;
    EXPECT_NE(std::string::npos, r.detail.find(pointer_text(&tag))) << r.detail;
    EXPECT_NE(std::string::npos, r.detail.find("earlier NdkWrite still outstanding on the "
                                               "initiator queue"))
        << r.detail;
    EXPECT_EQ(1U, reuse_reports());
    // Both requests complete, each carrying the context, as without the verifier.
    EXPECT_EQ(&tag, retrieve());
    EXPECT_EQ(&tag, retrieve());
    EXPECT_EQ(before + 1, log_.size());
}

TEST_F(VerifierContextReuse, AContextIsFreeAgainOnceItsCompletionIsRetrieved) {
    int tag = 0;
    const std::size_t before = log_.size();
    ASSERT_NT_SUCCESS(write(&tag));
    ASSERT_EQ(&tag, retrieve());
    ASSERT_NT_SUCCESS(write(&tag));
    ASSERT_EQ(&tag, retrieve());
    NDK_SGE s = a_.buf.sge(0, 64);
    ASSERT_NT_SUCCESS(
        a_.qp->Dispatch->NdkRead(a_.qp, &tag, &s, 1, b_.buf.address(), b_.buf.remote_token, 0));
    EXPECT_EQ(&tag, retrieve());
    EXPECT_EQ(before, log_.size());
    EXPECT_EQ(0U, reuse_reports());
}

TEST_F(VerifierContextReuse, TwoDifferentContextsOutstandingAreNotReported) {
    int first = 0;
    int second = 0;
    const std::size_t before = log_.size();
    ASSERT_NT_SUCCESS(write(&first));
    ASSERT_NT_SUCCESS(write(&second));
    EXPECT_EQ(&first, retrieve());
    EXPECT_EQ(&second, retrieve());
    EXPECT_EQ(before, log_.size());
}

TEST_F(VerifierContextReuse, ANullContextIsNeverReported) {
    const std::size_t before = log_.size();
    for (int i = 0; i < 3; ++i) {
        ASSERT_NT_SUCCESS(write(nullptr));
    }
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(nullptr, retrieve());
    }
    EXPECT_EQ(before, log_.size());
}

// A successful SILENT_SUCCESS request never completes; it stops being outstanding when a
// completion of a request posted after it on the same queue is retrieved (completions of a
// queue come in posting order).
TEST_F(VerifierContextReuse, ASilentRequestIsOutstandingUntilALaterCompletionIsRetrieved) {
    int quiet = 0;
    int loud = 0;
    ASSERT_NT_SUCCESS(write(&quiet, NDK_OP_FLAG_SILENT_SUCCESS));
    settle();
    ASSERT_TRUE(cq_empty(a_.cq)) << "a successful silent request does not complete";
    const std::size_t before = log_.size();
    ASSERT_NT_SUCCESS(write(&quiet, NDK_OP_FLAG_SILENT_SUCCESS));
    const verifier_record r =
        expect_one(before, NDKSIM_RULE_CONTEXT_REUSE, "NdkWrite", STATUS_SUCCESS, a_.nic);
    EXPECT_NE(std::string::npos, r.detail.find("SILENT_SUCCESS")) << r.detail;
    ASSERT_NT_SUCCESS(write(&loud));
    EXPECT_EQ(&loud, retrieve());
    ASSERT_TRUE(cq_empty(a_.cq));
    ASSERT_NT_SUCCESS(write(&quiet, NDK_OP_FLAG_SILENT_SUCCESS));
    EXPECT_EQ(before + 1, log_.size()) << "the completion of &loud retired both silent writes";
    EXPECT_EQ(1U, reuse_reports());
}

TEST_F(VerifierContextReuse, EachQueueHasContextsOfItsOwn) {
    int tag = 0;
    const std::size_t before = log_.size();
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkReceive(a_.qp, &tag, nullptr, 0));
    ASSERT_NT_SUCCESS(write(&tag)) << "the initiator queue is another queue";
    EXPECT_EQ(before, log_.size());
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkReceive(a_.qp, &tag, nullptr, 0));
    const verifier_record r =
        expect_one(before, NDKSIM_RULE_CONTEXT_REUSE, "NdkReceive", STATUS_SUCCESS, a_.nic);
    EXPECT_NE(std::string::npos, r.detail.find("receive queue")) << r.detail;
    EXPECT_EQ(&tag, retrieve());
}

TEST_F(VerifierContextReuse, AFlushedRequestLeavesWhenItsCancelledCompletionIsRetrieved) {
    NDK_QP* qp = spare_qp();
    int tag = 0;
    ASSERT_NT_SUCCESS(qp->Dispatch->NdkReceive(qp, &tag, nullptr, 0));
    qp->Dispatch->NdkFlush(qp);
    const NDK_RESULT_EX flushed = next(a_.cq);
    EXPECT_NT_STATUS(STATUS_CANCELLED, flushed.Status);
    EXPECT_EQ(&tag, flushed.RequestContext);
    const std::size_t before = log_.size();
    ASSERT_NT_SUCCESS(qp->Dispatch->NdkReceive(qp, &tag, nullptr, 0));
    EXPECT_EQ(before, log_.size());
}

TEST_F(VerifierContextReuse, APostRefusedInlineLeavesNothingOutstanding) {
    NDK_QP* qp = spare_qp();
    int tag = 0;
    const std::size_t before = log_.size();
    NDK_SGE s = a_.buf.sge(0, 64);
    ASSERT_NT_STATUS(STATUS_CONNECTION_INVALID, qp->Dispatch->NdkSend(qp, &tag, &s, 1, 0));
    ASSERT_NT_STATUS(STATUS_CONNECTION_INVALID, qp->Dispatch->NdkSend(qp, &tag, &s, 1, 0));
    EXPECT_EQ(before, log_.size()) << "rule 9: a post refused inline never completes";
}

TEST_F(VerifierContextReuse, AnSrqReceiveReusingAnOutstandingContextIsReported) {
    slot created;
    NDK_SRQ* srq = nullptr;
    ASSERT_NT_SUCCESS(a_.pd->Dispatch->NdkCreateSrq(a_.pd, 16, 4, 0, nullptr, nullptr, nullptr,
                                                    slot::on_create, &created, &srq));
    track(&srq->Header);
    int tag = 0;
    ASSERT_NT_SUCCESS(srq->Dispatch->NdkSrqReceive(srq, &tag, nullptr, 0));
    const std::size_t before = log_.size();
    ASSERT_NT_SUCCESS(srq->Dispatch->NdkSrqReceive(srq, &tag, nullptr, 0));
    const verifier_record r =
        expect_one(before, NDKSIM_RULE_CONTEXT_REUSE, "NdkSrqReceive", STATUS_SUCCESS, a_.nic);
    EXPECT_NE(std::string::npos, r.object.find("/srq#")) << r.object;
    EXPECT_NE(std::string::npos, r.detail.find("on the SRQ")) << r.detail;
}

// Break mode: the process stops at the offending call with the report on stderr.
class VerifierBreaks : public RcPair {
  protected:
    VerifierBreaks() { verifier_ = NDKSIM_VERIFIER_BREAK; }
};

TEST_F(VerifierBreaks, TooManySgesAbortWithTheReport) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    NDK_SGE s[8];
    for (ULONG i = 0; i < 8; ++i) {
        s[i] = a_.buf.sge(i, 1);
    }
    EXPECT_DEATH((void)a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, s, 8, b_.buf.address(),
                                                 b_.buf.remote_token, 0),
                 "ndksim verifier: rule 2 \\(sge-count\\).*\n.*source: REFERENCE.md 10 rule "
                 "11(.|\n)*object: nic[0-9]+/h[0-9]+/qp#[0-9]+(.|\n)*NdkWrite returned "
                 "STATUS_INVALID_PARAMETER(.|\n)*at:");
}

TEST_F(VerifierBreaks, AReusedContextAbortsWithTheReportWhenAskedFor) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    const rule_on reuse(NDKSIM_RULE_CONTEXT_REUSE);
    int tag = 0;
    ASSERT_NT_SUCCESS(write_with(a_, b_, a_.qp, &tag, 0));
    EXPECT_DEATH((void)write_with(a_, b_, a_.qp, &tag, 0),
                 "ndksim verifier: rule 17 \\(context-reuse\\).*\n.*source: REFERENCE.md 10 "
                 "rule 9(.|\n)*object: nic[0-9]+/h[0-9]+/qp#[0-9]+(.|\n)*NdkWrite \\(the call "
                 "goes on\\)(.|\n)*detail: RequestContext 0x[0-9a-f]+ is that of an earlier "
                 "NdkWrite(.|\n)*at:");
    EXPECT_EQ(&tag, next(a_.cq).RequestContext);
}

}  // namespace
}  // namespace ndksim::testkit
