// SPDX-License-Identifier: MIT
// The transport timer: what recovers a lost request, a lost ACK or a lost read response, and
// what notices a peer or a link that is gone (IB RC "local ACK timeout" and retry_cnt).
//
// Lazy, one scheduled check per QP at most: the context remembers when the oldest request
// waiting for the peer last made progress (progress_at). An ACK or read response only moves
// that time; it never reschedules anything, so the per-packet path stays a store. Once the
// initiator queue is empty the check is cancelled (stop_ack_timer): it would find nothing, and
// with thousands of QPs it would run on a QP whose state has long left the cache. When the
// check runs:
//   nothing is waiting                  -> the timer stops (the next transmission arms it)
//   the interval has not passed         -> it checks again when it will have
//   the check ran a whole timeout late  -> (threaded) the engine was starved, not the wire
//                                          silent: the interval restarts, no retry counted
//   the peer's engine is behind         -> (threaded, in process) frames sent to it wait to
//                                          be taken in: look again in k_pending_recheck, for
//                                          as long as they wait
//   the peer has not run what was due   -> (threaded, in process) its ACK may wait behind its
//                                          backlog: look again in k_pending_recheck until it
//                                          has run what it had due when the wait began
//   frames wait unread in the sockets   -> (socket wires) the peer may have answered: look
//                                          again in k_unread_recheck, for at most one interval
//   an RNR back-off is running          -> the peer answered; it checks again a full interval on
//   the interval passed, retries left   -> go-back-N from the oldest unacknowledged PSN (past
//                                          the part of a long message the peer acknowledged),
//                                          retry count + 1, interval doubled (back-off, below)
//   the interval passed, none left      -> the request fails with STATUS_IO_TIMEOUT, the rest
//                                          flush with STATUS_CANCELLED, the QP moves to error,
//                                          and the connection is torn down (the consumer gets
//                                          the disconnect event; the peer a disconnect request)
//
// Back-off: the interval doubles per consecutive retry, up to 8 x ack_timeout
// (k_ack_backoff_max_shift). A congested or briefly cut link gets time to recover without
// flooding it with go-back-N bursts, and the time to give up stays bounded and known:
// retry_exhaustion_time() (16 ms and 7 retries: 47 x 16 ms = 752 ms of simulated time).
// IB leaves back-off to the implementation; progress resets the interval to ack_timeout.

#include <type_traits>

#include "core/device.hpp"
#include "nic/connection_manager.hpp"
#include "nic/engine.hpp"
#include "nic/pipeline.hpp"
#include "nic/qp_context.hpp"
#include "util/log.hpp"

namespace ndksim::nic {
namespace {

using core::wr_kind;

// How soon a check that found the peer's frames unread in the sockets looks again [ps]: the
// engine thread reads them when it next turns to its sockets, within microseconds.
constexpr timing::sim_time k_unread_recheck = timing::microseconds(20);

// How soon a check that found the peer's engine behind (transport::output_pending) looks
// again [ps]. Long beside k_unread_recheck: the peer takes milliseconds to catch up, and with
// many QPs waiting, each look costs the sending engine.
constexpr timing::sim_time k_pending_recheck = timing::microseconds(1000);

// qp_context::timer_state::id holds a timer id without naming the scheduler's types.
static_assert(std::is_same_v<timing::timer_id, std::uint32_t> && timing::k_no_timer == UINT32_MAX);

// The oldest request sent and not finished, or nullptr. Requests start in queue order, so the
// first one not started ends the search.
core::send_wqe* oldest_waiting(core::qp& q) {
    core::send_queue& sq = q.sq();
    const std::uint32_t outstanding = sq.outstanding();
    for (std::uint32_t i = 0; i < outstanding; ++i) {
        core::send_wqe& w = sq.at(i);
        if (w.done || (w.started && is_local(w.kind))) {
            continue;
        }
        return w.started ? &w : nullptr;
    }
    return nullptr;
}

// A new deadline (progress, a QP busy again after idling) or a timeout counted: the waits that
// put off the last deadline end.
void end_waits(qp_context::timer_state& t) noexcept {
    t.unread_checks = 0;
    t.behind_since = 0;
}

void on_timer(engine& e, core::qp& q);

void schedule_check(engine& e, core::qp& q, timing::sim_time delay) {
    qp_context& ctx = context_of(q);
    ctx.timer.armed = true;
    ctx.timer.check_due = e.dev().sched().now() + delay;
    // The task's reference keeps the QP alive until the check has run or been cancelled.
    ctx.timer.id = e.dev().sched().post_timer_after(
        delay, [&e, qp = core::ref<core::qp>(&q)] { on_timer(e, *qp); });
}

void on_timer(engine& e, core::qp& q) {
    qp_context& ctx = context_of(q);
    ctx.timer.armed = false;
    ctx.timer.id = timing::k_no_timer;
    if (q.state() != core::qp_state::connected) {
        return;  // failed, flushed or disconnected: nothing is retried any more
    }
    core::send_wqe* w = oldest_waiting(q);
    if (w == nullptr) {
        return;
    }
    const timing::sim_time base = e.config().ack_timeout;
    const timing::sim_time now = e.dev().sched().now();
    const timing::sim_time interval = ack_timeout_after(base, ctx.timer.retries);
    const timing::sim_time deadline = ctx.timer.progress_at + interval;
    if (ctx.req.retry_scheduled) {
        // Receiver not ready: the peer answers, the RNR limit governs (not the transport one).
        ctx.timer.progress_at = now;
        schedule_check(e, q, interval);
        return;
    }
    if (now < deadline) {
        end_waits(ctx.timer);  // progress: a new deadline
        schedule_check(e, q, deadline - now);
        return;
    }
    const timing::sim_time due = std::max(deadline, ctx.timer.check_due);
    if (now > due && now - due > base && e.dev().sched().mode() == timing::run_mode::threaded) {
        // The check ran more than a whole timeout after it was due: the engine thread was
        // busy (a sanitizer build, a loaded host), not watching the wire, so the answers the
        // peer sent meanwhile may still sit unread in the socket. A NIC's timer is never late;
        // what it measures is silence it could hear, so the interval restarts instead of
        // counting a retry. A dead peer leaves the engine idle, and then checks run on time.
        NDKSIM_DEBUG("{}: transport timer ran {} ps late; interval restarted", q.ident(),
                     now - deadline);
        ctx.timer.progress_at = now;
        end_waits(ctx.timer);
        schedule_check(e, q, interval);
        return;
    }
    if (e.dev().sync() == nullptr && ctx.peer != nullptr && e.link().output_pending(*ctx.peer)) {
        // The peer is an adapter of this process whose engine thread has not yet taken in
        // frames sent to it: it is behind (a slow or loaded host; many QPs' windows of large
        // writes), and this QP's frames or the ACKs they ask for may wait in its queue. The
        // timer measures silence a NIC could hear, and the peer's NIC, never behind, would
        // have answered: the timeout waits, however long, while the peer runs at all (a peer
        // detached, or a frame lost before the link, leaves nothing pending). A look every
        // k_pending_recheck keeps the cost of many waiting QPs low; an ACK's progress moves
        // the deadline as usual.
        schedule_check(e, q, k_pending_recheck);
        return;
    }
    if (e.dev().sync() == nullptr && ctx.peer != nullptr) {
        // Every frame reached the peer's engine, but it has not yet run all it had due when
        // this wait began: the ACK it owes may wait there behind a backlog of other QPs'
        // frames (its send is an event of that engine). Its NIC would have answered, so the
        // check looks again in k_pending_recheck until the peer's engine has run what it had
        // due then. A peer that is merely busy gets there too, so a frame lost on its way to
        // it still times out, once the peer has worked through that much.
        const timing::sim_time since = ctx.timer.behind_since != 0 ? ctx.timer.behind_since : now;
        if (e.link().peer_behind(*ctx.peer, since)) {
            ctx.timer.behind_since = since;
            schedule_check(e, q, k_pending_recheck);
            return;
        }
    }
    if (ctx.timer.unread_checks < interval / k_unread_recheck && e.dev().sync() == nullptr &&
        e.link().input_pending()) {
        // Frames have reached the sockets that the engine has not read: its thread was busy
        // (sending a burst of its own, typically the first window of large writes) and the
        // peer's answers may wait unread behind this check. The same rule as above: the timer
        // measures silence the NIC could hear, so it looks again once they are read. At most
        // one interval's worth of such looks per deadline, and then the timeout counts
        // whatever is pending (any sender's input counts, so input that keeps coming, a
        // stranger's flood included, can delay a timeout by one interval, never hold it off).
        // Not in synchronized time, whose runs must not depend on what a socket holds at a
        // given wall-clock moment.
        ++ctx.timer.unread_checks;
        schedule_check(e, q, k_unread_recheck);
        return;
    }
    end_waits(ctx.timer);
    if (ctx.timer.retries >= e.config().retry_limit) {
        e.counters().retries_exhausted.fetch_add(1, std::memory_order_relaxed);
        NDKSIM_INFO("{}: no answer for PSN {:#x} after {} retries; the connection is lost",
                    q.ident(), w->first_psn, ctx.timer.retries);
        w->done = true;
        w->result = status::io_timeout;
        w->provider_error = 0;
        fail_qp(e, q);
        e.cm().abort_connection(q, disconnect_reason::retry_exhausted);
        return;
    }
    ++ctx.timer.retries;
    ctx.timer.progress_at = now;
    e.counters().ack_timeouts.fetch_add(1, std::memory_order_relaxed);
    NDKSIM_DEBUG("{}: ACK timeout at PSN {:#x}, retry {}", q.ident(), w->first_psn,
                 ctx.timer.retries);
    // Go-back-N from the oldest unacknowledged PSN (retransmitted_packets counts what is sent
    // again): past the part of a message the peer acknowledged; a READ is asked for again.
    rewind_requester(
        e, q,
        w->kind == core::wr_kind::read ? w->first_psn : wire::psn_add(w->first_psn, w->acked));
    run_requester(e, q);
    if (!ctx.timer.armed && q.state() == core::qp_state::connected) {
        schedule_check(e, q, ack_timeout_after(base, ctx.timer.retries));
    }
}

}  // namespace

bool awaiting_peer(core::qp& q) {
    return oldest_waiting(q) != nullptr;
}

void arm_ack_timer(engine& e, core::qp& q, bool was_idle) {
    qp_context& ctx = context_of(q);
    if (was_idle) {
        ctx.timer.progress_at = e.dev().sched().now();
        ctx.timer.retries = 0;
        end_waits(ctx.timer);
    }
    if (ctx.timer.armed || e.config().ack_timeout == 0 || !awaiting_peer(q)) {
        return;
    }
    const timing::sim_time now = e.dev().sched().now();
    const timing::sim_time deadline =
        ctx.timer.progress_at + ack_timeout_after(e.config().ack_timeout, ctx.timer.retries);
    schedule_check(e, q, deadline > now ? deadline - now : 0);
}

void stop_ack_timer(engine& e, core::qp& q) {
    qp_context& ctx = context_of(q);
    if (ctx.timer.armed && e.dev().sched().cancel_timer(ctx.timer.id)) {
        ctx.timer.armed = false;
        ctx.timer.id = timing::k_no_timer;
    }
}

void note_progress(engine& e, core::qp& q) {
    qp_context& ctx = context_of(q);
    ctx.timer.progress_at = e.dev().sched().now();
    ctx.timer.retries = 0;
}

}  // namespace ndksim::nic
