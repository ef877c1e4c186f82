// SPDX-License-Identifier: MIT
// Every data-path operation between two connected adapters, in deterministic mode, with
// exact completion statuses (docs/completion-statuses.md).

#include <sys/mman.h>
#include <unistd.h>

#include <numeric>

#include <ndksim/testkit/rc_pair.hpp>

#include "memory_pattern.hpp"

namespace ndksim::testkit {
namespace {

TEST_F(RcPair, HandshakeCarriesPrivateDataBothWays) {
    EXPECT_EQ("hello from a", accepted_private_);
    EXPECT_EQ("hello from b", connected_private_);
}

TEST_F(RcPair, SendLandsInThePostedReceiveAndBothSidesComplete) {
    fill(a_.buf.bytes, 100, 1);
    NDK_SGE rsge = b_.buf.sge(0, 4096);
    ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkReceive(b_.qp, &b_, &rsge, 1));
    NDK_SGE ssge = a_.buf.sge(0, 100);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkSend(a_.qp, &a_, &ssge, 1, 0));
    const NDK_RESULT_EX sent = next(a_.cq);
    EXPECT_NT_SUCCESS(sent.Status);
    EXPECT_EQ(NdkOperationTypeSend, sent.Type);
    EXPECT_EQ(&a_, sent.RequestContext);
    EXPECT_EQ(&a_, sent.QPContext);
    const NDK_RESULT_EX received = next(b_.cq);
    EXPECT_NT_SUCCESS(received.Status);
    EXPECT_EQ(NdkOperationTypeReceive, received.Type);
    EXPECT_EQ(100U, received.BytesTransferred);
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, b_.buf.bytes, 100));
}

TEST_F(RcPair, MultiPacketWriteAndReadMoveEveryByte) {
    constexpr ULONG size = 200 * 1024;  // 50 packets at MTU 4096
    fill(a_.buf.bytes, size, 7);
    NDK_SGE wsge = a_.buf.sge(0, size);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &wsge, 1, b_.buf.address(),
                                                b_.buf.remote_token, 0));
    const NDK_RESULT_EX written = next(a_.cq);
    EXPECT_NT_SUCCESS(written.Status);
    EXPECT_EQ(NdkOperationTypeWrite, written.Type);
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, b_.buf.bytes, size));
    // Read it back into a different part of a's buffer.
    std::memset(a_.buf.bytes, 0, size);
    NDK_SGE rsge = a_.buf.sge(0, size);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkRead(a_.qp, nullptr, &rsge, 1, b_.buf.address(),
                                               b_.buf.remote_token, 0));
    const NDK_RESULT_EX read = next(a_.cq);
    EXPECT_NT_SUCCESS(read.Status);
    EXPECT_EQ(NdkOperationTypeRead, read.Type);
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, b_.buf.bytes, size));
}

TEST_F(RcPair, ScatterGatherCrossesSgeBoundaries) {
    fill(a_.buf.bytes, 3 * 5000, 3);
    NDK_SGE src[3] = {a_.buf.sge(0, 5000), a_.buf.sge(5000, 5000), a_.buf.sge(10000, 5000)};
    NDK_SGE dst[2] = {b_.buf.sge(100000, 7000), b_.buf.sge(50000, 8000)};
    ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkReceive(b_.qp, nullptr, dst, 2));
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkSend(a_.qp, nullptr, src, 3, 0));
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    const NDK_RESULT_EX r = next(b_.cq);
    EXPECT_NT_SUCCESS(r.Status);
    EXPECT_EQ(15000U, r.BytesTransferred);
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, b_.buf.bytes + 100000, 7000));
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes + 7000, b_.buf.bytes + 50000, 8000));
}

TEST_F(RcPair, InlineSendCopiesAtPostTime) {
    char text[] = "inline payload";
    NDK_SGE s{};
    s.VirtualAddress = text;
    s.Length = sizeof text;
    s.MemoryRegionToken = 0xDEADBEEF;  // ignored for inline data (REFERENCE.md 2.3)
    NDK_SGE rsge = b_.buf.sge(0, 64);
    ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkReceive(b_.qp, nullptr, &rsge, 1));
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkSend(a_.qp, nullptr, &s, 1, NDK_OP_FLAG_INLINE));
    std::memset(text, 'x', sizeof text - 1);  // changed after the post: must not matter
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    EXPECT_NT_SUCCESS(next(b_.cq).Status);
    EXPECT_STREQ("inline payload", reinterpret_cast<const char*>(b_.buf.bytes));
}

TEST_F(RcPair, InlineAboveTheQpInlineSizeIsRefusedInline) {
    char text[200] = {};
    NDK_SGE s{};
    s.VirtualAddress = text;
    s.Length = sizeof text;  // the QP was created with InlineDataSize 128
    const expect_violation deliberate(NDKSIM_RULE_INLINE_SIZE, {a_.nic});
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER,
                     a_.qp->Dispatch->NdkSend(a_.qp, nullptr, &s, 1, NDK_OP_FLAG_INLINE));
    EXPECT_TRUE(cq_empty(a_.cq));
}

TEST_F(RcPair, MoreSgesThanTheQpAllowsIsRefusedInline) {
    NDK_SGE s[5] = {a_.buf.sge(0, 1), a_.buf.sge(1, 1), a_.buf.sge(2, 1), a_.buf.sge(3, 1),
                    a_.buf.sge(4, 1)};
    const expect_violation deliberate(NDKSIM_RULE_SGE_COUNT, {a_.nic});
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, a_.qp->Dispatch->NdkSend(a_.qp, nullptr, s, 5, 0));
    EXPECT_TRUE(cq_empty(a_.cq));
}

// Four SGEs at the very end of a readable page, followed by an inaccessible page: reading a
// fifth entry faults (or, under ASan, is reported), whatever the build.
class guarded_sges {
  public:
    guarded_sges() {
        const long page = sysconf(_SC_PAGESIZE);
        page_ = static_cast<std::size_t>(page);
        void* p =
            mmap(nullptr, 2 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            return;
        }
        base_ = static_cast<std::byte*>(p);
        if (mprotect(base_ + page_, page_, PROT_NONE) != 0) {
            munmap(base_, 2 * page_);
            base_ = nullptr;
        }
    }
    ~guarded_sges() {
        if (base_ != nullptr) {
            munmap(base_, 2 * page_);
        }
    }
    guarded_sges(const guarded_sges&) = delete;
    guarded_sges& operator=(const guarded_sges&) = delete;

    /// The four entries, or nullptr when the pages could not be set up.
    NDK_SGE* sges() const noexcept {
        return base_ == nullptr ? nullptr
                                : reinterpret_cast<NDK_SGE*>(base_ + page_ - 4 * sizeof(NDK_SGE));
    }

  private:
    std::byte* base_ = nullptr;
    std::size_t page_ = 0;
};

TEST_F(RcPair, AnSgeCountAboveTheLimitIsRefusedWithoutReadingTheArray) {
    // Rule 11 bounds nSge by the QP's limits; a count above them must be refused before any
    // entry is read, since the array may hold fewer entries than the count claims.
    guarded_sges guard;
    NDK_SGE* s = guard.sges();
    ASSERT_NE(nullptr, s);
    for (ULONG i = 0; i < 4; ++i) {
        s[i] = a_.buf.sge(i, 1);
    }
    constexpr ULONG k_count = 1000;
    const expect_violation deliberate(NDKSIM_RULE_SGE_COUNT, {a_.nic});
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER,
                     a_.qp->Dispatch->NdkSend(a_.qp, nullptr, s, k_count, 0));
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER,
                     a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, s, k_count, b_.buf.address(),
                                               b_.buf.remote_token, 0));
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER,
                     a_.qp->Dispatch->NdkRead(a_.qp, nullptr, s, k_count, b_.buf.address(),
                                              b_.buf.remote_token, 0));
    EXPECT_NT_STATUS(
        STATUS_INVALID_PARAMETER,
        a_.qp->Dispatch->NdkSendAndInvalidate(a_.qp, nullptr, s, k_count, 0, b_.buf.remote_token));
    EXPECT_TRUE(cq_empty(a_.cq));
}

TEST_F(RcPair, SilentSuccessQueuesNoCompletion) {
    NDK_SGE wsge = a_.buf.sge(0, 64);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &wsge, 1, b_.buf.address(),
                                                b_.buf.remote_token, NDK_OP_FLAG_SILENT_SUCCESS));
    EXPECT_TRUE(cq_empty(a_.cq));
}

TEST_F(RcPair, SilentSuccessStillReportsAFailure) {
    NDK_SGE wsge = a_.buf.sge(0, 64);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &wsge, 1, b_.buf.address(),
                                                b_.buf.remote_token ^ 0x100,
                                                NDK_OP_FLAG_SILENT_SUCCESS));
    EXPECT_NT_STATUS(STATUS_ACCESS_VIOLATION, next(a_.cq).Status);
}

TEST_F(RcPair, WriteWithAForgedTokenFailsWithAccessViolationAndTouchesNothing) {
    std::memset(b_.buf.bytes, 0x5A, 4096);
    fill(a_.buf.bytes, 4096, 9);
    NDK_SGE wsge = a_.buf.sge(0, 4096);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &wsge, 1, b_.buf.address(),
                                                b_.buf.remote_token + 1, 0));
    const NDK_RESULT_EX r = next(a_.cq);
    EXPECT_NT_STATUS(STATUS_ACCESS_VIOLATION, r.Status);
    EXPECT_EQ(0x102U, r.ProviderErrorCode);  // NAK remote access error
    for (int i = 0; i < 4096; ++i) {
        ASSERT_EQ(std::byte{0x5A}, b_.buf.bytes[i]) << "byte " << i;
    }
    // The QP is in error now: initiator posts fail inline (REFERENCE.md rule 10).
    EXPECT_NT_STATUS(STATUS_CONNECTION_INVALID,
                     a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &wsge, 1, b_.buf.address(),
                                               b_.buf.remote_token, 0));
}

TEST_F(RcPair, WriteBeyondTheRegionIsRefused) {
    NDK_SGE wsge = a_.buf.sge(0, 4096);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(
        a_.qp, nullptr, &wsge, 1, b_.buf.address() + k_buffer - 100, b_.buf.remote_token, 0));
    EXPECT_NT_STATUS(STATUS_ACCESS_VIOLATION, next(a_.cq).Status);
}

TEST_F(RcPair, LocalSgeWithABadTokenFailsWithAccessViolation) {
    NDK_SGE wsge = a_.buf.sge(0, 64);
    wsge.MemoryRegionToken ^= 0x100;
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &wsge, 1, b_.buf.address(),
                                                b_.buf.remote_token, 0));
    const NDK_RESULT_EX r = next(a_.cq);
    EXPECT_NT_STATUS(STATUS_ACCESS_VIOLATION, r.Status);
    EXPECT_EQ(0U, r.ProviderErrorCode & 0x100);  // local, not reported by the peer
}

TEST_F(RcPair, ReceiveTooSmallFailsBothSides) {
    NDK_SGE rsge = b_.buf.sge(0, 10);
    ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkReceive(b_.qp, nullptr, &rsge, 1));
    NDK_SGE ssge = a_.buf.sge(0, 100);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkSend(a_.qp, nullptr, &ssge, 1, 0));
    EXPECT_NT_STATUS(STATUS_REMOTE_RESOURCES, next(a_.cq).Status);
    EXPECT_NT_STATUS(STATUS_BUFFER_OVERFLOW, next(b_.cq).Status);
}

TEST_F(RcPair, SendWithoutAReceiveFailsWithIoTimeoutAfterTheDefaultRnrRetries) {
    // The default RNR retry count is finite (docs/completion-statuses.md): a send that never
    // finds a receive completes with STATUS_IO_TIMEOUT instead of waiting for ever.
    NDK_SGE ssge = a_.buf.sge(0, 100);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkSend(a_.qp, nullptr, &ssge, 1, 0));
    // Bounded in simulated time: with retries for ever the loop would never run dry.
    ndksim_loop_run_for(loop_, 10ULL * 1000 * 1000 * 1000);  // 10 ms, far beyond 7 x 10 us
    NDK_RESULT_EX r{};
    ASSERT_EQ(1U, a_.cq->Dispatch->NdkGetCqResultsEx(a_.cq, &r, 1)) << "the send never completed";
    EXPECT_NT_STATUS(STATUS_IO_TIMEOUT, r.Status);
    EXPECT_EQ(NdkOperationTypeSend, r.Type);
    ndksim_adapter_stats stats{};
    stats.size = sizeof stats;
    ASSERT_NT_SUCCESS(ndksim_adapter_get_stats(a_.nic, &stats));
    ndksim_adapter_config defaults;
    ndksim_adapter_config_init(&defaults);
    EXPECT_EQ(defaults.rnr_retry_limit + 1, stats.rnr_retries) << "RNR NAKs received";
    // Retries ran out: the connection is torn down (disconnect event) and posts fail inline.
    settle();
    EXPECT_EQ(1, a_.disconnect_events);
    EXPECT_NT_STATUS(STATUS_CONNECTION_INVALID,
                     a_.qp->Dispatch->NdkSend(a_.qp, nullptr, &ssge, 1, 0));
}

// Sends wait for ever for a receive, as with rnr_retry_limit 0xFFFFFFFF.
class RcPairRnrForever : public RcPair {
  protected:
    RcPairRnrForever() { rnr_retry_limit_ = 0xFFFFFFFF; }
};

TEST_F(RcPairRnrForever, SendBeforeAReceiveIsRetriedUntilOneIsPosted) {
    NDK_SGE ssge = a_.buf.sge(0, 100);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkSend(a_.qp, nullptr, &ssge, 1, 0));
    // Let many RNR back-offs pass in simulated time: the send stays outstanding.
    ndksim_loop_run_for(loop_, 500ULL * 1000 * 1000);  // 500 us
    NDK_RESULT_EX r{};
    EXPECT_EQ(0U, a_.cq->Dispatch->NdkGetCqResultsEx(a_.cq, &r, 1));
    NDK_SGE rsge = b_.buf.sge(0, 4096);
    ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkReceive(b_.qp, nullptr, &rsge, 1));
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    EXPECT_NT_SUCCESS(next(b_.cq).Status);
}

TEST_F(RcPair, CompletionsArriveInPostingOrder) {
    std::vector<NDK_SGE> s;
    for (int i = 0; i < 16; ++i) {
        NDK_SGE rsge = b_.buf.sge(static_cast<std::size_t>(i) * 4096, 4096);
        ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkReceive(b_.qp, nullptr, &rsge, 1));
    }
    for (std::uintptr_t i = 0; i < 16; ++i) {
        NDK_SGE sge = a_.buf.sge(i * 4096, 1000 + static_cast<ULONG>(i));
        const NTSTATUS st =
            i % 2 == 0
                ? a_.qp->Dispatch->NdkSend(a_.qp, reinterpret_cast<PVOID>(i), &sge, 1, 0)
                : a_.qp->Dispatch->NdkWrite(a_.qp, reinterpret_cast<PVOID>(i), &sge, 1,
                                            b_.buf.address() + 128 * 1024, b_.buf.remote_token, 0);
        ASSERT_NT_SUCCESS(st);
    }
    for (std::uintptr_t i = 0; i < 16; ++i) {
        const NDK_RESULT_EX r = next(a_.cq);
        EXPECT_NT_SUCCESS(r.Status);
        EXPECT_EQ(reinterpret_cast<PVOID>(i), r.RequestContext);
    }
}

TEST_F(RcPair, DeferredPostsWaitForTheNextDoorbell) {
    NDK_SGE wsge = a_.buf.sge(0, 64);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &wsge, 1, b_.buf.address(),
                                                b_.buf.remote_token, NDK_OP_FLAG_DEFER));
    EXPECT_TRUE(cq_empty(a_.cq)) << "a deferred request started without a doorbell";
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &wsge, 1, b_.buf.address(),
                                                b_.buf.remote_token, 0));
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
}

TEST_F(RcPair, AnInlineFailurePushesDeferredRequests) {
    NDK_SGE wsge = a_.buf.sge(0, 64);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &wsge, 1, b_.buf.address(),
                                                b_.buf.remote_token, NDK_OP_FLAG_DEFER));
    NDK_SGE too_many[5] = {wsge, wsge, wsge, wsge, wsge};
    const expect_violation deliberate(NDKSIM_RULE_SGE_COUNT, {a_.nic});
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER,
                     a_.qp->Dispatch->NdkSend(a_.qp, nullptr, too_many, 5, 0));
    EXPECT_NT_SUCCESS(next(a_.cq).Status);  // rule 9
}

TEST_F(RcPair, FlushCancelsEveryOutstandingRequestAndReceive) {
    for (int i = 0; i < 4; ++i) {
        NDK_SGE rsge = a_.buf.sge(0, 64);
        ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkReceive(a_.qp, nullptr, &rsge, 1));
    }
    a_.qp->Dispatch->NdkFlush(a_.qp);
    for (int i = 0; i < 4; ++i) {
        const NDK_RESULT_EX r = next(a_.cq);
        EXPECT_NT_STATUS(STATUS_CANCELLED, r.Status);
        EXPECT_EQ(NdkOperationTypeReceive, r.Type);
    }
    EXPECT_TRUE(cq_empty(a_.cq));
}

TEST_F(RcPair, ReadFenceWaitsForEarlierReads) {
    fill(b_.buf.bytes, 8192, 5);
    NDK_SGE rsge = a_.buf.sge(0, 8192);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkRead(a_.qp, nullptr, &rsge, 1, b_.buf.address(),
                                               b_.buf.remote_token, 0));
    // The fenced write sends what the read brought in: it must see the read's data.
    NDK_SGE wsge = a_.buf.sge(0, 8192);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &wsge, 1, b_.buf.address() + 65536,
                                                b_.buf.remote_token, NDK_OP_FLAG_READ_FENCE));
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    EXPECT_EQ(0, std::memcmp(b_.buf.bytes, b_.buf.bytes + 65536, 8192));
}

TEST_F(RcPair, DisconnectDeliversTheEventToThePeerOnly) {
    slot done;
    ASSERT_NT_STATUS(STATUS_PENDING,
                     a_.connector->Dispatch->NdkDisconnect(a_.connector, slot::on_request, &done));
    ASSERT_TRUE(drive([&] { return done.calls == 1; }, "Disconnect's completion"));
    EXPECT_NT_SUCCESS(done.status);
    EXPECT_EQ(1, b_.disconnect_events);
    EXPECT_EQ(0, a_.disconnect_events);
    // The peer disconnecting too completes at once.
    slot peer;
    const NTSTATUS r = b_.connector->Dispatch->NdkDisconnect(b_.connector, slot::on_request, &peer);
    if (r == STATUS_PENDING) {
        ASSERT_TRUE(drive([&] { return peer.calls == 1; }, "the peer's Disconnect"));
        EXPECT_NT_SUCCESS(peer.status);
    } else {
        EXPECT_NT_SUCCESS(r);
    }
}

TEST_F(RcPair, DisconnectFlushesOutstandingReceives) {
    NDK_SGE rsge = a_.buf.sge(0, 64);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkReceive(a_.qp, nullptr, &rsge, 1));
    slot done;
    ASSERT_NT_STATUS(STATUS_PENDING,
                     a_.connector->Dispatch->NdkDisconnect(a_.connector, slot::on_request, &done));
    EXPECT_NT_STATUS(STATUS_CANCELLED, next(a_.cq).Status);
    ASSERT_TRUE(drive([&] { return done.calls == 1; }, "Disconnect's completion"));
}

}  // namespace
}  // namespace ndksim::testkit
