// SPDX-License-Identifier: MIT
// The sync domain of synchronized time: the lookahead bound (no event runs past the horizon
// the peers' promises give) and the consumer gate (time stays at what the consumer was shown
// until it reacts, or until the grace expires, which is counted as an inexact step).

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <limits>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "timing/sync_domain.hpp"

namespace ndksim::timing {
namespace {

using namespace std::chrono_literals;

// Waits (yielding) until `pred` holds; fails loudly after 10 s of wall time.
template <class Pred>
bool eventually(Pred pred, const char* what) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!pred()) {
        if (std::chrono::steady_clock::now() > deadline) {
            ADD_FAILURE() << "timed out waiting for: " << what;
            return false;
        }
        std::this_thread::yield();
    }
    return true;
}

sync_domain::options long_grace() {
    sync_domain::options o;
    o.consumer_grace = std::chrono::milliseconds(60'000);
    return o;
}

// A peer's end of the channel: records what the domain promised it.
struct fake_channel final : sync_channel {
    std::atomic<sim_time> promised{0};
    std::atomic<int> records{0};
    std::atomic<bool> was_lost{false};
    std::atomic<std::uint64_t> seen{0};
    bool send_promise(sim_time promise, std::uint64_t frames_seen) override {
        promised.store(promise);
        seen.store(frames_seen);
        records.fetch_add(1);
        return true;
    }
    void lost() override { was_lost.store(true); }
};

// Runs `fn` on the domain's engine thread (peers are touched there only) and returns after it.
template <class F>
void on_engine(sync_domain& d, F fn) {
    std::promise<void> done;
    boost::asio::post(d.sched().io(), [&] {
        fn();
        done.set_value();
    });
    done.get_future().wait();
}

TEST(SyncDomainGate, AnEventRunsOnlyUpToThePeersPromisePlusTheLookahead) {
    fake_channel ch;  // outlives the domain, whose engine thread may still promise to it
    sync_domain d(long_grace());
    sync_peer* p = nullptr;
    on_engine(d, [&] { p = d.add_peer("udp 10.0.0.2", nanoseconds(65), ch); });
    EXPECT_EQ(d.horizon(), nanoseconds(65));
    d.consumer_waits();
    on_engine(d, [&] {
        std::chrono::nanoseconds retry{};
        EXPECT_TRUE(d.admit(nanoseconds(65), retry));
        EXPECT_FALSE(d.admit(nanoseconds(66), retry));
        EXPECT_EQ(retry.count(), 0) << "a promise, not the wall clock, lets it run";
        EXPECT_TRUE(d.peer_record(p, microseconds(1), 0, 0));
        EXPECT_TRUE(d.admit(nanoseconds(66), retry));
    });
    EXPECT_EQ(d.horizon(), microseconds(1) + nanoseconds(65));
    EXPECT_EQ(d.counters().horizon_waits, 1U);
    EXPECT_EQ(d.counters().horizon_violations, 0U);
}

TEST(SyncDomainGate, AFrameThePeerHasNotSeenHoldsTheHorizonAtItsEcho) {
    fake_channel ch;  // outlives the domain, whose engine thread may still promise to it
    sync_domain d(long_grace());
    on_engine(d, [&] {
        sync_peer* p = d.add_peer("tcp 10.0.0.2", nanoseconds(100), ch);
        EXPECT_TRUE(d.peer_record(p, microseconds(10), 0, 0));
        EXPECT_EQ(d.horizon(), microseconds(10) + nanoseconds(100));
        // A frame leaves at 1 us: the peer may answer it when it arrives, back here at 1.2 us.
        d.frame_sent(p, microseconds(1));
        EXPECT_EQ(d.horizon(), microseconds(1) + nanoseconds(200));
        EXPECT_TRUE(d.peer_record(p, microseconds(10), 1, 0));
        EXPECT_EQ(d.horizon(), microseconds(10) + nanoseconds(100));
        // With two peers the smallest bound wins, and each is promised what the other may
        // make this side send.
        fake_channel other;
        sync_peer* q = d.add_peer("tcp 10.0.0.3", nanoseconds(500), other);
        EXPECT_TRUE(d.peer_record(q, microseconds(2), 0, 0));
        EXPECT_EQ(d.horizon(), microseconds(2) + nanoseconds(500));
        d.remove_peer(q, true);
        EXPECT_TRUE(other.was_lost.load());
        d.remove_peer(p, false);
        EXPECT_FALSE(ch.was_lost.load());
    });
    const sync_counters c = d.counters();
    EXPECT_EQ(c.peers, 0U);
    EXPECT_EQ(c.peers_lost, 1U);
    EXPECT_EQ(c.horizon, std::numeric_limits<sim_time>::max());
}

TEST(SyncDomainGate, ReportingAPeersFramesSeenPromisesDownToTheirArrivalAndNoLower) {
    fake_channel ch;  // outlives the domain, whose engine thread may still promise to it
    sync_domain d(long_grace());
    d.consumer_waits();
    on_engine(d, [&] {
        sync_peer* p = d.add_peer("udp 10.0.0.2", nanoseconds(65), ch);
        EXPECT_TRUE(d.peer_record(p, microseconds(10), 0, 0));
        std::chrono::nanoseconds retry{};
        d.went_idle(retry);
        EXPECT_EQ(retry.count(), 0) << "the consumer waits: nothing to ask again about";
        // Idle, its consumer waiting: it promises its clock plus the idle lookahead.
        EXPECT_EQ(ch.promised.load(), milliseconds(1));
        EXPECT_EQ(d.post_floor(), milliseconds(1));
        // A frame of the peer's, due at 2 us, is read: the next record reports it seen and
        // promises its arrival, where the answer to it (the consumer's too) may leave.
        d.frame_read(p, microseconds(2));
        d.publish();
        EXPECT_EQ(ch.seen.load(), 1U);
        EXPECT_EQ(ch.promised.load(), microseconds(2));
        EXPECT_EQ(d.post_floor(), microseconds(2));
    });
}

// Idle with a consumer that has not reacted yet: the promise stays at the clock, and the
// engine is told to look again when the grace runs out (a peer may be waiting for exactly
// this side, with nothing queued here to bring the grace's check round).
TEST(SyncDomainGate, IdleWithTheConsumerHoldingTimeAsksAgainWhenTheGraceRunsOut) {
    fake_channel ch;  // outlives the domain, whose engine thread may still promise to it
    sync_domain d(long_grace());
    on_engine(d, [&] {
        std::chrono::nanoseconds retry{};
        d.went_idle(retry);
        EXPECT_EQ(retry.count(), 0) << "no peer waits for this side";
        sync_peer* p = d.add_peer("udp 10.0.0.2", nanoseconds(65), ch);
        EXPECT_TRUE(d.peer_record(p, microseconds(10), 0, 0));
        // A new domain's consumer is setting up until it first waits: it holds time.
        d.went_idle(retry);
        EXPECT_GT(retry, std::chrono::seconds(59)) << "the grace left, about a minute";
        EXPECT_EQ(ch.promised.load(), 0) << "the consumer holds the promise at the clock";
    });
    d.consumer_waits();
    on_engine(d, [&] {
        std::chrono::nanoseconds retry{};
        d.went_idle(retry);
        EXPECT_EQ(retry.count(), 0);
        // The clock plus the idle lookahead; the engine may have moved its clock up to the
        // horizon since the wait (advance_idle_clock).
        EXPECT_GE(ch.promised.load(), milliseconds(1));
        EXPECT_LE(ch.promised.load(), microseconds(10) + nanoseconds(65) + milliseconds(1));
    });
    EXPECT_EQ(d.counters().inexact_steps, 0U);
}

// While idle, the consumer's own grace applies only when a frame sent from here is still unseen
// by a peer (it may be what the peer waits for); otherwise the longer keepalive period does,
// so a consumer that is merely slow does not cost an exact run its exactness.
TEST(SyncDomainGate, AnUnseenFrameGivesTheIdleConsumerTheShortGrace) {
    fake_channel ch;  // outlives the domain, whose engine thread may still promise to it
    sync_domain::options o;
    o.consumer_grace = std::chrono::milliseconds(50);
    o.peer_silence = std::chrono::milliseconds(40'000);  // keepalive: every 10 s
    sync_domain d(o);
    on_engine(d, [&] {
        sync_peer* p = d.add_peer("udp 10.0.0.2", nanoseconds(65), ch);
        EXPECT_TRUE(d.peer_record(p, microseconds(10), 0, 0));
        std::chrono::nanoseconds retry{};
        d.went_idle(retry);
        EXPECT_GT(retry, std::chrono::seconds(9)) << "no frame of this side unseen";
        EXPECT_LE(retry, std::chrono::seconds(10));
        d.frame_sent(p, nanoseconds(100));
        d.went_idle(retry);
        // The rest of the 50 ms since the stall began (0 if a busy host let all of it pass).
        EXPECT_LE(retry, std::chrono::milliseconds(50)) << "a frame of this side unseen";
    });
}

// A consumer that waited since the engine began to wait for it answered in time: when it holds
// time again, its grace starts afresh, even if the engine never saw the gate open between.
TEST(SyncDomainGate, AWaitStartsTheNextGraceAfresh) {
    fake_channel ch;  // outlives the domain, whose engine thread may still promise to it
    sync_domain::options o;
    o.consumer_grace = std::chrono::milliseconds(1'000);
    sync_domain d(o);
    on_engine(d, [&] {
        sync_peer* p = d.add_peer("udp 10.0.0.2", nanoseconds(65), ch);
        EXPECT_TRUE(d.peer_record(p, microseconds(10), 0, 0));
        d.frame_sent(p, nanoseconds(100));  // the consumer's own grace applies
        std::chrono::nanoseconds retry{};
        d.went_idle(retry);
        EXPECT_GT(retry, std::chrono::milliseconds(800));
    });
    // Part of the grace passes (wall time is what a grace counts), then the consumer waits and
    // acts again at once.
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
    while (std::chrono::steady_clock::now() < until) {
        std::this_thread::yield();
    }
    d.consumer_waits();
    d.consumer_acts();
    on_engine(d, [&] {
        std::chrono::nanoseconds retry{};
        d.went_idle(retry);
        EXPECT_GT(retry, std::chrono::milliseconds(800)) << "a grace begun anew, not the rest";
    });
    d.consumer_waits();
    EXPECT_EQ(d.counters().inexact_steps, 0U);
}

TEST(SyncDomainGate, ARecordCountsThePeersFramesLostOnTheWayAsRead) {
    fake_channel ch;  // outlives the domain, whose engine thread may still promise to it
    sync_domain d(long_grace());
    on_engine(d, [&] {
        sync_peer* p = d.add_peer("udp 10.0.0.2", nanoseconds(65), ch);
        // It had sent three frames before this record; none was read here: lost.
        EXPECT_TRUE(d.peer_record(p, microseconds(10), 0, 3));
        d.publish();
        EXPECT_EQ(ch.seen.load(), 3U);
        // One frame went to it; a record claiming two seen is from no honest peer.
        d.frame_sent(p, microseconds(1));
        const sim_time before = d.horizon();
        EXPECT_FALSE(d.peer_record(p, microseconds(50), 2, 3));
        EXPECT_EQ(d.horizon(), before);
        EXPECT_TRUE(d.peer_record(p, microseconds(50), 1, 3));
        EXPECT_EQ(d.horizon(), microseconds(50) + nanoseconds(65));
    });
}

TEST(SyncDomainGate, TheEarliestUnseenDepartureBoundsTheHorizonWhateverTheSendOrder) {
    fake_channel ch;  // outlives the domain, whose engine thread may still promise to it
    sync_domain d(long_grace());
    on_engine(d, [&] {
        sync_peer* p = d.add_peer("udp 10.0.0.2", nanoseconds(100), ch);
        EXPECT_TRUE(d.peer_record(p, microseconds(50), 0, 0));
        // A fault layer held the first frame back (its departure raised): the second, sent
        // after it, departs earlier, and its echo is what may come back first.
        d.frame_sent(p, microseconds(5));
        d.frame_sent(p, microseconds(2));
        d.frame_sent(p, microseconds(3));
        EXPECT_EQ(d.horizon(), microseconds(2) + nanoseconds(200));
        // The peer read the first one sent (5 us): the 2 us one still bounds it.
        EXPECT_TRUE(d.peer_record(p, microseconds(50), 1, 0));
        EXPECT_EQ(d.horizon(), microseconds(2) + nanoseconds(200));
        EXPECT_TRUE(d.peer_record(p, microseconds(50), 2, 0));
        EXPECT_EQ(d.horizon(), microseconds(3) + nanoseconds(200));
        EXPECT_TRUE(d.peer_record(p, microseconds(50), 3, 0));
        EXPECT_EQ(d.horizon(), microseconds(50) + nanoseconds(100));
    });
}

TEST(SyncDomainGate, AnEventPastTheHorizonIsCountedAsAViolation) {
    fake_channel ch;  // outlives the domain, whose engine thread may still promise to it
    sync_domain d(long_grace());
    on_engine(d, [&] {
        d.add_peer("udp 10.0.0.2", nanoseconds(65), ch);
        d.running(nanoseconds(65));
        EXPECT_EQ(d.counters().horizon_violations, 0U);
        d.running(nanoseconds(66));
    });
    EXPECT_EQ(d.counters().horizon_violations, 1U);
}

TEST(SyncDomainEngine, EventsBeyondTheHorizonWaitForThePeersNextPromise) {
    fake_channel ch;  // outlives the domain, whose engine thread may still promise to it
    sync_domain d(long_grace());
    sync_peer* p = nullptr;
    on_engine(d, [&] { p = d.add_peer("udp 10.0.0.2", nanoseconds(65), ch); });
    std::atomic<int> ran{0};
    std::atomic<sim_time> second_at{0};
    d.sched().post_at(nanoseconds(10), [&] { ran.fetch_add(1); });
    d.sched().post_at(microseconds(2), [&] {
        second_at.store(d.sched().now());
        ran.fetch_add(1);
    });
    d.consumer_waits();
    ASSERT_TRUE(eventually([&] { return ran.load() == 1 && d.counters().horizon_waits >= 1; },
                           "the first event, then a stall at the horizon"));
    EXPECT_EQ(ran.load(), 1);
    // Waiting, the clock went as far as nothing can arrive before: the horizon.
    ASSERT_TRUE(
        eventually([&] { return d.sched().now() == nanoseconds(65); }, "the clock at the horizon"));
    // The peer heard that this side may send at 2 us at the earliest.
    ASSERT_TRUE(eventually([&] { return ch.promised.load() == microseconds(2); },
                           "the promise of the next event"));
    on_engine(d, [&] { EXPECT_TRUE(d.peer_record(p, microseconds(5), 0, 0)); });
    ASSERT_TRUE(eventually([&] { return ran.load() == 2; }, "the second event"));
    EXPECT_EQ(second_at.load(), microseconds(2));
    EXPECT_EQ(d.counters().horizon_violations, 0U);
}

TEST(SyncDomainEngine, APostAfterAnIdlePromiseRunsAtThePromiseAndIsCountedAsDeferred) {
    fake_channel ch;  // outlives the domain, whose engine thread may still promise to it
    sync_domain d(long_grace());
    sync_peer* p = nullptr;
    on_engine(d, [&] {
        p = d.add_peer("udp 10.0.0.2", nanoseconds(65), ch);
        // The peer promises little, so the horizon (165 ns) holds this domain's idle clock
        // far below its own idle promise: the post below always lands behind that promise.
        // (With a horizon beyond the promise the idle clock could overtake it before the
        // post, on some runs, and the post then needed no deferring.)
        EXPECT_TRUE(d.peer_record(p, nanoseconds(100), 0, 0));
    });
    // The consumer waits with nothing queued: the domain promises its idle lookahead.
    d.consumer_waits();
    ASSERT_TRUE(
        eventually([&] { return ch.promised.load() >= milliseconds(1); }, "the idle promise"));
    const sim_time promised = ch.promised.load();
    EXPECT_EQ(d.counters().deferred_posts, 0U);
    // Acting on its own now, the consumer cannot land before what was promised.
    std::atomic<sim_time> ran_at{0};
    d.sched().post([&] { ran_at.store(d.sched().now()); });
    d.consumer_waits();
    // The task waits for the horizon to pass it: the peer promises beyond it (without that
    // promise the task would run only once the silent peer is lost, seconds later).
    on_engine(d, [&] { EXPECT_TRUE(d.peer_record(p, promised + microseconds(1), 0, 0)); });
    ASSERT_TRUE(eventually([&] { return ran_at.load() != 0; }, "the consumer's task"));
    EXPECT_GE(ran_at.load(), promised);
    EXPECT_EQ(d.counters().deferred_posts, 1U);
}

TEST(SyncDomainEngine, APeerSilentForLongerThanTheBoundIsLost) {
    sync_domain::options o = long_grace();
    o.peer_silence = std::chrono::milliseconds(20);
    fake_channel ch;  // outlives the domain, whose engine thread may still promise to it
    sync_domain d(o);
    on_engine(d, [&] { d.add_peer("udp 10.0.0.2", nanoseconds(65), ch); });
    std::atomic<int> ran{0};
    d.sched().post_at(microseconds(2), [&] { ran.fetch_add(1); });
    d.consumer_waits();
    // It never answers: it is dropped, and the event it held back runs.
    ASSERT_TRUE(eventually([&] { return ch.was_lost.load() && ran.load() == 1; },
                           "the silent peer lost, then the event"));
    EXPECT_EQ(d.counters().peers_lost, 1U);
    EXPECT_GE(ch.records.load(), 1) << "it was told the promise, and kept alive, meanwhile";
}

// Posts an event at 10 ns that queues a completion for the consumer, and one at 20 ns; each
// counts itself in `ran`.
void post_completion_then_event(sync_domain& d, std::atomic<int>& ran) {
    d.sched().post_at(nanoseconds(10), [&] {
        ran.fetch_add(1);
        d.completion_queued();
    });
    d.sched().post_at(nanoseconds(20), [&] { ran.fetch_add(1); });
}

TEST(SyncDomainEngine, TimeStaysAtACompletionUntilTheConsumerPolledAndWaited) {
    sync_domain d(long_grace());
    std::atomic<int> ran{0};
    post_completion_then_event(d, ran);
    // The test thread posted, so it is acting: nothing runs until it waits, and the engine
    // stalls for it (waiting for that stall first makes the count below the same however the
    // two threads are scheduled).
    ASSERT_TRUE(eventually([&] { return d.counters().consumer_stalls == 1; },
                           "a stall for the consumer that posted"));
    EXPECT_EQ(ran.load(), 0);
    d.consumer_waits();
    ASSERT_TRUE(eventually([&] { return ran.load() == 1 && d.counters().consumer_stalls == 2; },
                           "the completion, then a stall for the consumer"))
        << "events run: " << ran.load() << ", stalls: " << d.counters().consumer_stalls
        << ", inexact steps: " << d.counters().inexact_steps;
    // Polling it makes this thread the one that reacts; time waits for its next wait.
    d.completions_polled(1, 1);
    ASSERT_TRUE(eventually([&] { return d.counters().consumer_stalls == 2; }, "still stalled"));
    EXPECT_EQ(ran.load(), 1);
    d.consumer_waits();
    ASSERT_TRUE(eventually([&] { return ran.load() == 2; }, "the event after the completion"));
    EXPECT_EQ(d.counters().inexact_steps, 0U);
}

TEST(SyncDomainEngine, AConsumerThatDoesNotReactWithinTheGraceCostsAnInexactStep) {
    sync_domain::options o;
    o.consumer_grace = std::chrono::milliseconds(1);
    sync_domain d(o);
    std::atomic<int> ran{0};
    post_completion_then_event(d, ran);
    d.consumer_waits();
    // Nobody polls the completion: after the grace, time moves on, and the counter says so.
    // (On a busy host the grace may also expire before this thread's first wait: one step or
    // two, never none.)
    ASSERT_TRUE(eventually([&] { return ran.load() == 2; }, "the event after the grace"));
    EXPECT_GE(d.counters().inexact_steps, 1U);
    EXPECT_LE(d.counters().inexact_steps, 2U);
    EXPECT_EQ(d.sched().now(), nanoseconds(20));
}

// Two processes whose consumers both wait on something the simulation cannot see (their own
// condition variables) once stopped for good: each domain, with nothing queued, promised its
// clock, and the frame one had sent could not arrive at the other below that promise. The
// grace runs out while the domain is idle too, so time moves on (an inexact step).
TEST(SyncDomainEngine, TheGraceRunsOutWhileTheDomainHasNothingToRun) {
    fake_channel ch;  // outlives the domain, whose engine thread may still promise to it
    sync_domain::options o;
    o.consumer_grace = std::chrono::milliseconds(1);
    sync_domain d(o);
    on_engine(d, [&] {
        sync_peer* p = d.add_peer("udp 10.0.0.2", nanoseconds(65), ch);
        EXPECT_TRUE(d.peer_record(p, microseconds(10), 0, 0));
        // A frame from here the peer has not seen: the consumer's own grace applies.
        d.frame_sent(p, nanoseconds(100));
    });
    // The consumer never waits, and nothing is queued: only the grace can move time.
    ASSERT_TRUE(eventually([&] { return ch.promised.load() > 0; }, "a promise past the clock"));
    EXPECT_GE(d.counters().inexact_steps, 1U);
    EXPECT_EQ(d.counters().horizon_violations, 0U);
}

TEST(SyncDomainEngine, AWaitForTheSimulationReturnsAtTheNextEffect) {
    sync_domain d(long_grace());
    std::atomic<int> ran{0};
    d.sched().post_at(microseconds(3), [&] {
        ran.fetch_add(1);
        d.completion_queued();
    });
    EXPECT_TRUE(d.wait_for_effect(std::chrono::milliseconds(10'000)));
    EXPECT_EQ(ran.load(), 1);
    EXPECT_EQ(d.sched().now(), microseconds(3));
    d.completions_polled(1, 1);
    // Nothing is left: the wait returns at once, and the engine is idle.
    EXPECT_TRUE(d.wait_for_effect(std::chrono::milliseconds(10'000)));
    EXPECT_TRUE(d.sched().idle());
}

// Two consumer threads watch (both wait in ndksim_adapter_wait), and a callback shows an effect
// meant for one of them (a connect event for the listener's thread): time stays at it until
// every watching thread has looked, not only the first that waits again. With a count for the
// whole domain, the other thread's wait let time run past the event before the listener's
// thread had seen it (its accept then came after the connection-manager timeout).
TEST(SyncDomainEngine, AnEffectHoldsTimeUntilEveryWatchingThreadHasLooked) {
    sync_domain d(long_grace());
    std::atomic<int> ran{0};
    d.sched().post_at(nanoseconds(10), [&] {
        ran.fetch_add(1);
        d.note_consumer_effect();  // as a callback's return does, on the engine thread
    });
    d.sched().post_at(nanoseconds(20), [&] { ran.fetch_add(1); });
    std::promise<void> registered;
    std::promise<void> go_on;
    std::thread other([&] {
        // A watcher from its first wait on; it returns at the effect, then blocks where the
        // simulation cannot see it (as the listener's thread does on its own condition).
        EXPECT_TRUE(d.wait_for_effect(std::chrono::milliseconds(10'000)));
        registered.set_value();
        go_on.get_future().wait();
        EXPECT_TRUE(d.wait_for_effect(std::chrono::milliseconds(10'000)));
    });
    EXPECT_TRUE(d.wait_for_effect(std::chrono::milliseconds(10'000)));
    registered.get_future().wait();
    EXPECT_EQ(ran.load(), 1);
    // This thread looked and waits: the other has not, so the event at 20 ns does not run and
    // the wait times out (had it run, the engine would be idle and the wait would return true).
    EXPECT_FALSE(d.wait_for_effect(std::chrono::milliseconds(50)));
    EXPECT_EQ(ran.load(), 1);
    go_on.set_value();
    ASSERT_TRUE(eventually([&] { return ran.load() == 2; }, "the event once both have looked"));
    other.join();
    EXPECT_EQ(d.counters().inexact_steps, 0U);
}

// ib_write_lat's loop: the wait returns for the last byte of the peer's write, the thread
// drains its CQ (empty) and only then posts its reply, which belongs at the instant of the
// landing. An empty poll is no look at memory: it leaves the landing unacknowledged, so time
// stays there until the thread waits again, and the reply is stamped with the landing's time.
// Acknowledging the landing let the engine run the next event first, and the reply (and every
// later frame) moved by that event's distance, on some runs only.
TEST(SyncDomainEngine, AnEmptyPollAfterAWaitForAWritesLastByteKeepsTimeAtTheLanding) {
    sync_domain d(long_grace());
    std::atomic<int> ran{0};
    std::atomic<sim_time> reply_at{0};
    std::atomic<int> ran_before_reply{-1};
    d.sched().post_at(nanoseconds(10), [&] {
        ran.fetch_add(1);
        d.data_placed();  // a watcher exists from the wait below on
    });
    d.sched().post_at(nanoseconds(60), [&] { ran.fetch_add(1); });
    for (int round = 0; round < 20 && ran.load() == 0; ++round) {
        // The first wait makes this thread a watcher; it returns once the landing is shown.
        EXPECT_TRUE(d.wait_for_effect(std::chrono::milliseconds(10'000)));
    }
    ASSERT_EQ(ran.load(), 1) << "the landing never showed";
    const std::uint64_t checks = d.gate_checks();
    d.completions_polled(0, 0);
    // The poll kicks the engine: once it has looked at the gate again, whatever the poll let
    // through has run, and the reply below is stamped after it.
    ASSERT_TRUE(eventually([&] { return d.gate_checks() > checks; }, "the engine's next look"));
    d.sched().post([&] {
        reply_at.store(d.sched().now());
        ran_before_reply.store(ran.load());
    });
    // This thread has reacted: time may go on, and the reply runs.
    static_cast<void>(d.wait_for_effect(std::chrono::milliseconds(10'000)));
    ASSERT_TRUE(eventually([&] { return ran_before_reply.load() >= 0; }, "the reply"));
    EXPECT_EQ(reply_at.load(), nanoseconds(10));
    EXPECT_EQ(ran_before_reply.load(), 1);
    EXPECT_EQ(d.counters().inexact_steps, 0U);
}

// perftest's own loop: the wait returns for the landing, the thread posts its next write and
// then spins on its CQ for that write's completion, never waiting again. Its post carries the
// landing's time, so its empty polls let time run on (had they held the landing, nothing would
// run until the grace expired).
TEST(SyncDomainEngine, AThreadThatPostedAfterTheLandingLetsTimeRunOnByPolling) {
    sync_domain d(long_grace());
    std::atomic<int> ran{0};
    std::atomic<sim_time> reply_at{0};
    d.sched().post_at(nanoseconds(10), [&] {
        ran.fetch_add(1);
        d.data_placed();
    });
    d.sched().post_at(nanoseconds(60), [&] { ran.fetch_add(1); });
    for (int round = 0; round < 20 && ran.load() == 0; ++round) {
        EXPECT_TRUE(d.wait_for_effect(std::chrono::milliseconds(10'000)));
    }
    ASSERT_EQ(ran.load(), 1) << "the landing never showed";
    d.sched().post([&] { reply_at.store(d.sched().now()); });
    ASSERT_TRUE(eventually(
        [&] {
            d.completions_polled(0, 0);
            return ran.load() == 2;
        },
        "the reply and the next event, with the thread only polling"));
    EXPECT_EQ(reply_at.load(), nanoseconds(10));
    EXPECT_EQ(d.counters().inexact_steps, 0U);
}

}  // namespace
}  // namespace ndksim::timing
