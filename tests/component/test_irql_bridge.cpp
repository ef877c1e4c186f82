// SPDX-License-Identifier: MIT
// The IRQL bridge (REFERENCE.md 8.5, docs/kernel-runtime.md "IRQL of NDK calls and
// callbacks"): every consumer callback runs at DISPATCH_LEVEL, in inline, pending, random and
// threaded modes alike, and must return there without a spin lock held; a PASSIVE_LEVEL call
// or a blocking wait made from a callback is reported by the kernel runtime instead of
// deadlocking on Windows later. Written against the public surface (the shared library).

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <ndksim/testkit/ndk_fixture.hpp>

namespace {

using namespace ndksim::testkit;

// A CQ notification callback that records the IRQL it runs at and can run more code inside.
class notify_probe {
  public:
    static VOID callback(PVOID context, NTSTATUS status) {
        auto* self = static_cast<notify_probe*>(context);
        const KIRQL irql = KeGetCurrentIrql();
        (void)status;
        if (self->inside) {
            self->inside();
        }
        {
            std::lock_guard lock(self->mutex_);
            self->irqls_.push_back(irql);
        }
        self->cv_.notify_all();
    }

    /// Waits until `n` notifications have returned (threaded mode; deterministic mode drains
    /// the loop first).
    bool wait(std::size_t n, std::chrono::milliseconds timeout) {
        std::unique_lock lock(mutex_);
        return cv_.wait_for(lock, timeout, [&] { return irqls_.size() >= n; });
    }

    std::vector<KIRQL> irqls() {
        std::lock_guard lock(mutex_);
        return irqls_;
    }

    std::function<void()> inside;

  private:
    std::mutex mutex_;
    std::condition_variable cv_;
    std::vector<KIRQL> irqls_;
};

class IrqlBridge : public NdkStyleTest {
  protected:
    // These tests check the kernel runtime's own reports (NDKSIM_IRQL_VIOLATIONS=log and its
    // counter); with a verifier on, the same violations are the verifier's (test_verifier.cpp).
    env_options options() const override {
        env_options o = NdkStyleTest::options();
        o.verifier = NDKSIM_VERIFIER_OFF;
        return o;
    }

    void SetUp() override {
        ::setenv("NDKSIM_IRQL_VIOLATIONS", "log", 1);
        NdkStyleTest::SetUp();
    }

    // A recorder whose callbacks note their IRQL.
    recorder& probed(const std::string& name) {
        recorder& r = make_recorder(name);
        r.set_hook([this](recorder&) { note(KeGetCurrentIrql()); });
        return r;
    }

    void note(KIRQL irql) {
        std::lock_guard lock(mutex_);
        seen_.push_back(irql);
    }
    std::vector<KIRQL> seen() {
        std::lock_guard lock(mutex_);
        return seen_;
    }

    // A PD, a CQ notifying `probe`, and a QP on it with one receive posted; all closed by
    // close_objects().
    void make_objects(notify_probe& probe) {
        auto pd = create_pd(nullptr, &probed("pd"));
        ASSERT_NT_SUCCESS(pd.status);
        pd_ = pd.object;
        auto cq = create<NDK_CQ>(
            "NdkCreateCq",
            [&](NDK_FN_CREATE_COMPLETION done, PVOID ctx, NDK_CQ** out) {
                return adapter()->Dispatch->NdkCreateCq(adapter(), 64, &notify_probe::callback,
                                                        &probe, nullptr, done, ctx, out);
            },
            &probed("cq"));
        ASSERT_NT_SUCCESS(cq.status);
        cq_ = cq.object;
        auto qp = create_qp(pd_, cq_, cq_, {}, &probed("qp"));
        ASSERT_NT_SUCCESS(qp.status);
        qp_ = qp.object;
        ASSERT_NT_SUCCESS(qp_->Dispatch->NdkReceive(qp_, nullptr, nullptr, 0));
    }

    // Flushing the QP completes its receive with STATUS_CANCELLED, which fires the armed CQ.
    void trigger_notification(notify_probe& probe, std::size_t n) {
        cq_->Dispatch->NdkArmCq(cq_, NDK_CQ_NOTIFY_ANY);
        qp_->Dispatch->NdkFlush(qp_);
        drain();
        ASSERT_TRUE(probe.wait(n, opts().wait_timeout)) << "no CQ notification";
        NDK_RESULT results[4];
        while (cq_->Dispatch->NdkGetCqResults(cq_, results, 4) != 0) {
        }
    }

    // The check of a callback's return runs after the callback itself, so in threaded mode the
    // report can come just after the probe saw the callback: wait for it (bounded).
    bool violations_reach(ULONG64 before, ULONG64 n) {
        const auto deadline = std::chrono::steady_clock::now() + opts().wait_timeout;
        while (ndksim_kernel_irql_violations() - before < n) {
            if (std::chrono::steady_clock::now() > deadline) {
                return false;
            }
            std::this_thread::yield();
        }
        return true;
    }

    void close_objects() {
        EXPECT_NT_SUCCESS(close(qp_, &probed("qp.close")).status);
        EXPECT_NT_SUCCESS(close(cq_, &probed("cq.close")).status);
        EXPECT_NT_SUCCESS(close(pd_, &probed("pd.close")).status);
    }

    NDK_PD* pd_ = nullptr;
    NDK_CQ* cq_ = nullptr;
    NDK_QP* qp_ = nullptr;

  private:
    std::mutex mutex_;
    std::vector<KIRQL> seen_;
};

TEST_P(IrqlBridge, EveryCallbackRunsAtDispatchLevel) {
    notify_probe probe;
    make_objects(probe);
    ASSERT_FALSE(HasFatalFailure());
    trigger_notification(probe, 1);
    EXPECT_NT_SUCCESS(resize_cq(cq_, 128, &probed("resize")).status);
    close_objects();
    const ULONG64 before = ndksim_kernel_irql_violations();
    for (KIRQL irql : probe.irqls()) {
        EXPECT_EQ(irql, DISPATCH_LEVEL) << "CQ notification";
    }
    // Create, request and close completions: none inline, all of them in a pending style.
    for (KIRQL irql : seen()) {
        EXPECT_EQ(irql, DISPATCH_LEVEL) << "completion";
    }
    if (GetParam().style == NDKSIM_COMPLETE_PENDING) {
        EXPECT_EQ(seen().size(), 7U) << "3 creates, 1 request, 3 closes";
    }
    EXPECT_EQ(KeGetCurrentIrql(), PASSIVE_LEVEL) << "the caller's IRQL is restored";
    EXPECT_EQ(ndksim_kernel_irql_violations(), before);
}

TEST_P(IrqlBridge, QueryAdapterInfoFromACallbackIsAViolation) {
    notify_probe probe;
    make_objects(probe);
    ASSERT_FALSE(HasFatalFailure());
    NTSTATUS queried = STATUS_PENDING;
    probe.inside = [&] {
        NDK_ADAPTER_INFO info{};
        ULONG size = sizeof info;
        queried = adapter()->Dispatch->NdkQueryAdapterInfo(adapter(), &info, &size);
    };
    const ULONG64 before = ndksim_kernel_irql_violations();
    trigger_notification(probe, 1);
    EXPECT_EQ(ndksim_kernel_irql_violations() - before, 1U);
    EXPECT_NT_SUCCESS(queried) << "log mode lets the call go on";
    probe.inside = nullptr;
    close_objects();
}

TEST_P(IrqlBridge, ReturningWithASpinLockHeldOrAtARaisedIrqlIsCaught) {
    notify_probe probe;
    make_objects(probe);
    ASSERT_FALSE(HasFatalFailure());
    KSPIN_LOCK lock;
    KeInitializeSpinLock(&lock);
    probe.inside = [&] { KeAcquireSpinLockAtDpcLevel(&lock); };
    ULONG64 before = ndksim_kernel_irql_violations();
    trigger_notification(probe, 1);
    EXPECT_TRUE(violations_reach(before, 1)) << "spin lock held";
    EXPECT_EQ(ndksim_kernel_irql_violations() - before, 1U);
    probe.inside = [&] {
        KeReleaseSpinLockFromDpcLevel(&lock);  // the one the previous callback kept
        KIRQL old = PASSIVE_LEVEL;
        KeRaiseIrql(HIGH_LEVEL, &old);
    };
    before = ndksim_kernel_irql_violations();
    ASSERT_NT_SUCCESS(qp_->Dispatch->NdkReceive(qp_, nullptr, nullptr, 0));
    trigger_notification(probe, 2);
    EXPECT_TRUE(violations_reach(before, 1)) << "raised IRQL";
    EXPECT_EQ(ndksim_kernel_irql_violations() - before, 1U);
    EXPECT_EQ(KeGetCurrentIrql(), PASSIVE_LEVEL);
    probe.inside = nullptr;
    close_objects();
}

// What REFERENCE.md 8.5 exists to prevent: a consumer waiting in a CQ callback. With the
// callback at DISPATCH_LEVEL, the kernel runtime reports the wait (log mode: it still waits,
// so the timeout is short and nothing hangs).
TEST_P(IrqlBridge, WaitingWithATimeoutInACallbackIsReported) {
    notify_probe probe;
    make_objects(probe);
    ASSERT_FALSE(HasFatalFailure());
    KEVENT never;
    KeInitializeEvent(&never, NotificationEvent, FALSE);
    NTSTATUS waited = STATUS_PENDING;
    probe.inside = [&] {
        LARGE_INTEGER one_ms;
        one_ms.QuadPart = -10'000;
        waited = KeWaitForSingleObject(&never, Executive, KernelMode, FALSE, &one_ms);
    };
    const ULONG64 before = ndksim_kernel_irql_violations();
    trigger_notification(probe, 1);
    EXPECT_EQ(ndksim_kernel_irql_violations() - before, 1U);
    EXPECT_NT_STATUS(STATUS_TIMEOUT, waited);
    probe.inside = nullptr;
    close_objects();
}

INSTANTIATE_TEST_SUITE_P(Styles, IrqlBridge, ::testing::ValuesIn(deterministic_styles()),
                         param_name);
INSTANTIATE_TEST_SUITE_P(Threaded, IrqlBridge, ::testing::ValuesIn(threaded_styles()), param_name);

// The same wait in the default mode aborts with the report: the consumer learns at the first
// notification, not at a deadlock on a customer's machine.
TEST(IrqlBridgeDeathTest, WaitingInACallbackAbortsByDefault) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        {
            ::unsetenv("NDKSIM_IRQL_VIOLATIONS");
            ndk_env env;
            env_options options;
            options.style = NDKSIM_COMPLETE_INLINE;
            options.verifier = NDKSIM_VERIFIER_OFF;  // the kernel runtime's own report
            env.setup(options);
            KEVENT never;
            KeInitializeEvent(&never, NotificationEvent, FALSE);
            notify_probe probe;
            probe.inside = [&] {
                LARGE_INTEGER one_second;
                one_second.QuadPart = -10'000'000;
                (void)KeWaitForSingleObject(&never, Executive, KernelMode, FALSE, &one_second);
            };
            NDK_CQ* cq = nullptr;
            NDK_PD* pd = nullptr;
            NDK_QP* qp = nullptr;
            NDK_ADAPTER* a = env.adapter();
            (void)a->Dispatch->NdkCreatePd(a, &recorder::on_create, nullptr, &pd);
            (void)a->Dispatch->NdkCreateCq(a, 64, &notify_probe::callback, &probe, nullptr,
                                           &recorder::on_create, nullptr, &cq);
            (void)pd->Dispatch->NdkCreateQp(pd, cq, cq, nullptr, 4, 4, 1, 1, 0,
                                            &recorder::on_create, nullptr, &qp);
            (void)qp->Dispatch->NdkReceive(qp, nullptr, nullptr, 0);
            cq->Dispatch->NdkArmCq(cq, NDK_CQ_NOTIFY_ANY);
            qp->Dispatch->NdkFlush(qp);
            env.drain();
        },
        "KeWaitForSingleObject at DISPATCH_LEVEL");
}

}  // namespace
