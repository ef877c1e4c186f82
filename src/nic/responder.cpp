// SPDX-License-Identifier: MIT
// The responder: request packets -> placement, read responses, ACK/NAK (STYLE.md 7.3).
//
// Checks, in order: PSN (a duplicate is re-acknowledged, or a READ served again; a packet
// from the future gets one PSN-sequence NAK, and further ones are dropped quietly until the
// expected PSN arrives), opcode sequence (a message's middle and last packets continue it),
// then per class: a SEND needs a posted receive (none: RNR NAK; the requester retries in
// simulated time), a WRITE's and a READ's target must pass the memory unit's lookup for remote
// write/read over the whole range before any byte moves (refused: NAK remote access error).
// ACKs are coalesced (schedule_ack); NAKs leave at once, a sequence NAK once per gap. Every
// refusal is a row of the fault table (responder_faults.hpp): its NAK, what the requester and
// a receive see, and whether it is fatal, which tears the connection down. Every byte placed or
// read goes through the memory unit (src/mem); a refused or oversized access never touches memory.

#include <algorithm>
#include <optional>

#include "core/device.hpp"
#include "core/srq.hpp"
#include "nic/connection_manager.hpp"
#include "nic/engine.hpp"
#include "nic/packets.hpp"
#include "nic/pipeline.hpp"
#include "nic/qp_context.hpp"
#include "nic/responder_faults.hpp"
#include "util/log.hpp"
#include "util/single_writer.hpp"

namespace ndksim::nic {
namespace {

using wire::opcode;

// Answers a packet that broke rule `f` as its row of the fault table says (responder_faults.hpp):
// the NAK or RNR NAK for `psn`, then, for a fatal row, error and the teardown, so that both
// consumers see a disconnect event.
void refuse(engine& e, core::qp& q, std::uint32_t psn, responder_fault f) {
    const responder_fault_rule& r = fault_rule(f);
    if (r.protocol_error) {
        e.counters().protocol_errors.fetch_add(1, std::memory_order_relaxed);
    }
    if (r.answer == fault_answer::rnr_nak) {
        e.counters().rnr_naks_sent.fetch_add(1, std::memory_order_relaxed);
        send_ack(e, q, psn, wire::rnr_nak_syndrome(e.config().rnr_timer_code));
    } else {
        e.counters().naks_sent.fetch_add(1, std::memory_order_relaxed);
        NDKSIM_DEBUG("{}: NAK {} at PSN {:#x} ({})", q.ident(),
                     wire::nak_code_name(static_cast<std::uint8_t>(r.nak)), psn, r.name);
        send_ack(e, q, psn, wire::nak_syndrome(r.nak));
    }
    if (r.fatal) {
        fail_qp(e, q);
        e.cm().abort_connection(q, disconnect_reason::fatal_error);
    }
}

// The status a receive completes with when the SEND landing in it broke rule `f`;
// `memory_status` is what the memory unit refused its SGE with, if it did.
status receive_status(responder_fault f, status memory_status) {
    const responder_fault_rule& r = fault_rule(f);
    return r.receive == receive_outcome::memory_unit ? memory_status : r.receive_status;
}

void flush_ack(engine& e, core::qp& q);

// ACK coalescing (IBA 9.7.5.1: an ACK may cover every PSN up to its own): the first packet
// asking for an ACK schedules one, a pipeline slot plus the profile's coalescing window later;
// packets asking before it leaves only move its PSN, so one ACK covers a back-to-back burst
// (an RC ACK acknowledges every PSN up to its own). A lone message's ACK leaves at the same
// simulated time as an immediate one did: the slot waited is the pipeline cost it paid anyway.
void schedule_ack(engine& e, core::qp& q, std::uint32_t psn) {
    qp_context& ctx = context_of(q);
    ctx.resp.ack_psn = psn;
    if (ctx.resp.ack_pending) {
        util::single_writer_add(e.counters().acks_coalesced);
        return;
    }
    ctx.resp.ack_pending = true;
    q.add_ref();
    // The profile's ack.coalesce_ns widens the window (0 for cx4-edr: the pipeline slot only);
    // every ACK then leaves that much later, and fewer ACKs cover a stream.
    e.dev().sched().post_after(e.hw().ack_coalesce_delay(), [&e, qp = &q] {
        flush_ack(e, *qp);
        qp->release();
    });
}

void flush_ack(engine& e, core::qp& q) {
    qp_context& ctx = context_of(q);
    if (!ctx.resp.ack_pending) {
        return;
    }
    ctx.resp.ack_pending = false;
    if (!ctx.peer) {
        return;
    }
    // Sent even when the QP left the connected state meanwhile: what was received before a
    // disconnect was delivered, and its sender must see the ACK rather than a timeout. After
    // a NAK the ACK names an earlier PSN, which the requester ignores as stale.
    util::single_writer_add(e.counters().acks_sent);
    wire::packet_headers h;
    h.bth.op = opcode::rc_ack;
    h.bth.psn = ctx.resp.ack_psn;
    h.aeth.syndrome = wire::ack_syndrome();
    h.aeth.msn = ctx.resp.msn;
    // Building the ACK (ack.generation_ns) follows the coalescing wait, as for an ACK sent at
    // once (send_ack).
    send_packet(e, q, h, e.hw().ack_ready(e.dev().sched().now()));
}

// A receive's slot is released before its completion is queued: a consumer that reaps the
// completion may post a new receive at once and must find the room it just freed.
void release_receive(core::qp& q, qp_context& ctx) {
    if (ctx.resp.receive_from_srq) {
        q.shared_rq()->release_receive(ctx.resp.receive.slot);
    } else {
        q.rq()->release(ctx.resp.receive.slot);
    }
}

void on_send(engine& e, core::qp& q, const wire::decoded_packet& p) {
    qp_context& ctx = context_of(q);
    const std::uint32_t psn = p.headers.bth.psn;
    mem::translation_unit& memory = e.dev().memory();
    if (p.info->starts_message()) {
        const bool taken = q.rq() != nullptr ? q.rq()->take(ctx.resp.receive)
                                             : q.shared_rq()->take(ctx.resp.receive);
        if (!taken) {
            // Receiver not ready: the requester retries after the RNR timer.
            ctx.resp.nak_outstanding = true;
            refuse(e, q, psn, responder_fault::receiver_not_ready);
            return;
        }
        ctx.resp.receive_from_srq = q.rq() == nullptr;
        ctx.resp.recv_cursor.emplace(memory, q.memory_pd(), mem::access_op::local_write,
                                     ctx.resp.receive.sges);
        ctx.resp.receive_failed = false;
        ctx.resp.in_send = !p.info->ends_message();
    }
    std::optional<responder_fault> fault;
    status memory_status = status::success;
    {
        const mem::read_guard guard = memory.read();
        if (p.payload.size() > ctx.resp.recv_cursor->remaining()) {
            fault = responder_fault::receive_too_small;
        } else if (const mem::copy_result r = ctx.resp.recv_cursor->copy_to_host(guard, p.payload);
                   !r.ok()) {
            fault = responder_fault::receive_refused;
            memory_status = r.st();
        }
    }
    if (fault) {
        ctx.resp.receive_failed = true;
        ctx.resp.in_send = false;
        ctx.resp.recv_cursor.reset();
        release_receive(q, ctx);
        complete_receive(e, q, ctx.resp.receive.context, receive_status(*fault, memory_status), 0,
                         core::op_type::receive, 0, false);
        refuse(e, q, psn, *fault);
        return;
    }
    ctx.resp.expected_psn = wire::psn_add(psn);
    if (p.info->ends_message()) {
        ctx.resp.in_send = false;
        const auto bytes = static_cast<std::uint32_t>(ctx.resp.recv_cursor->position());
        core::op_type type = core::op_type::receive;
        std::uintptr_t token = 0;
        if (p.info->has(wire::ext::ieth)) {
            token = p.headers.invalidate_rkey;
            type = core::op_type::receive_and_invalidate;
            const status s = memory.execute_invalidate_token(q.memory_pd(), token);
            e.dev().windows_changed();
            if (s != status::success) {
                // A token that is not valid here makes the receiving provider abort the
                // connection (REFERENCE.md rule 22).
                ctx.resp.recv_cursor.reset();
                release_receive(q, ctx);
                complete_receive(e, q, ctx.resp.receive.context,
                                 receive_status(responder_fault::invalidate_refused, s), bytes,
                                 type, token, false);
                refuse(e, q, psn, responder_fault::invalidate_refused);
                return;
            }
        }
        ctx.resp.recv_cursor.reset();
        release_receive(q, ctx);
        complete_receive(e, q, ctx.resp.receive.context, status::success, bytes, type, token,
                         p.headers.bth.solicited);
        ctx.resp.msn = (ctx.resp.msn + 1) & wire::msn_mask;
    }
    if (p.headers.bth.ack_req) {
        schedule_ack(e, q, psn);
    }
}

void on_write(engine& e, core::qp& q, const wire::decoded_packet& p) {
    qp_context& ctx = context_of(q);
    const std::uint32_t psn = p.headers.bth.psn;
    mem::translation_unit& memory = e.dev().memory();
    const mem::read_guard guard = memory.read();
    if (p.info->starts_message()) {
        ctx.resp.write_target =
            mem::sge{p.headers.reth.va, p.headers.reth.dma_length, p.headers.reth.rkey};
        ctx.resp.write_cursor.emplace(memory, q.memory_pd(), mem::access_op::remote_write,
                                      std::span<const mem::sge>(&ctx.resp.write_target, 1));
        // The whole target is checked before any byte moves, so a refused write places nothing.
        if (const mem::copy_result r = ctx.resp.write_cursor->validate(guard); !r.ok()) {
            NDKSIM_DEBUG("{}: write to {:#x}+{} token {:#x} refused: {}", q.ident(),
                         ctx.resp.write_target.address, ctx.resp.write_target.length,
                         ctx.resp.write_target.token, mem::fault_name(r.failed));
            ctx.resp.write_cursor.reset();
            refuse(e, q, psn, responder_fault::write_refused);
            return;
        }
        ctx.resp.in_write = !p.info->ends_message();
    }
    if (p.payload.size() > ctx.resp.write_cursor->remaining()) {
        ctx.resp.in_write = false;
        ctx.resp.write_cursor.reset();
        refuse(e, q, psn, responder_fault::write_too_long);
        return;
    }
    if (const mem::copy_result r = ctx.resp.write_cursor->copy_to_host(guard, p.payload); !r.ok()) {
        ctx.resp.in_write = false;
        ctx.resp.write_cursor.reset();
        refuse(e, q, psn, responder_fault::write_refused);
        return;
    }
    ctx.resp.expected_psn = wire::psn_add(psn);
    if (p.info->ends_message()) {
        ctx.resp.in_write = false;
        const bool short_write = ctx.resp.write_cursor->remaining() != 0;
        ctx.resp.write_cursor.reset();
        if (short_write) {
            refuse(e, q, psn, responder_fault::write_too_short);
            return;
        }
        ctx.resp.msn = (ctx.resp.msn + 1) & wire::msn_mask;
        // A consumer may watch the written memory (no completion tells it here).
        e.note_data_placed();
    }
    if (p.headers.bth.ack_req) {
        schedule_ack(e, q, psn);
    }
}

// Serves a READ request whose first response PSN is `psn`; `replay` for a duplicate request
// (the responses are sent again, the responder's state does not move).
void on_read(engine& e, core::qp& q, const wire::decoded_packet& p, bool replay) {
    qp_context& ctx = context_of(q);
    const std::uint32_t psn = p.headers.bth.psn;
    const std::uint32_t mtu = e.hw().mtu();
    const std::uint64_t length = p.headers.reth.dma_length;
    const auto packets = length == 0 ? 1U : static_cast<std::uint32_t>((length + mtu - 1) / mtu);
    // Responder resources for RDMA READ (IBA vol. 1 9.7.5.1 and 9.7.5.2): a READ holds one
    // from its arrival until its last response has left the port, and at most the negotiated
    // inbound read limit (IRD) are held at once. A requester may not have more reads
    // outstanding than that (its ORD is capped by the peer's IRD at connection, REFERENCE.md
    // section 9), and it sees a read's last response only after it left, so a peer that keeps
    // the limit never finds them taken.
    read_slots& slots = replay ? ctx.resp.replayed_reads : ctx.resp.reads;
    if (!slots.available(e.dev().sched().now(), ctx.ird)) {
        if (replay) {
            // A duplicate (counted as one) beyond the limit: a retry whose earlier copies are
            // still being answered, or a peer replaying reads to have them answered without
            // end. Dropped quietly; a requester that lost the responses asks again on its timer.
            return;
        }
        // A new READ beyond the resources negotiated: NAK Invalid Request, a class C error that
        // ends the connection (IBA vol. 1 9.7.5.2; rxe's RESPST_ERR_TOO_MANY_RDMA_ATM_REQ).
        // Answering it anyway would let a peer that ignores the limit make this adapter send
        // any number of responses for a few small requests.
        NDKSIM_DEBUG("{}: READ at PSN {:#x} beyond the inbound read limit {}", q.ident(), psn,
                     ctx.ird);
        refuse(e, q, psn, responder_fault::read_beyond_ird);
        return;
    }
    mem::translation_unit& memory = e.dev().memory();
    const mem::sge source{p.headers.reth.va, p.headers.reth.dma_length, p.headers.reth.rkey};
    mem::sge_cursor cursor(memory, q.memory_pd(), mem::access_op::remote_read,
                           std::span<const mem::sge>(&source, 1));
    const mem::read_guard guard = memory.read();
    if (const mem::copy_result r = cursor.validate(guard); !r.ok()) {
        NDKSIM_DEBUG("{}: read of {:#x}+{} token {:#x} refused: {}", q.ident(), source.address,
                     source.length, source.token, mem::fault_name(r.failed));
        refuse(e, q, psn, responder_fault::read_refused);
        return;
    }
    if (!replay) {
        ctx.resp.msn = (ctx.resp.msn + 1) & wire::msn_mask;
        ctx.resp.expected_psn = wire::psn_add(psn, packets);
    }
    const timing::sim_time now = e.dev().sched().now();
    for (std::uint32_t i = 0; i < packets; ++i) {
        const std::uint64_t offset = static_cast<std::uint64_t>(i) * mtu;
        const std::size_t chunk =
            static_cast<std::size_t>(std::min<std::uint64_t>(mtu, length - offset));
        wire::packet_headers h;
        h.bth.op = packets == 1       ? opcode::rc_read_response_only
                   : i == 0           ? opcode::rc_read_response_first
                   : i + 1 == packets ? opcode::rc_read_response_last
                                      : opcode::rc_read_response_middle;
        h.bth.psn = wire::psn_add(psn, i);
        h.aeth.syndrome = wire::ack_syndrome();
        h.aeth.msn = ctx.resp.msn;
        send_packet(e, q, h, chunk, e.hw().read_response_ready(now, offset, chunk, length),
                    [&](std::span<std::byte> payload) {
                        return cursor.copy_from_host(guard, payload).ok();
                    });
    }
    slots.hold(e.hw().port_free_at());
}

}  // namespace

void on_request(engine& e, core::qp& q, const wire::decoded_packet& p) {
    qp_context& ctx = context_of(q);
    const std::uint32_t psn = p.headers.bth.psn;
    const std::int32_t distance = wire::psn_diff(psn, ctx.resp.expected_psn);
    if (distance < 0) {
        // A duplicate: the requester resent it because an ACK or a response was lost or
        // late. Nothing is placed twice.
        e.counters().duplicate_packets.fetch_add(1, std::memory_order_relaxed);
        if (p.info->cls == wire::op_class::read_request) {
            on_read(e, q, p, true);
        } else if (p.headers.bth.ack_req) {
            // Re-acknowledged (the ACK was lost or is late), coalesced like any other.
            schedule_ack(e, q, wire::psn_add(ctx.resp.expected_psn, wire::psn_mask));
        }
        return;
    }
    if (distance > 0) {
        e.counters().out_of_sequence_packets.fetch_add(1, std::memory_order_relaxed);
        if (!ctx.resp.nak_outstanding) {
            ctx.resp.nak_outstanding = true;
            refuse(e, q, ctx.resp.expected_psn, responder_fault::psn_sequence_error);
        }
        return;
    }
    ctx.resp.nak_outstanding = false;
    // A packet never carries more than the path MTU (IBA 9.7.7 "packet length"): a longer one
    // is malformed, refused before any byte of it is placed.
    if (p.payload.size() > e.hw().mtu()) {
        refuse(e, q, psn, responder_fault::packet_too_long);
        return;
    }
    // Opcode sequence: a middle or last packet continues the message in progress, of the same
    // class; a first or only packet never interrupts one.
    const bool continuing = ctx.resp.in_send || ctx.resp.in_write;
    const bool same_class = (p.info->cls == wire::op_class::send && ctx.resp.in_send) ||
                            (p.info->cls == wire::op_class::write && ctx.resp.in_write);
    if (p.info->starts_message() == continuing || (continuing && !same_class)) {
        refuse(e, q, psn, responder_fault::opcode_sequence);
        return;
    }
    switch (p.info->cls) {
        case wire::op_class::send:
            on_send(e, q, p);
            break;
        case wire::op_class::write:
            on_write(e, q, p);
            break;
        case wire::op_class::read_request:
            on_read(e, q, p, false);
            break;
        default:
            // Atomics are not part of NDKPI.
            refuse(e, q, psn, responder_fault::unsupported_opcode);
            break;
    }
}

void send_pending_ack(engine& e, core::qp& q) {
    flush_ack(e, q);
}

void send_ack(engine& e, core::qp& q, std::uint32_t psn, std::uint8_t syndrome) {
    qp_context& ctx = context_of(q);
    wire::packet_headers h;
    h.bth.op = opcode::rc_ack;
    h.bth.psn = psn;
    h.aeth.syndrome = syndrome;
    h.aeth.msn = ctx.resp.msn;
    if (wire::syndrome_type(syndrome) == wire::aeth_type::ack) {
        util::single_writer_add(e.counters().acks_sent);
    }
    send_packet(e, q, h, e.hw().immediate_ack_ready(e.dev().sched().now()));
}

}  // namespace ndksim::nic
