// SPDX-License-Identifier: MIT
// Reliable connections over an unreliable link (deterministic loop): loss, duplication,
// reordering and corruption are recovered with every operation completing exactly once, in
// order, with its data; a peer or link that is gone ends in STATUS_IO_TIMEOUT, a flush and a
// disconnect event within the time the configuration promises; the same seed repeats a run.

#include <chrono>
#include <cstdio>
#include <cstring>

#include "reliability_support.hpp"

#ifndef NDKSIM_RELIABILITY_OPS
#define NDKSIM_RELIABILITY_OPS 100000  // sanitizer builds pass a smaller count
#endif

namespace ndksim::testkit {
namespace {

// The default configuration (ndksim_adapter_config_init): 16 ms, 7 retries.
constexpr timing::sim_time k_ack_timeout = timing::microseconds(16000);
constexpr std::uint32_t k_retry_limit = 7;

TEST_F(Reliability, MixedOperationsCompleteExactlyOnceInOrderOverALossyLink) {
    set_faults(100'000, 50'000, 50'000, 0);  // 10% drop, 5% duplicate, 5% reorder
    const auto started = std::chrono::steady_clock::now();
    run_mixed(NDKSIM_RELIABILITY_OPS, 42);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const run_figures f = figures();
    std::printf(
        "%d ops over a lossy link: %.2f s wall, %.3f s simulated, a sent %llu packets "
        "(%llu retransmitted, %llu timer retries), b coalesced %llu ACKs\n",
        NDKSIM_RELIABILITY_OPS, seconds, static_cast<double>(f.sim_time) / 1e12,
        static_cast<unsigned long long>(counters(a_).packets_sent.load()),
        static_cast<unsigned long long>(counters(a_).retransmitted_packets.load()),
        static_cast<unsigned long long>(counters(a_).ack_timeouts.load()),
        static_cast<unsigned long long>(counters(b_).acks_coalesced.load()));
    // Every fault happened, and was recovered from.
    for (side* s : {&a_, &b_}) {
        EXPECT_GT(faults(*s).dropped.load(), 0U);
        EXPECT_GT(faults(*s).duplicated.load(), 0U);
        EXPECT_GT(faults(*s).reordered.load(), 0U);
    }
    EXPECT_GT(counters(a_).retransmitted_packets.load(), 0U);
    EXPECT_GT(counters(b_).duplicate_packets.load(), 0U);
    EXPECT_EQ(0U, counters(a_).retries_exhausted.load());
    EXPECT_EQ(0, a_.disconnect_events);
    EXPECT_EQ(0, b_.disconnect_events);
    set_faults(0, 0, 0, 0);
}

TEST_F(Reliability, CorruptFramesFailTheirIcrcAndAreRecovered) {
    set_faults(0, 0, 0, 50'000);  // 5% of frames get one bit flipped
    run_mixed(2000, 7);
    EXPECT_GT(faults(a_).corrupted.load(), 0U);
    EXPECT_GT(faults(b_).corrupted.load(), 0U);
    // Each corrupted frame is refused by the receiver's ICRC check, and by nothing else.
    EXPECT_EQ(faults(a_).corrupted.load(), bad_icrc(b_));
    EXPECT_EQ(faults(b_).corrupted.load(), bad_icrc(a_));
    EXPECT_GT(counters(a_).retransmitted_packets.load(), 0U);
    set_faults(0, 0, 0, 0);
}

TEST_F(Reliability, BackToBackMessagesShareCoalescedAcks) {
    run_mixed(2000, 3);
    EXPECT_GT(counters(b_).acks_coalesced.load(), 0U);
    EXPECT_EQ(0U, counters(a_).retransmitted_packets.load()) << "a perfect link resends nothing";
    EXPECT_EQ(0U, counters(a_).ack_timeouts.load());
}

// With drops alone the frames of a deterministic pair stay lent (wire/lent_frames.hpp): lost
// ones are sent again from the consumer's memory, and a slot is refilled for the next
// operation as soon as its request completes, so a frame still in flight that read the memory
// after its completion would carry the next operation's pattern.
TEST_F(Reliability, LentFramesLostOnTheWayAreSentAgainWithTheirOwnBytes) {
    set_faults(100'000, 0, 0, 0);  // 10% drop
    run_mixed(2000, 11);
    EXPECT_GT(faults(a_).dropped.load(), 0U);
    EXPECT_GT(counters(a_).retransmitted_packets.load(), 0U);
    EXPECT_EQ(0U, counters(a_).retries_exhausted.load());
    set_faults(0, 0, 0, 0);
}

TEST_F(Reliability, TheSameSeedRepeatsARunExactly) {
    set_faults(100'000, 50'000, 50'000, 20'000, 99);
    run_mixed(3000, 5);
    const run_figures first = figures();
    TearDown();
    SetUp();
    set_faults(100'000, 50'000, 50'000, 20'000, 99);
    run_mixed(3000, 5);
    const run_figures second = figures();
    EXPECT_GT(first.values[5], 0U) << "faults were injected";
    // The clock of the second loop starts at 0 too: the connection setup repeats as well.
    EXPECT_TRUE(first == second);
    set_faults(0, 0, 0, 0);
}

// A long message asks for an ACK every 16 packets (src/nic/requester.cpp), so the peer's ACKs
// show progress inside it: a perfect link answers a 64-packet write with four ACKs.
TEST_F(Reliability, ALongWriteAsksForAnAckEvery16Packets) {
    constexpr ULONG k_bytes = 64 * 4096;  // 64 packets at the 4096-byte path MTU
    for (std::size_t i = 0; i < k_bytes; ++i) {
        a_.buf.bytes[i] = static_cast<std::byte>(i * 7);
    }
    const std::uint64_t sent_before = counters(a_).packets_sent.load();
    const std::uint64_t acks_before = counters(b_).acks_sent.load();
    NDK_SGE sge = a_.buf.sge(0, k_bytes);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &sge, 1, b_.buf.address(),
                                                b_.buf.remote_token, 0));
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, b_.buf.bytes, k_bytes));
    EXPECT_EQ(64U, counters(a_).packets_sent.load() - sent_before);
    EXPECT_EQ(4U, counters(b_).acks_sent.load() - acks_before);
    EXPECT_EQ(0U, counters(a_).stale_responses.load()) << "every ACK moved the request on";
}

// The peer stops hearing a long write after 40 of its 64 packets. Its ACK for packet 32 came
// back, so the retry resumes at packet 33 (go-back-N from the oldest unacknowledged PSN)
// rather than resending the whole message.
TEST_F(Reliability, ARetryResumesAfterThePartOfAMessageThePeerAcknowledged) {
    constexpr ULONG k_bytes = 64 * 4096;
    for (std::size_t i = 0; i < k_bytes; ++i) {
        a_.buf.bytes[i] = static_cast<std::byte>(i * 13 + 1);
    }
    const std::uint64_t received_before = counters(b_).packets_received.load();
    auto received = [&] { return counters(b_).packets_received.load() - received_before; };
    NDK_SGE sge = a_.buf.sge(0, k_bytes);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &sge, 1, b_.buf.address(),
                                                b_.buf.remote_token, 0));
    ASSERT_TRUE(drive([&] { return received() >= 40; }, "40 packets at b"));
    ASSERT_EQ(40U, received()) << "one packet arrives per step of the loop";
    ASSERT_NT_SUCCESS(ndksim_adapter_cut_link(b_.nic, TRUE));
    // Let what is on the wire arrive (and be lost), well within the ACK timeout. A packet that
    // had reached b's port before the cut is still handled: b heard the first `heard`.
    ndksim_loop_run_for(loop_, timing::microseconds(100));
    const std::uint64_t heard = received();
    ASSERT_GE(heard, 40U);
    ASSERT_NT_SUCCESS(ndksim_adapter_cut_link(b_.nic, FALSE));
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, b_.buf.bytes, k_bytes));
    EXPECT_EQ(1U, counters(a_).ack_timeouts.load());
    EXPECT_EQ(32U, counters(a_).retransmitted_packets.load()) << "packets 33..64 again, no more";
    EXPECT_EQ(heard - 32, counters(b_).duplicate_packets.load())
        << "packets 33.." << heard << " arrived twice";
}

// Posts `n` writes from a to b and returns the simulated time they were posted at.
ULONG64 post_writes(RcPair&, side& a, side& b, int n) {
    for (int i = 0; i < n; ++i) {
        NDK_SGE sge = a.buf.sge(static_cast<std::size_t>(i) * 100, 100);
        EXPECT_NT_SUCCESS(a.qp->Dispatch->NdkWrite(a.qp, reinterpret_cast<void*>(i + 1), &sge, 1,
                                                   b.buf.address(), b.buf.remote_token, 0));
    }
    return ndksim_adapter_now(a.nic);
}

class RetryExhaustion : public Reliability {
  protected:
    // Everything outstanding ends: the oldest with STATUS_IO_TIMEOUT after the retry limit,
    // the rest flushed, then the disconnect event; all within the promised simulated time.
    void expect_timeout_and_teardown(ULONG64 posted_at, int n) {
        const NDK_RESULT_EX first = next(a_.cq);
        const ULONG64 failed_at = ndksim_loop_now(loop_);
        EXPECT_NT_STATUS(STATUS_IO_TIMEOUT, first.Status);
        EXPECT_EQ(reinterpret_cast<void*>(1), first.RequestContext);
        for (int i = 2; i <= n; ++i) {
            const NDK_RESULT_EX r = next(a_.cq);
            EXPECT_NT_STATUS(STATUS_CANCELLED, r.Status);
            EXPECT_EQ(reinterpret_cast<void*>(i), r.RequestContext);
        }
        ASSERT_TRUE(drive([&] { return a_.disconnect_events == 1; }, "the disconnect event"));
        const timing::sim_time bound = nic::retry_exhaustion_time(k_ack_timeout, k_retry_limit);
        // No earlier than the back-off schedule allows, and no later than it plus the time
        // the frames of the first transmission take.
        EXPECT_GE(failed_at - posted_at, bound);
        EXPECT_LE(failed_at - posted_at, bound + timing::microseconds(50));
        EXPECT_EQ(1U, counters(a_).retries_exhausted.load());
        EXPECT_EQ(k_retry_limit, counters(a_).ack_timeouts.load());
        // Posts after the teardown fail inline (the QP is in error).
        NDK_SGE sge = a_.buf.sge(0, 8);
        EXPECT_NT_STATUS(STATUS_CONNECTION_INVALID,
                         a_.qp->Dispatch->NdkSend(a_.qp, nullptr, &sge, 1, 0));
        // A Disconnect on the torn-down connection completes at once.
        slot disconnected;
        const NTSTATUS d =
            a_.connector->Dispatch->NdkDisconnect(a_.connector, slot::on_request, &disconnected);
        if (d == STATUS_PENDING) {
            ASSERT_TRUE(wait(disconnected, "Disconnect"));
            EXPECT_NT_SUCCESS(disconnected.status);
        } else {
            EXPECT_NT_SUCCESS(d);
        }
    }
};

TEST_F(RetryExhaustion, ACutLinkTimesOutFlushesAndDisconnects) {
    ASSERT_NT_SUCCESS(ndksim_adapter_cut_link(b_.nic, TRUE));
    const ULONG64 posted_at = post_writes(*this, a_, b_, 4);
    expect_timeout_and_teardown(posted_at, 4);
    EXPECT_GT(faults(b_).cut_received.load(), 0U);
    EXPECT_EQ(0, b_.disconnect_events) << "b heard nothing: its link is cut";
    ASSERT_NT_SUCCESS(ndksim_adapter_cut_link(b_.nic, FALSE));
}

TEST_F(RetryExhaustion, APeerQpInErrorTimesOutFlushesAndDisconnects) {
    // b's QP stops answering (NdkFlush moves it to error) while its connection stays up.
    b_.qp->Dispatch->NdkFlush(b_.qp);
    settle();
    const ULONG64 posted_at = post_writes(*this, a_, b_, 3);
    expect_timeout_and_teardown(posted_at, 3);
    EXPECT_GT(counters(b_).frames_for_unconnected_qp.load(), 0U);
    // b's connector hears of the teardown (a best-effort disconnect request went out).
    ASSERT_TRUE(drive([&] { return b_.disconnect_events == 1; }, "b's disconnect event"));
}

TEST_F(Reliability, SendAndInvalidateWithABadTokenDisconnectsBothSides) {
    NDK_SGE rsge = b_.buf.sge(0, 64);
    ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkReceive(b_.qp, nullptr, &rsge, 1));
    NDK_SGE sge = a_.buf.sge(0, 64);
    ASSERT_NT_SUCCESS(
        a_.qp->Dispatch->NdkSendAndInvalidate(a_.qp, nullptr, &sge, 1, 0, 0x12345678));
    EXPECT_NT_STATUS(STATUS_CONNECTION_ABORTED, next(a_.cq).Status);
    EXPECT_NT_STATUS(STATUS_CONNECTION_ABORTED, next(b_.cq).Status);
    // REFERENCE.md rule 22: the receiving provider aborts the connection; both consumers see
    // it as a disconnect event.
    ASSERT_TRUE(drive([&] { return a_.disconnect_events == 1 && b_.disconnect_events == 1; },
                      "a disconnect event on both sides"));
    settle();
    EXPECT_EQ(1, a_.disconnect_events);
    EXPECT_EQ(1, b_.disconnect_events);
}

// The ready-to-use message is a datagram and may be lost. The first request the active side
// then sends on the connection tells the passive side as much (IBA's Communication Established
// event): its Accept completes then and there, and the request is taken, not dropped.
TEST_F(Reliability, DataAfterALostReadyToUseCompletesTheAcceptAndIsReceived) {
    NDK_QP* aq = make_qp(a_, a_.cq);
    NDK_QP* bq = make_qp(b_, b_.cq);
    slot accepted;
    link* started = start_connection(aq, bq, accepted);
    ASSERT_NE(nullptr, started);
    link& l = *started;

    // a's link loses every frame while CompleteConnect sends the ready-to-use message.
    ndksim_link_faults lossy{};
    lossy.drop_ppm = 1'000'000;
    ASSERT_NT_SUCCESS(ndksim_adapter_set_faults(a_.nic, &lossy));
    slot completed;
    ASSERT_NT_STATUS(STATUS_PENDING,
                     l.active->Dispatch->NdkCompleteConnect(l.active, link::on_active_event, &l,
                                                            slot::on_request, &completed));
    ASSERT_TRUE(wait(completed, "CompleteConnect's completion"));
    ASSERT_NT_SUCCESS(completed.status);
    const ndksim_link_faults perfect{};
    ASSERT_NT_SUCCESS(ndksim_adapter_set_faults(a_.nic, &perfect));
    ASSERT_EQ(1U, faults(a_).dropped.load());
    EXPECT_EQ(0, accepted.calls);

    NDK_SGE r = b_.buf.sge(0, 64);
    ASSERT_NT_SUCCESS(bq->Dispatch->NdkReceive(bq, nullptr, &r, 1));
    NDK_SGE s = a_.buf.sge(0, 64);
    ASSERT_NT_SUCCESS(aq->Dispatch->NdkSend(aq, nullptr, &s, 1, 0));
    EXPECT_NT_SUCCESS(next(b_.cq).Status);
    EXPECT_NT_SUCCESS(next(a_.cq).Status);
    EXPECT_EQ(1, accepted.calls);
    EXPECT_NT_SUCCESS(accepted.status);
    // Taken at once: not dropped as for an unconnected QP, not resent, and the accept did not
    // wait for the connection manager to repeat its reply.
    EXPECT_EQ(0U, counters(b_).frames_for_unconnected_qp.load());
    EXPECT_EQ(0U, counters(a_).retransmitted_packets.load());
    EXPECT_EQ(0U, counters(b_).cm_messages_resent.load());
    settle();
    EXPECT_EQ(0, l.active_events);
    EXPECT_EQ(0, l.passive_events);
}

TEST_F(Reliability, FaultSettingsAreValidated) {
    ndksim_link_faults f{};
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, ndksim_adapter_set_faults(nullptr, &f));
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, ndksim_adapter_set_faults(a_.nic, nullptr));
    f.corrupt_ppm = 1'000'001;
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, ndksim_adapter_set_faults(a_.nic, &f));
    f.corrupt_ppm = 1'000'000;
    EXPECT_NT_SUCCESS(ndksim_adapter_set_faults(a_.nic, &f));
    f.corrupt_ppm = 0;
    EXPECT_NT_SUCCESS(ndksim_adapter_set_faults(a_.nic, &f));
    EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, ndksim_adapter_cut_link(nullptr, TRUE));
}

}  // namespace
}  // namespace ndksim::testkit
