// SPDX-License-Identifier: MIT
// The connected pair in threaded mode: each adapter has its own engine thread, every callback
// comes from one of them (as from a real provider), and the test waits on a condition variable
// with a timeout that fails loudly. Built and run under TSan as well.

#include <cstdint>
#include <cstring>
#include <vector>

#include <ndksim/testkit/rc_pair.hpp>

#include "threaded_pair/adapter_pair.hpp"
#include "threaded_pair/pattern.hpp"

namespace ndksim::testkit {
namespace {

using threaded::fill;

class RcThreaded : public ::testing::Test, protected threaded::adapter_pair {
  protected:
    RcThreaded()
        : adapter_pair({"10.0.0.1", "10.0.0.2", 256 * 1024, 64, "hello from a", "hello from b"}) {}

    void SetUp() override {
        make_inproc_adapter(a_.nic, shape().a_address);
        make_inproc_adapter(b_.nic, shape().b_address);
        ASSERT_FALSE(HasFatalFailure());
        open_and_connect();
    }

    void TearDown() override {
        close_all();
        EXPECT_EQ(0, board_.foreign_callbacks) << "a callback ran on the consumer's thread";
    }
};

TEST_F(RcThreaded, ThousandSendsArriveIntactAndInOrder) {
    constexpr int k_total = 1000;
    constexpr int k_batch = 50;
    constexpr std::size_t k_slot = 4096;
    int sent = 0;
    while (sent < k_total) {
        for (int i = 0; i < k_batch; ++i) {
            NDK_SGE r = b_.buf.sge(static_cast<std::size_t>(i) * k_slot, k_slot);
            ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkReceive(
                b_.qp, reinterpret_cast<PVOID>(static_cast<std::uintptr_t>(sent + i)), &r, 1));
        }
        for (int i = 0; i < k_batch; ++i) {
            const int n = sent + i;
            const ULONG length = 100 + static_cast<ULONG>(n % 900) * 4;
            fill(a_.buf.bytes + static_cast<std::size_t>(i) * k_slot, length,
                 static_cast<unsigned>(n));
            NDK_SGE s = a_.buf.sge(static_cast<std::size_t>(i) * k_slot, length);
            ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkSend(
                a_.qp, reinterpret_cast<PVOID>(static_cast<std::uintptr_t>(n)), &s, 1, 0));
        }
        sent += k_batch;
        const std::vector<NDK_RESULT_EX> got =
            results(b_, static_cast<std::size_t>(sent), "a batch of receives");
        const std::vector<NDK_RESULT_EX> done =
            results(a_, static_cast<std::size_t>(sent), "a batch of send completions");
        ASSERT_EQ(static_cast<std::size_t>(sent), got.size());
        ASSERT_EQ(static_cast<std::size_t>(sent), done.size());
        for (int i = 0; i < k_batch; ++i) {
            const int n = sent - k_batch + i;
            const NDK_RESULT_EX& r = got[static_cast<std::size_t>(n)];
            const NDK_RESULT_EX& d = done[static_cast<std::size_t>(n)];
            ASSERT_NT_SUCCESS(r.Status) << "receive " << n;
            ASSERT_NT_SUCCESS(d.Status) << "send " << n;
            EXPECT_EQ(NdkOperationTypeReceive, r.Type);
            EXPECT_EQ(NdkOperationTypeSend, d.Type);
            EXPECT_EQ(reinterpret_cast<PVOID>(static_cast<std::uintptr_t>(n)), r.RequestContext);
            EXPECT_EQ(reinterpret_cast<PVOID>(static_cast<std::uintptr_t>(n)), d.RequestContext);
            EXPECT_EQ(&b_, r.QPContext);
            const ULONG length = 100 + static_cast<ULONG>(n % 900) * 4;
            ASSERT_EQ(length, r.BytesTransferred) << "receive " << n;
            ASSERT_EQ(0, std::memcmp(a_.buf.bytes + static_cast<std::size_t>(i) * k_slot,
                                     b_.buf.bytes + static_cast<std::size_t>(i) * k_slot, length))
                << "payload of message " << n;
        }
    }
}

TEST_F(RcThreaded, WritesAndReadsMoveEveryByte) {
    constexpr ULONG size = 100 * 1024;
    fill(a_.buf.bytes, size, 7);
    NDK_SGE w = a_.buf.sge(0, size);
    ASSERT_NT_SUCCESS(
        a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &w, 1, b_.buf.address(), b_.buf.remote_token, 0));
    NDK_SGE r = a_.buf.sge(128 * 1024, size);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkRead(a_.qp, nullptr, &r, 1, b_.buf.address(),
                                               b_.buf.remote_token, NDK_OP_FLAG_READ_FENCE));
    const std::vector<NDK_RESULT_EX> got = results(a_, 2, "the write and the read");
    EXPECT_NT_SUCCESS(got[0].Status);
    EXPECT_EQ(NdkOperationTypeWrite, got[0].Type);
    EXPECT_NT_SUCCESS(got[1].Status);
    EXPECT_EQ(NdkOperationTypeRead, got[1].Type);
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, b_.buf.bytes, size));
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, a_.buf.bytes + 128 * 1024, size));
    // And from b to a, many in flight at once.
    fill(b_.buf.bytes + 128 * 1024, 64 * 1024, 9);
    for (std::uintptr_t i = 0; i < 16; ++i) {
        NDK_SGE s = b_.buf.sge(128 * 1024 + i * 4096, 4096);
        ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkWrite(b_.qp, reinterpret_cast<PVOID>(i), &s, 1,
                                                    a_.buf.address() + i * 4096,
                                                    a_.buf.remote_token, 0));
    }
    const std::vector<NDK_RESULT_EX> writes = results(b_, 16, "b's writes");
    for (std::uintptr_t i = 0; i < 16; ++i) {
        EXPECT_NT_SUCCESS(writes[i].Status);
        EXPECT_EQ(reinterpret_cast<PVOID>(i), writes[i].RequestContext);
    }
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, b_.buf.bytes + 128 * 1024, 64 * 1024));
}

TEST_F(RcThreaded, FlushAndDisconnectCompleteEverythingOnce) {
    for (std::uintptr_t i = 0; i < 4; ++i) {
        NDK_SGE r = a_.buf.sge(i * 64, 64);
        ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkReceive(a_.qp, reinterpret_cast<PVOID>(i), &r, 1));
    }
    a_.qp->Dispatch->NdkFlush(a_.qp);
    const std::vector<NDK_RESULT_EX> flushed = results(a_, 4, "the flushed receives");
    for (std::uintptr_t i = 0; i < 4; ++i) {
        EXPECT_NT_STATUS(STATUS_CANCELLED, flushed[i].Status);
        EXPECT_EQ(reinterpret_cast<PVOID>(i), flushed[i].RequestContext);
    }
    ASSERT_NO_FATAL_FAILURE(disconnect_a_then_b());
    std::lock_guard lock(board_.m);
    EXPECT_EQ(4U, a_.results.size());
    EXPECT_EQ(0, a_.disconnect_events);
    EXPECT_EQ(1, b_.disconnect_events);
}

TEST_F(RcThreaded, ACutLinkTimesOutFlushesAndDisconnectsWithinTheRetryBudget) {
    // The defaults: ack_timeout_us 16000, retry_limit 7, the interval doubling up to 8x per
    // retry (docs/engine.md): 47 x 16 ms = 752 ms of simulated time, which threaded mode also
    // spends on the wall clock.
    ASSERT_NT_SUCCESS(ndksim_adapter_cut_link(b_.nic, TRUE));
    const ULONG64 sim_started = ndksim_adapter_now(a_.nic);
    for (std::uintptr_t i = 1; i <= 3; ++i) {
        NDK_SGE w = a_.buf.sge(i * 64, 64);
        ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(a_.qp, reinterpret_cast<PVOID>(i), &w, 1,
                                                    b_.buf.address(), b_.buf.remote_token, 0));
    }
    const std::vector<NDK_RESULT_EX> done = results(a_, 3, "the timed-out writes");
    ASSERT_TRUE(board_.wait([&] { return a_.disconnect_events == 1; }, "the disconnect event"));
    ASSERT_EQ(3U, done.size());
    EXPECT_NT_STATUS(STATUS_IO_TIMEOUT, done[0].Status);
    EXPECT_EQ(reinterpret_cast<PVOID>(1), done[0].RequestContext);
    for (std::uintptr_t i = 1; i < 3; ++i) {
        EXPECT_NT_STATUS(STATUS_CANCELLED, done[i].Status);
        EXPECT_EQ(reinterpret_cast<PVOID>(i + 1), done[i].RequestContext);
    }
    // The retry budget passed on the simulated clock before the requests failed.
    EXPECT_GE(ndksim_adapter_now(a_.nic) - sim_started, 47 * 16'000'000'000ULL);
    ASSERT_NT_SUCCESS(ndksim_adapter_cut_link(b_.nic, FALSE));
    std::lock_guard lock(board_.m);
    EXPECT_EQ(0, b_.disconnect_events) << "b heard nothing: its link was cut";
}

}  // namespace
}  // namespace ndksim::testkit
