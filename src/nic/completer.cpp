// SPDX-License-Identifier: MIT
// The completer: ACK/NAK and READ responses -> request completions (STYLE.md 7.3).
//
// Completions of the initiator queue are queued strictly in posting order (a request that is
// finished waits for the ones before it). An ACK for PSN p finishes every SEND and WRITE whose
// last packet is at or before p; a READ finishes when its last response has been placed. The
// completion statuses of failures are one table (docs/completion-statuses.md):
//
//   NAK remote access error       -> STATUS_ACCESS_VIOLATION  (the peer refused the token/range)
//   NAK invalid request           -> STATUS_REMOTE_RESOURCES  (e.g. the peer's receive too small)
//   NAK remote operational error  -> STATUS_CONNECTION_ABORTED (the peer failed placing it)
//   RNR retries exhausted         -> STATUS_IO_TIMEOUT
//   transport retries exhausted   -> STATUS_IO_TIMEOUT (retransmit.cpp)
//   everything flushed after that -> STATUS_CANCELLED
// and the QP moves to error, as an RC transport does; a failure reported by the peer or a
// retry limit also tears the connection down, so the consumer sees the disconnect event.

#include <algorithm>
#include <array>

#include "core/call_hooks.hpp"
#include "core/cq.hpp"
#include "core/device.hpp"
#include "core/held_task.hpp"
#include "core/srq.hpp"
#include "nic/connection_manager.hpp"
#include "nic/engine.hpp"
#include "nic/nak_outcomes.hpp"
#include "nic/pipeline.hpp"
#include "nic/qp_context.hpp"
#include "nic/stats.hpp"
#include "util/log.hpp"

namespace ndksim::nic {
namespace {

using core::wr_kind;

std::uint32_t last_psn(const core::send_wqe& w) noexcept {
    return wire::psn_add(w.first_psn, w.packets - 1);
}

// Finishes every SEND and WRITE acknowledged by an ACK for `psn`, oldest first, stopping at
// the first request the ACK does not cover. Returns how many it finished: a late, repeated or
// overtaken ACK finishes none and changes nothing.
std::uint32_t ack_through(engine& e, core::qp& q, std::uint32_t psn) {
    std::uint32_t finished = 0;
    core::send_queue& sq = q.sq();
    const std::uint32_t outstanding = sq.outstanding();
    for (std::uint32_t i = 0; i < outstanding; ++i) {
        core::send_wqe& w = sq.at(i);
        if (w.done) {
            continue;
        }
        if (!w.started || w.kind == wr_kind::read || wire::psn_diff(last_psn(w), psn) > 0) {
            break;
        }
        if (w.kind == wr_kind::send || w.kind == wr_kind::send_invalidate ||
            w.kind == wr_kind::write) {
            w.done = true;
            ++finished;
        }
    }
    if (finished > 0) {
        note_progress(e, q);
    }
    return finished;
}

// The request whose PSN range holds `psn`, or nullptr.
core::send_wqe* request_at(core::qp& q, std::uint32_t psn) {
    return context_of(q).comp.requests.find(q.sq(), psn);
}

// An ACK for a PSN inside a SEND or WRITE (the requester asks for one every few packets of a
// long message) finishes nothing, but says the peer holds every packet up to it: the transport
// timer restarts and a retry resumes after them. Returns false for an ACK that adds nothing.
bool ack_within(engine& e, core::qp& q, std::uint32_t psn) {
    core::send_wqe* w = request_at(q, psn);
    if (w == nullptr || w->kind == wr_kind::read) {
        return false;
    }
    const auto received = static_cast<std::uint32_t>(wire::psn_diff(psn, w->first_psn)) + 1;
    // An ACK for the last packet is ack_through's: it finishes the message, or, behind an
    // unanswered READ, waits for it (an ACK does not stand in for read responses).
    if (received <= w->acked || received >= w->packets) {
        return false;
    }
    w->acked = received;
    note_progress(e, q);
    return true;
}

void fail_request(engine& e, core::qp& q, core::send_wqe& w, status result,
                  std::uint32_t provider_error) {
    w.done = true;
    w.result = result;
    w.provider_error = provider_error;
    NDKSIM_DEBUG("{}: request at PSN {:#x} failed: {}", q.ident(), w.first_psn, result);
    fail_qp(e, q);
}

void on_ack(engine& e, core::qp& q, const wire::decoded_packet& p) {
    qp_context& ctx = context_of(q);
    const std::uint32_t psn = p.headers.bth.psn;
    const std::uint8_t syndrome = p.headers.aeth.syndrome;
    switch (wire::syndrome_type(syndrome)) {
        case wire::aeth_type::ack:
            if (ack_through(e, q, psn) + static_cast<std::uint32_t>(ack_within(e, q, psn)) > 0) {
                ctx.req.rnr_retries = 0;  // only an ACK that moves on ends a run of RNR NAKs
                if (ctx.req.window_blocked) {
                    run_requester(e, q);  // the host window moved on with it
                }
            } else {
                e.counters().stale_responses.fetch_add(1, std::memory_order_relaxed);
            }
            break;
        case wire::aeth_type::rnr_nak: {
            ack_through(e, q, wire::psn_add(psn, wire::psn_mask));  // earlier PSNs are acked
            e.counters().rnr_retries.fetch_add(1, std::memory_order_relaxed);
            core::send_wqe* w = request_at(q, psn);
            if (w == nullptr || ctx.req.retry_scheduled) {
                break;
            }
            // The peer answers: the transport timer's interval restarts (the RNR limit, not
            // the transport retry limit, governs how long this may go on).
            note_progress(e, q);
            if (ctx.req.rnr_retries++ >= e.config().rnr_retry_limit) {
                fail_request(e, q, *w, status::io_timeout, 0);
                e.cm().abort_connection(q, disconnect_reason::retry_exhausted);
                return;
            }
            // Receiver not ready: resend from the refused PSN after the timer the responder
            // asked for, in simulated time.
            rewind_requester(e, q, psn);
            ctx.req.retry_scheduled = true;
            q.add_ref();
            e.dev().sched().post_after(wire::rnr_timer_table[wire::syndrome_value(syndrome)],
                                       [&e, qp = &q] {
                                           context_of(*qp).req.retry_scheduled = false;
                                           run_requester(e, *qp);
                                           qp->release();
                                       });
            break;
        }
        case wire::aeth_type::nak: {
            ack_through(e, q, wire::psn_add(psn, wire::psn_mask));
            const std::uint8_t code = wire::syndrome_value(syndrome);
            core::send_wqe* w = request_at(q, psn);
            if (w == nullptr) {
                // Late or repeated: it names a request already finished (or none sent).
                e.counters().stale_responses.fetch_add(1, std::memory_order_relaxed);
                break;
            }
            if (code == static_cast<std::uint8_t>(wire::nak_code::psn_sequence_error)) {
                if (!ctx.req.retry_scheduled) {
                    // Resent now: the timer's interval restarts, the retry count stays.
                    ctx.timer.progress_at = e.dev().sched().now();
                    rewind_requester(e, q, psn);
                    run_requester(e, q);
                }
                break;
            }
            const nak_outcome o = nak_outcome_of(code);
            fail_request(e, q, *w, o.result, o.provider_error);
            // A fatal error ends the connection on both sides (the peer NAKed and tears down
            // too; whichever disconnect request is lost, each consumer still sees its event).
            e.cm().abort_connection(q, disconnect_reason::fatal_error);
            return;
        }
        case wire::aeth_type::reserved:
            e.counters().protocol_errors.fetch_add(1, std::memory_order_relaxed);
            break;
    }
    complete_in_order(e, q);
}

void on_read_response(engine& e, core::qp& q, const wire::decoded_packet& p) {
    qp_context& ctx = context_of(q);
    const std::uint32_t psn = p.headers.bth.psn;
    core::send_wqe* w = request_at(q, psn);
    if (w == nullptr || w->kind != wr_kind::read) {
        // A response to a read already finished (sent twice, or asked for again after a
        // timeout): nothing is placed twice.
        e.counters().stale_responses.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    // A read response acknowledges every request before the read.
    ack_through(e, q, wire::psn_add(w->first_psn, wire::psn_mask));
    // Each response also passes the QP's WQE engine (the per-QP read rate).
    e.hw().read_response_on_engine(ctx.hw, e.dev().sched().now());
    const std::uint32_t mtu = e.hw().mtu();
    const auto index = static_cast<std::uint32_t>(wire::psn_diff(psn, w->first_psn));
    if (static_cast<std::uint64_t>(index) * mtu != w->placed) {
        // Not the next response of this read: a duplicate after a rewind, or one that passed
        // a lost predecessor (the timer asks for the read again).
        e.counters().stale_responses.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    mem::translation_unit& memory = e.dev().memory();
    if (ctx.comp.read_cursor_for != w) {
        ctx.comp.read_cursor.emplace(memory, q.memory_pd(), mem::access_op::read_sink,
                                     std::span<const mem::sge>(w->sges, w->sge_count));
        ctx.comp.read_cursor->seek(w->placed);
        ctx.comp.read_cursor_for = w;
    }
    {
        const mem::read_guard guard = memory.read();
        if (p.payload.size() > ctx.comp.read_cursor->remaining()) {
            ctx.comp.read_cursor_for = nullptr;
            fail_request(e, q, *w, status::data_overrun, 0);
            return;
        }
        const mem::copy_result r = ctx.comp.read_cursor->copy_to_host(guard, p.payload);
        if (!r.ok()) {
            ctx.comp.read_cursor_for = nullptr;
            fail_request(e, q, *w, r.st(), 0);
            return;
        }
    }
    w->placed += p.payload.size();
    note_progress(e, q);
    if (p.info->ends_message()) {
        ctx.comp.read_cursor_for = nullptr;
        ctx.comp.read_cursor.reset();
        w->done = true;
        if (w->read_counted) {
            w->read_counted = false;
            --ctx.req.reads_outstanding;
        }
        if ((w->flags & core::op_flag::read_local_invalidate) != 0 && w->sge_count > 0 &&
            (e.dev().limits().adapter_flags & core::adapter_flag::read_local_invalidate) != 0) {
            // NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE: invalidate the first local SGE's token
            // once the read succeeded (REFERENCE.md 2.3).
            w->result = memory.execute_invalidate_token(q.memory_pd(), w->sges[0].token);
        }
        // A fenced request or a read held back by the read limit may start now.
        run_requester(e, q);
    }
    complete_in_order(e, q);
}

}  // namespace

void on_response(engine& e, core::qp& q, const wire::decoded_packet& p) {
    switch (p.info->cls) {
        case wire::op_class::ack:
            on_ack(e, q, p);
            break;
        case wire::op_class::read_response:
            on_read_response(e, q, p);
            break;
        default:
            e.counters().protocol_errors.fetch_add(1, std::memory_order_relaxed);
            break;
    }
}

void complete_in_order(engine& e, core::qp& q) {
    qp_context& ctx = context_of(q);
    core::send_queue& sq = q.sq();
    while (sq.outstanding() > 0) {
        core::send_wqe& w = sq.at(0);
        if (!w.done) {
            break;
        }
        // Frames of `w` still queued for the port leave before its slot and memory go back to
        // the consumer; a refused one fails the QP once this completion is out.
        if (!depart_through(e, q, w)) {
            core::post_held(q, 0, [&e, qp = &q] { fail_qp(e, *qp); });
        }
        // Its frames still in flight stop reading the consumer's memory, which the completion
        // hands back (an ACK can overtake a retransmission's frames; a flush, frames in flight).
        // A request that lent nothing leaves the list's line alone: with thousands of QPs it
        // is a cold line per completion.
        if (w.lent && !ctx.lent.empty()) {
            (void)ctx.lent.materialize(w.first_psn, last_psn(w));
        }
        const bool silent =
            (w.flags & core::op_flag::silent_success) != 0 && w.result == status::success;
        if (!silent) {
            core::completion c{static_cast<std::int32_t>(w.result),
                               0,
                               q.params().qp_context,
                               w.context,
                               core::completion_type(w.kind),
                               w.result == status::success ? 0 : w.provider_error,
                               0,
                               false,
                               q.initiator_queue_id()};
            core::completion_verdict verdict = core::completion_verdict::none;
            if (core::call_hooks* h = q.dev().consumer_hooks()) [[unlikely]] {
                verdict = h->on_completion(q, c, w.length);
            }
            if (q.initiator_cq().post(c, verdict == core::completion_verdict::overrun_cq) ==
                    status::buffer_overflow &&
                q.state() != core::qp_state::error) {
                // CQ overrun (rule 15): the CQ and its QPs are dead.
                q.set_state(core::qp_state::error);
            }
            if (verdict == core::completion_verdict::fail_qp) [[unlikely]] {
                // A fault script failed the request or cut the connection here: the QP fails
                // and the connection is torn down, as after a fatal error.
                core::post_held(q, 0, [&e, qp = &q] {
                    fail_qp(e, *qp);
                    e.cm().abort_connection(*qp, disconnect_reason::fatal_error);
                });
            }
        }
        record_request(e, q, w);
        if (ctx.comp.read_cursor_for == &w) {
            ctx.comp.read_cursor_for = nullptr;
            ctx.comp.read_cursor.reset();
        }
        sq.retire();
        if (ctx.req.next_wqe > 0) {
            --ctx.req.next_wqe;
        }
    }
    if (sq.outstanding() == 0) {
        stop_ack_timer(e, q);
    }
}

void complete_receive(engine& e, core::qp& q, void* request_context, status result,
                      std::uint32_t bytes, core::op_type type, std::uintptr_t token,
                      bool solicited) {
    record_receive(e, q, result, bytes);
    core::completion c{static_cast<std::int32_t>(result),
                       bytes,
                       q.params().qp_context,
                       request_context,
                       type,
                       0,
                       token,
                       solicited,
                       q.receive_queue_id()};
    if (core::call_hooks* h = q.dev().consumer_hooks()) [[unlikely]] {
        (void)h->on_completion(q, c, bytes);  // receives: coverage only
    }
    if (q.receive_cq().post(c) == status::buffer_overflow && q.state() != core::qp_state::error) {
        q.set_state(core::qp_state::error);
    }
}

void fail_qp(engine& e, core::qp& q) {
    qp_context& ctx = context_of(q);
    if (q.state() != core::qp_state::error) {
        q.set_state(core::qp_state::error);
    }
    // What the port had scheduled leaves as it would have, before any request completes and
    // its memory may go back to the consumer (a refused build only adds its own fault).
    (void)depart_all(e, q);
    // Every request not finished completes with STATUS_CANCELLED (rule 12); the one that
    // failed keeps its own status.
    core::send_queue& sq = q.sq();
    const std::uint32_t outstanding = sq.outstanding();
    for (std::uint32_t i = 0; i < outstanding; ++i) {
        core::send_wqe& w = sq.at(i);
        if (!w.done) {
            w.done = true;
            w.result = status::cancelled;
        }
    }
    ctx.req.reads_outstanding = 0;
    ctx.req.next_wqe = 0;
    complete_in_order(e, q);
    // A receive being filled, then every posted receive, completes cancelled too.
    if (ctx.resp.in_send && !ctx.resp.receive_failed) {
        complete_receive(e, q, ctx.resp.receive.context, status::cancelled, 0,
                         core::op_type::receive, 0, false);
        if (ctx.resp.receive_from_srq) {
            q.shared_rq()->release_receive(ctx.resp.receive.slot);
        } else {
            q.rq()->release(ctx.resp.receive.slot);
        }
    }
    ctx.resp.in_send = false;
    ctx.resp.in_write = false;
    ctx.resp.recv_cursor.reset();
    ctx.resp.write_cursor.reset();
    if (core::receive_queue* rq = q.rq()) {
        rq->drain([&](const core::received& r) {
            complete_receive(e, q, r.context, status::cancelled, 0, core::op_type::receive, 0,
                             false);
        });
    }
}

}  // namespace ndksim::nic
