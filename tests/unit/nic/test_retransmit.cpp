// SPDX-License-Identifier: MIT
// The transport timer alone (a zero-cost hardware model, a capturing link, no peer): resends
// after ack_timeout without progress, doubling per retry up to 8 x ack_timeout, gives up after
// retry_limit retries with STATUS_IO_TIMEOUT, restarts its interval on progress, and is off
// with a zero timeout (IB RC local ACK timeout and retry count).

#include "stage_harness.hpp"

namespace ndksim::nic::test {
namespace {

using core::wr_kind;

constexpr timing::sim_time k_timeout = timing::microseconds(1000);

engine_config timer(timing::sim_time timeout, std::uint32_t retries) {
    engine_config c;
    c.ack_timeout = timeout;
    c.retry_limit = retries;
    return c;
}

class Retransmit : public stage_harness {};

TEST_F(Retransmit, WithoutAnAnswerItResendsWithBackOffThenGivesUp) {
    start(timer(k_timeout, 5));
    ASSERT_EQ(post(wr_kind::send, 1, 0, 8), status::success);
    run();
    const std::deque<sent_frame> sent = take_sent();
    ASSERT_EQ(sent.size(), 6U) << "the send and its five retries";
    // Intervals 1, 2, 4, 8, 8 x ack_timeout: doubling, capped at 8 (k_ack_backoff_max_shift).
    const timing::sim_time gaps[] = {1, 2, 4, 8, 8};
    for (std::size_t i = 1; i < sent.size(); ++i) {
        EXPECT_EQ(sent[i].departure - sent[i - 1].departure, gaps[i - 1] * k_timeout)
            << "retry " << i;
        EXPECT_EQ(sent[i].packet.headers.bth.psn, 0U);
    }
    const std::vector<core::completion> done = completions();
    ASSERT_EQ(done.size(), 1U);
    EXPECT_EQ(static_cast<status>(done[0].status), status::io_timeout);
    EXPECT_EQ(loop_.now() - sent[0].departure, retry_exhaustion_time(k_timeout, 5));
    EXPECT_EQ(counters().ack_timeouts.load(), 5U);
    EXPECT_EQ(counters().retries_exhausted.load(), 1U);
    EXPECT_EQ(counters().retransmitted_packets.load(), 5U);
    EXPECT_EQ(q().state(), core::qp_state::error);
}

TEST_F(Retransmit, ProgressRestartsTheIntervalAndAnAnsweredRequestIsNotResent) {
    start(timer(k_timeout, 5));
    ASSERT_EQ(post(wr_kind::send, 1, 0, 8), status::success);
    ASSERT_EQ(post(wr_kind::send, 2, 0, 8), status::success);
    loop_.run_for(k_timeout * 6 / 10);
    ack(0);
    // Past the first interval from the send, inside the one the ACK restarted.
    loop_.run_for(k_timeout * 6 / 10);
    EXPECT_EQ(counters().ack_timeouts.load(), 0U);
    ack(1);
    run();
    EXPECT_EQ(take_sent().size(), 2U) << "nothing was resent";
    EXPECT_EQ(completions().size(), 2U);
    EXPECT_EQ(counters().ack_timeouts.load(), 0U);
    EXPECT_EQ(q().state(), core::qp_state::connected);
}

// Once the initiator queue is empty the scheduled check is cancelled instead of running an
// interval later to find nothing; the next request arms the timer again from its own start.
TEST_F(Retransmit, AnEmptiedQueueCancelsItsCheckAndTheNextRequestArmsItAgain) {
    start(timer(k_timeout, 5));
    ASSERT_EQ(post(wr_kind::send, 1, 0, 8), status::success);
    loop_.run_for(k_timeout / 10);
    // As an engine task, as the engine dispatches a packet: only the scheduler's owner cancels.
    loop_.post([this] { ack(0); });
    run();
    ASSERT_EQ(completions().size(), 1U);
    EXPECT_LT(loop_.now(), k_timeout) << "a check ran, or waited, after the queue emptied";
    const timing::sim_time idle_at = loop_.now();
    ASSERT_EQ(post(wr_kind::send, 2, 0, 8), status::success);
    run();
    const std::deque<sent_frame> sent = take_sent();
    ASSERT_GE(sent.size(), 3U) << "both sends and a retry of the second";
    EXPECT_EQ(sent[1].packet.headers.bth.psn, 1U);
    EXPECT_EQ(sent[2].packet.headers.bth.psn, 1U);
    EXPECT_GE(sent[1].departure, idle_at);
    EXPECT_EQ(sent[2].departure - sent[1].departure, k_timeout)
        << "the interval runs from the second send, not from the first";
    EXPECT_EQ(counters().ack_timeouts.load(), 5U);
    EXPECT_EQ(counters().retries_exhausted.load(), 1U);
}

TEST_F(Retransmit, ALongMessageResumesAfterThePartItsAcksCovered) {
    start(timer(k_timeout, 5));
    const std::uint32_t mtu = e().hw().mtu();
    ASSERT_EQ(post(wr_kind::write, 1, 0, 20 * mtu), status::success);
    loop_.run_for(k_timeout / 2);
    ack(15);  // the ACK the 16th packet asked for
    loop_.run_for(k_timeout * 11 / 10);
    const std::deque<sent_frame> sent = take_sent();
    ASSERT_EQ(sent.size(), 24U) << "20 packets, then the 4 the ACK did not cover";
    EXPECT_EQ(sent[20].packet.headers.bth.psn, 16U);
    EXPECT_EQ(counters().retransmitted_packets.load(), 4U);
}

// Frames waiting unread in the sockets (input_pending) put the timeout off: the timer looks
// again every 20 us, and counts the timeout once nothing is unread any more.
TEST_F(Retransmit, ACheckThatFindsUnreadInputLooksAgainInsteadOfResending) {
    start(timer(k_timeout, 5));
    ASSERT_EQ(post(wr_kind::send, 1, 0, 8), status::success);
    link_unread_ = true;
    loop_.run_for(k_timeout + k_timeout / 2);
    EXPECT_EQ(counters().ack_timeouts.load(), 0U);
    EXPECT_EQ(take_sent().size(), 1U) << "nothing resent while the peer's frames wait unread";
    link_unread_ = false;
    loop_.run_for(timing::microseconds(20));
    EXPECT_EQ(counters().ack_timeouts.load(), 1U);
    EXPECT_EQ(take_sent().size(), 1U) << "resent once nothing was unread";
}

// Input that never stops (a stranger's flood, another peer's stream) delays a timeout by one
// interval of looks at most.
TEST_F(Retransmit, UnreadInputPutsATimeoutOffForOneIntervalAtMost) {
    start(timer(k_timeout, 5));
    ASSERT_EQ(post(wr_kind::send, 1, 0, 8), status::success);
    link_unread_ = true;
    loop_.run_for(2 * k_timeout - timing::microseconds(100));
    EXPECT_EQ(counters().ack_timeouts.load(), 0U);
    loop_.run_for(timing::microseconds(200));
    EXPECT_EQ(counters().ack_timeouts.load(), 1U);
    const std::deque<sent_frame> sent = take_sent();
    ASSERT_EQ(sent.size(), 2U);
    EXPECT_EQ(sent[1].departure - sent[0].departure, 2 * k_timeout);
}

// A request that starts after the QP idled gets a whole interval of looks at unread input,
// whatever the request before it used of its own before its ACK came.
TEST_F(Retransmit, ARequestAfterAnIdleQueueGetsAWholeIntervalOfLooksAtUnreadInput) {
    start(timer(k_timeout, 5));
    ASSERT_EQ(post(wr_kind::send, 1, 0, 8), status::success);
    link_unread_ = true;
    loop_.run_for(k_timeout + k_timeout / 2);  // half an interval of looks used
    loop_.post([this] { ack(0); });
    run();
    ASSERT_EQ(completions().size(), 1U);
    ASSERT_EQ(counters().ack_timeouts.load(), 0U);
    ASSERT_EQ(post(wr_kind::send, 2, 0, 8), status::success);
    loop_.run_for(2 * k_timeout - timing::microseconds(100));
    EXPECT_EQ(counters().ack_timeouts.load(), 0U);
    loop_.run_for(timing::microseconds(200));
    EXPECT_EQ(counters().ack_timeouts.load(), 1U);
    const std::deque<sent_frame> sent = take_sent();
    ASSERT_EQ(sent.size(), 3U) << "both sends and one retry of the second";
    EXPECT_EQ(sent[2].departure - sent[1].departure, 2 * k_timeout);
}

// A peer engine of this process that has not yet taken in the frames sent to it
// (output_pending) puts the timeout off for as long as it is behind, looking again every
// millisecond, and the timeout counts once it has caught up.
TEST_F(Retransmit, ACheckThatFindsThePeersEngineBehindWaitsForItWithoutBound) {
    start(timer(k_timeout, 5));
    ASSERT_EQ(post(wr_kind::send, 1, 0, 8), status::success);
    link_behind_ = true;
    loop_.run_for(10 * k_timeout);
    EXPECT_EQ(counters().ack_timeouts.load(), 0U);
    EXPECT_EQ(take_sent().size(), 1U) << "nothing resent while the peer's engine is behind";
    link_behind_ = false;
    loop_.run_for(timing::microseconds(1000));
    EXPECT_EQ(counters().ack_timeouts.load(), 1U);
    EXPECT_EQ(take_sent().size(), 1U) << "resent once the peer had caught up";
}

// A peer engine that took every frame in but has not yet run what it had due (peer_behind: the
// ACK may wait in its backlog) puts the timeout off until it has run what it had due when the
// wait began, and no longer: a busy peer looks the same, and a frame lost on the way to it must
// still time out once the peer has worked through that much.
TEST_F(Retransmit, APeerThatHasNotRunWhatWasDuePutsTheTimeoutOffUntilItHas) {
    start(timer(k_timeout, 5));
    ASSERT_EQ(post(wr_kind::send, 1, 0, 8), status::success);
    link_peer_mark_ = 0;  // stuck before everything
    loop_.run_for(3 * k_timeout);
    EXPECT_EQ(counters().ack_timeouts.load(), 0U) << "put off while the peer is behind";
    EXPECT_EQ(take_sent().size(), 1U);
    // The wait began at the deadline (k_timeout); the peer's engine has now run everything due
    // before 1.5 k_timeout, though it is still behind the sender's present (3 k_timeout).
    link_peer_mark_ = k_timeout + k_timeout / 2;
    loop_.run_for(timing::microseconds(1000));
    EXPECT_EQ(counters().ack_timeouts.load(), 1U)
        << "counted once the peer passed the wait's start";
    EXPECT_EQ(take_sent().size(), 1U) << "resent though the peer is still behind the present";
    link_peer_mark_ = timing::scheduler::progress_mark::k_none;  // the peer caught up: later checks
                                                                 // (teardown) find it idle
}

// With the UDP wire's host window, go-back-N resends what had left, within the window, and
// counts only that as resent; the packets the window held leave once, as ACKs come.
TEST_F(Retransmit, UnderAHostWindowOnlyWhatLeftIsResent) {
    engine_config c = timer(k_timeout, 5);
    c.host_window_packets = 4;
    start(c);
    const std::uint32_t mtu = e().hw().mtu();
    ASSERT_EQ(post(wr_kind::send, 1, 0, 10 * mtu), status::success);
    loop_.run_for(k_timeout * 3 / 2);  // the first four, then one expiry
    const std::deque<sent_frame> sent = take_sent();
    ASSERT_EQ(sent.size(), 8U) << "four sent, the same four resent";
    for (std::size_t i = 0; i < sent.size(); ++i) {
        EXPECT_EQ(sent[i].packet.headers.bth.psn, i % 4) << "frame " << i;
    }
    EXPECT_EQ(counters().ack_timeouts.load(), 1U);
    EXPECT_EQ(counters().retransmitted_packets.load(), 4U);
    ack(3);  // PSNs 0-3
    loop_.run_for(k_timeout / 2);
    EXPECT_EQ(take_sent().size(), 4U) << "PSNs 4-7, first time";
    ack(7);
    loop_.run_for(k_timeout / 2);
    EXPECT_EQ(take_sent().size(), 2U) << "PSNs 8-9, first time";
    ack(9);
    run();
    EXPECT_EQ(counters().retransmitted_packets.load(), 4U);
    EXPECT_EQ(completions().size(), 1U);
}

TEST_F(Retransmit, AZeroTimeoutTurnsTheTimerOff) {
    start(timer(0, 5));
    ASSERT_EQ(post(wr_kind::send, 1, 0, 8), status::success);
    run();
    EXPECT_EQ(take_sent().size(), 1U);
    EXPECT_TRUE(completions().empty()) << "IB's infinite timeout: never resent, never failed";
    EXPECT_EQ(q().state(), core::qp_state::connected);
}

}  // namespace
}  // namespace ndksim::nic::test
